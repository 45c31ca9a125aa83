// The kit's build: a content digest of the files the kit runs from, beside its version. Two builds of one version (a
// checkout with local edits, a patched install) judge differently, so shards of two builds must not be merged as one
// run (report/merge.ts compares it); every report records it.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { compiledKit, repoRoot } from './config.ts';

/** The folders of the kit's tree that make up what it runs (sources in a checkout, dist/ in an install). */
const KIT_FOLDERS = ['cli', 'client', 'entries', 'fixtures', 'judge', 'mock', 'proxy', 'report', 'run', 'spec', 'suites'] as const;

/** What in those folders is code or data the kit reads (not a bench's build output, not an editor's file). */
const KIT_FILE = /\.(?:[cm]?[jt]s|json|ya?ml|css|html|md)$/;

let cached: string | undefined;

/**
 * `sha256:<hex>` over every file of the kit's tree (its path relative to the root, then its bytes, in path order)
 * and its package.json: the same for every copy of one build, different as soon as one file differs. Read once per
 * process (a few MB, tens of milliseconds).
 */
export function kitBuild(root: string = repoRoot): string {
  if (cached !== undefined && root === repoRoot) return cached;
  const files: string[] = [];
  const stack: string[] = KIT_FOLDERS.map((f) => path.join(root, f));
  while (stack.length > 0) {
    const dir = stack.pop()!;
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const e of entries) {
      if (e.name.startsWith('.') || e.name === 'node_modules') continue;
      const full = path.join(dir, e.name);
      if (e.isDirectory()) stack.push(full);
      else if (e.isFile() && KIT_FILE.test(e.name)) files.push(full);
    }
  }
  const hash = createHash('sha256');
  const pkg = path.join(compiledKit && root === repoRoot ? path.dirname(root) : root, 'package.json');
  for (const file of [pkg, ...files.sort()]) {
    let bytes: Buffer;
    try {
      bytes = readFileSync(file);
    } catch {
      continue;
    }
    hash.update(`${path.relative(root, file).split(path.sep).join('/')}\0${bytes.length}\0`);
    hash.update(bytes);
  }
  const digest = `sha256:${hash.digest('hex')}`;
  if (root === repoRoot) cached = digest;
  return digest;
}

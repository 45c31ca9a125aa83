// `--list`, and the check that a partial run runs something: Playwright's own listing of the suite
// (`--list`, through the listing reporter suites/list-reporter.ts) under the run's environment, so the selection (run/selection.ts,
// tags and files) is applied exactly as the run applies it; each test's `req(...)` annotations name its IDs.
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileLines, LIST_FILE_ENV, type ListedLine } from '../run/suite-listing.ts';
import { CONFORMANCE_CONFIG, EXT, KIT_ROOT, playwrightCli } from './kit-files.ts';

/** The listing reporter (suites/list-reporter.ts), named by its path: the CLI never imports the suite. */
const LIST_REPORTER = path.join(KIT_ROOT, `suites/list-reporter${EXT}`);

export interface ListedTest {
  /** Path of the test file relative to the suite folder, as Playwright reports it (through source maps). */
  file: string;
  line: number;
  title: string;
  /** The requirement IDs the test declares. */
  ids: string[];
}

/**
 * Every test of the suite, with its declared requirements, as Playwright lists them (no target is contacted), through
 * the listing reporter (suites/list-reporter.ts): a line per test in a scratch file, read a piece at a time. No buffer
 * holds the whole listing (a 1,000-model matrix lists some 100,000 tests).
 */
export function listSuite(env: NodeJS.ProcessEnv = process.env, filters: readonly string[] = []): ListedTest[] {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'chatconform-list-'));
  const file = path.join(dir, 'listing.jsonl');
  try {
    const errors = path.join(dir, 'stderr.txt');
    const fd = openSync(errors, 'w');
    let listed: ReturnType<typeof spawnSync>;
    try {
      // Neither output is held in memory: stdout is not kept, stderr goes to a file whose first line says a failure.
      listed = spawnSync(process.execPath, [playwrightCli(), 'test', '-c', CONFORMANCE_CONFIG, '--list', `--reporter=${LIST_REPORTER}`, ...filters], {
        env: { ...env, FORCE_COLOR: '0', [LIST_FILE_ENV]: file },
        stdio: ['ignore', 'ignore', fd],
      });
    } finally {
      closeSync(fd);
    }
    // A listing that finds no test exits 1, with its (empty) file all the same.
    if (!existsSync(file)) {
      const first = fileLines(errors).next();
      const why = listed.error?.message ?? (first.done ? '' : first.value.trim().slice(0, 500));
      throw new Error(`listing the suite failed: ${why || `exit ${listed.status}`}`);
    }
    // One entry per test, in the order listed; the same test of several projects once, its IDs joined.
    const byKey = new Map<string, ListedTest>();
    for (const text of fileLines(file)) {
      if (text === '') continue;
      const l = JSON.parse(text) as ListedLine;
      const title = l.titles.join(' › ');
      const key = `${l.file}\u0000${l.line}\u0000${title}`;
      const known = byKey.get(key);
      if (known) known.ids = [...new Set([...known.ids, ...l.ids])];
      else byKey.set(key, { file: l.file, line: l.line, title, ids: l.ids });
    }
    return [...byKey.values()];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export function formatListing(tests: readonly ListedTest[]): string {
  const lines = tests.map((t) => `${t.file}:${t.line}  ${t.title}${t.ids.length > 0 ? `  [${t.ids.join(', ')}]` : ''}`);
  return `${lines.join('\n')}${lines.length > 0 ? '\n' : ''}${tests.length} test${tests.length === 1 ? '' : 's'} in ${new Set(tests.map((t) => t.file)).size} file(s)\n`;
}

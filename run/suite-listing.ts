// Playwright's own listing of a suite (`--list`, no target contacted) under a run's environment: each test's file,
// line, title path, declared requirement IDs, declared judge entry points and tags. The listing reporter
// (suites/list-reporter.ts) writes one JSON line per test to a scratch file, read here a MiB at a time: no buffer holds
// the whole listing (a 1,000-model matrix lists some 100,000 tests). The one reader of it: `run --list` and the check
// that a partial run runs something (cli/selection.ts), the suite's index (scripts/test-index.ts) and the project's
// tests.
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { repoRoot } from './kit-paths.ts';

/** The variable naming the file the listing reporter writes. */
export const LIST_FILE_ENV = 'CHATCONFORM_LIST_FILE';

/** One listed test as the listing reporter writes it. */
export interface ListedLine {
  /** Path of the test file relative to the config's root (the suite folder). */
  file: string;
  line: number;
  /** The describe titles and the test's own title, outermost first (an untitled block left out). */
  titles: string[];
  /** The requirement IDs the test declares (req()). */
  ids: string[];
  /** The judge entry points the test declares (judges()), by name. */
  judges: string[];
  /** Its tags, with their "@". */
  tags: string[];
  /** Every annotation of the test, as listed. */
  annotations: { type: string; description?: string }[];
}

export interface ListedTest extends ListedLine {
  /** Describe titles and the test's, joined with " › ". */
  title: string;
}

/** Where Playwright's CLI and the suite's config are. */
export interface ListingSetup {
  playwrightCli: string;
  config: string;
}

/** The listing reporter, by its path (this layer never imports the suite), in the kit's own extension. */
const LIST_REPORTER = path.join(repoRoot, `suites/list-reporter${path.extname(fileURLToPath(import.meta.url))}`);

/** Each line of a file, read a MiB at a time (a line longer than the rest of the file is still one line). */
export function* fileLines(file: string): Generator<string> {
  const fd = openSync(file, 'r');
  try {
    const buf = Buffer.allocUnsafe(1024 * 1024);
    let rest: Buffer[] = [];
    for (;;) {
      const n = readSync(fd, buf, 0, buf.length, null);
      if (n === 0) break;
      let start = 0;
      for (let nl = buf.indexOf(10, 0); nl >= 0 && nl < n; nl = buf.indexOf(10, start)) {
        yield Buffer.concat([...rest, buf.subarray(start, nl)]).toString('utf8');
        rest = [];
        start = nl + 1;
      }
      if (start < n) rest.push(Buffer.from(buf.subarray(start, n)));
    }
    if (rest.length > 0) yield Buffer.concat(rest).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

/** Every test of the suite, as Playwright lists them (no target is contacted); `filters` are further runner arguments. */
export function listSuite(setup: ListingSetup, env: NodeJS.ProcessEnv = process.env, filters: readonly string[] = []): ListedTest[] {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'chatconform-list-'));
  const file = path.join(dir, 'listing.jsonl');
  try {
    const errors = path.join(dir, 'stderr.txt');
    const fd = openSync(errors, 'w');
    let listed: ReturnType<typeof spawnSync>;
    try {
      // Neither output is held in memory: stdout is not kept, stderr goes to a file whose first line says a failure.
      listed = spawnSync(process.execPath, [setup.playwrightCli, 'test', '-c', setup.config, '--list', `--reporter=${LIST_REPORTER}`, ...filters], {
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
      else byKey.set(key, { ...l, title });
    }
    return [...byKey.values()];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// Playwright's own listing of the conformance suite (`--list --reporter=json`), under a run's environment: each test's
// file, line, title path, declared requirement IDs, declared judge entry points and tags. The one reader of it: `run
// --list` and the check that a partial run runs something (cli/selection.ts), the suite's index (scripts/test-index.ts)
// and the project's tests read it here.
import { execFileSync } from 'node:child_process';
import { REQUIREMENT_ANNOTATION } from '../judge/checker.ts';
import { JUDGE_ANNOTATION } from '../judge/entry.ts';

export interface ListedTest {
  /** Path of the test file relative to the suite folder, as Playwright reports it (through source maps). */
  file: string;
  line: number;
  /** The describe titles and the test's own title, outermost first. */
  titles: string[];
  /** Describe titles and the test's, joined with " › ". */
  title: string;
  /** The requirement IDs the test declares (req()). */
  ids: string[];
  /** The judge entry points the test declares (judges()), by name. */
  judges: string[];
  /** Its tags, with their "@". */
  tags: string[];
  /** Every annotation of the test, as listed. */
  annotations: { type: string; description?: string }[];
}

interface ListedSuite {
  title?: string;
  specs?: { title: string; file: string; line: number; tags?: string[]; tests: { annotations?: { type: string; description?: string }[] }[] }[];
  suites?: ListedSuite[];
}

/** Where Playwright's CLI and the suite's config are. */
export interface ListingSetup {
  playwrightCli: string;
  config: string;
}

const described = (annotations: readonly { type: string; description?: string }[], type: string): string[] => [...new Set(annotations.filter((a) => a.type === type && a.description).map((a) => a.description!))];

/** Every test of the suite, as Playwright lists them (no target is contacted); `filters` are further runner arguments. */
export function listSuite(setup: ListingSetup, env: NodeJS.ProcessEnv = process.env, filters: readonly string[] = []): ListedTest[] {
  let out: string;
  try {
    out = execFileSync(process.execPath, [setup.playwrightCli, 'test', '-c', setup.config, '--list', '--reporter=json', ...filters], {
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
      env: { ...env, FORCE_COLOR: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  } catch (err) {
    // A listing that finds no test exits 1, with its (empty) JSON all the same.
    const e = err as { stdout?: string; stderr?: string; message: string };
    if (!e.stdout?.trimStart().startsWith('{')) throw new Error(`listing the suite failed: ${(e.stderr || e.stdout || e.message).trim().split('\n')[0]}`);
    out = e.stdout;
  }
  const report = JSON.parse(out) as { suites?: ListedSuite[]; errors?: { message?: string }[] };
  if (report.errors && report.errors.length > 0) throw new Error(`listing the suite failed: ${(report.errors[0]?.message ?? '').split('\n')[0]}`);
  const tests: ListedTest[] = [];
  const walk = (suite: ListedSuite, describe: string[]) => {
    for (const spec of suite.specs ?? []) {
      const annotations = spec.tests.flatMap((t) => t.annotations ?? []);
      const titles = [...describe, spec.title];
      tests.push({ file: spec.file, line: spec.line, titles, title: titles.join(' › '), ids: described(annotations, REQUIREMENT_ANNOTATION), judges: described(annotations, JUDGE_ANNOTATION), tags: (spec.tags ?? []).map((t) => (t.startsWith('@') ? t : `@${t}`)), annotations });
    }
    for (const child of suite.suites ?? []) walk(child, [...describe, child.title ?? '']);
  };
  // The top-level suites are the files; the ones below them are describe blocks, part of a test's full title.
  for (const file of report.suites ?? []) walk(file, []);
  return tests;
}

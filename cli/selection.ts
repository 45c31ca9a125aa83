// `--list`, and the check that a partial run runs something: Playwright's own listing of the suite
// (`--list --reporter=json`) under the run's environment, so the selection (run/selection.ts,
// tags and files) is applied exactly as the run applies it; each test's `req(...)` annotations name its IDs.
import { execFileSync } from 'node:child_process';
import { REQUIREMENT_ANNOTATION } from '../judge/checker.ts';
import { CONFORMANCE_CONFIG, playwrightCli } from './kit-files.ts';

export interface ListedTest {
  /** Path of the test file relative to the suite folder, as Playwright reports it (through source maps). */
  file: string;
  line: number;
  title: string;
  /** The requirement IDs the test declares. */
  ids: string[];
}

interface ListedSuite {
  title?: string;
  specs?: { title: string; file: string; line: number; tests: { annotations?: { type: string; description?: string }[] }[] }[];
  suites?: ListedSuite[];
}

/** Every test of the suite, with its declared requirements, as Playwright lists them (no target is contacted). */
export function listSuite(env: NodeJS.ProcessEnv = process.env, filters: readonly string[] = []): ListedTest[] {
  let out: string;
  try {
    out = execFileSync(process.execPath, [playwrightCli(), 'test', '-c', CONFORMANCE_CONFIG, '--list', '--reporter=json', ...filters], {
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
  const report = JSON.parse(out) as { suites?: ListedSuite[] };
  const tests: ListedTest[] = [];
  const walk = (suite: ListedSuite, describe: string[]) => {
    for (const spec of suite.specs ?? []) {
      const ids = [...new Set(spec.tests.flatMap((t) => (t.annotations ?? []).filter((a) => a.type === REQUIREMENT_ANNOTATION && a.description).map((a) => a.description!)))];
      tests.push({ file: spec.file, line: spec.line, title: [...describe, spec.title].join(' › '), ids });
    }
    // An anonymous block (the slot of a run of one target: run/slots.ts) is no part of a title.
    for (const child of suite.suites ?? []) walk(child, child.title ? [...describe, child.title] : describe);
  };
  // The top-level suites are the files; the ones below them are describe blocks, part of a test's full title.
  for (const file of report.suites ?? []) walk(file, []);
  return tests;
}

export function formatListing(tests: readonly ListedTest[]): string {
  const lines = tests.map((t) => `${t.file}:${t.line}  ${t.title}${t.ids.length > 0 ? `  [${t.ids.join(', ')}]` : ''}`);
  return `${lines.join('\n')}${lines.length > 0 ? '\n' : ''}${tests.length} test${tests.length === 1 ? '' : 's'} in ${new Set(tests.map((t) => t.file)).size} file(s)\n`;
}

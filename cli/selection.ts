// Which tests a subset run runs (`--requirement`, `--section`, `--grep`) and `--list`. Read from Playwright's
// own listing of the suite (`--list --reporter=json`): each test's `req(...)` annotations name the requirements
// it declares, so the mapping is the suite itself, in the repository and in the installed package alike.
import { execFileSync } from 'node:child_process';
import { isKnownRequirement, primaryOf, requirements } from '../spec/requirements/index.ts';
import { CATALOG_IDS, COMPLETION_IDS, REFUSAL_IDS, STREAM_IDS } from '../suites/checks/registry.ts';
import { REQUIREMENT_ANNOTATION } from '../suites/lib/check.ts';
import { CONFORMANCE_CONFIG, playwrightCli } from './kit-files.ts';
import { UsageError } from './usage.ts';

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
    for (const child of suite.suites ?? []) walk(child, [...describe, child.title ?? '']);
  };
  // The top-level suites are the files; the ones below them are describe blocks, part of a test's full title.
  for (const file of report.suites ?? []) walk(file, []);
  return tests;
}

/**
 * A requirement that a registered check judges on every response of a kind (suites/checks/registry.ts) needs no
 * test to declare it. Its tests are then the ones that obtain responses of that kind, named by a requirement
 * they all declare.
 */
const KIND_ANCHORS: readonly { ids: ReadonlySet<string>; anchor: string; kind: string }[] = [
  { ids: new Set(COMPLETION_IDS), anchor: 'REQ-001', kind: 'a completion' },
  { ids: new Set(STREAM_IDS), anchor: 'REQ-005', kind: 'a stream' },
  { ids: new Set(REFUSAL_IDS), anchor: 'OBS-024', kind: 'a refusal' },
  { ids: new Set(CATALOG_IDS), anchor: 'CAT-031', kind: 'the model list' },
];

/** The requirement IDs of the sections asked for ("6" takes 6 and 6.x; "2.7" takes 2.7). */
export function idsOfSections(sections: readonly string[]): string[] {
  const known = new Set(requirements.map((r) => r.section));
  for (const s of sections) {
    if (!/^[1-9](\.\d+)?$/.test(s)) throw new UsageError(`--section ${s}: expected a section number such as 6 or 2.7`);
    if (![...known].some((k) => k === s || k.startsWith(`${s}.`))) throw new UsageError(`--section ${s}: no requirement of the catalog is in that section`);
  }
  return requirements.filter((r) => sections.some((s) => r.section === s || r.section.startsWith(`${s}.`))).map((r) => r.id);
}

export function checkIds(ids: readonly string[]): void {
  const unknown = ids.filter((id) => !isKnownRequirement(id));
  if (unknown.length > 0) throw new UsageError(`unknown requirement ID ${unknown.join(', ')}; chatconform requirements lists them`);
}

/** The tests that judge any of `ids`: those declaring it (or its primary record), and for a check-judged one, its kind's tests. */
export function testsFor(ids: readonly string[], suite: readonly ListedTest[]): ListedTest[] {
  const wanted = new Set(ids.map(primaryOf));
  const anchors = new Set(KIND_ANCHORS.filter((k) => [...wanted].some((id) => k.ids.has(id))).map((k) => k.anchor));
  return suite.filter((t) => t.ids.some((id) => wanted.has(id) || anchors.has(id)));
}

/**
 * A Playwright --grep that matches exactly these tests: Playwright matches it against the test's title path
 * (project, file, describe blocks, title) joined by spaces, so each alternative is the describe blocks and the
 * title, anchored at the end. Test files are not passed as filters: the compiled suite's listing names the
 * TypeScript sources its source maps point to, not the files Playwright loads.
 */
export function grepFor(tests: readonly ListedTest[]): string {
  const titles = [...new Set(tests.map((t) => t.title.split(' › ').join(' ')))];
  return `(?:${titles.map(escapeRegExp).join('|')})$`;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

/** The tests whose full title (file, describe blocks, title) the caller's --grep matches, as Playwright matches it. */
export function matching(tests: readonly ListedTest[], grep: RegExp): ListedTest[] {
  return tests.filter((t) => grep.test([t.file, ...t.title.split(' › ')].join(' ')));
}

export function formatListing(tests: readonly ListedTest[]): string {
  const lines = tests.map((t) => `${t.file}:${t.line}  ${t.title}${t.ids.length > 0 ? `  [${t.ids.join(', ')}]` : ''}`);
  return `${lines.join('\n')}${lines.length > 0 ? '\n' : ''}${tests.length} test${tests.length === 1 ? '' : 's'} in ${new Set(tests.map((t) => t.file)).size} file(s)\n`;
}

// The installed kit is the tested kit: the same runs from the sources (cli/main.ts through tsx) and from the packed
// tarball installed in an empty project (support/installed-kit.ts) give the same report: the same tests (titles,
// files, lines, statuses), the same status for every requirement, the same verdict and models, the same exit code.
// Timings, the install's paths and the kit's build fields are left out. The runs: a --models matrix of three
// models, a defect mock judged with --reference beside a clean one, a targets file of two mocks, and --last-failed
// after a failing matrix run. Each pair runs against fresh mocks of the same kind, one after the other, with a
// fixed seed; a selection keeps each run short. A failure lists what differs.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { MOCK_KEYS } from '../../mock/keys-and-models.ts';
import { chatconformCommand, runProcess, type KitSource } from './support/cli-process.ts';
import { sharedInstalledKit, type InstalledKit } from './support/installed-kit.ts';
import { withMocks } from './support/use-mock.ts';

const BOUND_MS = 300_000;
const MODELS = 'acme/chat-small,reason-pro,mini-chat';
/** The tests of returned tool calls, streamed ones among them: where `stream-no-done` (no [DONE] after a streamed tool call) fails STREAM-004. */
const TOOL_CALLS = ['--requirement', 'TOOL-009'];

/** What two runs must share: no timing, no path, no build field. */
export interface ReportView {
  exitCode: number | null;
  verdict: string;
  /** Every test the requirements name, as `file:line title [status]`, sorted; ` ×N` for a test the run ran N times. */
  tests: string[];
  testCounts: string;
  /** Requirement ID → status. */
  requirements: Record<string, string>;
  /** One line per model row of a --models run. */
  models: string[];
  /** The tests a rerun took from the report it reran. */
  rerunOf: string[];
}

interface Report {
  verdict: { result: string; exitCode: number; mustFailed: string[] };
  run: { tests: Record<string, number>; rerunOf?: { tests: { file: string; line: number; title: string }[] } };
  requirements: { id: string; status: string; tests: { title: string; file: string; line: number; status: string }[] }[];
  failedTests: { title: string; file?: string; line?: number }[];
  models?: { id: string; verdict: string; mustFailed: string[]; tests: { total: number } }[];
}

export function viewOf(report: Report | undefined, exitCode: number | null): ReportView {
  if (!report) return { exitCode, verdict: '(no conformance.json)', tests: [], testCounts: '', requirements: {}, models: [], rerunOf: [] };
  // A test that declares several requirements is listed under each, and once per time it ran: count its runs under
  // one requirement, the most under any.
  const tests = new Map<string, number>();
  for (const r of report.requirements) {
    const runs = new Map<string, number>();
    for (const t of r.tests) runs.set(`${t.file}:${t.line} ${t.title} [${t.status}]`, (runs.get(`${t.file}:${t.line} ${t.title} [${t.status}]`) ?? 0) + 1);
    for (const [s, n] of runs) tests.set(s, Math.max(tests.get(s) ?? 0, n));
  }
  const counts = Object.entries(report.run.tests)
    .filter(([, n]) => n > 0)
    .map(([k, n]) => `${k} ${n}`)
    .join(', ');
  return {
    exitCode,
    verdict: `${report.verdict.result} exit ${report.verdict.exitCode} mustFailed [${[...report.verdict.mustFailed].sort().join(', ')}]`,
    tests: [...tests].map(([s, n]) => (n > 1 ? `${s} ×${n}` : s)).sort(),
    testCounts: counts,
    requirements: Object.fromEntries(report.requirements.map((r) => [r.id, r.status])),
    models: (report.models ?? []).map((m) => `${m.id}: ${m.verdict}, ${m.tests.total} tests, mustFailed [${m.mustFailed.join(', ')}]`),
    rerunOf: (report.run.rerunOf?.tests ?? []).map((t) => `${t.file}:${t.line} ${t.title}`).sort(),
  };
}

/** What differs between the sources' view and the installed kit's, one line each (lists cut at `max` items). */
export function differences(sources: ReportView, installed: ReportView, max = 8): string[] {
  const out: string[] = [];
  const some = (items: string[]) => items.slice(0, max).map((s) => `\n    ${s}`).join('') + (items.length > max ? `\n    … and ${items.length - max} more` : '');
  if (sources.exitCode !== installed.exitCode) out.push(`exit code: sources ${sources.exitCode}, installed ${installed.exitCode}`);
  if (sources.verdict !== installed.verdict) out.push(`verdict: sources ${sources.verdict}; installed ${installed.verdict}`);
  if (sources.testCounts !== installed.testCounts) out.push(`tests run: sources ${sources.testCounts || 'none'}; installed ${installed.testCounts || 'none'}`);
  const only = (a: string[], b: string[]) => a.filter((x) => !b.includes(x));
  for (const [what, a, b] of [
    ['tests', sources.tests, installed.tests],
    ['tests rerun', sources.rerunOf, installed.rerunOf],
    ['model rows', sources.models, installed.models],
  ] as const) {
    const fromSources = only(a, b);
    const fromInstalled = only(b, a);
    if (fromSources.length) out.push(`${what} only from the sources (${fromSources.length} of ${a.length}):${some(fromSources)}`);
    if (fromInstalled.length) out.push(`${what} only from the installed kit (${fromInstalled.length} of ${b.length}):${some(fromInstalled)}`);
  }
  const ids = [...new Set([...Object.keys(sources.requirements), ...Object.keys(installed.requirements)])].sort();
  const changed = ids.filter((id) => sources.requirements[id] !== installed.requirements[id]).map((id) => `${id}: sources ${sources.requirements[id] ?? '-'}, installed ${installed.requirements[id] ?? '-'}`);
  if (changed.length) out.push(`requirement statuses that differ (${changed.length}):${some(changed)}`);
  return out;
}

const dirs: string[] = [];
const tempDir = (label: string) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), `chatconform-parity-${label}-`));
  dirs.push(dir);
  return dir;
};
const reportIn = (dir: string): Report | undefined => {
  try {
    return JSON.parse(readFileSync(path.join(dir, 'conformance.json'), 'utf8')) as Report;
  } catch {
    return undefined;
  }
};

/** This process's environment without any run setting, the mock's full key for the target and the reference. */
function env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const own = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('CONFORMANCE_')));
  return { ...own, CI: '1', CONFORMANCE_API_KEY: MOCK_KEYS.full, CONFORMANCE_REFERENCE_API_KEY: MOCK_KEYS.full, ...extra };
}

async function chatconform(kit: KitSource, args: string[], extraEnv: Record<string, string> = {}) {
  return runProcess(...chatconformCommand(args, { kit }), { boundMs: BOUND_MS, env: env(extraEnv), keepChars: 200_000 });
}

/** The two views equal, or a failure (soft: every comparison of a test is reported) saying what differs. */
function expectSame(label: string, sources: ReportView, installed: ReportView, tails: { sources: string; installed: string }) {
  const diff = differences(sources, installed);
  const message = `${label}: the installed kit's report differs from the sources'\n  ${diff.join('\n  ')}\n--- sources' output (tail)\n${tails.sources}\n--- installed kit's output (tail)\n${tails.installed}`;
  expect.soft(diff, message).toEqual([]);
}

let installed: InstalledKit;
const kits = (): [label: 'sources' | 'installed', kit: KitSource][] => [
  ['sources', 'sources'],
  ['installed', installed],
];

test.beforeAll(async () => {
  test.setTimeout(900_000);
  installed = await sharedInstalledKit();
});
test.afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

test('--models over three models of the mock: the same tests (each model-independent test once), locations and verdict', async () => {
  test.setTimeout(2 * BOUND_MS + 60_000);
  const views: Record<string, ReportView> = {};
  const tails: Record<string, string> = {};
  for (const [label, kit] of kits()) {
    const dir = tempDir(`models-${label}`);
    const r = await chatconform(kit, ['run', '--models', MODELS, '--seed', '1', '--section', '4.1,6', '--report-dir', dir]);
    views[label] = viewOf(reportIn(dir), r.code);
    tails[label] = r.output.slice(-1500);
  }
  expectSame('run --models', views.sources!, views.installed!, { sources: tails.sources!, installed: tails.installed! });
});

test('--reference: a defect mock beside a clean one gives the same report, reference included', async () => {
  test.setTimeout(2 * BOUND_MS + 60_000);
  const views: Record<string, ReportView> = {};
  const tails: Record<string, string> = {};
  for (const [label, kit] of kits()) {
    const dir = tempDir(`reference-${label}`);
    const r = await withMocks(['stream-no-done', undefined], ([broken, clean]) =>
      chatconform(kit, ['run', '--base-url', broken!.url, '--profile', 'mock', '--reference', clean!.url, '--reference-profile', 'mock', '--seed', '1', ...TOOL_CALLS, '--report-dir', dir]),
    );
    views[label] = viewOf(reportIn(dir), r.code);
    views[`${label} reference`] = viewOf(reportIn(path.join(dir, 'reference')), r.code);
    tails[label] = r.output.slice(-1500);
  }
  expect(views.sources!.requirements['STREAM-004'], 'the defect is seen from the sources').toBe('fail');
  expectSame('run --reference', views.sources!, views.installed!, { sources: tails.sources!, installed: tails.installed! });
  expectSame('run --reference (the reference report)', views['sources reference']!, views['installed reference']!, { sources: tails.sources!, installed: tails.installed! });
});

test('a targets file of two mocks (one with a defect): the same report for each target, the same exit code', async () => {
  test.setTimeout(2 * BOUND_MS + 60_000);
  const views: Record<string, ReportView> = {};
  const tails: Record<string, string> = {};
  for (const [label, kit] of kits()) {
    const dir = tempDir(`targets-${label}`);
    const r = await withMocks([undefined, 'stream-no-done'], ([clean, broken]) => {
      const file = path.join(dir, 'targets.json');
      writeFileSync(
        file,
        JSON.stringify([
          { name: 'clean', baseUrl: clean!.url, profile: 'mock', apiKey: MOCK_KEYS.full },
          { name: 'broken', baseUrl: broken!.url, profile: 'mock', apiKey: MOCK_KEYS.full },
        ]),
      );
      return chatconform(kit, ['run', '--seed', '1', ...TOOL_CALLS, '--report-dir', path.join(dir, 'reports')], { CONFORMANCE_TARGETS_FILE: file });
    });
    // A report per target (none for the run as a whole), each with the run's exit code.
    for (const name of ['clean', 'broken']) views[`${label} ${name}`] = viewOf(reportIn(path.join(dir, 'reports', 'targets', name)), r.code);
    tails[label] = r.output.slice(-1500);
  }
  expect(views['sources broken']!.requirements['STREAM-004'], 'the defect is seen from the sources').toBe('fail');
  for (const name of ['clean', 'broken']) {
    expectSame(`targets file (target ${name})`, views[`sources ${name}`]!, views[`installed ${name}`]!, { sources: tails.sources!, installed: tails.installed! });
  }
});

test('--last-failed after a failing --models run: the same tests rerun, the same report', async () => {
  test.setTimeout(4 * BOUND_MS + 60_000);
  const views: Record<string, ReportView> = {};
  const tails: Record<string, string> = {};
  for (const [label, kit] of kits()) {
    const dir = tempDir(`rerun-${label}`);
    await withMocks(['stream-no-done'], async ([broken]) => {
      const base = ['run', '--base-url', broken!.url, '--profile', 'mock', '--report-dir', dir];
      // The tools tests of every model fail STREAM-004.
      const first = await chatconform(kit, [...base, '--models', MODELS, '--seed', '7', ...TOOL_CALLS]);
      views[`${label} first`] = viewOf(reportIn(dir), first.code);
      const again = await chatconform(kit, [...base, '--last-failed']);
      views[label] = viewOf(reportIn(path.join(dir, 'rerun')), again.code);
      tails[label] = `${first.output.slice(-800)}\n…\n${again.output.slice(-1200)}`;
    });
  }
  expect(views['sources first']!.exitCode, 'the first run fails from the sources').toBe(1);
  expectSame('the failing --models run', views['sources first']!, views['installed first']!, { sources: tails.sources!, installed: tails.installed! });
  expectSame('run --last-failed', views.sources!, views.installed!, { sources: tails.sources!, installed: tails.installed! });
});

test('the comparison itself: it names a changed exit code, verdict, test location and requirement status', () => {
  const report = (file: string, status: string, code: number): Report => ({
    verdict: { result: code ? 'fail' : 'pass', exitCode: code, mustFailed: code ? ['CAT-001'] : [] },
    run: { tests: { total: 1, passed: code ? 0 : 1, failed: code ? 1 : 0 } },
    requirements: [{ id: 'CAT-001', status, tests: [{ title: 'lists', file, line: 12, status: code ? 'failed' : 'passed' }] }],
    failedTests: [],
  });
  expect(differences(viewOf(report('suites/catalog.spec.ts', 'pass', 0), 0), viewOf(report('suites/catalog.spec.ts', 'pass', 0), 0))).toEqual([]);
  const diff = differences(viewOf(report('suites/catalog.spec.ts', 'pass', 0), 0), viewOf(report('suites/lib/test-fixtures.ts', 'fail', 1), 3));
  expect(diff).toEqual([
    'exit code: sources 0, installed 3',
    'verdict: sources pass exit 0 mustFailed []; installed fail exit 1 mustFailed [CAT-001]',
    'tests run: sources total 1, passed 1; installed total 1, failed 1',
    'tests only from the sources (1 of 1):\n    suites/catalog.spec.ts:12 lists [passed]',
    'tests only from the installed kit (1 of 1):\n    suites/lib/test-fixtures.ts:12 lists [failed]',
    'requirement statuses that differ (1):\n    CAT-001: sources pass, installed fail',
  ]);
  expect(viewOf(undefined, 3)).toMatchObject({ exitCode: 3, verdict: '(no conformance.json)' });
});

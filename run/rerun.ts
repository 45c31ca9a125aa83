// --last-failed / --rerun FILE: run again the tests in which a requirement failed or could not be judged, as a report
// names them (each evidence item's test and location, the failed tests and the IDs charged to each), and every other
// test that can record one of those requirements (the suite's index, run/test-index.ts: what `--requirement` runs),
// so the rerun judges each requirement as the whole run does. A requirement a test does not declare can fail there
// (the checks of every stream judge [DONE] in the tools tests): the index holds that test too.
//
// The tests are handed to Playwright as a --test-list (file and full title, matched exactly; a `file:line` would
// also take the other tests a loop declares on that line). The rerun writes its reports to `rerun/` in the report
// dir, never over the report it reruns, and says in each of them which run it reran (run.rerunOf).
import path from 'node:path';
import { slotTitlesFor, type SlotSpace } from './slots.ts';
import { testsRecording, type TestIndex } from './test-index.ts';

/** The folder of the report dir a rerun writes to. */
export const RERUN_DIR = 'rerun';

/** The test list a rerun runs, beside its reports (Playwright's --test-list format). */
export const RERUN_TEST_LIST = 'tests.txt';

/** The statuses a rerun takes: the requirement failed, or the kit could not judge it. */
const RERUN_STATUSES: ReadonlySet<string> = new Set(['fail', 'error']);
/** The cases a rerun takes among a requirement's: those that found a failure (an error names it) or did not finish. */
const endedBadly = (t: { status: string; error?: string }) => t.status === 'unfinished' || t.error !== undefined;

/** What a rerun reads of a conformance.json (report/json.ts has the whole; this layer does not import it). */
export interface RerunSource {
  run: { startedAt: string; seed?: number; fuzzRuns?: number };
  requirements: readonly {
    id: string;
    kind: string;
    status: string;
    evidence: readonly { status: string; test: string; location: string }[];
    evidenceOmitted: number;
    tests: readonly { title: string; file?: string; line?: number; status: string; error?: string }[];
  }[];
  failedTests?: readonly { title: string; file?: string; line?: number; failed: readonly string[] }[];
  models?: readonly { id: string }[];
}

/** One test to run again: where it is (relative to the kit's root, as reports say) and its full title. */
export interface RerunTest {
  file: string;
  line: number;
  /** Describe titles and the test's, joined with " › " (without its slot's block: its model is `model`). */
  title: string;
  /** In a per-model matrix: the model it failed under. */
  model?: string;
}

/**
 * The test's full titles as Playwright declares it in a run of `space`: inside its slot's describe block, the
 * outermost (run/slots.ts), once per target and trial of the run, under the model it failed under; the plain slot's
 * block has no title.
 */
export function declaredTitlesOf(t: Pick<RerunTest, 'title' | 'model'>, space: Pick<SlotSpace, 'targets' | 'trials'> = {}): string[] {
  return slotTitlesFor(space, t.model).map((slot) => (slot === '' ? t.title : `${slot} › ${t.title}`));
}

/** What a rerun's report records of the run it reran (conformance.json run.rerunOf). */
export interface RerunOf {
  /** The report it reran: an absolute path in the run's plan, relative to the rerun's own report dir in the report. */
  report: string;
  startedAt: string;
  seed?: number;
  /** The requirements that failed or could not be judged there. */
  requirements: string[];
  tests: RerunTest[];
}

/** "suites/tools.spec.ts:99" → file and line; undefined when it is no location. */
function parseLocation(location: string): { file: string; line: number } | undefined {
  const m = /^(.*):(\d+)$/.exec(location);
  return m ? { file: m[1]!, line: Number(m[2]) } : undefined;
}

/**
 * The requirements a report failed (or could not judge) and the tests where it did: each requirement's evidence of
 * that status; where the report kept only part of it (evidenceOmitted), also the failed tests charged with it, and
 * the tests of it that failed or timed out (the kit's exceptions, judged `error`).
 */
export function rerunOfReport(source: RerunSource, reportFile: string, index?: TestIndex): RerunOf {
  const models = (source.models ?? []).map((m) => m.id);
  const tests = new Map<string, RerunTest>();
  const add = (title: string, file: string, line: number) => {
    const model = models.find((m) => title.startsWith(`${m} › `));
    const t: RerunTest = { file, line, title: model === undefined ? title : title.slice(model.length + 3), ...(model !== undefined ? { model } : {}) };
    const key = `${t.model ?? ''}\n${t.file}\n${t.title}`;
    if (!tests.has(key)) tests.set(key, t);
  };
  const ids: string[] = [];
  for (const r of source.requirements) {
    if (r.kind !== 'requirement' || !RERUN_STATUSES.has(r.status)) continue;
    ids.push(r.id);
    for (const e of r.evidence) {
      const at = e.status === r.status ? parseLocation(e.location) : undefined;
      if (at) add(e.test, at.file, at.line);
    }
    if (r.evidenceOmitted === 0) continue;
    for (const t of source.failedTests ?? []) if (t.failed.includes(r.id) && t.file !== undefined) add(t.title, t.file, t.line ?? 0);
    for (const t of r.tests) if (endedBadly(t) && t.file !== undefined) add(t.title, t.file, t.line ?? 0);
  }
  // Every other test that can record a failed requirement (not in a per-model matrix: there a test's declaration
  // depends on the models, and the report's own tests are the ones to run again).
  if (index && models.length === 0) for (const t of testsRecording(ids, index)) add(t.titles.join(' › '), `suites/${t.file}`, 0);
  const out: RerunOf = { report: reportFile, startedAt: source.run.startedAt, requirements: ids, tests: [...tests.values()] };
  if (source.run.seed !== undefined) out.seed = source.run.seed;
  return out;
}

/**
 * The tests as Playwright's --test-list: `file › [slot ›] describe › title`, each under every slot of the rerun's
 * `space` it may be declared in, the file relative to the suite's folder (`suitesDir`), reports giving it relative to
 * the kit's root (`kitRoot`).
 */
export function testListOf(tests: readonly RerunTest[], kitRoot: string, suitesDir: string, space: Pick<SlotSpace, 'targets' | 'trials'> = {}): string {
  const lines = tests.flatMap((t) => {
    const file = path.relative(suitesDir, path.resolve(kitRoot, t.file)).split(path.sep).join('/');
    return declaredTitlesOf(t, space).map((title) => `${file} › ${title}`);
  });
  return `# chatconform rerun: the tests to run again (playwright test --test-list)\n${lines.join('\n')}\n`;
}

/** Where the rerun writes its reports: `rerun/` of the report dir, or one level deeper when it reruns a report of that folder. */
export function rerunReportDir(reportDir: string, reportFile: string): string {
  const dir = path.resolve(reportDir, RERUN_DIR);
  return path.dirname(path.resolve(reportFile)) === dir ? path.join(dir, RERUN_DIR) : dir;
}

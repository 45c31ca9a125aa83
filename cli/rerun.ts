// `chatconform run --last-failed` (the report of the report dir) and `--rerun FILE`: the tests in which a requirement
// failed or could not be judged, run again against the target (run/rerun.ts), with the earlier run's seed and fuzz
// runs unless given, their reports written to rerun/ of the report dir so the earlier report stays as it was.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ENV, reportDirOf } from '../run/config.ts';
import { declaredTitlesOf, RERUN_TEST_LIST, rerunOfReport, rerunReportDir, testListOf, type RerunOf } from '../run/rerun.ts';
import type { SlotSpace } from '../run/slots.ts';
import { SELECTION_ENV } from '../run/selection.ts';
import { testIndex } from '../run/test-index.ts';
import { loadReport, ReportFileError } from '../report/load.ts';
import type { ConformanceReport } from '../report/json.ts';
import { CONFORMANCE_CONFIG, KIT_ROOT } from './kit-files.ts';
import type { ListedTest } from './selection.ts';
import { ConfigError, UsageError } from './usage.ts';

export interface RerunFlags {
  lastFailed?: boolean;
  rerun?: string;
  certify?: boolean;
}

export interface Rerun {
  of: RerunOf;
  /** The runner's arguments that select the tests (`--test-list FILE`). */
  args: string[];
  /** The test list FILE (written by writeTestList once the run is planned). */
  list: string;
  /** What the rerun runs, for messages. */
  describe: string;
}

/**
 * Reads the report to rerun and prepares the plan's input `env` for the rerun (its reports in rerun/, the earlier
 * seed, fuzz runs and models unless given); the plan records `of` (its reporter reads it there). Returns undefined
 * when nothing failed there: nothing to run.
 */
export function prepareRerun(env: NodeJS.ProcessEnv, flags: RerunFlags): Rerun | undefined {
  const flag = flags.lastFailed ? '--last-failed' : '--rerun';
  if (flags.lastFailed && flags.rerun !== undefined) throw new UsageError('--last-failed and --rerun both name the report to rerun: give one');
  const own = [SELECTION_ENV.requirements, SELECTION_ENV.sections, SELECTION_ENV.levels].filter((name) => env[name]);
  if (own.length > 0) throw new UsageError(`${flag} reruns the tests where requirements failed; it does not combine with ${own.join(', ')}`);
  if (flags.certify) throw new UsageError('--certify judges the whole suite; a rerun of what failed is a partial run');
  const file = flags.rerun !== undefined ? path.resolve(flags.rerun) : path.join(reportDirOf(env), 'conformance.json');
  let report: ConformanceReport;
  try {
    report = loadReport(file);
  } catch (err) {
    if (err instanceof ReportFileError) throw new ConfigError(`${flags.lastFailed ? '--last-failed: no report to rerun from: ' : '--rerun: '}${err.message}`);
    throw err;
  }
  const of = rerunOfReport(report, file, testIndex());
  if (of.requirements.length === 0) {
    process.stderr.write(`chatconform: nothing to rerun: no requirement failed in ${file}\n`);
    return undefined;
  }
  if (of.tests.length === 0) throw new ConfigError(`${flag}: ${file} names no test where ${of.requirements.join(', ')} failed (a report of the proxy's traffic has no tests to rerun)`);
  // The same property cases: a random seed would draw others.
  if (!env[ENV.seed] && of.seed !== undefined) env[ENV.seed] = String(of.seed);
  if (!env[ENV.fuzzRuns] && report.run.fuzzRuns !== undefined) env[ENV.fuzzRuns] = String(report.run.fuzzRuns);
  // A per-model matrix's tests are declared per model: the rerun's matrix is the models they failed under, unless given.
  const models = [...new Set(of.tests.flatMap((t) => (t.model !== undefined ? [t.model] : [])))];
  if (!env[ENV.modelMatrix] && models.length > 0) env[ENV.modelMatrix] = models.join(',');
  const dir = rerunReportDir(reportDirOf(env), file);
  env[ENV.reportDir] = dir;
  mkdirSync(dir, { recursive: true });
  const list = path.join(dir, RERUN_TEST_LIST);
  const describe = `the ${of.tests.length} test(s) that can record ${of.requirements.join(', ')}, which failed or could not be judged in ${file}`;
  process.stderr.write(`chatconform: rerunning ${describe} (seed ${env[ENV.seed] ?? 'random'}; reports in ${dir})\n`);
  return { of, args: ['--test-list', list], list, describe };
}

/**
 * Writes the rerun's test list, each test under every slot of the rerun's run it may be declared in (its targets and
 * trials: the plan's, known once the run is planned; run/slots.ts).
 */
export function writeTestList(rerun: Rerun, space: Pick<SlotSpace, 'targets' | 'trials'>): void {
  writeFileSync(rerun.list, testListOf(rerun.of.tests, KIT_ROOT, path.dirname(CONFORMANCE_CONFIG), space));
}

/**
 * The suite's listing under the rerun's test list against what the report named: a test the suite no longer has
 * (renamed, moved, or a matrix model the run no longer has) is said; none left is an error (exit 3).
 */
export function checkRerunListing(rerun: Rerun, listed: readonly ListedTest[], space: Pick<SlotSpace, 'targets' | 'trials'> = {}): void {
  const suites = path.dirname(CONFORMANCE_CONFIG);
  const found = new Set(listed.map((t) => `${t.file}\n${t.title}`));
  const missing = rerun.of.tests.filter((t) => !declaredTitlesOf(t, space).some((title) => found.has(`${path.relative(suites, path.resolve(KIT_ROOT, t.file)).split(path.sep).join('/')}\n${title}`)));
  const hint = rerun.of.tests.some((t) => t.model !== undefined) ? '; that report is of a per-model matrix: are its models still in the catalog?' : '';
  if (missing.length === rerun.of.tests.length) throw new ConfigError(`rerun: none of ${rerun.describe} is in the suite now (changed since that report?)${hint}`);
  for (const t of missing) process.stderr.write(`chatconform: note: not rerun, the suite has no test ${t.file} › ${t.title} now\n`);
}

// The one way the project's tests run a Playwright suite of the kit in a child process, as a user would: the
// conformance suite against a target (the defect matrix, the hostile targets, the reports' own tests, the main
// run against the mock), the kit's own suite (suites/kit.config.ts), or a listing of either (`--list`). It reads
// the verdict from the run's conformance.json.
//
// Cheap per run by default: Playwright's cli.js is started with node directly (no npx), one worker, few fuzz runs,
// a fixed seed; a caller that wants a user's defaults passes null. The child leads its own process group
// (support/cli-process.ts), so a run that outlives its bound is killed with every worker it started.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { repoRoot } from '../../../run/config.ts';
import { runProcess } from './cli-process.ts';
import { TARGETS_FILE_ENV, type RunTarget } from '../../../run/targets.ts';

export const PLAYWRIGHT_CLI = path.join(repoRoot, 'node_modules/@playwright/test/cli.js');
export const MOCK_PROFILE = path.join(repoRoot, 'fixtures/profiles/mock.json');
export const CONFORMANCE_CONFIG = 'suites/conformance.config.ts';
export const KIT_CONFIG = 'suites/kit.config.ts';

/** The parts of conformance.json the matrix reads (its full schema: spec/schemas/conformance-report.schema.json). */
export interface ReportView {
  verdict: { result: 'pass' | 'fail' | 'incomplete' | 'partial'; mustFailed: string[]; summary: string; exitCode: number };
  requirements: { id: string; level: string; kind: string; status: string; reason?: string; skipReasons?: string[]; tests: { title: string; file: string }[] }[];
  failedTests: { title: string; failed: string[]; error: string }[];
  errors: string[];
  run: { durationMs: number; requests?: number; tests: { total: number } };
}

export interface SuiteRun {
  /** Exit code of the run (null when it was killed). */
  code: number | null;
  signal: NodeJS.Signals | null;
  /** True when the run outlived its bound and was killed. */
  killed: boolean;
  wallMs: number;
  /** Parsed conformance.json, when the run wrote one. */
  report?: ReportView;
  reportDir: string;
  /** The tail of the run's output (stdout then stderr), for failure messages. */
  tail: string;
  /** The run's whole (bounded) output, kept next to its report. */
  logFile: string;
  /** stdout and stderr apart (bounded like the log). */
  stdout: string;
  stderr: string;
  /** The run's temp folder (report, test results, log), removed by cleanup(). */
  dir: string;
}

export interface SuiteRunOptions {
  /** The Playwright config: the conformance suite (default) or the kit's own (KIT_CONFIG). */
  config?: string;
  /** Spec files to run (default: every file of the config). */
  files?: string[];
  /** CONFORMANCE_BASE_URL; unset: the embedded mock. */
  baseUrl?: string;
  /** CONFORMANCE_PROFILE; default the mock's own profile for a target given by URL, none for the embedded mock. null: none. */
  profile?: string | null;
  /** CONFORMANCE_SEED; default 20261122. null: none (a random seed, as a user's run). */
  seed?: number | string | null;
  /** CONFORMANCE_FUZZ_RUNS; default 3. null: none (the profile's or the kit's default). */
  fuzzRuns?: number | null;
  requestTimeoutMs?: number;
  /** CONFORMANCE_WORKERS; default 1. null: none (the config's default). */
  workers?: number | null;
  /** CONFORMANCE_REPORT_DIR; default `report` in the run's temp folder. */
  reportDir?: string;
  /** Playwright's --output; default `test-results` in the run's temp folder. */
  outputDir?: string;
  /** Kill the run (its whole process group) after this long. */
  boundMs: number;
  /** Label for the temp folder. */
  label: string;
  /** Further environment for the run. */
  extraEnv?: Record<string, string>;
  /** Further arguments to `playwright test` (e.g. reporters, --list). */
  extraArgs?: string[];
  /** Keep at most this many characters of each output stream (default 2 MB: the tail). */
  keepChars?: number;
  /** Called with the run's pid once it started; the run leads its own process group (pgid = pid). */
  onSpawn?: (pid: number) => void;
}

/** Environment for a fresh child run: none of this test's own Playwright variables, none of a caller's target. */
function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (/^(TEST_|PW_|PLAYWRIGHT_|CONFORMANCE_)/.test(k) && k !== 'PLAYWRIGHT_BROWSERS_PATH' && k !== 'PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD') continue;
    // A child run never writes into the job summary or annotations of the CI that runs npm test.
    if (k === 'GITHUB_STEP_SUMMARY' || k === 'GITHUB_ACTIONS') continue;
    env[k] = v;
  }
  return { ...env, FORCE_COLOR: '0', CI: '1', ...extra };
}

export function readReport(dir: string): ReportView | undefined {
  const file = path.join(dir, 'conformance.json');
  if (!existsSync(file)) return undefined;
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as ReportView;
  } catch {
    return undefined;
  }
}

export async function runSuite(opts: SuiteRunOptions): Promise<SuiteRun> {
  const dir = mkdtempSync(path.join(os.tmpdir(), `chatconform-${opts.label.replace(/[^a-z0-9-]+/gi, '_')}-`));
  const reportDir = opts.reportDir ?? path.join(dir, 'report');
  const logFile = path.join(dir, 'run.log');
  const profile = opts.profile === undefined ? (opts.baseUrl !== undefined ? MOCK_PROFILE : null) : opts.profile;
  const seed = opts.seed === undefined ? 20261122 : opts.seed;
  const fuzzRuns = opts.fuzzRuns === undefined ? 3 : opts.fuzzRuns;
  const workers = opts.workers === undefined ? 1 : opts.workers;
  const env = childEnv({
    CONFORMANCE_REPORT_DIR: reportDir,
    ...(opts.baseUrl !== undefined ? { CONFORMANCE_BASE_URL: opts.baseUrl } : {}),
    ...(profile !== null ? { CONFORMANCE_PROFILE: profile } : {}),
    ...(seed !== null ? { CONFORMANCE_SEED: String(seed) } : {}),
    ...(fuzzRuns !== null ? { CONFORMANCE_FUZZ_RUNS: String(fuzzRuns) } : {}),
    ...(workers !== null ? { CONFORMANCE_WORKERS: String(workers) } : {}),
    ...(opts.requestTimeoutMs !== undefined ? { CONFORMANCE_REQUEST_TIMEOUT_MS: String(opts.requestTimeoutMs) } : {}),
    ...opts.extraEnv,
  });
  const args = [PLAYWRIGHT_CLI, 'test', '-c', opts.config ?? CONFORMANCE_CONFIG, '--output', opts.outputDir ?? path.join(dir, 'test-results'), ...(opts.extraArgs ?? []), ...(opts.files ?? [])];
  const started = Date.now();
  const ran = await runProcess(process.execPath, args, { cwd: repoRoot, env, boundMs: opts.boundMs, keepChars: opts.keepChars ?? 2_000_000, ...(opts.onSpawn ? { onSpawn: opts.onSpawn } : {}) });
  writeFileSync(logFile, ran.output);
  const report = readReport(reportDir);
  return {
    code: ran.code,
    signal: ran.signal,
    killed: ran.killed,
    wallMs: Date.now() - started,
    ...(report ? { report } : {}),
    reportDir,
    tail: ran.output.slice(-6000),
    logFile,
    stdout: ran.stdout,
    stderr: ran.stderr,
    dir,
  };
}

/**
 * One conformance run of many targets (run/targets.ts): every target's tests in the same runner and workers, each
 * target's reports in `<report dir>/targets/<name>/`. `reportOf(name)` reads one target's report.
 */
export async function runTargets(targets: readonly RunTarget[], opts: Omit<SuiteRunOptions, 'baseUrl' | 'profile'>): Promise<SuiteRun & { reportOf: (name: string) => ReportView | undefined; reportDirOf: (name: string) => string }> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'chatconform-targets-'));
  const file = path.join(dir, 'targets.json');
  writeFileSync(file, JSON.stringify(targets));
  try {
    const run = await runSuite({ ...opts, profile: null, extraEnv: { ...opts.extraEnv, [TARGETS_FILE_ENV]: file } });
    const reportDirOf = (name: string) => path.join(run.reportDir, 'targets', name);
    return { ...run, reportDirOf, reportOf: (name) => readReport(reportDirOf(name)) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Failed tests whose error is not a requirement check or a timeout: an exception in the suite's own code on
 * the target's data (the suite must judge a target, never crash on it).
 */
export function crashes(report: ReportView): { title: string; error: string }[] {
  return report.failedTests.filter((t) => !/^Error: [A-Z]+-\d{3} \((MUST|SHOULD|MAY)\b/.test(t.error) && !/Test timeout of \d+ms exceeded/.test(t.error));
}

/** Removes the temp folder of a run (its report, test results and log, unless the caller put them elsewhere). */
export function cleanup(run: SuiteRun): void {
  rmSync(run.dir, { recursive: true, force: true });
}

/** Runs `jobs` with at most `limit` at once; results in the order of `jobs`. */
export async function pool<T, R>(jobs: readonly T[], limit: number, work: (job: T, index: number) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(jobs.length);
  let next = 0;
  const lane = async () => {
    for (;;) {
      const i = next++;
      if (i >= jobs.length) return;
      results[i] = await work(jobs[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, jobs.length) }, lane));
  return results;
}

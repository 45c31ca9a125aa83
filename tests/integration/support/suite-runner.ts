// Runs the whole conformance suite against a target in a child process, as a user would, and reads the verdict
// from its conformance.json. Shared by the defect matrix and the hostile-target runs.
//
// Cheap per run: Playwright's cli.js is started with node directly (no npx), one worker, few fuzz runs; the
// child gets its own process group, so a run that outlives its bound is killed with every worker it started.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { repoRoot } from '../../../run/config.ts';

export const PLAYWRIGHT_CLI = path.join(repoRoot, 'node_modules/@playwright/test/cli.js');
export const MOCK_PROFILE = path.join(repoRoot, 'fixtures/profiles/mock.json');

/** The parts of conformance.json the matrix reads (its full schema: spec/schemas/conformance-report.schema.json). */
export interface ReportView {
  verdict: { result: 'pass' | 'fail' | 'incomplete'; mustFailed: string[]; summary: string };
  requirements: { id: string; level: string; kind: string; status: string; reason?: string }[];
  failedTests: { title: string; failed: string[]; error: string }[];
  errors: string[];
  run: { durationMs: number; requests?: number };
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
}

export interface SuiteRunOptions {
  baseUrl: string;
  /** CONFORMANCE_PROFILE; default the mock's own profile. Pass null for none. */
  profile?: string | null;
  seed?: number;
  fuzzRuns?: number;
  requestTimeoutMs?: number;
  workers?: number;
  /** Kill the run (its whole process group) after this long. */
  boundMs: number;
  /** Label for the temp folder. */
  label: string;
  /** Further environment for the run. */
  extraEnv?: Record<string, string>;
  /** Further arguments to `playwright test` (e.g. reporters). */
  extraArgs?: string[];
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

export function runSuite(opts: SuiteRunOptions): Promise<SuiteRun> {
  const dir = mkdtempSync(path.join(os.tmpdir(), `chatconform-${opts.label.replace(/[^a-z0-9-]+/gi, '_')}-`));
  const reportDir = path.join(dir, 'report');
  const logFile = path.join(dir, 'run.log');
  const env = childEnv({
    CONFORMANCE_BASE_URL: opts.baseUrl,
    CONFORMANCE_REPORT_DIR: reportDir,
    CONFORMANCE_SEED: String(opts.seed ?? 20261122),
    CONFORMANCE_FUZZ_RUNS: String(opts.fuzzRuns ?? 3),
    CONFORMANCE_WORKERS: String(opts.workers ?? 1),
    ...(opts.requestTimeoutMs !== undefined ? { CONFORMANCE_REQUEST_TIMEOUT_MS: String(opts.requestTimeoutMs) } : {}),
    ...(opts.profile !== null ? { CONFORMANCE_PROFILE: opts.profile ?? MOCK_PROFILE } : {}),
    ...opts.extraEnv,
  });
  const args = [PLAYWRIGHT_CLI, 'test', '-c', 'suites/conformance.config.ts', '--output', path.join(dir, 'test-results'), ...(opts.extraArgs ?? [])];
  const started = Date.now();
  return new Promise((resolve, reject) => {
    // detached: the run leads its own process group, so the bound kills its workers too.
    const child = spawn(process.execPath, args, { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    if (child.pid !== undefined) opts.onSpawn?.(child.pid);
    const out: Buffer[] = [];
    let size = 0;
    const keep = (d: Buffer) => {
      out.push(d);
      size += d.length;
      // Bounded: only the last ~2 MB of output are kept.
      while (size > 2_000_000 && out.length > 1) size -= out.shift()!.length;
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    let killed = false;
    const timer = setTimeout(() => {
      killed = true;
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    }, opts.boundMs);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const text = Buffer.concat(out).toString('utf8');
      writeFileSync(logFile, text);
      const report = readReport(reportDir);
      resolve({ code, signal, killed, wallMs: Date.now() - started, ...(report ? { report } : {}), reportDir, tail: text.slice(-6000), logFile });
    });
  });
}

/**
 * Failed tests whose error is not a requirement check or a timeout: an exception in the suite's own code on
 * the target's data (the suite must judge a target, never crash on it).
 */
export function crashes(report: ReportView): { title: string; error: string }[] {
  return report.failedTests.filter((t) => !/^Error: [A-Z]+-\d{3} \((MUST|SHOULD|MAY)\b/.test(t.error) && !/Test timeout of \d+ms exceeded/.test(t.error));
}

/** Removes the temp folder of a run (report, test results, log). */
export function cleanup(run: SuiteRun): void {
  rmSync(path.dirname(run.reportDir), { recursive: true, force: true });
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

// The run's plan (run/plan.ts): `chatconform run --reference URL` without --seed fixes one seed before anything
// runs, and the reference and the target (two targets of one run) both record it; the plan holds no credential. The
// plan is the only channel: the runner and its workers start with its path and the key, no setting's variable.
// Kept short: one test of the suite, the embedded mock as target, a mock as reference.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { startMockServer } from '../../mock/server.ts';
import { MOCK_KEYS } from '../../mock/keys-and-models.ts';
import { chatconformCommand, runProcess } from './support/cli-process.ts';

const BOUND_MS = 300_000;
/** One test of the suite (a tool call), enough for both runs to record their seed. */
const ONE_TEST = ['--grep', 'a function tool with a parameters JSON Schema is accepted'];

test('a --reference run without --seed: the reference and the target record the same seed, drawn once', async () => {
  test.setTimeout(BOUND_MS + 30_000);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'chatconform-plan-'));
  const reference = await startMockServer({ port: 0 });
  try {
    const env: NodeJS.ProcessEnv = { ...process.env, CONFORMANCE_REFERENCE_API_KEY: MOCK_KEYS.full };
    for (const name of ['CONFORMANCE_SEED', 'CONFORMANCE_BASE_URL', 'CONFORMANCE_PLAN']) delete env[name];
    const r = await runProcess(...chatconformCommand(['run', '--reference', reference.url, '--reference-profile', 'mock', '--report-dir', dir, '--keep-scratch', ...ONE_TEST]), { boundMs: BOUND_MS, env });
    const where = `exit ${r.code}\n${r.stderr.slice(-3000)}`;
    expect(r.code, where).toBe(0);
    const target = JSON.parse(readFileSync(path.join(dir, 'conformance.json'), 'utf8'));
    const ref = JSON.parse(readFileSync(path.join(dir, 'reference', 'conformance.json'), 'utf8'));
    expect(Number.isSafeInteger(target.run.seed), where).toBe(true);
    expect(ref.run.seed, 'the reference run shares the target\'s seed').toBe(target.run.seed);
    // One run serves both sides: its global setup prints the seed once, for the two targets.
    const printed = [...r.stderr.matchAll(/; seed (\d+)/g)].map((m) => Number(m[1]));
    expect(printed, where).toEqual([target.run.seed]);
    expect(r.stderr, where).toContain('2 targets in one run');
    // The kept scratch folder holds the run's plan, without the reference's key: the targets are the plan's (its
    // reference settings), in no file or variable of their own.
    const kept = [...r.stderr.matchAll(/scratch folder kept \(masked\): (\S+)/g)].map((m) => m[1]!);
    expect(kept, where).toHaveLength(1);
    for (const folder of kept) {
      const plan = readFileSync(path.join(folder, 'plan.json'), 'utf8');
      expect(JSON.parse(plan).seed).toBe(target.run.seed);
      expect(plan).not.toContain(MOCK_KEYS.full);
      expect(existsSync(path.join(folder, 'targets.json'))).toBe(false);
      rmSync(folder, { recursive: true, force: true });
    }
  } finally {
    await reference.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

/** The processes below `root` (children, grandchildren, ...), from /proc. */
function descendants(root: number): number[] {
  const parents = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      // "pid (comm) state ppid ...": the command may hold spaces and parentheses, the last ")" ends it.
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      parents.set(Number(name), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // Gone meanwhile.
    }
  }
  const out: number[] = [];
  const walk = (pid: number) => {
    for (const [child, parent] of parents) if (parent === pid) (out.push(child), walk(child));
  };
  walk(root);
  return out;
}

test("the run's processes get the plan's path and the credentials, no setting's variable (the plan is the only channel)", async () => {
  test.skip(!existsSync('/proc/self/environ'), 'reads the processes\' environments from /proc (Linux)');
  test.setTimeout(BOUND_MS + 30_000);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'chatconform-plan-env-'));
  const target = await startMockServer({ port: 0 });
  // Every process of the run seen, by pid: its command line and the CONFORMANCE_* variables it started with.
  const seen = new Map<number, { command: string; variables: string[] }>();
  let poll: NodeJS.Timeout | undefined;
  try {
    const env: NodeJS.ProcessEnv = { ...process.env, CONFORMANCE_API_KEY: MOCK_KEYS.full, CONFORMANCE_MAX_RETRIES: '2', CONFORMANCE_SEED: '1', CONFORMANCE_HEADERS: 'X-Tenant: acme' };
    for (const name of ['CONFORMANCE_BASE_URL', 'CONFORMANCE_PLAN']) delete env[name];
    const r = await runProcess(...chatconformCommand(['run', '--base-url', target.url, '--seed', '7', '--fuzz-runs', '3', '--requirement', 'CAT-031', '--workers', '1', '--report-dir', dir]), {
      boundMs: BOUND_MS,
      env,
      onSpawn: (root) => {
        poll = setInterval(() => {
          // Read again at every poll: a process just forked has its parent's command line until it execs.
          for (const pid of descendants(root)) {
            try {
              const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
              const variables = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').filter((v) => v.startsWith('CONFORMANCE_')).map((v) => v.slice(0, v.indexOf('=')));
              seen.set(pid, { command, variables: variables.sort() });
            } catch {
              // Gone meanwhile.
            }
          }
        }, 50);
      },
    });
    expect(r.code, r.output).toBe(0);
    const report = JSON.parse(readFileSync(path.join(dir, 'conformance.json'), 'utf8'));
    // The flags won over the variables, through the plan alone.
    expect(report.run.seed).toBe(7);
    expect(report.run.fuzzRuns).toBe(3);
    const runner = [...seen.values()].filter((p) => /playwright.*cli\.js test -c/.test(p.command));
    const workers = [...seen.values()].filter((p) => /workerProcessEntry/.test(p.command));
    expect(runner, [...seen.values()].map((p) => p.command).join('\n')).toHaveLength(1);
    expect(workers.length).toBeGreaterThan(0);
    // The credentials: the key, and the given header (a secret of the run, as every header not declared public).
    for (const p of [...runner, ...workers]) expect(p.variables, p.command).toEqual(['CONFORMANCE_API_KEY', 'CONFORMANCE_HEADERS', 'CONFORMANCE_PLAN']);
  } finally {
    clearInterval(poll);
    await target.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

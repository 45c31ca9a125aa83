// The run's plan (run/plan.ts): `chatconform run --reference URL` without --seed fixes one seed before anything
// runs, and the reference and the target (two targets of one run) both record it; the plan holds no credential.
// Kept short: one test of the suite, the embedded mock as target, a mock as reference.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
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

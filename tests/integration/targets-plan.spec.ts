// Each target of a targets file is folded with the run's plan, as that target run alone with the same flags would
// be: the baseline (--expected-failures), the gate (--fail-on) and what the run selected. Before, the targets' fold
// had none of them: a failure the baseline lists failed the target (exit 1), and a baseline entry that now passes was
// never called stale. The fold's parity is proved in process (tests/unit/report-plan.spec.ts); this is the one run.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { startMockServer, type RunningMockServer } from '../../mock/server.ts';
import { MOCK_KEYS } from '../../mock/keys-and-models.ts';
import { cleanup, runTargets } from './support/suite-runner.ts';

test('a targets file with --expected-failures and --fail-on: each target gets the verdict and exit code of its own run', async () => {
  test.setTimeout(240_000);
  const mocks: RunningMockServer[] = await Promise.all([startMockServer({ port: 0 }), startMockServer({ port: 0, defect: 'created-milliseconds' })]);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'targets-plan-'));
  const baseline = path.join(dir, 'expected.yaml');
  writeFileSync(baseline, 'expectedFailures:\n  - { id: RESP-005, reason: created is sent in milliseconds }\n');
  try {
    const run = await runTargets(
      [
        { name: 'clean', baseUrl: mocks[0]!.url, apiKey: MOCK_KEYS.full, profile: 'mock' },
        { name: 'broken', baseUrl: mocks[1]!.url, apiKey: MOCK_KEYS.full, profile: 'mock' },
      ],
      {
        files: ['suites/chat.spec.ts'],
        boundMs: 200_000,
        label: 'targets-plan',
        extraEnv: { CONFORMANCE_EXPECTED_FAILURES: baseline, CONFORMANCE_FAIL_ON: 'warn' },
      },
    );
    try {
      type Full = { verdict: { result: string; exitCode: number; failOn?: string; selection?: string; baseline?: { expected: { id: string }[]; stale: { id: string }[] } } };
      const clean = run.reportOf('clean') as unknown as Full;
      const broken = run.reportOf('broken') as unknown as Full;
      expect(clean, run.tail).toBeDefined();
      expect(broken, run.tail).toBeDefined();
      // The broken target fails RESP-005, which the baseline lists: expected, the run does not fail on it.
      expect(broken.verdict.baseline?.expected.map((e) => e.id)).toEqual(['RESP-005']);
      expect(broken.verdict.exitCode).toBe(0);
      // The clean target passes RESP-005: the entry is stale for it, which fails it, as a run of it alone would be.
      expect(clean.verdict.baseline?.stale.map((e) => e.id)).toEqual(['RESP-005']);
      expect(clean.verdict.exitCode).toBe(1);
      // Both carry the run's gate and its selection (the file given), as a run given that file does.
      for (const r of [clean, broken]) expect(r.verdict).toMatchObject({ failOn: 'warn', selection: expect.stringContaining('chat.spec.ts') });
      // The run's code is the worst of its targets'.
      expect(run.code).toBe(1);
    } finally {
      cleanup(run);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await Promise.all(mocks.map((m) => m.close()));
  }
});

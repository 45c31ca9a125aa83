// Issue 34 against the mock: `chatconform run --reference URL` judges a defect mock beside a clean one (the defect's
// requirement is target-only) and beside the same defect (both: inherited, and --fail-on target-only lets it
// pass); `--trials 10` against a mock with a probabilistic fault on streamed tool calls gives a pass rate between
// the extremes, with a fixed seed. Kept short: one test of the suite per run.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { startMockServer } from '../../mock/server.ts';
import { MOCK_KEYS } from '../../mock/keys-and-models.ts';
import { chatconformCommand, runProcess } from './support/cli-process.ts';
import { withMocks } from './support/use-mock.ts';

const BOUND_MS = 300_000;
const dirs: string[] = [];
test.afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

const chatconform = (args: string[]) =>
  runProcess(...chatconformCommand(['run', ...args]), {
    boundMs: BOUND_MS,
    env: { ...process.env, CONFORMANCE_API_KEY: MOCK_KEYS.full, CONFORMANCE_REFERENCE_API_KEY: MOCK_KEYS.full },
  });
const reportOf = (dir: string): any => JSON.parse(readFileSync(path.join(dir, 'conformance.json'), 'utf8'));
const tool006 = (dir: string): any => reportOf(dir).requirements.find((r: any) => r.id === 'TOOL-006');

function reportDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'chatconform-issue34-'));
  dirs.push(dir);
  return dir;
}

/** One test of the suite whose returned call TOOL-006 judges (the defect renames the call). */
const ONE_TOOL_TEST = ['--grep', 'a function tool with a parameters JSON Schema is accepted'];

test('a defect mock judged with the clean mock as reference: its requirement is target-only, and it gates', async () => {
  test.setTimeout(BOUND_MS + 30_000);
  await withMocks(['tool-call-undeclared-name', undefined], async ([broken, clean]) => {
    const dir = reportDir();
    const r = await chatconform(['--base-url', broken!.url, '--profile', 'mock', '--reference', clean!.url, '--reference-profile', 'mock', '--seed', '1', '--report-dir', dir, '--fail-on', 'target-only', ...ONE_TOOL_TEST]);
    expect(r.code, r.output.slice(-2000)).toBe(1);
    const report = reportOf(dir);
    expect(tool006(dir).status).toBe('fail');
    expect(tool006(dir).differential).toMatchObject({ reference: 'pass', classification: 'target-only' });
    expect(report.run.reference).toMatchObject({ url: clean!.url, mustFailed: [] });
    expect(report.run.reference.counts['target-only']).toBe(1);
    // The reference's own reports, and its column in the others.
    expect(reportOf(path.join(dir, 'reference')).target.url).toBe(clean!.url);
    expect(readFileSync(path.join(dir, 'junit.xml'), 'utf8')).toContain('<property name="classification" value="target-only"/>');
    expect(r.output.replace(/\u001b\[[0-9;]*m/g, '')).toMatch(/TOOL-006\s+target fail\s+reference pass/);
  });
});

test('the same defect on both sides: both (inherited); --fail-on target-only does not fail the run on it', async () => {
  test.setTimeout(BOUND_MS + 30_000);
  await withMocks(['tool-call-undeclared-name', 'tool-call-undeclared-name'], async ([target, upstream]) => {
    const dir = reportDir();
    const r = await chatconform(['--base-url', target!.url, '--profile', 'mock', '--reference', upstream!.url, '--reference-profile', 'mock', '--seed', '1', '--report-dir', dir, '--fail-on', 'target-only', ...ONE_TOOL_TEST]);
    expect(tool006(dir).differential).toMatchObject({ reference: 'fail', classification: 'both' });
    expect(reportOf(dir).verdict.mustFailed).toEqual(['TOOL-006']);
    expect(r.code, r.output.slice(-2000)).toBe(0);
  });
});

test('--trials 10 against a fault @0.5 on streamed tool calls: the rate counts only the trials that produced a call', async () => {
  test.setTimeout(BOUND_MS + 30_000);
  // fail-after=0 cuts a stream with an in-stream error before its first chunk (legal: section 6 rule 10), so no call
  // comes back in about half the trials; the catalog and non-streamed requests are untouched. A trial without a call
  // is no case of TOOL-006 (a returned call names a declared function): it is neither a pass nor a failure.
  const flaky = await startMockServer({ port: 0, fault: 'fail-after=0@0.5', seed: 7 });
  try {
    const dir = reportDir();
    const r = await chatconform(['--base-url', flaky.url, '--profile', 'mock', '--seed', '1', '--report-dir', dir, '--trials', '10', '--min-pass-rate', '0.8', '--grep', 'tool-call deltas assemble']);
    const t = tool006(dir);
    expect(reportOf(dir).run.trials).toEqual({ k: 10, minPassRate: 0.8 });
    expect(t.trials).toMatchObject({ minPassRate: 0.8, rate: 1 });
    expect(t.trials.runs).toBeGreaterThanOrEqual(2);
    expect(t.trials.runs).toBeLessThanOrEqual(8);
    expect(t.trials.passed).toBe(t.trials.runs);
    expect(t.trials.failing).toBeUndefined();
    expect(t.status).toBe('pass');
    expect(r.code, r.output.slice(-2000)).toBe(0);
    // The protocol requirements of the same answers are not judged by rate: an error event is legal, nothing fails.
    expect(reportOf(dir).requirements.filter((q: any) => q.status === 'fail').map((q: any) => q.id)).toEqual([]);
  } finally {
    await flaky.close();
  }
});

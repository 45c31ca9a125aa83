// Issue 32, item 4: `chatconform run --last-failed` (the last report of the report dir) and `--rerun FILE` run only
// the tests of the requirements that failed, as a partial run. The defect fails one requirement on few answers: one
// failing every answer makes each run slow (Playwright starts a new worker after every failed test).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { startMockServer } from '../../mock/server.ts';
import { MOCK_KEYS } from '../../mock/keys-and-models.ts';
import { CLI, runProcess } from './support/cli-process.ts';

const dirs: string[] = [];
test.afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

const chatconform = (args: string[]) =>
  runProcess(process.execPath, ['--import', 'tsx', CLI, 'run', ...args], { boundMs: 300_000, env: { ...process.env, CONFORMANCE_API_KEY: MOCK_KEYS.full } });
const reportOf = (dir: string): any => JSON.parse(readFileSync(path.join(dir, 'conformance.json'), 'utf8'));

test('--last-failed reruns only what failed; --rerun FILE likewise; nothing failed: nothing runs', async () => {
  test.setTimeout(600_000);
  const broken = await startMockServer({ port: 0, defect: 'catalog-duplicate-entry' });
  const dir = mkdtempSync(path.join(os.tmpdir(), 'chatconform-rerun-'));
  dirs.push(dir);
  try {
    const base = ['--base-url', broken.url, '--profile', 'mock', '--seed', '1', '--report-dir', dir];
    const first = await chatconform([...base, '--requirement', 'CAT-030,AUTH-001,AUTH-002,AUTH-003']);
    expect(first.code, first.output.slice(-2000)).toBe(1);
    const failed = reportOf(dir).requirements.filter((r: any) => r.status === 'fail' || r.status === 'error').map((r: any) => r.id).sort();
    expect(failed).toContain('CAT-030');
    const firstTests = reportOf(dir).run.tests.total;

    const again = await chatconform([...base, '--last-failed']);
    expect(again.code, again.output.slice(-2000)).toBe(1);
    expect(again.output).toContain(`rerunning the tests of the ${failed.length} requirement(s) that failed or could not be judged in ${path.join(dir, 'conformance.json')}`);
    const rerun = reportOf(dir);
    expect(rerun.verdict.mustFailed).toContain('CAT-030');
    expect(rerun.selection ?? rerun.verdict.summary).toMatch(/CAT-030/);
    expect(rerun.run.tests.total).toBeLessThan(firstTests);
    expect(rerun.verdict.result).toBe('fail');
  } finally {
    await broken.close();
  }
  // The server fixed: --rerun of the old report passes, and then nothing is left to rerun.
  const fixed = await startMockServer({ port: 0 });
  const kept = path.join(dir, 'kept.json');
  const { copyFileSync } = await import('node:fs');
  copyFileSync(path.join(dir, 'conformance.json'), kept);
  try {
    const base = ['--base-url', fixed.url, '--profile', 'mock', '--seed', '1', '--report-dir', dir];
    const green = await chatconform([...base, '--rerun', kept]);
    expect(green.code, green.output.slice(-2000)).toBe(0);
    expect(reportOf(dir).verdict.result).toBe('partial');
    const none = await chatconform([...base, '--last-failed']);
    expect(none.code).toBe(0);
    expect(none.output).toContain('nothing to rerun: no requirement failed');
  } finally {
    await fixed.close();
  }
  const missing = await chatconform(['--last-failed', '--report-dir', path.join(dir, 'nowhere')]);
  expect(missing.code).toBe(3);
  expect(missing.stderr.trim()).toMatch(/^error: --last-failed: no report to rerun from: cannot read .*nowhere\/conformance\.json/);
  const both = await chatconform(['--last-failed', '--requirement', 'CAT-031']);
  expect(both.code).toBe(2);
});

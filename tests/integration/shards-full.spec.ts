// Issue 33, item 2, the whole suite (slow tier): three shards of the full suite against the embedded mock, merged,
// equal the unsharded run: the same verdict, the same status for every requirement. shards.spec.ts does the same
// on a selection in npm test.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { chatconformCommand, runProcess } from './support/cli-process.ts';

const root = mkdtempSync(path.join(os.tmpdir(), 'chatconform-shards-full-'));
test.afterAll(() => rmSync(root, { recursive: true, force: true }));

const chatconform = (args: string[]) =>
  runProcess(...chatconformCommand(args), { boundMs: 1_200_000, env: { ...process.env, CONFORMANCE_BASE_URL: '', CI: '1' } });
const reportOf = (dir: string): any => JSON.parse(readFileSync(path.join(dir, 'conformance.json'), 'utf8'));
const statuses = (r: any) => Object.fromEntries(r.requirements.map((x: any) => [x.id, x.status]));

test('three shards of the whole suite, merged, equal the unsharded run', async () => {
  test.setTimeout(3_600_000);
  const dirs = [1, 2, 3].map((i) => path.join(root, `shard-${i}`));
  // One after another: each run takes the machine's two cores.
  const whole = await chatconform(['run', '--seed', '11', '--report-dir', path.join(root, 'whole')]);
  expect(whole.code, whole.output.slice(-2000)).toBe(0);
  for (const [i, dir] of dirs.entries()) {
    const ran = await chatconform(['run', '--seed', '11', '--shard', `${i + 1}/3`, '--report-dir', dir]);
    expect(ran.code, ran.output.slice(-2000)).toBe(0);
    expect(reportOf(dir).verdict.result).toBe('partial');
  }
  const merged = await chatconform(['report', 'merge', ...dirs, '--report-dir', path.join(root, 'merged')]);
  expect(merged.code, merged.output.slice(-2000)).toBe(0);
  const a = reportOf(path.join(root, 'whole'));
  const b = reportOf(path.join(root, 'merged'));
  expect(a.verdict.result).toBe('pass');
  expect(b.verdict.result).toBe(a.verdict.result);
  expect(statuses(b)).toEqual(statuses(a));
  expect(b.coverage).toEqual(a.coverage);
  expect(b.run.tests).toEqual(a.run.tests);
});

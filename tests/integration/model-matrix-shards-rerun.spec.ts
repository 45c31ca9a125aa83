// A --models run sharded and merged, then rerun with --last-failed: the model-dependent tests are declared once per
// model (not a project per model), so a shard holds some models' repetitions, the merge folds models[] as the whole
// run does, and the rerun's test list names each failed test under its model; the rerun takes the models from the
// report (no --models needed) and reruns exactly those tests. One tools test, two models, keeps the runs short.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { startMockServer, type RunningMockServer } from '../../mock/server.ts';
import { MOCK_KEYS, MOCK_MODELS } from '../../mock/keys-and-models.ts';
import { chatconformCommand, runProcess } from './support/cli-process.ts';

const root = mkdtempSync(path.join(os.tmpdir(), 'chatconform-models-shards-'));
let target: RunningMockServer;

const chatconform = (args: string[]) =>
  runProcess(...chatconformCommand(args), { boundMs: 300_000, env: { ...process.env, CONFORMANCE_API_KEY: MOCK_KEYS.full, CI: '1' } });
const reportOf = (dir: string): any => JSON.parse(readFileSync(path.join(dir, 'conformance.json'), 'utf8'));
const rows = (r: any) => r.models.map((m: any) => ({ id: m.id, verdict: m.verdict, mustFailed: m.mustFailed, tests: m.tests.total }));
const MODELS = [MOCK_MODELS.small, MOCK_MODELS.mini];
const TEST = 'a function tool with a parameters JSON Schema is accepted';

test.describe.configure({ mode: 'serial' });

test.beforeAll(async () => {
  // Every model names a call it was not given: TOOL-006 fails on each.
  target = await startMockServer({ port: 0, defect: 'tool-call-undeclared-name' });
});

test.afterAll(async () => {
  await target?.close();
  rmSync(root, { recursive: true, force: true });
});

test('a sharded --models run merges into the models[] of the whole run; --last-failed reruns each failed test under its model', async () => {
  test.setTimeout(600_000);
  const args = ['run', '--base-url', target.url, '--profile', 'mock', '--models', MODELS.join(','), '--seed', '3', '--grep', TEST];
  const whole = path.join(root, 'whole');
  const shard = (i: number) => path.join(root, `shard-${i}`);
  const runs = await Promise.all([chatconform([...args, '--report-dir', whole]), ...[1, 2].map((i) => chatconform([...args, '--shard', `${i}/2`, '--report-dir', shard(i)]))]);
  for (const r of runs) expect(r.code, r.output.slice(-2000)).toBe(1);
  const wholeReport = reportOf(whole);
  expect(rows(wholeReport)).toEqual(MODELS.map((id) => ({ id, verdict: 'fail', mustFailed: ['TOOL-006'], tests: 1 })));
  // Each shard holds one model's repetition of the test, and says the run had both models.
  for (const i of [1, 2]) expect(reportOf(shard(i)).run.tests.total, `shard ${i}`).toBe(1);
  for (const i of [1, 2]) expect(reportOf(shard(i)).models.map((m: any) => m.id)).toEqual(MODELS);

  const merged = path.join(root, 'merged');
  const merge = await chatconform(['report', 'merge', shard(1), shard(2), '--report-dir', merged]);
  expect(merge.code, merge.output.slice(-2000)).toBe(1);
  expect(rows(reportOf(merged))).toEqual(rows(wholeReport));
  const titles = (r: any) => r.requirements.find((x: any) => x.id === 'TOOL-006').tests.map((t: any) => t.title).sort();
  expect(titles(reportOf(merged))).toEqual(titles(wholeReport));
  expect(titles(wholeReport).map((t: string) => t.split(' › ')[0])).toEqual(MODELS);

  // The rerun: the report's own models, its failed tests each under its model; the earlier report kept.
  const rerun = await chatconform(['run', '--base-url', target.url, '--profile', 'mock', '--report-dir', whole, '--last-failed']);
  expect(rerun.code, rerun.output.slice(-2000)).toBe(1);
  expect(rerun.output).toContain('rerunning the 2 test(s) that can record TOOL-006, which failed or could not be judged');
  const again = reportOf(path.join(whole, 'rerun'));
  expect(rows(again)).toEqual(rows(wholeReport));
  expect(titles(again)).toEqual(titles(wholeReport));
  const list = readFileSync(path.join(whole, 'rerun', 'tests.txt'), 'utf8').split('\n').filter((l) => l.startsWith('tools.spec.ts › '));
  // Each line names the model's slot, the block around the file's own (suites/lib/slots.ts).
  expect(list.map((l) => l.split(' › ')[1])).toEqual(MODELS);
});

// Targets, models and trials are the slots of one run (run/slots.ts): `--trials` with `--models`, and `--reference`
// with `--models`, each run in one runner process (one global setup: its "target ..." line once), with every model's
// row, every trial's rate and the reference's column in the reports. One tools test against a mock whose calls name
// an undeclared function (TOOL-006 fails) keeps the runs short.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { startMockServer, type RunningMockServer } from '../../mock/server.ts';
import { MOCK_KEYS, MOCK_MODELS } from '../../mock/keys-and-models.ts';
import { chatconformCommand, runProcess } from './support/cli-process.ts';

const MODELS = [MOCK_MODELS.small, MOCK_MODELS.mini];
const ONE_TOOL_TEST = ['--grep', 'a function tool with a parameters JSON Schema is accepted'];
const root = mkdtempSync(path.join(os.tmpdir(), 'chatconform-slots-one-run-'));
let broken: RunningMockServer;
let clean: RunningMockServer;

const chatconform = (args: string[]) =>
  runProcess(...chatconformCommand(['run', '--profile', 'mock', '--seed', '3', '--workers', '1', ...ONE_TOOL_TEST, ...args]), {
    boundMs: 300_000,
    env: { ...process.env, CONFORMANCE_API_KEY: MOCK_KEYS.full, CONFORMANCE_REFERENCE_API_KEY: MOCK_KEYS.full, CI: '1' },
  });
const reportOf = (dir: string): any => JSON.parse(readFileSync(path.join(dir, 'conformance.json'), 'utf8'));
const tool006 = (dir: string): any => reportOf(dir).requirements.find((r: any) => r.id === 'TOOL-006');
/** The global setup says "chatconform: target URL; seed ..." once per runner process. */
const runners = (stderr: string) => stderr.split('\n').filter((l) => l.startsWith('chatconform: target ')).length;

test.beforeAll(async () => {
  [broken, clean] = await Promise.all([startMockServer({ port: 0, defect: 'tool-call-undeclared-name' }), startMockServer({ port: 0 })]);
});

test.afterAll(async () => {
  await Promise.all([broken?.close(), clean?.close()]);
  rmSync(root, { recursive: true, force: true });
});

test('--trials 2 with --models 2: one run, each model judged on its two trials', async () => {
  test.setTimeout(330_000);
  const dir = path.join(root, 'trials-models');
  const r = await chatconform(['--base-url', broken.url, '--models', MODELS.join(','), '--trials', '2', '--report-dir', dir]);
  expect(r.code, r.output.slice(-3000)).toBe(1);
  expect(runners(r.stderr), r.stderr).toBe(1);
  const report = reportOf(dir);
  expect(report.run.trials).toEqual({ k: 2, minPassRate: 1 });
  expect(tool006(dir)).toMatchObject({ status: 'fail', trials: { runs: 4, passed: 0 } });
  expect(report.models.map((m: any) => [m.id, m.verdict, m.mustFailed, m.tests.total])).toEqual(MODELS.map((id) => [id, 'fail', ['TOOL-006'], 2]));
  // The report's titles as before: the model first, no trial's block.
  expect(tool006(dir).tests.map((t: any) => t.title.split(' › ')[0]).sort()).toEqual([...MODELS, ...MODELS].sort());
  expect(tool006(dir).tests.every((t: any) => !t.title.includes('trial'))).toBe(true);
});

test('--reference with --models: one run, the reference judged per model beside the target, its reports in reference/', async () => {
  test.setTimeout(330_000);
  const dir = path.join(root, 'reference-models');
  const r = await chatconform(['--base-url', broken.url, '--reference', clean.url, '--reference-profile', 'mock', '--models', MODELS.join(','), '--report-dir', dir]);
  expect(r.code, r.output.slice(-3000)).toBe(1);
  // No reference run of its own before the target's: one runner judged both.
  expect(runners(r.stderr), r.stderr).toBe(1);
  expect(tool006(dir).differential).toMatchObject({ reference: 'pass', classification: 'target-only' });
  expect(reportOf(dir).models.map((m: any) => [m.id, m.verdict])).toEqual(MODELS.map((id) => [id, 'fail']));
  const reference = reportOf(path.join(dir, 'reference'));
  expect(reference.target.url).toBe(clean.url);
  expect(reference.models.map((m: any) => [m.id, m.tests.total, m.mustFailed])).toEqual(MODELS.map((id) => [id, 1, []]));
  // Each side's report speaks of its own tests: no target's block in a title, the model first.
  for (const report of [reportOf(dir), reference]) {
    const titles = report.requirements.find((q: any) => q.id === 'TOOL-006').tests.map((t: any) => t.title);
    expect(titles.map((t: string) => t.split(' › ')[0]).sort()).toEqual([...MODELS].sort());
    expect(titles.filter((t: string) => /(^|› )(reference|target)( ·| ›)/.test(t))).toEqual([]);
  }
});

// Issue 33, item 1: `chatconform run --models` judges each chosen model with the model-dependent tests, one
// project per model; conformance.json gains models[], the HTML a model x section matrix, the terminal a line per
// model; a model the run's key may not use is skipped with the reason. Small: three models, the reasoning tests.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { MOCK_KEYS } from '../../mock/keys-and-models.ts';
import type { ConformanceReport } from '../../report/json.ts';
import { chatconformCommand, runProcess } from './support/cli-process.ts';

const dirs: string[] = [];
test.afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

test("--models (a glob and ids): a row per model with its verdict and counts; a model the key may not use is skipped with the reason", async () => {
  test.setTimeout(600_000);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'chatconform-models-'));
  dirs.push(dir);
  // The restricted key may use acme/chat-small and reason-pro, not acme/chat-large (403 model_not_allowed).
  const run = await runProcess(
    ...chatconformCommand(['run', '--models', 'acme/chat-s*,reason-pro,acme/chat-large', '--grep', 'reasoning', '--seed', '1', '--report-dir', dir]),
    { boundMs: 540_000, env: { ...process.env, CONFORMANCE_API_KEY: MOCK_KEYS.restricted, CONFORMANCE_WORKERS: '2' } },
  );
  expect(run.code, run.output.slice(-3000)).toBe(0);
  const report = JSON.parse(readFileSync(path.join(dir, 'conformance.json'), 'utf8')) as ConformanceReport;
  const rows = Object.fromEntries(report.models!.map((m) => [m.id, m]));
  expect(report.models!.map((m) => m.id)).toEqual(['acme/chat-small', 'reason-pro', 'acme/chat-large']);

  // reason-pro exposes reasoning: its tests judge the reasoning rules; acme/chat-small has none to judge.
  expect(rows['reason-pro']).toMatchObject({ verdict: 'pass', mustFailed: [], failed: [] });
  expect(rows['reason-pro']!.counts.pass).toBeGreaterThan(rows['acme/chat-small']!.counts.pass);
  expect(rows['reason-pro']!.requests).toBeGreaterThan(0);
  expect(rows['reason-pro']!.tests.judged).toBeGreaterThan(0);
  expect(rows['reason-pro']!.sections.some((s) => s.section.startsWith('2') && s.status === 'pass')).toBe(true);
  expect(rows['acme/chat-small']!.verdict).toBe('pass');

  expect(rows['acme/chat-large']).toMatchObject({ verdict: 'skipped', requests: 0 });
  expect(rows['acme/chat-large']!.reason).toBe("the run's key may not use it (a one-token completion naming it: HTTP 403 model_not_allowed)");
  expect(rows['acme/chat-large']!.tests.skipped).toBe(rows['acme/chat-large']!.tests.total);

  // One record per requirement for the run, its tests named by their model.
  const rsn005 = report.requirements.find((r) => r.id === 'RSN-005')!;
  expect(rsn005.status).toBe('pass');
  expect(rsn005.tests.map((t) => t.title.split(' › ')[0])).toEqual(expect.arrayContaining(['acme/chat-small', 'reason-pro', 'acme/chat-large']));
  expect(report.verdict.summary).toContain('2 of 3 models pass, 1 skipped');

  expect(readFileSync(path.join(dir, 'conformance.html'), 'utf8')).toContain('<table class="matrix models-matrix" id="models-table">');
  const terminal = run.output.replace(/\u001b\[[0-9;]*m/g, '');
  expect(terminal).toContain('models: 2 of 3 models pass, 1 skipped');
  expect(terminal).toMatch(/SKIP acme\/chat-large +the run's key may not use it/);
});

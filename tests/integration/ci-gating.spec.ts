// Gating CI on a baseline, end to end against the reference mock in defect modes: a baseline written from a run
// with one defect passes that run (the requirement is `expected-fail`, exit 0); a second defect fails the run
// (exit 1, only the new requirement charged); with the defect switched off the baseline is stale (exit 1, the
// entry to delete named). Fail-on-warn turns a SHOULD warning into exit 1. The catalog and chat files are enough
// to show these defects and keep the runs short.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { testsRecording } from '../../run/test-index.ts';
import { startMockServer, type RunningMockServer } from '../../mock/server.ts';
import { MOCK_KEYS } from '../../mock/keys-and-models.ts';
import { repoRoot } from '../../run/config.ts';
import { cleanup, pool, runSuite, type SuiteRun } from './support/suite-runner.ts';
import { recordingTarget } from './support/hostile-targets.ts';
import type { DefectName } from '../../mock/defects.ts';

const FILES = ['suites/catalog.spec.ts', 'suites/chat.spec.ts'];
const BOUND_MS = 180_000;
const TSX = path.join(repoRoot, 'node_modules/tsx/dist/cli.mjs');

interface Gated extends SuiteRun {
  full?: { verdict: { exitCode: number; mustFailed: string[]; baseline?: { expected: { id: string }[]; stale: { id: string }[] } }; requirements: { id: string; status: string; baselineReason?: string }[] };
}

let scratch: string;
const mocks: RunningMockServer[] = [];

test.beforeAll(() => {
  scratch = mkdtempSync(path.join(os.tmpdir(), 'chatconform-gating-'));
});
test.afterAll(async () => {
  await Promise.all(mocks.map((m) => m.close()));
  rmSync(scratch, { recursive: true, force: true });
});

async function gatedRun(label: string, defect: DefectName[], env: Record<string, string>): Promise<Gated> {
  const mock = await startMockServer({ port: 0, defect });
  mocks.push(mock);
  const run = await runSuite({ baseUrl: mock.url, boundMs: BOUND_MS, label, extraEnv: { CONFORMANCE_API_KEY: MOCK_KEYS.full, ...env }, extraArgs: FILES });
  const file = path.join(run.reportDir, 'conformance.json');
  return { ...run, full: JSON.parse(readFileSync(file, 'utf8')) as Gated['full'] };
}

test('a baseline excuses the failures it lists, fails a new one, and goes stale when a listed one passes', async () => {
  test.setTimeout(4 * BOUND_MS);
  // The baseline, written from a run with the defect on (the report CLI, as a team would).
  const first = await gatedRun('gating-record', ['catalog-null-optional'], {});
  expect(first.code, first.tail).toBe(1);
  expect(first.full!.verdict.mustFailed).toEqual(['CAT-027']);
  const baselineFile = path.join(scratch, 'expected-failures.yaml');
  const text = execFileSync(process.execPath, [TSX, 'cli/npm-report.ts', '--baseline', path.join(first.reportDir, 'conformance.json')], { cwd: repoRoot, encoding: 'utf8' });
  writeFileSync(baselineFile, text);
  expect(text).toMatch(/- id: CAT-027\n\s+reason: .+/);
  cleanup(first);

  const gate = { CONFORMANCE_EXPECTED_FAILURES: baselineFile };
  // The second run is on "GitHub Actions": a step summary file and annotations.
  const summaryFile = path.join(scratch, 'step-summary.md');
  writeFileSync(summaryFile, '# earlier steps\n');
  const [same, second, fixed] = await pool(
    [
      { label: 'gating-same', defect: ['catalog-null-optional'] as DefectName[], env: gate },
      { label: 'gating-second', defect: ['catalog-null-optional', 'catalog-backend-field'] as DefectName[], env: { ...gate, GITHUB_STEP_SUMMARY: summaryFile, GITHUB_ACTIONS: 'true' } },
      { label: 'gating-fixed', defect: [] as DefectName[], env: gate },
    ],
    2,
    (j) => gatedRun(j.label, j.defect, j.env),
  );

  // The listed failure: expected-fail, exit 0.
  expect(same!.code, same!.tail).toBe(0);
  expect(same!.full!.requirements.find((r) => r.id === 'CAT-027')).toMatchObject({ status: 'expected-fail', baselineReason: expect.any(String) });
  expect(same!.full!.verdict.mustFailed).toEqual([]);
  expect(same!.full!.verdict.baseline!.expected.map((e) => e.id)).toEqual(['CAT-027']);
  expect(same!.tail).toContain('1 expected failure(s) of the baseline');

  // A second defect: exit 1, and only its requirement is charged.
  expect(second!.code, second!.tail).toBe(1);
  expect(second!.full!.verdict.mustFailed).toEqual(['CAT-002']);
  expect(second!.full!.requirements.find((r) => r.id === 'CAT-027')!.status).toBe('expected-fail');
  // Its job summary (appended, not overwritten) and its annotations.
  const summary = readFileSync(summaryFile, 'utf8');
  expect(summary.startsWith('# earlier steps\n## ❌ chatconform: FAIL')).toBe(true);
  expect(summary).toMatch(/\| §2 Resources and their fields \| \d+ \| 1 \| \d+ \| \d+ \| 1 \|/);
  expect(summary).toMatch(/### New failures \(not in the baseline\) \(1\)\n\n\| ID \| level \| § \| message \|\n\|---\|---\|---\|---\|\n\| CAT-002 \| MUST \| 2\.10 \| .+provider/);
  expect(summary).toContain('Expected failures (baseline): CAT-027.');
  expect(second!.tail).toMatch(/^::error file=suites\/catalog\.spec\.ts,line=\d+,title=CAT-002 \(MUST%2C §2\.10\)::No catalog entry/m);
  expect(second!.tail).not.toMatch(/^::error .*title=CAT-027/m);

  // The defect switched off: the baseline is stale, exit 1, the entry named.
  expect(fixed!.code, fixed!.tail).toBe(1);
  expect(fixed!.full!.verdict.mustFailed).toEqual([]);
  expect(fixed!.full!.verdict.baseline!.stale.map((e) => e.id)).toEqual(['CAT-027']);
  expect(fixed!.tail).toContain(`stale baseline: CAT-027 now passes; delete its entry from ${baselineFile}`);
  for (const r of [same!, second!, fixed!]) cleanup(r);
});

test('a bad baseline stops the run before it sends anything, with the problem named', async () => {
  const bad = path.join(scratch, 'bad.yaml');
  writeFileSync(bad, 'expectedFailures:\n  - id: NOPE-001\n    reason: x\n');
  const mock = await startMockServer({ port: 0 });
  mocks.push(mock);
  const run = await runSuite({ baseUrl: mock.url, boundMs: BOUND_MS, label: 'gating-bad', extraEnv: { CONFORMANCE_API_KEY: MOCK_KEYS.full, CONFORMANCE_EXPECTED_FAILURES: bad }, extraArgs: FILES });
  expect(run.code).not.toBe(0);
  expect(run.tail).toContain('NOPE-001 is not a requirement of the catalog');
  cleanup(run);
});

test('--requirement STREAM-004 runs only the tests that check it, and the verdict, badge and summary say partial', async () => {
  const mock = await startMockServer({ port: 0 });
  mocks.push(mock);
  const run = await runSuite({ baseUrl: mock.url, boundMs: BOUND_MS, label: 'partial', extraEnv: { CONFORMANCE_API_KEY: MOCK_KEYS.full, CONFORMANCE_REQUIREMENTS: 'STREAM-004' } });
  const report = JSON.parse(readFileSync(path.join(run.reportDir, 'conformance.json'), 'utf8')) as {
    verdict: { result: string; selection?: string; exitCode: number };
    requirements: { id: string; status: string; tests: { file: string }[] }[];
    run: { tests: { total: number } };
  };
  expect(run.code, run.tail).toBe(0);
  expect(report.verdict).toMatchObject({ result: 'partial', selection: 'requirement STREAM-004', exitCode: 0 });
  expect(report.requirements.find((r) => r.id === 'STREAM-004')!.status).toBe('pass');
  // Only the tests that can record STREAM-004 ran (the suite's index: those whose judgeStream judges [DONE]), in
  // every file that has one: the streamed tool calls too.
  const files = new Set(report.requirements.flatMap((r) => r.tests.map((t) => t.file)));
  expect([...files].sort()).toEqual([...new Set(testsRecording(['STREAM-004']).map((t) => `suites/${t.file}`))].sort());
  expect(files).toContain('suites/tools.spec.ts');
  expect(report.run.tests.total).toBe(testsRecording(['STREAM-004']).length);
  expect(report.requirements.filter((r) => r.status === 'untested').length).toBeGreaterThan(100);
  expect(readFileSync(path.join(run.reportDir, 'badge.svg'), 'utf8')).toMatch(/partial: \d+ pass, \d+ not run/);
  expect(run.tail).toContain('PARTIAL RUN — NOT A CERTIFICATION: requirement STREAM-004');
  cleanup(run);
});

test('--requirement STREAM-004 against a server whose streamed tool calls end without [DONE] fails STREAM-004, as the whole run does', async () => {
  // The defect shows only on streams that carry tool calls (tools.spec.ts): a selection by tag ran the streaming
  // files alone and passed STREAM-004; the index selects every test whose judgeStream can record it.
  const mock = await startMockServer({ port: 0, defect: 'stream-no-done' });
  mocks.push(mock);
  const run = await runSuite({ baseUrl: mock.url, workers: 2, boundMs: BOUND_MS, label: 'partial-defect', extraEnv: { CONFORMANCE_REQUIREMENTS: 'STREAM-004' } });
  const report = JSON.parse(readFileSync(path.join(run.reportDir, 'conformance.json'), 'utf8')) as {
    verdict: { result: string; mustFailed: string[] };
    requirements: { id: string; status: string; evidence: { status: string; location: string }[] }[];
  };
  expect(run.code, run.tail).toBe(1);
  expect(report.verdict.mustFailed).toEqual(['STREAM-004']);
  const failedAt = report.requirements.find((r) => r.id === 'STREAM-004')!.evidence.filter((e) => e.status === 'fail').map((e) => e.location.split(':')[0]);
  expect(new Set(failedAt)).toEqual(new Set(['suites/tools.spec.ts']));
  cleanup(run);
});

test('--model pins the run: discovery and the tests ask no other model, and a capability it lacks is a named skip', async () => {
  const proxy = await recordingTarget();
  try {
    const run = await runSuite({
      baseUrl: proxy.url,
      boundMs: BOUND_MS,
      label: 'pinned',
      extraEnv: { CONFORMANCE_API_KEY: MOCK_KEYS.full, CONFORMANCE_MODELS: 'acme/chat-small' },
      extraArgs: ['suites/reasoning.spec.ts', 'suites/tools.spec.ts'],
    });
    const report = JSON.parse(readFileSync(path.join(run.reportDir, 'conformance.json'), 'utf8')) as { requirements: { id: string; status: string; reason?: string }[]; verdict: { mustFailed: string[] } };
    expect(run.code, run.tail).toBe(0);
    expect(report.verdict.mustFailed).toEqual([]);
    // Every completion the run sent (discovery's probes first) named the pinned model.
    expect(proxy.models.length).toBeGreaterThan(5);
    expect([...new Set(proxy.models)]).toEqual(['acme/chat-small']);
    // acme/chat-small has no reasoning: those requirements skip, naming the missing capability.
    expect(report.requirements.find((r) => r.id === 'RSN-003')).toMatchObject({ status: 'skip', reason: expect.stringContaining('the run is pinned to acme/chat-small: none has supports_reasoning true') });
    // Tools need no capability: judged on the pinned model.
    expect(report.requirements.find((r) => r.id === 'TOOL-001')!.status).toBe('pass');
    cleanup(run);
  } finally {
    await proxy.close();
  }
});

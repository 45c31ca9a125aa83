// Issue 33, item 2, in process: a shard as given (run/shard.ts), the config file's shard key, and what
// report/merge.ts makes of the shards' reports (tests/integration/shards.spec.ts runs them for real).
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { configFileEnv } from '../../run/config-file.ts';
import { parseShard } from '../../run/shard.ts';
import { validate } from '../../spec/validator.ts';
import type { ConformanceReport } from '../../report/json.ts';
import { MergeRefused, planMerge, type ShardReport } from '../../report/merge.ts';
import { kitInfo } from '../../report/run-info.ts';
import { kitBuild } from '../../run/kit-build.ts';
import { sampleReport } from '../support/reports.ts';

test('a shard is i/n with 1 <= i <= n; anything else is refused in one line', () => {
  expect(parseShard('2/3')).toEqual({ index: 2, total: 3 });
  expect(parseShard(' 1 / 1 ')).toEqual({ index: 1, total: 1 });
  for (const bad of ['0/3', '4/3', '3', 'a/b', '1/0', '-1/3', '1.5/3']) expect(() => parseShard(bad), bad).toThrow(/^expected a shard as i\/n with 1 <= i <= n \(e\.g\. 2\/3\), got /);
});

test('the config file\'s shard key fills CONFORMANCE_SHARD; its schema takes i/n only', () => {
  expect(configFileEnv(path.resolve('chatconform.config.json'), { shard: '2/3' }, {})).toEqual({ CONFORMANCE_SHARD: '2/3' });
  expect(validate('config-file', { shard: '2/3' }).valid).toBe(true);
  expect(validate('config-file', { shard: '2-3' }).valid).toBe(false);
});

const DISCOVERY = { sha256: 'a'.repeat(64), models: ['m1', 'm2'] };

/** The fields of a shard's report the merge reads. */
function shardReport(index: number, over: { startedAt: string; durationMs: number; requests: number; cost: number; stopReason?: string; errors?: string[]; baseline?: unknown }): ShardReport {
  const report = {
    reportVersion: 2,
    kit: { name: 'chatconform', version: '0.2.0' },
    spec: { file: 'chat-completion-service.md', sha256: 'b'.repeat(64), catalogRecords: 1, requirements: 1, observations: 0 },
    target: { embeddedMock: true, url: `http://127.0.0.1:${4000 + index}` },
    run: {
      startedAt: over.startedAt,
      durationMs: over.durationMs,
      seed: 5,
      fuzzRuns: 25,
      requests: over.requests,
      cost: over.cost,
      costedResponses: over.requests,
      stopReason: over.stopReason ?? 'completed',
      caseKind: 'test',
      tests: { total: 1, judged: 1, unfinished: 0, skipped: 0, notRun: 0 },
      shard: { index, total: 3, discovery: DISCOVERY, selection: 'section 5', scope: ['AUTH-001'] },
    },
    verdict: { result: 'partial', ...(over.baseline ? { baseline: over.baseline } : {}) },
    errors: over.errors ?? [],
  };
  return { dir: `/shards/${index}`, report: report as unknown as ConformanceReport };
}

test('the merge plan: one span of time, the ledgers summed, the worst status, the baseline whole again, the missing shard named', () => {
  const entry = (id: string) => ({ id, reason: `${id} is known to fail` });
  const plan = planMerge([
    shardReport(3, { startedAt: '2026-01-01T00:00:10.000Z', durationMs: 5_000, requests: 4, cost: 0.25, stopReason: 'failed-to-run', errors: ['global setup: boom'], baseline: { file: 'ef.yaml', expected: [entry('CAT-001')], stale: [], unjudged: [entry('AUTH-001')] } }),
    shardReport(1, { startedAt: '2026-01-01T00:00:00.000Z', durationMs: 3_000, requests: 6, cost: 0.5, baseline: { file: 'ef.yaml', expected: [], stale: [entry('AUTH-001')], unjudged: [entry('CAT-001')] } }),
  ]);
  expect(plan.startedAt).toBe('2026-01-01T00:00:00.000Z');
  expect(plan.durationMs).toBe(15_000);
  expect(plan.ledger).toEqual({ requests: 10, cost: 0.75, costedResponses: 10 });
  expect(plan.stopReason).toBe('failed-to-run');
  expect(plan.tests).toEqual({ total: 2, judged: 2, unfinished: 0, skipped: 0, notRun: 0 });
  expect(plan.countsPerStatus).toBe(true);
  expect(plan.errors).toEqual(['shard 3/3: global setup: boom']);
  expect(plan.features.baseline?.entries.map((e) => e.id).sort()).toEqual(['AUTH-001', 'CAT-001']);
  expect(plan.selection).toBe('shards missing from the merge: 2/3; section 5');
  expect(plan.scope).toEqual(['AUTH-001']);
  expect(plan.merge).toMatchObject({ total: 3, missing: [2], catalogsDiffer: false });
  expect(plan.merge.shards.map((s) => s.index)).toEqual([1, 3]);
});

test('the merge refuses shards of another fuzz budget or kit, naming the setting and the shards', () => {
  const a = shardReport(1, { startedAt: '2026-01-01T00:00:00.000Z', durationMs: 1, requests: 0, cost: 0 });
  const b = shardReport(2, { startedAt: '2026-01-01T00:00:00.000Z', durationMs: 1, requests: 0, cost: 0 });
  (b.report.run as { fuzzRuns?: number }).fuzzRuns = 50;
  expect(() => planMerge([a, b])).toThrow(MergeRefused);
  expect(() => planMerge([a, b])).toThrow('the shards are not of one run: they differ in the runs per property (shard 1/3: 25; shard 2/3: 50)');
  b.report.run.fuzzRuns = 25;
  b.report.kit.version = '0.3.0';
  expect(() => planMerge([a, b])).toThrow('they differ in the kit version (shard 1/3: "0.2.0"; shard 2/3: "0.3.0")');
});

test('the merge refuses shards of two builds of one version, and a shard that names no build beside one that does (issue 51, item 12)', () => {
  const a = shardReport(1, { startedAt: '2026-01-01T00:00:00.000Z', durationMs: 1, requests: 0, cost: 0 });
  const b = shardReport(2, { startedAt: '2026-01-01T00:00:00.000Z', durationMs: 1, requests: 0, cost: 0 });
  a.report.kit.build = `sha256:${'1'.repeat(64)}`;
  b.report.kit.build = `sha256:${'2'.repeat(64)}`;
  expect(() => planMerge([a, b])).toThrow(`the shards are not of one run: they differ in the kit build (shard 1/3: "sha256:${'1'.repeat(64)}"; shard 2/3: "sha256:${'2'.repeat(64)}")`);
  delete b.report.kit.build;
  expect(() => planMerge([a, b])).toThrow('they differ in the kit build');
  b.report.kit.build = a.report.kit.build;
  expect(planMerge([a, b]).kit.build).toBe(a.report.kit.build);
});

test("every report records the kit's build: a content digest of its files, the same for every process of one build", () => {
  const build = kitInfo().build!;
  expect(build).toMatch(/^sha256:[0-9a-f]{64}$/);
  expect(kitBuild()).toBe(build);
  expect(validate('conformance-report', { ...sampleReport(), kit: { ...kitInfo() } }).valid).toBe(true);
});

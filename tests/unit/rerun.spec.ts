// What a rerun takes from a report (run/rerun.ts): the tests where each failed or unjudged requirement failed or
// could not be judged, not the tests that declare it; the test list Playwright runs them from; where the rerun's
// reports go, never over the report it reruns. The end-to-end rerun is tests/integration/rerun-failed.spec.ts.
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { rerunOfReport, rerunReportDir, testListOf, type RerunSource } from '../../run/rerun.ts';
import { buildReport, validateReport } from '../../report/json.ts';
import { aggregate, type TestOutcome } from '../../report/results.ts';
import { sampleInfo } from '../support/reports.ts';
import type { TestIndex } from '../../run/test-index.ts';

type Req = RerunSource['requirements'][number];
const requirement = (id: string, status: string, evidence: Req['evidence'], more: Partial<Req> = {}): Req => ({ id, kind: 'requirement', status, evidence, evidenceOmitted: 0, tests: [], ...more });

test('with the suite\'s index, a rerun also takes every other test that can record a failed requirement (as --requirement would), not in a per-model matrix', () => {
  const index: TestIndex = {
    note: 'test',
    tests: [
      { file: 'tools.spec.ts', titles: ['streamed tool calls', 'deltas assemble'], declared: ['TOOL-006'], judges: ['judgeStream'], ids: ['STREAM-004', 'TOOL-006'] },
      { file: 'streaming.spec.ts', titles: ['stream true', 'a streamed completion'], declared: ['REQ-005'], judges: ['judgeStream'], ids: ['REQ-005', 'STREAM-004'] },
      { file: 'catalog.spec.ts', titles: ['GET /v1/models', 'lists'], declared: ['CAT-001'], judges: [], ids: ['CAT-001'] },
    ],
  };
  const source: RerunSource = {
    run: { startedAt: '2026-01-02T03:04:05.000Z' },
    requirements: [requirement('STREAM-004', 'fail', [{ status: 'fail', test: 'streamed tool calls › deltas assemble', location: 'suites/tools.spec.ts:127' }])],
  };
  expect(rerunOfReport(source, '/r/conformance.json', index).tests).toEqual([
    { file: 'suites/tools.spec.ts', line: 127, title: 'streamed tool calls › deltas assemble' },
    { file: 'suites/streaming.spec.ts', line: 0, title: 'stream true › a streamed completion' },
  ]);
  // A per-model matrix's report: only its own tests (a declaration there depends on the models).
  expect(rerunOfReport({ ...source, models: [{ id: 'm' }] }, '/r/conformance.json', index).tests).toHaveLength(1);
});

test('the tests where a requirement failed or could not be judged, not those declaring it; a warning or a pass is not rerun', () => {
  const source: RerunSource = {
    run: { startedAt: '2026-01-02T03:04:05.000Z', seed: 42 },
    requirements: [
      // STREAM-004 is declared by the streaming tests and failed in a tools test.
      requirement('STREAM-004', 'fail', [{ status: 'fail', test: 'streamed tool calls › deltas assemble', location: 'suites/tools.spec.ts:127' }], {
        tests: [{ title: 'streaming › ends with [DONE]', file: 'suites/streaming.spec.ts', line: 20, status: 'passed' }],
      }),
      // An unjudged one: its error's test; its warnings' tests are not rerun.
      requirement('CAT-001', 'error', [{ status: 'error', test: 'catalog › lists', location: 'suites/catalog.spec.ts:10' }]),
      requirement('CHAT-020', 'warn', [{ status: 'warn', test: 'chat › a warn', location: 'suites/chat.spec.ts:5' }]),
      requirement('CHAT-001', 'pass', []),
      { ...requirement('OBS-001', 'fail', [{ status: 'fail', test: 'x', location: 'suites/chat.spec.ts:9' }]), kind: 'observation' },
    ],
  };
  const of = rerunOfReport(source, '/r/conformance.json');
  expect(of).toEqual({
    report: '/r/conformance.json',
    startedAt: '2026-01-02T03:04:05.000Z',
    seed: 42,
    requirements: ['STREAM-004', 'CAT-001'],
    tests: [
      { file: 'suites/tools.spec.ts', line: 127, title: 'streamed tool calls › deltas assemble' },
      { file: 'suites/catalog.spec.ts', line: 10, title: 'catalog › lists' },
    ],
  });
});

test("evidence cut short: the failed tests charged with it and its tests that failed are taken too; a matrix model is the slot's block around the file's", () => {
  const source: RerunSource = {
    run: { startedAt: '2026-01-02T03:04:05.000Z' },
    models: [{ id: 'acme/a' }],
    requirements: [
      requirement('TOOL-006', 'fail', [{ status: 'fail', test: 'acme/a › tools › one', location: 'suites/tools.spec.ts:1' }], {
        evidenceOmitted: 3,
        tests: [
          { title: 'acme/a › tools › crashed', file: 'suites/tools.spec.ts', line: 3, status: 'unfinished' },
          { title: 'acme/a › tools › fine', file: 'suites/tools.spec.ts', line: 4, status: 'judged' },
        ],
      }),
    ],
    failedTests: [
      { title: 'acme/a › tools › two', file: 'suites/tools.spec.ts', line: 2, failed: ['TOOL-006'] },
      { title: 'acme/a › tools › other', file: 'suites/tools.spec.ts', line: 9, failed: ['TOOL-001'] },
    ],
  };
  const of = rerunOfReport(source, '/r/conformance.json');
  expect(of.tests.map((t) => `${t.model} ${t.line} ${t.title}`)).toEqual(['acme/a 1 tools › one', 'acme/a 2 tools › two', 'acme/a 3 tools › crashed']);
  expect(testListOf(of.tests, '/kit', '/kit/suites').split('\n').filter((l) => !l.startsWith('#') && l !== '')).toEqual([
    // The slot's block, the outermost (suites/lib/slots.ts declares it so), titled by the model.
    'tools.spec.ts › acme/a › tools › one',
    'tools.spec.ts › acme/a › tools › two',
    'tools.spec.ts › acme/a › tools › crashed',
  ]);
});

test("the rerun's reports go to rerun/ of the report dir, never over the report it reruns", () => {
  expect(rerunReportDir('/r', '/r/conformance.json')).toBe(path.resolve('/r/rerun'));
  expect(rerunReportDir('/r', '/r/rerun/conformance.json')).toBe(path.resolve('/r/rerun/rerun'));
  expect(rerunReportDir('/r', '/elsewhere/kept.json')).toBe(path.resolve('/r/rerun'));
});

test("the rerun's report says which run it reran, relative to its own folder, and is partial even when all passes", () => {
  const outcome: TestOutcome = { title: 'streaming › ends', file: 'suites/streaming.spec.ts', line: 1, status: 'judged', declared: ['STREAM-004'], durationMs: 1, evidence: { checks: [{ id: 'STREAM-004', status: 'pass' }], exchanges: [] } };
  const of = rerunOfReport({ run: { startedAt: '2026-01-02T03:04:05.000Z', seed: 3 }, requirements: [requirement('STREAM-004', 'fail', [{ status: 'fail', test: 'streaming › ends', location: 'suites/streaming.spec.ts:1' }])] }, '/r/conformance.json');
  const report = buildReport({
    info: { ...sampleInfo(), rerunOf: { ...of, report: '../conformance.json' } },
    results: aggregate([outcome]),
    outcomes: [outcome],
    startedAt: new Date('2026-01-03T00:00:00Z'),
    durationMs: 1,
    stopReason: 'completed',
    errors: [],
  });
  expect(validateReport(report)).toEqual([]);
  expect(report.run.rerunOf).toMatchObject({ report: '../conformance.json', startedAt: '2026-01-02T03:04:05.000Z', seed: 3, requirements: ['STREAM-004'] });
  expect(report.verdict.result).toBe('partial');
  expect(report.verdict.summary).toContain('a rerun of the 1 test where STREAM-004 failed or could not be judged in the run of 2026-01-02T03:04:05.000Z (seed 3), whose report ../conformance.json is kept');
});

test("a rerun of a run of several targets or trials: each test under every slot of the rerun it may be declared in", () => {
  const tests = [
    { file: 'suites/chat.spec.ts', line: 3, title: 'non-streamed › an answer' },
    { file: 'suites/tools.spec.ts', line: 9, title: 'a call', model: 'acme/a' },
  ];
  const lines = (space: Parameters<typeof testListOf>[3]) => testListOf(tests, '/kit', '/kit/suites', space).split('\n').filter((l) => !l.startsWith('#') && l !== '');
  expect(lines({})).toEqual(['chat.spec.ts › non-streamed › an answer', 'tools.spec.ts › acme/a › a call']);
  expect(lines({ targets: ['reference', 'target'] })).toEqual([
    'chat.spec.ts › reference › non-streamed › an answer',
    'chat.spec.ts › target › non-streamed › an answer',
    'tools.spec.ts › reference · acme/a › a call',
    'tools.spec.ts › target · acme/a › a call',
  ]);
  // The first trial's block has no title of its own; a test not repeated is left out of the others by the run.
  expect(lines({ trials: 2 })).toEqual(['chat.spec.ts › non-streamed › an answer', 'chat.spec.ts › trial 2 › non-streamed › an answer', 'tools.spec.ts › acme/a › a call', 'tools.spec.ts › acme/a · trial 2 › a call']);
});

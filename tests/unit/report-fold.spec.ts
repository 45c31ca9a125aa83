// The one fold (report/fold.ts) and what a merge keeps of each of its steps, on hand-made cases: shards folded
// from halves of a run's cases, planned by report/merge.ts and folded again, give the report the whole run gives,
// trials, reference column and per-model rows included (tests/integration/shards-features.spec.ts does it for real).
import { expect, test } from '@playwright/test';
import { foldReport, type Features, type RecordedCase, type RunFacts } from '../../report/fold.ts';
import { validateReport, type ConformanceReport } from '../../report/json.ts';
import { MergeRefused, planMerge, type ShardReport } from '../../report/merge.ts';
import { MODEL_SKIP_PREFIX } from '../../report/models.ts';
import type { CheckRecord } from '../../judge/checker.ts';
import { stopReasonOf } from '../../suites/reporter.ts';
import { recordedCase, sampleInfo } from '../support/reports.ts';


const facts = (over: Partial<RunFacts> = {}): RunFacts => ({
  info: sampleInfo(),
  startedAt: new Date('2026-01-01T00:00:00Z'),
  durationMs: 10,
  stopReason: 'completed',
  errors: [],
  ...over,
});

/** Each of the n shards' reports: the cases of index i mod n, folded with the shard's facts and the run's features. */
function shards(cases: readonly RecordedCase[], n: number, features: Features): ShardReport[] {
  return Array.from({ length: n }, (_, k) => {
    const mine = cases.filter((_, i) => i % n === k);
    const shard = { index: k + 1, total: n, discovery: { sha256: 'a'.repeat(64), models: ['acme/a', 'acme/b'] }, blob: { file: `report-${k + 1}.zip`, sha256: 'c'.repeat(64) } };
    // Each shard's ledger of model requests is its own share.
    const models = features.models ? { ...features.models, requests: Object.fromEntries(Object.entries(features.models.requests).map(([id, r]) => [id, k === 0 ? r : 0])) } : undefined;
    const report = foldReport(mine, facts({ shard }), { ...features, ...(models ? { models } : {}), selection: `shard ${k + 1}/${n} of the suite` });
    return { dir: `/shards/${k + 1}`, report };
  });
}

/** The merged report, folded as writeMerged folds it: the replayed cases, the facts and features the plan kept. */
function merged(cases: readonly RecordedCase[], parts: ShardReport[], reference?: ConformanceReport): ConformanceReport {
  const plan = planMerge(parts);
  const { reference: ref, ...kept } = plan.features;
  return foldReport(
    cases,
    facts({ stopReason: plan.stopReason, errors: plan.errors, merge: plan.merge, startedAt: new Date(plan.startedAt), durationMs: plan.durationMs }),
    { failOn: plan.failOn, ...(plan.selection !== undefined ? { selection: plan.selection } : {}), ...kept, ...(ref && reference ? { reference: { report: reference, url: ref.url } } : {}) },
  );
}

const byId = (r: ConformanceReport) => Object.fromEntries(r.requirements.map((x) => [x.id, { status: x.status, trials: x.trials, differential: x.differential?.classification }]));

/** The tool test's trials: a call named as declared (TOOL-006 pass) in trials 0 and 2, a wrong name in 1 and 3. */
const TRIALS: RecordedCase[] = [0, 1, 2, 3].map((trial) => recordedCase('tools › a call', [{ id: 'TOOL-006', status: trial % 2 === 0 ? 'pass' : 'fail' }, { id: 'RESP-001', status: 'pass' }], { trial }));
const ONCE: RecordedCase[] = [recordedCase('catalog › lists', [{ id: 'CAT-031', status: 'pass' }]), recordedCase('chat › answers', [{ id: 'CHAT-005', status: 'fail' }])];

test('a merge keeps the trials and the reference column: the merged report is the whole run\'s', () => {
  const cases = [...ONCE, ...TRIALS];
  const reference = foldReport([recordedCase('tools › a call', [{ id: 'TOOL-006', status: 'pass' }]), recordedCase('chat › answers', [{ id: 'CHAT-005', status: 'fail' }])], facts(), {});
  const features: Features = { trials: { k: 4, minPassRate: 0.5 }, reference: { report: reference, url: 'http://upstream.example' } };
  const whole = foldReport(cases, facts(), features);
  expect(whole.requirements.find((r) => r.id === 'TOOL-006')).toMatchObject({ status: 'pass', trials: { runs: 4, passed: 2, rate: 0.5 }, differential: { reference: 'pass', classification: 'same' } });
  expect(whole.requirements.find((r) => r.id === 'CHAT-005')?.differential?.classification).toBe('both');

  const parts = shards(cases, 2, features);
  // A shard alone judges only its own trials.
  expect(parts[0]!.report.requirements.find((r) => r.id === 'TOOL-006')?.trials?.runs).toBe(2);
  const report = merged(cases, parts, reference);
  expect(validateReport(report)).toEqual([]);
  expect(byId(report)).toEqual(byId(whole));
  expect(report.run.trials).toEqual({ k: 4, minPassRate: 0.5 });
  expect(report.run.reference).toMatchObject({ url: 'http://upstream.example', counts: whole.run.reference!.counts });
  expect(report.verdict.mustFailed).toEqual(whole.verdict.mustFailed);
  expect(report.run.stopReason).toBe('completed');
});

test('a merge keeps models[]: each model\'s row from its cases in every shard, the requests of every shard summed', () => {
  const model = (id: string, checks: Pick<CheckRecord, 'id' | 'status'>[], over: Partial<RecordedCase> = {}) => recordedCase(`${id} › chat › answers`, checks, { model: id, ...over });
  const cases = [
    recordedCase('catalog › lists', [{ id: 'CAT-031', status: 'pass' }]),
    model('acme/a', [{ id: 'CHAT-004', status: 'pass' }]),
    model('acme/a', [{ id: 'CHAT-005', status: 'pass' }]),
    model('acme/b', [{ id: 'CHAT-004', status: 'pass' }]),
    model('acme/b', [{ id: 'CHAT-005', status: 'fail' }]),
    model('acme/c', [], { status: 'skipped', declared: ['CHAT-004'], skipReason: `${MODEL_SKIP_PREFIX}acme/c: the catalog does not list it` }),
  ];
  const features: Features = { models: { ids: ['acme/a', 'acme/b', 'acme/c'], requests: { 'acme/a': 4, 'acme/b': 6, 'acme/c': 0 }, maxFailingModels: 1 } };
  const whole = foldReport(cases, facts(), features);
  expect(whole.models?.map((m) => [m.id, m.verdict])).toEqual([['acme/a', 'pass'], ['acme/b', 'fail'], ['acme/c', 'skipped']]);
  // The failing model is within --max-failing-models 1: the run does not fail on it.
  expect(whole.verdict.exitCode).toBe(0);
  expect(whole.run.maxFailingModels).toBe(1);

  const parts = shards(cases, 3, features);
  const report = merged(cases, parts);
  expect(validateReport(report)).toEqual([]);
  expect(report.models).toEqual(whole.models);
  expect(report.run.maxFailingModels).toBe(1);
  expect(report.verdict.exitCode).toBe(0);
  expect(byId(report)).toEqual(byId(whole));
});

test('shards that differ in a feature the fold keeps are refused, naming it', () => {
  const a = shards([...ONCE, ...TRIALS], 2, { trials: { k: 4, minPassRate: 0.5 } });
  const b = shards([...ONCE, ...TRIALS], 2, { trials: { k: 4, minPassRate: 1 } });
  expect(() => planMerge([a[0]!, b[1]!])).toThrow(MergeRefused);
  expect(() => planMerge([a[0]!, b[1]!])).toThrow(/they differ in the trials \(shard 1\/2: \{"k":4,"minPassRate":0\.5\}; shard 2\/2: \{"k":4,"minPassRate":1\}\)/);
  const plain = shards(ONCE, 2, {});
  const paired = shards(ONCE, 2, { reference: { report: foldReport([], facts(), {}), url: 'http://upstream.example' } });
  expect(() => planMerge([plain[0]!, paired[1]!])).toThrow(/they differ in the reference \(shard 1\/2: "\(none\)"; shard 2\/2: "http:\/\/upstream\.example"\)/);
});

test('the stop reason speaks the engine\'s words; no report carries a Playwright status', () => {
  // The reporter reads Playwright's status: a failed test is a completed run; errors outside the tests are not.
  expect(stopReasonOf('failed', [])).toBe('completed');
  expect(stopReasonOf('passed', [])).toBe('completed');
  expect(stopReasonOf('failed', ['global setup: boom'])).toBe('failed-to-run');
  expect(stopReasonOf('interrupted', ['boom'])).toBe('interrupted');
  expect(stopReasonOf('timedout', [])).toBe('out-of-time');
  const interrupted = foldReport(ONCE, facts({ stopReason: 'interrupted' }), {});
  expect(interrupted.run).toMatchObject({ stopReason: 'interrupted', caseKind: 'test' });
  expect(interrupted.verdict.exitCode).toBe(1);
  const traffic = foldReport([recordedCase('catalog › lists', [{ id: 'CAT-031', status: 'pass' }])], facts(), { selection: 'traffic', caseKind: 'exchange' });
  expect(traffic.run).toMatchObject({ stopReason: 'completed', caseKind: 'exchange' });
  expect(validateReport(traffic)).toEqual([]);
  // Nothing of Playwright's vocabulary in a report: no playwrightStatus, no exitStatus, no test status of Playwright's.
  for (const r of [interrupted, traffic]) expect(JSON.stringify(r)).not.toMatch(/playwrightStatus|exitStatus|:"(passed|failed|timedOut|timedout|notRun)"/);
  const setupFailed = foldReport([], facts({ stopReason: 'failed-to-run', errors: ['global setup: boom'] }), {});
  expect(setupFailed.verdict).toMatchObject({ result: 'incomplete', exitCode: 3 });
});

test('a model the run cannot use is skipped with why, even beside a test that passed without judging a MUST on it', () => {
  const skipped = (title: string) => recordedCase(title, [], { model: 'busy', status: 'skipped', declared: ['CHAT-004'], skipReason: `${MODEL_SKIP_PREFIX}busy: the profile names it unavailable`, evidence: { checks: [], exchanges: [] } });
  const cases: RecordedCase[] = [
    skipped('busy › chat › a'),
    skipped('busy › chat › b'),
    // A test that sends the model's name without needing it served (a request rule judged before any model is used).
    recordedCase('busy › chat › request', [{ id: 'OBS-001', status: 'pass' }], { model: 'busy' }),
    recordedCase('ok › chat › a', [{ id: 'CHAT-004', status: 'pass' }], { model: 'ok' }),
  ];
  const report = foldReport(cases, facts(), { models: { ids: ['busy', 'ok'], requests: { busy: 1, ok: 3 }, maxFailingModels: 0 } });
  expect(report.models?.find((m) => m.id === 'busy')).toMatchObject({ verdict: 'skipped', reason: 'the profile names it unavailable' });
  expect(report.models?.find((m) => m.id === 'ok')).toMatchObject({ verdict: 'pass' });
});

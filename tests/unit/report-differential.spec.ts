// The reference column (issue 34) on hand-made results: each requirement paired with the reference's record of it,
// classified by whose failure it is; --fail-on target-only gates only on what the target adds; the report validates.
import { expect, test } from '@playwright/test';
import { aggregate, type RequirementResult, type RequirementStatus, type TestOutcome } from '../../report/results.ts';
import { classify, classificationCounts, targetOnlyFailures, withDifferential } from '../../report/differential.ts';
import { buildReport, validateReport, type ConformanceReport } from '../../report/json.ts';
import { foldReport } from '../../report/fold.ts';
import { renderSummary } from '../../report/terminal.ts';
import { referenceSecrets } from '../../report/reference-run.ts';
import { sampleInfo } from '../support/reports.ts';

function outcome(id: string, status: 'pass' | 'fail', test = 'a test'): TestOutcome {
  return {
    title: test,
    file: 'suites/x.spec.ts',
    line: 1,
    status: 'judged',
    declared: [id],
    durationMs: 1,
    evidence: { checks: [{ id, status, message: `${id} ${status}ed on ${test}` }], exchanges: [] },
  };
}

const idOf = (results: RequirementResult[], id: string) => results.find((r) => r.id === id)!;

test('classification: both pass, target only, both (inherited), reference only, and unjudged when a side could not judge', () => {
  const cases: [RequirementStatus, RequirementStatus, string][] = [
    ['pass', 'pass', 'same'],
    ['fail', 'pass', 'target-only'],
    ['fail', 'fail', 'both'],
    ['warn', 'expected-fail', 'both'],
    ['pass', 'fail', 'reference-only'],
    ['observed', 'observed', 'same'],
    ['fail', 'skip', 'unjudged'],
    ['pass', 'untested', 'unjudged'],
    ['error', 'pass', 'unjudged'],
  ];
  for (const [t, r, c] of cases) expect(classify(t, r), `${t} / ${r}`).toBe(c);
});

test('each requirement of the target carries the reference status, its reason and its evidence, the same tests first', () => {
  const target = aggregate([outcome('TOOL-006', 'fail', 'tools A'), outcome('CHAT-001', 'fail'), outcome('STREAM-002', 'pass')]);
  const reference = aggregate([outcome('TOOL-006', 'pass', 'tools A'), outcome('CHAT-001', 'fail', 'other'), outcome('CHAT-001', 'fail'), outcome('STREAM-002', 'fail')]);
  const paired = withDifferential(target, reference);
  expect(idOf(paired, 'TOOL-006').differential).toEqual({ reference: 'pass', classification: 'target-only' });
  const chat = idOf(paired, 'CHAT-001').differential!;
  expect(chat.classification).toBe('both');
  expect(chat.referenceReason).toContain('CHAT-001 failed');
  expect(chat.referenceEvidence!.map((e) => e.test)).toEqual(['a test', 'other']);
  expect(idOf(paired, 'STREAM-002').differential!.classification).toBe('reference-only');
  const counts = classificationCounts(paired);
  expect([counts['target-only'], counts.both, counts['reference-only']]).toEqual([1, 1, 1]);
  // The target's own fields are untouched.
  expect(idOf(paired, 'TOOL-006').status).toBe('fail');
});

test('--fail-on target-only: a MUST failure the reference shares does not gate; one it does not share does', () => {
  const build = (reference: TestOutcome[]) => {
    const outcomes = [outcome('TOOL-006', 'fail'), outcome('RESP-002', 'fail')];
    const results = withDifferential(aggregate(outcomes), aggregate(reference));
    return buildReport({ info: sampleInfo(), results, outcomes, startedAt: new Date(0), durationMs: 1, stopReason: 'completed', errors: [], failOn: 'target-only', selection: 'requirement TOOL-006, RESP-002' });
  };
  const inherited = build([outcome('TOOL-006', 'fail'), outcome('RESP-002', 'fail')]);
  expect(inherited.verdict.mustFailed.sort()).toEqual(['RESP-002', 'TOOL-006']);
  expect(inherited.verdict.exitCode).toBe(0);
  expect(validateReport(inherited)).toEqual([]);
  const added = build([outcome('TOOL-006', 'pass'), outcome('RESP-002', 'fail')]);
  expect(added.verdict.exitCode).toBe(1);
  expect(targetOnlyFailures(added.verdict.mustFailed, added.requirements)).toEqual(['TOOL-006']);
});

test("the reference's credentials are masked in the target's reports too", () => {
  expect(referenceSecrets({ CONFORMANCE_REFERENCE_API_KEY: 'sk-upstream-key' })).toEqual(['sk-upstream-key']);
});

// The reference column pairs cases, not statuses: blame is given over the cases judged on both sides only.
test.describe('the reference column pairs cases', () => {
  const facts = { info: sampleInfo(), startedAt: new Date(0), durationMs: 1, stopReason: 'completed' as const, errors: [] };
  const rest = (n: number, status: 'pass' | 'fail') => Array.from({ length: n }, (_, i) => outcome('RESP-001', status, `responses › non-streamed case ${i}`));
  const streams = (status: 'pass' | 'fail' | 'skip') =>
    Array.from({ length: 10 }, (_, i): TestOutcome => ({
      ...outcome('RESP-001', status === 'skip' ? 'pass' : status, `responses › streamed case ${i}`),
      // A stream answered 500 judges nothing of the response object: RESP-001 is left unjudged on that case.
      ...(status === 'skip' ? { evidence: { checks: [{ id: 'RESP-001', status: 'skip' as const, message: 'no response object: the stream was answered 500', cause: { id: 'STREAM-001', message: 'the stream was answered 500' } }], exchanges: [] } } : {}),
    }));
  // The reference, read back from its conformance.json as a merge or CONFORMANCE_REFERENCE_REPORT reads it.
  const referenceOf = (cases: TestOutcome[]) => JSON.parse(JSON.stringify(foldReport(cases, facts, {}))) as ConformanceReport;
  const resp = (r: ConformanceReport) => r.requirements.find((x) => x.id === 'RESP-001')!;

  test('a gateway that answers every stream 500 is not credited with fixing the streams its reference fails', () => {
    const reference = referenceOf([...rest(50, 'pass'), ...streams('fail')]);
    expect(validateReport(reference)).toEqual([]);
    const target = foldReport([...rest(50, 'pass'), ...streams('skip')], facts, { reference: { report: reference, url: 'http://upstream.example' } });
    expect(validateReport(target)).toEqual([]);
    expect(resp(target).status).toBe('pass');
    const d = resp(target).differential!;
    expect(d.classification).toBe('unjudged');
    expect(d.paired).toBe(50);
    expect(d.reason).toContain('the reference fails on 10 cases the target did not judge');
    expect(d.reason).toContain('responses › streamed case 0');
    expect(target.run.reference!.counts['reference-only']).toBe(0);
    expect(renderSummary(target, [])).toMatch(/RESP-001 +target pass +reference fail +one side could not judge it: the reference fails on 10 cases/);
  });

  test('the same streams judged and passed on the target: the target fixes them (reference-only)', () => {
    const reference = referenceOf([...rest(50, 'pass'), ...streams('fail')]);
    const target = foldReport([...rest(50, 'pass'), ...streams('pass')], facts, { reference: { report: reference, url: 'http://upstream.example' } });
    expect(resp(target).differential).toMatchObject({ classification: 'reference-only', paired: 60 });
  });

  test('target-only and both are decided on the paired cases; a failure the other side never judged is no blame', () => {
    // The target fails the streams, the reference never judged them and passes the rest: nothing shows who adds it.
    const unpaired = foldReport([...rest(50, 'pass'), ...streams('fail')], facts, { reference: { report: referenceOf([...rest(50, 'pass'), ...streams('skip')]), url: 'u' } });
    expect(resp(unpaired).differential).toMatchObject({ classification: 'unjudged', reason: expect.stringContaining('the target fails on 10 cases the reference did not judge') });
    // Under --fail-on target-only it still gates: nothing shows the reference shares it.
    expect(targetOnlyFailures(['RESP-001'], unpaired.requirements)).toEqual(['RESP-001']);
    // The target fails one non-streamed case the reference passes: target-only, whatever the streams do.
    const added = foldReport([...rest(49, 'pass'), outcome('RESP-001', 'fail', 'responses › non-streamed case 49'), ...streams('skip')], facts, {
      reference: { report: referenceOf([...rest(50, 'pass'), ...streams('fail')]), url: 'u' },
    });
    expect(resp(added).differential?.classification).toBe('target-only');
    const inherited = foldReport([...rest(50, 'pass'), ...streams('fail')], facts, { reference: { report: referenceOf([...rest(50, 'pass'), ...streams('fail')]), url: 'u' } });
    expect(resp(inherited).differential).toMatchObject({ classification: 'both', paired: 60 });
  });
});

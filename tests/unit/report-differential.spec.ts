// The reference column (issue 34) on hand-made results: each requirement paired with the reference's record of it,
// classified by whose failure it is; --fail-on target-only gates only on what the target adds; the report validates.
import { expect, test } from '@playwright/test';
import { aggregate, type RequirementResult, type RequirementStatus, type TestOutcome } from '../../report/results.ts';
import { classify, classificationCounts, targetOnlyFailures, withDifferential } from '../../report/differential.ts';
import { buildReport, validateReport } from '../../report/json.ts';
import { referenceSecrets } from '../../report/reference-run.ts';
import { sampleInfo } from '../support/reports.ts';

function outcome(id: string, status: 'pass' | 'fail', test = 'a test'): TestOutcome {
  return {
    title: test,
    file: 'suites/x.spec.ts',
    line: 1,
    status: status === 'fail' ? 'failed' : 'passed',
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
    return buildReport({ info: sampleInfo(), results, outcomes, startedAt: new Date(0), durationMs: 1, playwrightStatus: 'failed', errors: [], failOn: 'target-only', selection: 'requirement TOOL-006, RESP-002' });
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

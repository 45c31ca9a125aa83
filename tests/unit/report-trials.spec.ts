// Repeated trials (issue 34) on hand-made outcomes: a model-dependent requirement is judged on its pass rate over
// the trials; a protocol requirement the same tests check fails on one broken answer whatever the rate.
import { expect, test } from '@playwright/test';
import type { CheckRecord } from '../../judge/checker.ts';
import { aggregate, type TestOutcome } from '../../report/results.ts';
import { foldTrials } from '../../report/trials.ts';
import { buildReport, validateReport } from '../../report/json.ts';
import { MODEL_DEPENDENT_REQUIREMENTS, trialsOf, unknownModelDependentIds } from '../../run/trials.ts';
import { SLOT_GREP_INVERT, SLOT_TAG } from '../../run/slots.ts';
import { sampleInfo } from '../support/reports.ts';

/**
 * Trial `trial` of the tool test: a call produced that names a declared function (true: TOOL-006 pass), one that does
 * not ('wrong': TOOL-006 fail), or none (false: no case, as a tool test records it: skipped, not applicable), and its
 * schema check.
 */
function trial(trial: number, produced: boolean | 'wrong', schemaOk = true): TestOutcome {
  const checks: CheckRecord[] = [schemaOk ? { id: 'RESP-001', status: 'pass' } : { id: 'RESP-001', status: 'fail', message: 'RESP-001 the body is not an object' }];
  if (produced === true) checks.push({ id: 'TOOL-006', status: 'pass' });
  else if (produced === 'wrong') checks.push({ id: 'TOOL-006', status: 'fail', message: 'TOOL-006 tool call 0 names "nope"' });
  else checks.push({ id: 'TOOL-006', status: 'skip', notApplicable: true, message: 'no tool call came back', cause: { message: 'no tool call came back' } });
  return { title: 'tools › a call', file: 'suites/tools.spec.ts', line: 1, status: 'judged', declared: ['TOOL-006', 'RESP-001'], durationMs: 1, trial, evidence: { checks, exchanges: [] } };
}

const fold = (outcomes: TestOutcome[], rate: number) => foldTrials(aggregate(outcomes), outcomes, MODEL_DEPENDENT_REQUIREMENTS, rate);
const get = (results: ReturnType<typeof fold>, id: string) => results.find((r) => r.id === id)!;

test('a model-dependent requirement records its trials and passes when the rate reaches the minimum', () => {
  const outcomes = Array.from({ length: 10 }, (_, i) => trial(i, i % 2 === 0 ? true : 'wrong'));
  const strict = get(fold(outcomes, 1), 'TOOL-006');
  expect(strict.trials).toMatchObject({ runs: 10, passed: 5, rate: 0.5, minPassRate: 1 });
  expect(strict.status).toBe('fail');
  expect(strict.trials!.failing!.map((f) => f.trial)).toEqual([1, 3, 5, 7, 9]);
  expect(strict.reason).toContain('5 of 10 trials passed');
  const lenient = get(fold(outcomes, 0.5), 'TOOL-006');
  expect(lenient.status).toBe('pass');
  expect(get(fold(outcomes, 0.5), 'RESP-001').trials, 'a protocol requirement is not folded by rate').toBeUndefined();
});

test('a rate counts only the trials that produced a case: one call in 24 trials, naming a declared function, is 1 of 1', () => {
  const outcomes = Array.from({ length: 24 }, (_, i) => trial(i, i === 5));
  const r = get(fold(outcomes, 1), 'TOOL-006');
  expect(r.trials).toMatchObject({ runs: 1, passed: 1, rate: 1 });
  expect(r.trials!.failing).toBeUndefined();
  expect(r.status).toBe('pass');
  // A wrong call among them still fails it: 1 of 2.
  const wrong = get(fold([...outcomes, trial(24, 'wrong')], 1), 'TOOL-006');
  expect(wrong.trials).toMatchObject({ runs: 2, passed: 1 });
  expect(wrong.status).toBe('fail');
  expect(wrong.reason).toContain('1 of 2 trials passed');
  // No trial produced a case: no rate, and the requirement is left as the ordinary fold made it (not judged).
  const none = get(fold(Array.from({ length: 3 }, (_, i) => trial(i, false)), 1), 'TOOL-006');
  expect(none.trials).toBeUndefined();
  expect(none.status).toBe('skip');
});

test('one broken answer fails a protocol requirement whatever the rate of the model-dependent one', () => {
  const outcomes = [...Array.from({ length: 9 }, (_, i) => trial(i, true)), trial(9, true, false)];
  const results = fold(outcomes, 0.5);
  expect(get(results, 'TOOL-006').status).toBe('pass');
  expect(get(results, 'RESP-001').status).toBe('fail');
});

test('outcomes without trials are left as the ordinary fold made them; a failure outside the trials still stands', () => {
  const once = trial(0, false);
  delete once.trial;
  expect(get(fold([once], 0), 'TOOL-006').trials).toBeUndefined();
  const outside: TestOutcome = { ...once, title: 'other', evidence: { checks: [{ id: 'TOOL-006', status: 'fail', message: 'TOOL-006 names x' }], exchanges: [] } };
  const results = fold([outside, ...Array.from({ length: 4 }, (_, i) => trial(i, true))], 0.5);
  expect(get(results, 'TOOL-006').status).toBe('fail');
  expect(get(results, 'TOOL-006').trials).toMatchObject({ runs: 4, passed: 4 });
});

test('the report with trials validates against its schema', () => {
  const outcomes = Array.from({ length: 4 }, (_, i) => trial(i, i !== 2));
  const results = fold(outcomes, 0.7);
  const report = buildReport({ info: sampleInfo(), results, outcomes, startedAt: new Date(0), durationMs: 1, stopReason: 'completed', errors: [], trials: { k: 4, minPassRate: 0.7 } });
  expect(validateReport(report)).toEqual([]);
  expect(report.run.trials).toEqual({ k: 4, minPassRate: 0.7 });
});

test('settings: CONFORMANCE_TRIALS and CONFORMANCE_MIN_PASS_RATE, a bad value is a clear error; a later trial holds only the model-dependent tests', () => {
  expect(trialsOf({})).toBeUndefined();
  expect(trialsOf({ CONFORMANCE_TRIALS: '10' })).toEqual({ k: 10, minPassRate: 1 });
  expect(trialsOf({ CONFORMANCE_TRIALS: '3', CONFORMANCE_MIN_PASS_RATE: '0.6' })).toEqual({ k: 3, minPassRate: 0.6 });
  expect(() => trialsOf({ CONFORMANCE_TRIALS: '0' })).toThrow(/at least 1/);
  expect(() => trialsOf({ CONFORMANCE_TRIALS: '2', CONFORMANCE_MIN_PASS_RATE: '1.5' })).toThrow(/from 0 to 1/);
  expect(() => trialsOf({ CONFORMANCE_MIN_PASS_RATE: '0.5' })).toThrow(/CONFORMANCE_TRIALS/);
  expect(unknownModelDependentIds()).toEqual([]);
  // What Playwright greps in a later trial's block (run/slots.ts): "file trial 2 describe title @tags".
  const leftOut = (title: string) => SLOT_GREP_INVERT.some((re) => re.test(title));
  const later = (title: string) => `tools.spec.ts trial 2 ${SLOT_TAG['model-dependent']} tool_choice ${title}`;
  expect(leftOut(later('an object naming one declared function is accepted @TOOL-006 @model-dependent'))).toBe(false);
  expect(leftOut(later('tool calls sent with no tools declared are refused @TOOL-012'))).toBe(true);
  expect(leftOut(later('a longer tag is another tag @TOOL-012 @model-dependent-x'))).toBe(true);
  // The first trial's block holds every test.
  expect(leftOut('tools.spec.ts tool_choice tool calls sent with no tools declared are refused @TOOL-012')).toBe(false);
  // Caps honoured by sampling: the token-cap property is repeated, and its caps are rated.
  expect(leftOut(later('max_completion_tokens is the cap whenever present @REQ-010 @model-dependent'))).toBe(false);
  for (const id of ['REQ-008', 'REQ-010', 'REQ-011']) expect(MODEL_DEPENDENT_REQUIREMENTS.has(id)).toBe(true);
});

// A MUST that rests on the kit's reading of a gap of the contract (a catalog record with `reading: true`, the gap
// quoted): its failure is shown but the default gate leaves it out; --fail-on strict keeps it (and warn does).
import { expect, test } from '@playwright/test';
import { aggregate, type TestOutcome } from '../../report/results.ts';
import { buildReport, validateReport, type FailOn } from '../../report/json.ts';
import { readingExcluded } from '../../run/gate-readings.ts';
import { readingOf, requirements, validateRequirements } from '../../spec/index.ts';
import { sampleInfo } from '../support/reports.ts';

function failed(id: string): TestOutcome {
  return { title: `judges ${id}`, file: 'suites/x.spec.ts', line: 1, status: 'judged', declared: [id], durationMs: 1, evidence: { checks: [{ id, status: 'fail', message: `${id} failed` }], exchanges: [] } };
}

function gate(ids: string[], failOn: FailOn) {
  const outcomes = ids.map(failed);
  const report = buildReport({ info: sampleInfo(), results: aggregate(outcomes), outcomes, startedAt: new Date(0), durationMs: 1, stopReason: 'completed', errors: [], failOn, selection: `requirement ${ids.join(', ')}` });
  expect(validateReport(report)).toEqual([]);
  return report.verdict;
}

test('TOOL-016 rests on the reading of 4.3 Gaps (the tool_choice object shape); a rule the text states does not', () => {
  expect(readingOf('TOOL-016')).toEqual({ section: '4.3', gap: 'Exact shape of the tool_choice object that names one function: not shown.' });
  expect(readingOf('TOOL-006')).toBeUndefined();
  expect(readingOf('NOPE-001')).toBeUndefined();
  // Every reading quotes a gap the catalog observes (so its section is the gap's).
  for (const r of requirements.filter((x) => x.reading)) expect(readingOf(r.id), r.id).toBeDefined();
});

test('the default gate leaves a failure on a reading out (shown, not gated); strict and warn keep it', () => {
  const must = gate(['TOOL-016'], 'must');
  expect(must.mustFailed).toEqual(['TOOL-016']);
  expect(must.result).toBe('fail');
  expect(must.exitCode).toBe(0);
  expect(must.notGated).toEqual(['TOOL-016']);
  expect(gate(['TOOL-016'], 'strict').exitCode).toBe(1);
  expect(gate(['TOOL-016'], 'warn').exitCode).toBe(1);
  // A failure the contract's text states gates under every choice.
  expect(gate(['TOOL-016', 'TOOL-006'], 'must').exitCode).toBe(1);
  expect(gate(['TOOL-006'], 'strict').exitCode).toBe(1);
});

test('readingExcluded: must and target-only leave readings out; strict and warn keep them', () => {
  expect([readingExcluded('TOOL-016', 'must'), readingExcluded('TOOL-016', 'target-only'), readingExcluded('TOOL-016', 'strict'), readingExcluded('TOOL-016', 'warn')]).toEqual([true, true, false, false]);
  expect(readingExcluded('TOOL-006', 'must')).toBe(false);
});

test('the catalog refuses a reading without its gap, or a gap no observation quotes', () => {
  const good = { id: 'TOOL-900', section: '2.1', level: 'MUST', kind: 'requirement', statement: 's', check: 'black-box', quote: 'q' };
  const obs = { id: 'OBS-900', section: '4.3', level: 'none', kind: 'observation', statement: 's', check: 'black-box', quote: 'A gap: not shown.' };
  expect(() => validateRequirements([obs, { ...good, reading: true, gap: 'A gap: not shown.' }])).not.toThrow();
  expect(() => validateRequirements([obs, { ...good, reading: true }])).toThrow(/"reading" and "gap" come together/);
  expect(() => validateRequirements([obs, { ...good, reading: false, gap: 'A gap: not shown.' }])).toThrow(/"reading" is true when present/);
  expect(() => validateRequirements([obs, { ...good, reading: true, gap: 'Not a gap.' }])).toThrow(/gap is not the quote of an observation/);
});

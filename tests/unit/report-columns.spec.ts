// The reference column and the trial rates in every writer (issue 34): HTML, JUnit properties, terminal; the JSON
// carries them as fields (report-differential, report-trials).
import { expect, test } from '@playwright/test';
import { aggregate, type TestOutcome } from '../../report/results.ts';
import { classificationCounts, withDifferential } from '../../report/differential.ts';
import { foldTrials } from '../../report/trials.ts';
import { buildReport, validateReport } from '../../report/json.ts';
import { renderHtml } from '../../report/html.ts';
import { renderJunit } from '../../report/junit.ts';
import { renderSummary } from '../../report/terminal.ts';
import { MODEL_DEPENDENT_REQUIREMENTS } from '../../run/trials.ts';
import { sampleInfo } from '../support/reports.ts';

function outcome(id: string, status: 'pass' | 'fail', trial?: number): TestOutcome {
  return {
    title: `judges ${id}`,
    file: 'suites/x.spec.ts',
    line: 3,
    status: 'judged',
    declared: [id],
    durationMs: 1,
    ...(trial !== undefined ? { trial } : {}),
    evidence: { checks: [{ id, status, message: `${id} ${status === 'fail' ? 'broken here' : 'fine'}` }], exchanges: [] },
  };
}

test('the reference status, the classification and the trial rate show in HTML, JUnit and the terminal summary', () => {
  const outcomes = [outcome('RESP-002', 'fail'), outcome('STREAM-002', 'fail'), ...[0, 1, 2, 3].map((i) => outcome('TOOL-006', i === 1 ? 'fail' : 'pass', i))];
  const reference = aggregate([outcome('RESP-002', 'pass'), outcome('STREAM-002', 'fail')]);
  const results = withDifferential(foldTrials(aggregate(outcomes), outcomes, MODEL_DEPENDENT_REQUIREMENTS, 0.7), reference);
  const report = buildReport({
    info: sampleInfo(),
    results,
    outcomes,
    startedAt: new Date(0),
    durationMs: 1,
    stopReason: 'completed',
    errors: [],
    reference: { url: 'http://upstream.test', verdict: 'fail', mustFailed: ['STREAM-002'], counts: classificationCounts(results) },
    trials: { k: 4, minPassRate: 0.7 },
  });
  expect(validateReport(report)).toEqual([]);
  const html = renderHtml(report);
  expect(html).toContain('<span class="cls cls-target-only">target-only</span>');
  expect(html).toContain('<span class="cls cls-both">both</span>');
  expect(html).toContain('3/4 trials (75%, minimum 70%)');
  expect(html).toContain('<h4>Failing trials</h4>');
  expect(html).toContain('<h4>Reference</h4>');
  expect(html).toContain('http://upstream.test (verdict fail');
  const junit = renderJunit(report);
  expect(junit).toContain('<property name="classification" value="target-only"/>');
  expect(junit).toContain('<property name="reference" value="pass"/>');
  expect(junit).toContain('<property name="trials" value="3/4"/>');
  const text = renderSummary(report, []);
  expect(text).toMatch(/RESP-002\s+target fail\s+reference pass\s+target only: the reference passes/);
  expect(text).toMatch(/STREAM-002\s+target fail\s+reference fail\s+both: inherited from the reference/);
  expect(text).toMatch(/TOOL-006\s+pass\s+3\/4 trials/);
});

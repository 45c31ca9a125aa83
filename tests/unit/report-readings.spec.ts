// A failure of a record that rests on the kit's reading of a gap of the contract (the catalog's `reading`, `gap`) is
// marked as such in conformance.json (`reading`), the terminal and the HTML; a record without it, or one that passes,
// carries no mark.
import { expect, test } from '@playwright/test';
import { aggregate, type TestOutcome } from '../../report/results.ts';
import { buildReport, validateReport } from '../../report/json.ts';
import { renderHtml } from '../../report/html.ts';
import { renderSummary } from '../../report/terminal.ts';
import { requirements, type Requirement } from '../../spec/requirements/index.ts';
import { sampleInfo } from '../support/reports.ts';

const GAP = 'Exact shape of the tool_choice object that names one function: not shown.';
/** The kit's catalog with TOOL-016 resting on a reading (as the catalog marks it), and TOOL-001 not. */
const catalog: Requirement[] = requirements.map((r) => (r.id === 'TOOL-016' ? { ...r, reading: true as const, gap: GAP } : r));

function failing(id: string): TestOutcome {
  return { title: `tools › ${id}`, file: 'suites/tools.spec.ts', line: 1, status: 'judged', declared: [id], durationMs: 1, evidence: { checks: [{ id, status: 'fail', message: `${id}: the named function was not called` }], exchanges: [] } };
}

test('a failure on the kit\'s reading of a gap is marked in the JSON, the terminal and the HTML; others are not', () => {
  const outcomes = [failing('TOOL-016'), failing('TOOL-001')];
  const results = aggregate(outcomes, catalog);
  const report = buildReport({ info: sampleInfo(), results, outcomes, startedAt: new Date(0), durationMs: 1, stopReason: 'completed', errors: [], catalog });
  expect(validateReport(report)).toEqual([]);
  const tool016 = report.requirements.find((r) => r.id === 'TOOL-016')!;
  expect(tool016).toMatchObject({ status: 'fail', reading: { gap: GAP, section: '4.3' } });
  expect(report.requirements.find((r) => r.id === 'TOOL-001')!.reading).toBeUndefined();
  const text = renderSummary(report, []);
  expect(text).toContain(`on the kit's reading of 4.3 Gaps: “${GAP}”`);
  expect(text.match(/kit's reading/g)).toHaveLength(2); // under the MUST failure and on its card
  const html = renderHtml(report);
  expect(html).toContain("<b>The kit's reading:</b>");
  expect(html).toContain(">kit's reading</span>");
  expect(html).toContain(`<div class="reading">on the kit&#39;s reading of 4.3 Gaps: “${GAP}”</div>`);
  expect(html.match(/kit(&#39;|')s reading/g)!.length).toBe(5);
  // A catalog that names the gap's section: "on the kit's reading of 4.3 Gaps".
  const sectioned = catalog.map((r) => (r.id === 'TOOL-016' ? { ...r, gapSection: '4.3' } : r));
  expect(aggregate([failing('TOOL-016')], sectioned).find((r) => r.id === 'TOOL-016')!.reading).toEqual({ gap: GAP, section: '4.3' });
});

test('a pass on a reading carries no mark', () => {
  const outcomes: TestOutcome[] = [{ ...failing('TOOL-016'), evidence: { checks: [{ id: 'TOOL-016', status: 'pass' }], exchanges: [] } }];
  expect(aggregate(outcomes, catalog).find((r) => r.id === 'TOOL-016')!.reading).toBeUndefined();
});

// Expected failures (report/baseline.ts) and fail-on-warn, on hand-made outcomes: a listed failure is
// expected-fail and passes the gate, an unlisted MUST failure fails it, a listed ID that passes makes the baseline
// stale (named, exit failed), and every output says so. The whole loop against the mock runs in
// tests/integration/ci-gating.spec.ts.
import { expect, test } from '@playwright/test';
import { requirements as catalog } from '../../spec/requirements/index.ts';
import { validate, formatIssues } from '../../spec/validator.ts';
import { gateOf } from '../../run/config.ts';
import { applyBaseline, BaselineError, baselineFromResults, parseBaseline } from '../../report/baseline.ts';
import { aggregate, targetRequirements, type TestOutcome } from '../../report/results.ts';
import { buildReport } from '../../report/json.ts';
import { renderJunit } from '../../report/junit.ts';
import { badgeMessage } from '../../report/badge.ts';
import { renderHtml } from '../../report/html.ts';
import { renderSummary } from '../../report/terminal.ts';
import { compareReports } from '../../report/compare.ts';
import { sampleInfo } from '../support/reports.ts';
import { annotations, publishToCi, stepSummary } from '../../report/ci-summary.ts';

const MUSTS = targetRequirements().filter((r) => r.kind === 'requirement' && r.level === 'MUST');
const SHOULD = targetRequirements().find((r) => r.kind === 'requirement' && r.level === 'SHOULD')!;

function outcomesOf(statuses: Record<string, 'pass' | 'fail' | 'warn'>): TestOutcome[] {
  return Object.entries(statuses).map(([id, status]) => ({
    title: `test of ${id}`,
    file: 'suites/x.spec.ts',
    line: 1,
    status: 'judged',
    declared: [id],
    durationMs: 1,
    evidence: { checks: [{ id, status, ...(status === 'pass' ? {} : { message: `${id} broken: the answer lacked it` }) }], exchanges: [] },
  }));
}

/** Every MUST passes, except those given. */
function run(over: Record<string, 'pass' | 'fail' | 'warn'>, baselineText?: string, failOn: 'must' | 'warn' = 'must') {
  const outcomes = outcomesOf({ ...Object.fromEntries(MUSTS.map((r) => [r.id, 'pass' as const])), ...over });
  let results = aggregate(outcomes);
  let baseline;
  if (baselineText !== undefined) ({ results, outcome: baseline } = applyBaseline(results, parseBaseline(baselineText, 'expected-failures.yaml')));
  return buildReport({ info: sampleInfo(), results, ...(baseline ? { baseline } : {}), failOn, outcomes, startedAt: new Date(), durationMs: 5, stopReason: 'completed', errors: [] });
}

const [A, B, C] = ['STREAM-004', 'REQ-011', 'CAT-027'];

test('a listed failure is expected-fail and the run passes; an unlisted MUST failure still fails it', () => {
  const yaml = `expectedFailures:\n  - id: ${A}\n    reason: the stream ends without [DONE] (ticket 12)\n`;
  const report = run({ [A]: 'fail' }, yaml);
  const a = report.requirements.find((r) => r.id === A)!;
  expect(a).toMatchObject({ status: 'expected-fail', baselineReason: 'the stream ends without [DONE] (ticket 12)' });
  expect(a.reason).toContain(`${A} broken`);
  expect(a.evidence.length).toBeGreaterThan(0);
  expect(report.verdict).toMatchObject({ result: 'pass', exitCode: 0, mustFailed: [] });
  expect(report.verdict.baseline).toEqual({ file: 'expected-failures.yaml', expected: [{ id: A, reason: 'the stream ends without [DONE] (ticket 12)' }], stale: [], unjudged: [] });
  expect(report.counts['expected-fail']).toBe(1);
  expect(report.coverage.mustJudged).toBe(MUSTS.length);
  expect(validate('conformance-report', report).errors.map((e) => e.message)).toEqual([]);

  const second = run({ [A]: 'fail', [B]: 'fail' }, yaml);
  expect(second.verdict).toMatchObject({ result: 'fail', exitCode: 1, mustFailed: [B] });
});

test('a listed ID that now passes makes the baseline stale: the run fails and names the entry to delete', () => {
  const yaml = JSON.stringify({ expectedFailures: [{ id: A, reason: 'known' }, { id: C, reason: 'nulls in the catalog' }] });
  const report = run({ [C]: 'fail' }, yaml);
  expect(report.verdict).toMatchObject({ result: 'pass', exitCode: 1, mustFailed: [] });
  expect(report.verdict.baseline!.stale).toEqual([{ id: A, reason: 'known' }]);
  expect(report.verdict.summary).toContain(`stale baseline: ${A} now passes; delete its entry from expected-failures.yaml`);
  const terminal = renderSummary(report, [], { red: (s) => s, green: (s) => s, yellow: (s) => s, bold: (s) => s, dim: (s) => s });
  expect(terminal).toContain(`stale baseline: ${A} now passes; delete its entry from expected-failures.yaml`);
  expect(terminal).toContain(`1 expected failure(s) of the baseline expected-failures.yaml: ${C}`);
  expect(renderHtml(report)).toContain('Stale baseline entry (it passes now; delete it)');
  expect(validate('conformance-report', report).errors.map((e) => e.message)).toEqual([]);
});

test('the outputs never show an expected failure as a clean pass', () => {
  const report = run({ [A]: 'fail' }, `expectedFailures: [{ id: ${A}, reason: known }]`);
  expect(badgeMessage(report)).toBe(`${report.verdict.requirementsPassed}/${report.verdict.requirementsTotal} pass, 1 expected fail`);
  const junit = renderJunit(report);
  expect(junit).toMatch(new RegExp(`name="${A}[^"]*"[^>]*>[\\s\\S]*?<skipped message="expected failure \\(baseline: known\\)`));
  expect(renderHtml(report)).toContain('Expected failure (baseline)');
  // Compared with a run where it failed unlisted, nothing changed about the target.
  expect(compareReports(run({ [A]: 'fail' }), report).regressed).toEqual([]);
  expect(compareReports(run({ [A]: 'fail' }), report).improved).toEqual([]);
});

test('fail on warn: a SHOULD warning fails the run, unless the baseline lists it', () => {
  expect(run({ [SHOULD.id]: 'warn' }).verdict.exitCode).toBe(0);
  const strict = run({ [SHOULD.id]: 'warn' }, undefined, 'warn');
  expect(strict.verdict).toMatchObject({ exitCode: 1, failOn: 'warn' });
  expect(strict.verdict.summary).toContain('1 warning, which fail the run (fail on warn)');
  expect(run({ [SHOULD.id]: 'warn' }, `expectedFailures: [{ id: ${SHOULD.id}, reason: known }]`, 'warn').verdict.exitCode).toBe(0);
  expect(gateOf({ CONFORMANCE_FAIL_ON: 'warn' })).toEqual({ failOn: 'warn' });
  expect(() => gateOf({ CONFORMANCE_FAIL_ON: 'never' })).toThrow('CONFORMANCE_FAIL_ON: expected one of must, strict, warn, target-only (got a value of 5 characters, not shown)');
});

test('a bad baseline is refused with every problem named: syntax, shape, unknown IDs, observations, duplicates', () => {
  expect(() => parseBaseline('expectedFailures: [', 'b.yaml')).toThrow(/expected failures b\.yaml: not YAML or JSON/);
  expect(() => parseBaseline('expectedFailures: [{ id: STREAM-004 }]', 'b.yaml')).toThrow(BaselineError);
  expect(() => parseBaseline('expectedFailures: [{ id: STREAM-004 }]', 'b.yaml')).toThrow(/reason/);
  const observation = catalog.find((r) => r.kind === 'observation')!.id;
  const restated = catalog.find((r) => r.sameAs !== undefined)!;
  let message = '';
  try {
    parseBaseline(JSON.stringify({ expectedFailures: [{ id: 'ZZZ-999', reason: 'x' }, { id: observation, reason: 'x' }, { id: restated.sameAs!, reason: 'x' }, { id: restated.id, reason: 'x' }] }), 'b.json');
  } catch (err) {
    message = (err as Error).message;
  }
  expect(message).toContain('ZZZ-999 is not a requirement of the catalog');
  expect(message).toContain(`${observation} is an observation`);
  expect(message).toContain(`${restated.id} is listed twice (as ${restated.sameAs} and ${restated.id}, the same rule)`);
  // A restatement alone is read as its primary.
  expect(parseBaseline(`expectedFailures: [{ id: ${restated.id}, reason: x }]`, 'b.yaml').entries).toEqual([{ id: restated.sameAs, reason: 'x', listedAs: restated.id }]);
});

test('a baseline written from a report lists each failure with its message, and reads back to the same verdict', () => {
  const failing = run({ [A]: 'fail', [C]: 'fail' });
  const text = baselineFromResults(failing.requirements, 'http://127.0.0.1:8787');
  const parsed = parseBaseline(text, 'written.yaml');
  expect(parsed.entries.map((e) => e.id).sort()).toEqual([A, C].sort());
  expect(parsed.entries.find((e) => e.id === A)!.reason).toBe(`${A} broken: the answer lacked it`);
  const gated = run({ [A]: 'fail', [C]: 'fail' }, text);
  expect(gated.verdict).toMatchObject({ exitCode: 0, mustFailed: [] });
  expect(validate('expected-failures', (parsed as unknown) && JSON.parse(JSON.stringify({ expectedFailures: parsed.entries.map(({ id, reason }) => ({ id, reason })) }))).valid).toBe(true);
  expect(formatIssues(validate('expected-failures', { expectedFailures: [{ id: 'x', reason: '' }] }).errors)).toMatch(/\/expectedFailures\/0\/id/);
});

test('the CI page: a job summary with the verdict, sections, stale entries and warnings; annotations per failure', () => {
  const report = run({ [B]: 'fail', [SHOULD.id]: 'warn' }, `expectedFailures: [{ id: ${A}, reason: "ends without [DONE] | ticket 12" }]`);
  const md = stepSummary(report);
  expect(md).toMatch(/^## ❌ chatconform: FAIL\n/);
  expect(md).toContain(`| ${B} | MUST | ${report.requirements.find((r) => r.id === B)!.section} | ${B} broken: the answer lacked it |`);
  expect(md).toContain(`### Stale baseline entries (1)\n\nThese now pass: delete them from \`expected-failures.yaml\`.\n\n- ${A}: ends without [DONE] \\| ticket 12`);
  expect(md).toContain('<details><summary>Warnings (1)</summary>');
  const lines = annotations(report);
  expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^::error file=suites/x\\.spec\\.ts,line=1,title=${B} \\(MUST%2C §[\\d.]+\\)::`)));
  expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^::warning .*title=${SHOULD.id} \\(SHOULD%2C`)));
  expect(lines).toContainEqual(`::error title=stale baseline%3A ${A}::${A} now passes; delete its entry from expected-failures.yaml`);
  // Newlines in a message never end the command early.
  expect(lines.every((l) => !l.includes('\n'))).toBe(true);
  // Off GitHub Actions nothing is written or printed.
  const printed: string[] = [];
  expect(publishToCi(report, {}, (s) => printed.push(s))).toEqual([]);
  expect(printed).toEqual([]);
});

test('the exit code the report states: 0 nothing failed the gate, 1 a MUST failed or a stale entry, 3 no target or a broken run', () => {
  expect(run({}).verdict.exitCode).toBe(0);
  expect(run({ [B]: 'fail' }).verdict.exitCode).toBe(1);
  expect(run({}, `expectedFailures: [{ id: ${A}, reason: r }]`).verdict.exitCode).toBe(1);
  expect(run({ [SHOULD.id]: 'warn' }, undefined, 'warn').verdict.exitCode).toBe(1);
  // No target: every request the tests sent got no HTTP response.
  const unanswered = { method: 'GET', url: 'http://127.0.0.1:9/v1/models', status: 0, requestHeaders: {}, responseHeaders: {}, responseBody: '', durationMs: 1, curl: 'curl', error: 'connect ECONNREFUSED', errorKind: 'refused' as const };
  const outcomes: TestOutcome[] = [{ title: 't', file: 'suites/catalog.spec.ts', line: 1, status: 'judged', declared: ['CAT-031'], durationMs: 1, evidence: { checks: [{ id: 'CAT-031', status: 'error', message: 'no HTTP response' }], exchanges: [unanswered as never] } }];
  const none = buildReport({ info: sampleInfo(), results: aggregate(outcomes), outcomes, startedAt: new Date(), durationMs: 5, stopReason: 'completed', errors: [] });
  expect(none.verdict).toMatchObject({ result: 'incomplete', exitCode: 3 });
  expect(none.verdict.summary).toContain('no target: none of the 1 requests got an HTTP response');
  // An error outside the tests (a global setup that threw) without a MUST failure: 3.
  const broken = buildReport({ info: sampleInfo(), results: aggregate([]), outcomes: [], startedAt: new Date(), durationMs: 5, stopReason: 'completed', errors: ['Error: the target profile x.json is invalid'] });
  expect(broken.verdict.exitCode).toBe(3);
});

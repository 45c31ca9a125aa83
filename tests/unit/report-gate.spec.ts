// The headline, the HTML banner, the badge and the CI summary state the gate's result and why: with --fail-on
// target-only and only inherited failures the exit is 0, and none of them may say a bare FAIL; the root-cause cards
// say whose failure each one is.
import { expect, test } from '@playwright/test';
import { aggregate, type TestOutcome } from '../../report/results.ts';
import { classificationCounts, withDifferential } from '../../report/differential.ts';
import { buildReport, validateReport, type ConformanceReport } from '../../report/json.ts';
import { renderSummary } from '../../report/terminal.ts';
import { renderHtml } from '../../report/html.ts';
import { badgeMessage } from '../../report/badge.ts';
import { stepSummary } from '../../report/ci-summary.ts';
import { modelResultOf } from '../../report/models.ts';
import { sampleInfo } from '../support/reports.ts';

function outcome(id: string, status: 'pass' | 'fail'): TestOutcome {
  return {
    title: `${id} test`,
    file: 'suites/x.spec.ts',
    line: 1,
    status: 'judged',
    declared: [id],
    durationMs: 1,
    evidence: { checks: [{ id, status, message: `${id} ${status}ed` }], exchanges: [] },
  };
}

function build(targetOnly: boolean): ConformanceReport {
  const outcomes = [outcome('TOOL-006', 'fail'), outcome('RESP-002', 'fail'), outcome('CHAT-001', 'fail')];
  const reference = [outcome('TOOL-006', targetOnly ? 'pass' : 'fail'), outcome('RESP-002', 'fail'), outcome('CHAT-001', 'fail')];
  const results = withDifferential(aggregate(outcomes), aggregate(reference));
  return buildReport({
    info: sampleInfo(),
    results,
    outcomes,
    startedAt: new Date(0),
    durationMs: 1,
    stopReason: 'completed',
    errors: [],
    failOn: 'target-only',
    reference: { url: 'http://reference.test', verdict: 'fail', mustFailed: ['CHAT-001', 'RESP-002'], counts: classificationCounts(results) },
  });
}

test('--fail-on target-only with only inherited failures: exit 0, and every writer says PASS with the gate and why', () => {
  const report = build(false);
  expect(report.verdict.result).toBe('fail');
  expect(report.verdict.exitCode).toBe(0);
  expect(report.verdict.notGated?.sort()).toEqual(['RESP-002', 'TOOL-006']);
  expect(validateReport(report)).toEqual([]);
  const why = 'gate: target-only; 2 inherited failures not gated';

  const head = renderSummary(report, []).split('\n').find((l) => l.startsWith('chatconform conformance'))!;
  expect(head).toContain(`PASS (${why})`);
  expect(head).not.toMatch(/: FAIL/);

  const html = renderHtml(report);
  expect(html).toMatch(/<div class="verdict">PASS<\/div><div class="gate">gate: target-only; 2 inherited failures not gated<\/div>/);
  expect(html).toContain('banner v-gated-pass');

  expect(badgeMessage(report)).toBe('pass (gate), 2 not gated');
  expect(stepSummary(report).split('\n')[0]).toBe(`## ✅ chatconform: PASS (${why})`);
});

test('root-cause cards say target-only or inherited where the run has a reference', () => {
  const report = build(true);
  expect(report.verdict.exitCode).toBe(1);
  const text = renderSummary(report, []);
  const line = (id: string) => text.split('\n').find((l) => /^\s+\d+\. /.test(l) && l.includes(id))!;
  expect(line('TOOL-006')).toContain('[target-only]');
  expect(line('RESP-002')).toContain('[inherited]');
  const html = renderHtml(report);
  expect(html).toMatch(/id="rc-\d+"><div class="rc-head">.*TOOL-006.*<span class="origin origin-target-only">target-only<\/span>/);
  expect(html).toMatch(/<span class="origin origin-inherited">inherited<\/span>/);
  // The gate failed on TOOL-006: the words are the verdict's own.
  expect(stepSummary(report).split('\n')[0]).toBe('## ❌ chatconform: FAIL');
  expect(stepSummary(report)).toContain('| TOOL-006 (target-only) |');
});

test("a traffic report whose failures are the client's requests says the server is not at fault", () => {
  const exchange = (id: string, party: 'client' | 'server'): TestOutcome => ({
    title: `#1 POST /v1/chat/completions → 400`,
    exchange: 1,
    status: 'judged',
    declared: [],
    durationMs: 1,
    evidence: { checks: [{ id, status: 'fail', message: `the client's request: ${id} broken`, party }], exchanges: [] },
  });
  const outcomes = [exchange('RESP-002', 'client')];
  const report = buildReport({ info: sampleInfo(), results: aggregate(outcomes), outcomes, startedAt: new Date(0), durationMs: 1, stopReason: 'completed', errors: [], selection: 'traffic' });
  expect(report.verdict.mustFailed).toEqual(['RESP-002']);
  const text = renderSummary(report, []);
  expect(text).toContain("the client's requests broke 1 requirement; the server's answers broke none: the server is not at fault");
  expect(text).toMatch(/RESP-002\s+§[\d.]+\s+\[client\]/);
  expect(renderHtml(report)).toContain(`<div class="blame">the client&#39;s requests broke 1 requirement; the server&#39;s answers broke none: the server is not at fault</div>`);
  // A server's failure beside it is counted apart.
  const both = [exchange('RESP-002', 'client'), exchange('TOOL-006', 'server')];
  expect(renderSummary(buildReport({ info: sampleInfo(), results: aggregate(both), outcomes: both, startedAt: new Date(0), durationMs: 1, stopReason: 'completed', errors: [], selection: 'traffic' }), [])).toContain("1 requirement broken by the client's requests, 1 by the server's answers");
});

test("a model that only warns (the reference mock's own SHOULD) is said to warn in the HTML, never to fail", () => {
  const warnOnly = modelResultOf({ id: 'mock-chat', outcomes: [{ ...outcome('TOOL-006', 'pass'), evidence: { checks: [{ id: 'RSN-005', status: 'warn', message: 'RSN-005 advice' }], exchanges: [] } }] });
  expect(warnOnly.failed).toEqual(['RSN-005']);
  const report = { ...build(true), models: [warnOnly] };
  const item = /<li id="model-0">.*?<\/li>/.exec(renderHtml(report))![0];
  expect(item).toContain('— warns: <a href="#');
  expect(item).not.toContain('fails:');
});

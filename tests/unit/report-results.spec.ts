// The reporter's aggregation, exit status, redaction and writers, on hand-made outcomes (suites/reporter).
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { requirements } from '../../spec/requirements/index.ts';
import { validate, formatIssues } from '../../spec/validator.ts';
import { aggregate, oneLine, type RequirementResult, type TestOutcome } from '../../suites/reporter/results.ts';
import { buildReport, decideExitStatus } from '../../suites/reporter/json.ts';
import { writeReports } from '../../suites/reporter/index.ts';
import { redactDeep, redactText } from '../../suites/reporter/redaction.ts';
import { renderHtml, esc } from '../../suites/reporter/html.ts';
import { renderJunit, xmlEscape } from '../../suites/reporter/junit.ts';
import { badgeMessage, renderBadge } from '../../suites/reporter/badge.ts';
import { renderSummary } from '../../suites/reporter/terminal.ts';
import { HOSTILE_HTML, SAMPLE_SECRET, sampleInfo, sampleOutcomes, sampleReport } from '../../suites/reporter/testing.ts';

function byId(results: RequirementResult[]): Map<string, RequirementResult> {
  return new Map(results.map((r) => [r.id, r]));
}

function outcome(over: Partial<TestOutcome>): TestOutcome {
  return { title: 't', file: 'suites/x.spec.ts', line: 1, status: 'passed', declared: [], durationMs: 1, ...over };
}

test.describe('aggregation per requirement', () => {
  test('every catalog record gets exactly one result; an ID no test declares is untested', () => {
    const results = aggregate([]);
    expect(results).toHaveLength(requirements.length);
    expect(new Set(results.map((r) => r.status))).toEqual(new Set(['untested']));
    expect(results[0]!.reason).toBe('no test of this run declares it');
  });

  test('precedence: fail > warn > pass > observed > skip, across tests', () => {
    const results = byId(
      aggregate([
        outcome({ declared: ['CAT-001'], evidence: { checks: [{ id: 'CAT-001', status: 'pass' }], exchanges: [] } }),
        outcome({ declared: ['CAT-001'], status: 'failed', evidence: { checks: [{ id: 'CAT-001', status: 'fail', message: 'broken' }], exchanges: [] } }),
        outcome({ declared: ['CAT-001'], status: 'skipped', evidence: { checks: [{ id: 'CAT-001', status: 'skip', message: 'no model' }], exchanges: [] } }),
        outcome({ declared: ['CAT-038'], evidence: { checks: [{ id: 'CAT-038', status: 'pass' }, { id: 'CAT-038', status: 'warn', message: 'meh' }], exchanges: [] } }),
        outcome({ declared: ['CAT-002'], evidence: { checks: [{ id: 'CAT-002', status: 'skip', message: 'a' }, { id: 'CAT-002', status: 'pass' }], exchanges: [] } }),
      ]),
    );
    expect(results.get('CAT-001')).toMatchObject({ status: 'fail', reason: 'broken', records: { pass: 1, fail: 1, skip: 1, warn: 0, observed: 0 } });
    expect(results.get('CAT-001')!.tests.map((t) => t.status)).toEqual(['passed', 'failed', 'skipped']);
    expect(results.get('CAT-038')).toMatchObject({ status: 'warn', reason: 'meh' });
    expect(results.get('CAT-002')).toMatchObject({ status: 'pass' });
  });

  test('only skips: skip, with every distinct reason', () => {
    const results = byId(
      aggregate([
        outcome({ declared: ['CAT-034'], status: 'skipped', evidence: { checks: [{ id: 'CAT-034', status: 'skip', message: 'no restricted key' }], exchanges: [] } }),
        outcome({ declared: ['CAT-034'], status: 'skipped', evidence: { checks: [{ id: 'CAT-034', status: 'skip', message: 'no model' }], exchanges: [] } }),
        outcome({ declared: ['CAT-039'], status: 'skipped', skipReason: 'fixme: flaky' }),
      ]),
    );
    expect(results.get('CAT-034')).toMatchObject({ status: 'skip', skipReasons: ['no restricted key', 'no model'], reason: 'no restricted key; no model' });
    // A test skipped before its fixture recorded anything: its reason still reaches its IDs.
    expect(results.get('CAT-039')).toMatchObject({ status: 'skip', skipReasons: ['fixme: flaky'] });
  });

  test('a test that failed without a fail record: unrecorded MUST fails, SHOULD warns, observation not observed; recorded IDs keep their records', () => {
    const results = byId(
      aggregate([
        outcome({
          status: 'failed',
          error: "TypeError: Cannot read properties of null (reading 'content')\n    at x.ts:1:1",
          declared: ['CHAT-004', 'CHAT-001', 'OBS-018', 'VER-001'],
          evidence: { checks: [{ id: 'VER-001', status: 'pass' }], exchanges: [] },
        }),
      ]),
    );
    expect(results.get('CHAT-004')).toMatchObject({ status: 'fail', reason: "TypeError: Cannot read properties of null (reading 'content')" });
    expect(results.get('CHAT-004')!.evidence[0]).toMatchObject({ status: 'fail', fromTestError: true });
    expect(results.get('CHAT-001')).toMatchObject({ status: 'warn', level: 'SHOULD' });
    expect(results.get('OBS-018')!.status).toBe('skip');
    expect(results.get('OBS-018')!.reason).toMatch(/^not observed: the test failed before recording it: TypeError/);
    expect(results.get('VER-001')!.status).toBe('pass');
  });

  test('a timeout without records fails its MUSTs with the timeout as reason (no evidence attachment at all)', () => {
    const results = byId(aggregate([outcome({ status: 'timedOut', error: 'Test timeout of 60000ms exceeded.', declared: ['STREAM-001', 'STREAM-005'] })]));
    expect(results.get('STREAM-001')).toMatchObject({ status: 'fail', reason: 'Test timeout of 60000ms exceeded.' });
    expect(results.get('STREAM-005')).toMatchObject({ status: 'warn', level: 'MAY' });
  });

  test('a failed test with fail records: its unrecorded IDs are skipped as not reached', () => {
    const results = byId(
      aggregate([outcome({ status: 'failed', declared: ['CAT-027', 'CAT-032'], evidence: { checks: [{ id: 'CAT-027', status: 'fail', message: 'null' }], exchanges: [] } })]),
    );
    expect(results.get('CAT-027')!.status).toBe('fail');
    expect(results.get('CAT-032')).toMatchObject({ status: 'skip', skipReasons: ['not reached: the test failed on another requirement first'] });
  });

  test('interrupted and never-run tests skip their IDs; a passed test that never judged a declared ID skips it', () => {
    const results = byId(
      aggregate([
        outcome({ status: 'interrupted', declared: ['CAT-001'] }),
        outcome({ status: 'notRun', declared: ['CAT-002'] }),
        outcome({ status: 'passed', declared: ['CAT-004'], evidence: { checks: [], exchanges: [] } }),
      ]),
    );
    expect(results.get('CAT-001')!.skipReasons).toEqual(['not run: the run was interrupted']);
    expect(results.get('CAT-002')!.skipReasons).toEqual(['not run']);
    expect(results.get('CAT-004')!.skipReasons![0]).toMatch(/^not checked/);
  });

  test('observations are observed with their values, never fail; evidence points at the exchange', () => {
    const results = byId(aggregate(sampleOutcomes()));
    const obs = results.get('OBS-003')!;
    expect(obs.status).toBe('observed');
    expect(obs.evidence[0]).toMatchObject({ status: 'observed', message: 'min_tier values', observed: ['free', 'standard', 'pro', HOSTILE_HTML] });
    expect(obs.evidence[0]!.exchange).toMatchObject({ method: 'GET', url: 'http://127.0.0.1:9/v1/models', status: 200 });
    // An observed null is said, not written as null.
    expect(results.get('OBS-004')!.evidence[0]).toMatchObject({ message: 'credit_tier values: observed null' });
    expect(results.get('OBS-004')!.evidence[0]!.observed).toBeUndefined();
  });

  test('failures carry the judged exchange with its curl; evidence is capped', () => {
    const many = Array.from({ length: 25 }, () => ({ id: 'CAT-027', status: 'fail' as const, message: 'x', exchange: 0 }));
    const results = byId(aggregate([...sampleOutcomes(), outcome({ status: 'failed', declared: ['CAT-027'], evidence: { checks: many, exchanges: sampleOutcomes()[0]!.evidence!.exchanges } })]));
    const r = results.get('CAT-027')!;
    expect(r.evidence[0]!.exchange!.curl).toContain('curl -sS');
    expect(r.evidence).toHaveLength(10);
    expect(r.evidenceOmitted).toBe(16);
  });

  test('an ID a test declares that is not in the catalog is ignored, not invented', () => {
    const results = aggregate([outcome({ declared: ['NOPE-001'], evidence: { checks: [{ id: 'NOPE-001', status: 'fail' }], exchanges: [] } })]);
    expect(results.find((r) => r.id === 'NOPE-001')).toBeUndefined();
  });

  test('oneLine keeps an introducing first line with what it introduces', () => {
    expect(oneLine('GET /v1/models:\n/data/0/name: must not be null\n/data/1/name: too')).toBe('GET /v1/models: /data/0/name: must not be null …');
    expect(oneLine('plain')).toBe('plain');
    expect(oneLine('a\nb')).toBe('a …');
  });
});

test.describe('verdict and exit status', () => {
  test('"failed" exactly when a MUST failed; interrupted and timedout are kept; an incomplete run fails', () => {
    expect(decideExitStatus('failed', 0, false)).toBe('passed'); // a test failed, no MUST did
    expect(decideExitStatus('passed', 1, false)).toBe('failed');
    expect(decideExitStatus('failed', 2, false)).toBe('failed');
    expect(decideExitStatus('interrupted', 0, false)).toBe('interrupted');
    expect(decideExitStatus('timedout', 3, false)).toBe('timedout');
    expect(decideExitStatus('passed', 0, true)).toBe('failed');
  });

  test('the sample report: three MUST failures decide a failed run', () => {
    const report = sampleReport();
    expect(report.verdict).toMatchObject({ result: 'fail', exitStatus: 'failed', mustFailed: ['CAT-027', 'CHAT-004', 'STREAM-001'] });
    expect(report.failedTests.map((t) => t.failed)).toEqual([['CAT-027'], ['CHAT-004'], ['STREAM-001']]);
  });

  test('only warnings and a failed test without a MUST failure: passed', () => {
    const outcomes = [outcome({ status: 'failed', error: 'expect(received).toBeGreaterThan(0)', declared: ['CAT-038'], evidence: { checks: [{ id: 'CAT-038', status: 'warn', message: 'w' }], exchanges: [] } })];
    const report = buildReport({ info: sampleInfo(), results: aggregate(outcomes), outcomes, startedAt: new Date(), durationMs: 5, playwrightStatus: 'failed', errors: [] });
    expect(report.verdict).toMatchObject({ result: 'pass', exitStatus: 'passed', mustFailed: [] });
    expect(report.failedTests[0]).toMatchObject({ failed: [] });
  });

  test('an error outside the tests makes the run incomplete and failed', () => {
    const report = sampleReport('failed', ['Error: global setup: connect ECONNREFUSED']);
    expect(report.verdict).toMatchObject({ result: 'incomplete', exitStatus: 'failed' });
    expect(report.verdict.summary).toMatch(/^the run did not complete: 1 error outside the tests; 3 MUST requirements failed so far/);
  });

  test('counts per status, per top-level section and per full section add up', () => {
    const report = sampleReport();
    expect(report.counts.total).toBe(requirements.length);
    const sum = (list: { total: number }[]) => list.reduce((n, s) => n + s.total, 0);
    expect(sum(report.sections)).toBe(requirements.length);
    expect(sum(report.subsections)).toBe(requirements.length);
    expect(report.sections.map((s) => s.section)).toEqual(['1', '2', '3', '4', '5', '6', '7', '8', '9']);
    expect(report.subsections.find((s) => s.section === '2.10')).toMatchObject({ title: 'Model catalog entry' });
    expect(report.counts).toMatchObject({ fail: 3, warn: 2 });
  });
});

test.describe('redaction and validation', () => {
  test('the report validates against its schema', () => {
    const r = validate('conformance-report', sampleReport());
    expect(r.errors, formatIssues(r.errors)).toEqual([]);
  });

  test('a raw secret anywhere in the outcomes reaches no output; curls keep their variable', () => {
    const report = sampleReport();
    const outputs = [JSON.stringify(report), renderHtml(report), renderJunit(report), renderBadge(report), renderSummary(report, [])];
    for (const text of outputs) expect(text).not.toContain(SAMPLE_SECRET);
    for (const text of outputs.slice(0, 3)) expect(text).toContain('***REDACTED***');
    expect(JSON.stringify(report)).toContain('Bearer $CONFORMANCE_API_KEY');
  });

  test('redactText masks secrets and bearer credentials but keeps a curl\'s environment variable', () => {
    expect(redactText(`-H "Authorization: Bearer $CONFORMANCE_API_KEY" key=${SAMPLE_SECRET}`, [SAMPLE_SECRET])).toBe('-H "Authorization: Bearer $CONFORMANCE_API_KEY" key=***REDACTED***');
    expect(redactText('Authorization: Bearer $CONFORMANCE_API_KEY&quot;', [])).toBe('Authorization: Bearer $CONFORMANCE_API_KEY&quot;');
    expect(redactText('Bearer abc.def', [])).toBe('Bearer ***REDACTED***');
    expect(redactDeep({ [`x-${SAMPLE_SECRET}`]: [`a ${SAMPLE_SECRET}`, 1, null] }, [SAMPLE_SECRET])).toEqual({ 'x-***REDACTED***': ['a ***REDACTED***', 1, null] });
  });

  test('writeReports writes the four files, every one free of the secret', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'chatconform-report-'));
    const files = writeReports(sampleReport(), dir, [SAMPLE_SECRET]);
    expect(files.map((f) => path.basename(f))).toEqual(['conformance.json', 'junit.xml', 'conformance.html', 'badge.svg']);
    for (const f of readdirSync(dir)) expect(readFileSync(path.join(dir, f), 'utf8')).not.toContain(SAMPLE_SECRET);
  });

  test('an invalid report is never written as conformance.json: the writer throws with the issues', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'chatconform-report-'));
    const broken = { ...sampleReport(), counts: { pass: -1 } } as unknown as ReturnType<typeof sampleReport>;
    expect(() => writeReports(broken, dir, [])).toThrow(/does not match spec\/schemas\/conformance-report.schema.json[\s\S]*\/counts/);
    expect(readdirSync(dir)).toEqual(['conformance.invalid.json']);
  });
});

test.describe('writers', () => {
  test('HTML: self-contained, hostile markup escaped, a CSP that forbids fetching anything', () => {
    const html = renderHtml(sampleReport());
    expect(html).not.toContain(HOSTILE_HTML);
    expect(html).toContain(esc(HOSTILE_HTML));
    expect(html).not.toMatch(/<(link|img|iframe|object|embed)\b/i);
    expect(html).not.toMatch(/\b(src|href)\s*=\s*["']?(https?:)?\/\//i);
    expect(html).toMatch(/<meta http-equiv="Content-Security-Policy" content="default-src &#39;none&#39;/);
    expect(html.match(/<script>/g)).toHaveLength(1);
    expect(html).toContain('id="req-CAT-027"');
  });

  test('JUnit: one testcase per requirement, failure with the curl, skipped, warnings in system-out', () => {
    const xml = renderJunit(sampleReport());
    expect(xml.match(/<testcase /g)).toHaveLength(requirements.length);
    const start = xml.lastIndexOf('<testcase ', xml.indexOf('name="CAT-027: '));
    const failure = xml.slice(start, xml.indexOf('</testcase>', start));
    expect(failure).toMatch(/^<testcase classname="2" name="CAT-027: No field/);
    expect(failure).toMatch(/<failure message="GET \/v1\/models: \/data\/0\/name: must not be null/);
    expect(failure).toContain('replay: curl -sS');
    expect(failure).toContain(xmlEscape(HOSTILE_HTML));
    expect(xml).not.toContain(HOSTILE_HTML);
    expect(xml).toMatch(/name="CAT-034: [^"]*" time="0">\s*<properties>[\s\S]*?<\/properties>\s*<skipped message="skip: the profile names no restricted key/);
    expect(xml).toMatch(/name="CAT-038: [^"]*" time="0">[\s\S]*?<system-out>WARNING \(SHOULD not met\)/);
    expect(xml).toMatch(/<testsuites name="chatconform conformance" tests="279" failures="3"/);
  });

  test('badge: the verdict and the pass count', () => {
    const failed = sampleReport();
    expect(badgeMessage(failed)).toBe('3 MUST failed');
    expect(renderBadge(failed)).toContain('#c62828');
    const passing = buildReport({ info: sampleInfo(), results: aggregate([]), outcomes: [], startedAt: new Date(), durationMs: 1, playwrightStatus: 'passed', errors: [] });
    expect(badgeMessage(passing)).toBe(`0/245 pass`);
    expect(renderBadge(passing)).toMatch(/<svg[^>]*aria-label="conformance: 0\/245 pass"/);
  });

  test('terminal: per-section table, MUST failures with their one-line reason, seed, requests, cost, report folder', () => {
    const text = renderSummary(sampleReport(), ['/r/conformance.json', '/r/junit.xml'], undefined, '/elsewhere');
    expect(text).toMatch(/FAIL — 3 MUST requirements failed/);
    expect(text).toMatch(/section\s+pass\s+fail\s+warn\s+skip\s+observed\s+untested/);
    expect(text).toMatch(/§2 Resources and their fields\s+\d+\s+1\s+/);
    expect(text).toMatch(/CAT-027\s+§2\s+GET \/v1\/models: \/data\/0\/name: must not be null/);
    expect(text).toContain('seed 1234');
    expect(text).toContain('17 requests sent');
    expect(text).toContain('cost 0.0125');
    expect(text).toContain('reports in /r/: conformance.json, junit.xml');
  });
});

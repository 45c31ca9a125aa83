// The reporter's aggregation, exit status, redaction and writers, on hand-made outcomes (suites/reporter).
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { CORE_REQUIREMENTS, requirements as catalog } from '../../spec/requirements/index.ts';
import { validate, formatIssues } from '../../spec/validator.ts';
import { aggregate, oneLine, targetRequirements, type RequirementResult, type TestOutcome } from '../../report/results.ts';
import { buildReport, exitCodeOf, type StopReason } from '../../report/json.ts';
import { writeReports } from '../../report/write.ts';
import { redactDeep, redact } from '../../spec/redact.ts';
import { renderHtml, esc } from '../../report/html.ts';
import { renderJunit, xmlEscape } from '../../report/junit.ts';
import { badgeMessage, renderBadge } from '../../report/badge.ts';
import { renderSummary } from '../../report/terminal.ts';
import { HOSTILE_HTML, SAMPLE_SECRET, sampleInfo, sampleOutcomes, sampleReport } from '../support/reports.ts';

/** The records a target's run judges: the catalog without its mock-only records. */
const requirements = targetRequirements();
const MUSTS = requirements.filter((r) => r.kind === 'requirement' && r.level === 'MUST');

function byId(results: RequirementResult[]): Map<string, RequirementResult> {
  return new Map(results.map((r) => [r.id, r]));
}

function outcome(over: Partial<TestOutcome>): TestOutcome {
  return { title: 't', file: 'suites/x.spec.ts', line: 1, status: 'judged', declared: [], durationMs: 1, ...over };
}

test.describe('aggregation per requirement', () => {
  test('every catalog record gets exactly one result; an ID no test declares is untested', () => {
    const results = aggregate([]);
    expect(results).toHaveLength(requirements.length);
    expect(new Set(results.map((r) => r.status))).toEqual(new Set(['untested']));
    expect(results[0]!.reason).toBe('no test of this run declares it');
  });

  test('precedence: fail > warn > pass > error > observed > skip, across tests', () => {
    const results = byId(
      aggregate([
        outcome({ declared: ['CAT-001'], evidence: { checks: [{ id: 'CAT-001', status: 'pass' }], exchanges: [] } }),
        outcome({ declared: ['CAT-001'], error: 'Error: CAT-001 broken', evidence: { checks: [{ id: 'CAT-001', status: 'fail', message: 'broken' }], exchanges: [] } }),
        outcome({ declared: ['CAT-001'], status: 'skipped', evidence: { checks: [{ id: 'CAT-001', status: 'skip', message: 'no model' }], exchanges: [] } }),
        outcome({ declared: ['CAT-038'], evidence: { checks: [{ id: 'CAT-038', status: 'pass' }, { id: 'CAT-038', status: 'warn', message: 'meh' }], exchanges: [] } }),
        outcome({ declared: ['CAT-002'], evidence: { checks: [{ id: 'CAT-002', status: 'skip', message: 'a' }, { id: 'CAT-002', status: 'pass' }], exchanges: [] } }),
        outcome({ declared: ['CAT-004'], evidence: { checks: [{ id: 'CAT-004', status: 'error', message: 'no response' }, { id: 'CAT-004', status: 'pass' }], exchanges: [] } }),
        outcome({ declared: ['CAT-005'], evidence: { checks: [{ id: 'CAT-005', status: 'error', message: 'timeout' }, { id: 'CAT-005', status: 'fail', message: 'bad' }], exchanges: [] } }),
        outcome({ declared: ['CAT-006'], evidence: { checks: [{ id: 'CAT-006', status: 'skip', message: 'no model' }, { id: 'CAT-006', status: 'error', message: 'reset' }], exchanges: [] } }),
        outcome({ declared: ['OBS-003'], evidence: { checks: [{ id: 'OBS-003', status: 'error', message: 'reset' }, { id: 'OBS-003', status: 'observed', observed: ['free'] }], exchanges: [] } }),
        outcome({ declared: ['OBS-004'], evidence: { checks: [{ id: 'OBS-004', status: 'error', message: 'reset' }, { id: 'OBS-004', status: 'skip', message: 'x' }], exchanges: [] } }),
      ]),
    );
    expect(results.get('CAT-001')).toMatchObject({ status: 'fail', reason: 'broken', records: { pass: 1, fail: 1, skip: 1, warn: 0, observed: 0, error: 0 }, cases: { judged: 2, unjudged: 1 } });
    // The case that found the failure first, with its error; the others in run order.
    expect(results.get('CAT-001')!.tests.map((t) => [t.status, t.error])).toEqual([['judged', 'Error: CAT-001 broken'], ['judged', undefined], ['skipped', undefined]]);
    expect(results.get('CAT-038')).toMatchObject({ status: 'warn', reason: 'meh' });
    expect(results.get('CAT-002')).toMatchObject({ status: 'pass', reason: 'passed on 1 of 2 cases; 1 could not be judged: a' });
    expect(results.get('CAT-004')).toMatchObject({ status: 'pass', cases: { judged: 1, unjudged: 1 } });
    expect(results.get('CAT-005')).toMatchObject({ status: 'fail', reason: 'bad' });
    // Only error and skip records: error, with the kit's cause first.
    expect(results.get('CAT-006')).toMatchObject({ status: 'error', reason: 'reset; no model', cases: { judged: 0, unjudged: 2 } });
    expect(results.get('CAT-006')!.evidence.map((e) => e.status)).toEqual(['error']);
    expect(results.get('OBS-003')!.status).toBe('observed');
    expect(results.get('OBS-004')!.status).toBe('error');
  });

  test('one pass beside many unjudged cases says so: "passed on 1 of 57 cases; 56 could not be judged: <distinct causes>"', () => {
    const checks = [
      { id: 'SEARCH-033', status: 'pass' as const },
      ...Array.from({ length: 50 }, () => ({ id: 'SEARCH-033', status: 'skip' as const, message: 'the action carried one query' })),
      ...Array.from({ length: 6 }, () => ({ id: 'SEARCH-033', status: 'skip' as const, message: 'no search answer', cause: { id: 'SEARCH-023', exchange: 0, message: 'the citation url is http://' } })),
    ];
    const r = byId(aggregate([outcome({ declared: ['SEARCH-033'], evidence: { checks, exchanges: [] } })])).get('SEARCH-033')!;
    expect(r).toMatchObject({ status: 'pass', cases: { judged: 1, unjudged: 56 }, records: { pass: 1, skip: 56 } });
    expect(r.reason).toBe('passed on 1 of 57 cases; 56 could not be judged: the action carried one query; the citation url is http:// (root cause: SEARCH-023 failed)');
  });

  test('many distinct causes are listed up to five, then counted', () => {
    const checks = Array.from({ length: 8 }, (_, i) => ({ id: 'CAT-034', status: 'skip' as const, message: `reason ${i}` }));
    const r = byId(aggregate([outcome({ declared: ['CAT-034'], evidence: { checks, exchanges: [] } })])).get('CAT-034')!;
    expect(r.skipReasons).toHaveLength(8);
    expect(r.reason).toBe(checks.map((c) => c.message).join('; '));
    const pass = byId(aggregate([outcome({ declared: ['CAT-034'], evidence: { checks: [{ id: 'CAT-034', status: 'pass' }, ...checks], exchanges: [] } })])).get('CAT-034')!;
    expect(pass.reason).toBe('passed on 1 of 9 cases; 8 could not be judged: reason 0; reason 1; reason 2; reason 3; reason 4; and 3 more');
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

  test('a test that threw outside its checks: its unrecorded IDs are errors of the kit (never fail, never warn); recorded IDs keep their records', () => {
    const results = byId(
      aggregate([
        outcome({
          status: 'unfinished',
          unfinished: 'kit-error',
          error: "TypeError: Cannot read properties of null (reading 'content')\n    at x.ts:1:1",
          declared: ['CHAT-004', 'CHAT-001', 'OBS-018', 'VER-001'],
          evidence: { checks: [{ id: 'VER-001', status: 'pass' }], exchanges: [] },
        }),
      ]),
    );
    const threw = "the kit could not judge: the test threw: TypeError: Cannot read properties of null (reading 'content')";
    expect(results.get('CHAT-004')).toMatchObject({ status: 'error', reason: threw });
    expect(results.get('CHAT-004')!.evidence[0]).toMatchObject({ status: 'error', fromTestError: true, message: threw });
    expect(results.get('CHAT-001')).toMatchObject({ status: 'error', level: 'SHOULD', reason: threw });
    expect(results.get('OBS-018')).toMatchObject({ status: 'error', reason: threw });
    expect(results.get('VER-001')!.status).toBe('pass');
  });

  test('a timeout without records: its IDs are errors of the kit, "the test timed out" (no evidence attachment at all)', () => {
    const results = byId(aggregate([outcome({ status: 'unfinished', unfinished: 'timeout', error: 'Test timeout of 60000ms exceeded.', declared: ['STREAM-001', 'STREAM-005', 'CAT-002', 'CAT-028'] })]));
    for (const id of ['STREAM-001', 'STREAM-005', 'CAT-002', 'CAT-028']) {
      expect(results.get(id)).toMatchObject({ status: 'error', reason: 'the kit could not judge: the test timed out (Test timeout of 60000ms exceeded.)' });
    }
  });

  test('a slow but correct target: the checks that ran pass, the rest of the timed-out test is error, nothing fails', () => {
    const outcomes = [
      outcome({
        status: 'unfinished',
        unfinished: 'timeout',
        error: 'Test timeout of 60000ms exceeded.',
        declared: ['CAT-036', 'CAT-002', 'CAT-028', 'CAT-029', 'CAT-030'],
        evidence: { checks: [{ id: 'CAT-036', status: 'pass' }], exchanges: [] },
      }),
    ];
    const results = aggregate(outcomes);
    expect(results.filter((r) => r.status === 'fail')).toEqual([]);
    expect(byId(results).get('CAT-036')!.status).toBe('pass');
    expect(['CAT-002', 'CAT-028', 'CAT-029', 'CAT-030'].map((id) => byId(results).get(id)!.status)).toEqual(['error', 'error', 'error', 'error']);
    const report = buildReport({ info: sampleInfo(), results, outcomes, startedAt: new Date(), durationMs: 5, stopReason: 'completed', errors: [] });
    expect(report.verdict.mustFailed).toEqual([]);
    expect(report.failedTests[0]!.failed).toEqual([]);
  });

  test('a failed test with fail records: its unrecorded IDs are "not checked in this run", never "not reached", never fail', () => {
    const results = byId(
      aggregate([
        outcome({
          error: 'Error: CAT-027 (MUST, §2) No field is null\n  null',
          errors: ['Error: CAT-027 (MUST, §2) No field is null\n  null', 'Error: CAT-030 (MUST, §2.11) no duplicate\n  twice'],
          declared: ['CAT-027', 'CAT-030', 'CAT-032'],
          evidence: { checks: [{ id: 'CAT-027', status: 'fail', message: 'null' }, { id: 'CAT-030', status: 'fail', message: 'twice' }], exchanges: [] },
        }),
      ]),
    );
    expect(results.get('CAT-027')!.status).toBe('fail');
    expect(results.get('CAT-032')).toMatchObject({ status: 'skip', skipReasons: ['not checked in this run'] });
    expect(JSON.stringify([...results.values()])).not.toContain('not reached');
  });

  test('a failed check and then an exception: the exception makes the unrecorded IDs errors', () => {
    const results = byId(
      aggregate([
        outcome({
          status: 'unfinished',
          unfinished: 'kit-error',
          error: 'Error: CAT-027 (MUST, §2) No field is null',
          errors: ['Error: CAT-027 (MUST, §2) No field is null', 'BudgetExhausted: the profile allows 12 requests'],
          declared: ['CAT-027', 'CAT-032'],
          evidence: { checks: [{ id: 'CAT-027', status: 'fail', message: 'null' }], exchanges: [] },
        }),
      ]),
    );
    expect(results.get('CAT-027')!.status).toBe('fail');
    expect(results.get('CAT-032')).toMatchObject({ status: 'error', reason: 'the kit could not judge: the test threw: BudgetExhausted: the profile allows 12 requests' });
  });

  test("the kit's own records (mock-only) are left out of a target's results, counts and coverage", () => {
    const kitOnly = catalog.filter((r) => r.check === 'mock-only');
    expect(kitOnly.length).toBeGreaterThan(0);
    const ids = kitOnly.map((r) => r.id);
    const outcomes = [outcome({ error: `Error: ${ids[0]} (MUST, §6) x`, declared: ids, evidence: { checks: ids.map((id) => ({ id, status: 'fail' as const, message: 'kit' })), exchanges: [] } })];
    const results = aggregate(outcomes);
    // Restatements (sameAs) are judged under their primary, so they are not results of their own either.
    expect(results).toHaveLength(catalog.filter((r) => r.check !== 'mock-only' && r.sameAs === undefined).length);
    for (const id of ids) expect(results.find((r) => r.id === id)).toBeUndefined();
    const report = buildReport({ info: sampleInfo(), results, outcomes, startedAt: new Date(), durationMs: 5, stopReason: 'completed', errors: [] });
    expect(report.verdict.mustFailed).toEqual([]);
    expect(report.rootCauses).toEqual([]);
    expect(report.counts.total).toBe(results.length);
    expect(report.coverage.mustDeclared).toBe(0);
    expect(report.spec).toMatchObject({ catalogRecords: results.length, kitOnly: kitOnly.length });
  });

  test('tests the run stopped or never started skip their IDs; a judged test that never judged a declared ID skips it', () => {
    const results = byId(
      aggregate([
        outcome({ status: 'unfinished', unfinished: 'stopped', declared: ['CAT-001'] }),
        outcome({ status: 'not-run', declared: ['CAT-002'] }),
        outcome({ status: 'judged', declared: ['CAT-004'], evidence: { checks: [], exchanges: [] } }),
      ]),
    );
    expect(results.get('CAT-001')!.skipReasons).toEqual(['not run to its end: the run was stopped']);
    expect(results.get('CAT-002')!.skipReasons).toEqual(['not run']);
    expect(results.get('CAT-004')!.skipReasons).toEqual(['not checked in this run']);
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
    const results = byId(aggregate([...sampleOutcomes(), outcome({ declared: ['CAT-027'], evidence: { checks: many, exchanges: sampleOutcomes()[0]!.evidence!.exchanges } })]));
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

/** Hand-made outcomes where every given ID is recorded with one status, by one test each. */
function recorded(statuses: Record<string, 'pass' | 'fail' | 'skip' | 'error'>, skipReason = 'skipped'): TestOutcome[] {
  return Object.entries(statuses).map(([id, status]) =>
    outcome({
      title: `test of ${id}`,
      status: status === 'skip' ? 'skipped' : 'judged',
      declared: [id],
      ...(status === 'fail' ? { error: `Error: ${id} (MUST) broken` } : {}),
      evidence: { checks: [{ id, status, ...(status === 'pass' ? {} : { message: status === 'skip' ? skipReason : status === 'error' ? 'no response' : 'broken' }) }], exchanges: [] },
    }),
  );
}

function reportOf(outcomes: TestOutcome[], stopReason: StopReason = 'completed', errors: string[] = []) {
  return buildReport({ info: sampleInfo(), results: aggregate(outcomes), outcomes, startedAt: new Date(), durationMs: 5, stopReason, errors });
}

test.describe('verdict, coverage and exit status', () => {
  test('the core requirements exist, are MUSTs the target is judged on: the model list, a completion, a stream', () => {
    expect(CORE_REQUIREMENTS).toEqual(['CAT-031', 'CAT-032', 'CHAT-004', 'CHAT-005']);
    for (const id of CORE_REQUIREMENTS) expect(requirements.find((r) => r.id === id)).toMatchObject({ level: 'MUST', kind: 'requirement', check: 'black-box' });
  });

  test('exit 1 exactly when the gate fails; else 3 when the run could not judge or did not finish; else 0', () => {
    expect(exitCodeOf('completed', 0, false)).toBe(0); // a test failed, no MUST did
    expect(exitCodeOf('completed', 1, false)).toBe(1);
    expect(exitCodeOf('interrupted', 0, false)).toBe(3);
    expect(exitCodeOf('out-of-time', 3, false)).toBe(1);
    expect(exitCodeOf('completed', 0, true)).toBe(3);
    for (const stop of ['completed', 'interrupted', 'out-of-time', 'failed-to-run'] as const) {
      for (const mustFailed of [0, 1]) {
        for (const unjudged of [false, true]) {
          for (const more of [{}, { stale: 1 }, { failOn: 'warn' as const, warnings: 1 }]) {
            const gateFailed = mustFailed > 0 || (more as { stale?: number }).stale === 1 || (more as { warnings?: number }).warnings === 1;
            const unfinished = unjudged || stop === 'interrupted' || stop === 'out-of-time';
            expect(exitCodeOf(stop, mustFailed, unjudged, more), `${stop} ${mustFailed} ${unjudged} ${JSON.stringify(more)}`).toBe(gateFailed ? 1 : unfinished ? 3 : 0);
          }
        }
      }
    }
  });

  test('the sample report: one MUST failure per deviation; a crash and a timeout charge nothing', () => {
    const report = sampleReport();
    expect(report.verdict).toMatchObject({ result: 'fail', exitCode: 1, mustFailed: ['CAT-027', 'RESP-001', 'REQ-010'] });
    expect(report.failedTests.map((t) => [t.status, t.unfinished])).toEqual([['judged', undefined], ['unfinished', 'kit-error'], ['unfinished', 'timeout'], ['judged', undefined], ['judged', undefined], ['judged', undefined]]);
    expect(report.failedTests.map((t) => [t.title.split(' › ')[0], t.failed])).toEqual([
      ['GET /v1/models', ['CAT-027']],
      ['chat', []],
      ['streaming', []],
      ['streaming', ['RESP-001']],
      ['streaming', ['RESP-001']],
      ['properties', ['REQ-010']],
    ]);
  });

  test('every MUST judged and passing, the core included: pass', () => {
    const report = reportOf(recorded(Object.fromEntries(MUSTS.map((r) => [r.id, 'pass' as const]))));
    expect(report.verdict).toMatchObject({ result: 'pass', exitCode: 0, mustFailed: [] });
    expect(report.coverage).toEqual({ mustJudged: MUSTS.length, mustDeclared: MUSTS.length, percent: 100, coreNotJudged: [] });
    expect(report.verdict.summary).toBe(`no MUST requirement failed; ${MUSTS.length} of ${MUSTS.length} MUST requirements judged (100 %); ${MUSTS.length} of ${report.verdict.requirementsTotal} requirements pass`);
  });

  test('the 503 stub: the catalog judged, every chat test skipped "model_unavailable": incomplete, never pass; exit 0 (no MUST failed)', () => {
    // What a stub that lists one model and answers every completion 503 gives: the catalog tests judge their IDs,
    // every other test skips with the target's refusal.
    const catalogIds = new Set(requirements.filter((r) => r.id.startsWith('CAT-') && ['2.10', '2.11', '4.1', '4.2'].includes(r.section)).map((r) => r.id));
    const outcomes: TestOutcome[] = [
      outcome({ title: 'catalog', declared: [...catalogIds], evidence: { checks: [...catalogIds].map((id) => ({ id, status: 'pass' as const })), exchanges: [] } }),
      outcome({ title: 'chat', status: 'skipped', skipReason: 'model_unavailable: vendor/m answered 503', declared: requirements.filter((r) => !catalogIds.has(r.id)).map((r) => r.id), evidence: { checks: [], exchanges: [] } }),
    ];
    const report = reportOf(outcomes);
    expect(report.verdict.result).toBe('incomplete');
    expect(report.verdict.exitCode).toBe(0);
    expect(report.verdict.mustFailed).toEqual([]);
    expect(report.coverage.coreNotJudged).toEqual(['CHAT-004', 'CHAT-005']);
    expect(report.coverage.mustJudged).toBe(MUSTS.filter((r) => catalogIds.has(r.id)).length);
    expect(report.coverage.mustDeclared).toBe(MUSTS.length);
    expect(report.coverage.percent).toBeLessThan(50);
    expect(report.verdict.summary).toMatch(/^no MUST requirement failed, but too little was judged for a pass; \d+ of \d+ MUST requirements judged \(\d+(\.\d)? %\); core requirements not judged: CHAT-004, CHAT-005/);
    expect(byId(report.requirements).get('CHAT-004')).toMatchObject({ status: 'skip', reason: 'model_unavailable: vendor/m answered 503' });
  });

  test('coverage at 50 % or more is still incomplete while a core MUST is unjudged, and complete once all four are', () => {
    const half = MUSTS.slice(0, Math.ceil(MUSTS.length / 2)).map((r) => r.id);
    const rest = MUSTS.filter((r) => !half.includes(r.id)).map((r) => r.id);
    const statuses = (judgedCore: boolean) => {
      const out: Record<string, 'pass' | 'skip'> = {};
      for (const id of half) out[id] = 'pass';
      for (const id of rest) out[id] = 'skip';
      for (const id of CORE_REQUIREMENTS) out[id] = judgedCore ? 'pass' : 'skip';
      return out;
    };
    const without = reportOf(recorded(statuses(false)));
    expect(without.coverage.coreNotJudged.length).toBeGreaterThan(0);
    expect(without.verdict.result).toBe('incomplete');
    const withCore = reportOf(recorded(statuses(true)));
    expect(withCore.coverage.mustJudged / withCore.coverage.mustDeclared).toBeGreaterThanOrEqual(0.5);
    expect(withCore.verdict.result).toBe('pass');
    // Below half, with the core judged: incomplete.
    const few: Record<string, 'pass' | 'skip'> = Object.fromEntries(MUSTS.map((r) => [r.id, 'skip' as const]));
    for (const id of CORE_REQUIREMENTS) few[id] = 'pass';
    const low = reportOf(recorded(few));
    expect(low.coverage).toMatchObject({ mustJudged: 4, coreNotJudged: [] });
    expect(low.verdict.result).toBe('incomplete');
  });

  test('errors are not judged: a run of transport errors is incomplete, not pass, not fail', () => {
    const report = reportOf(recorded(Object.fromEntries(MUSTS.map((r) => [r.id, 'error' as const]))));
    expect(report.verdict.result).toBe('incomplete');
    expect(report.coverage.mustJudged).toBe(0);
    expect(report.counts.error).toBe(MUSTS.length);
  });

  test('an empty run is incomplete: nothing was judged', () => {
    const report = reportOf([]);
    expect(report.verdict.result).toBe('incomplete');
    expect(report.coverage).toEqual({ mustJudged: 0, mustDeclared: 0, percent: 0, coreNotJudged: [...CORE_REQUIREMENTS] });
  });

  test('a failed MUST is a fail, also when the run did not complete', () => {
    const report = sampleReport('failed-to-run', ['Error: global setup: connect ECONNREFUSED']);
    expect(report.verdict).toMatchObject({ result: 'fail', exitCode: 1 });
    expect(report.verdict.summary).toMatch(/^3 MUST requirements failed; the run did not complete: 1 error outside the tests; /);
    const noFailure = reportOf(recorded(Object.fromEntries(MUSTS.map((r) => [r.id, 'pass' as const]))), 'failed-to-run', ['Error: a spec file did not load']);
    expect(noFailure.verdict).toMatchObject({ result: 'incomplete', exitCode: 3 });
    expect(noFailure.verdict.summary).toMatch(/^the run did not complete: 1 error outside the tests; /);
  });

  test('only warnings and a failed test without a MUST failure: pass when enough was judged', () => {
    const outcomes = [
      ...recorded(Object.fromEntries(MUSTS.map((r) => [r.id, 'pass' as const]))),
      outcome({ status: 'unfinished', unfinished: 'kit-error', error: 'expect(received).toBeGreaterThan(0)', declared: ['CAT-038'], evidence: { checks: [{ id: 'CAT-038', status: 'warn', message: 'w' }], exchanges: [] } }),
    ];
    const report = reportOf(outcomes);
    expect(report.verdict).toMatchObject({ result: 'pass', exitCode: 0, mustFailed: [] });
    expect(report.failedTests[0]).toMatchObject({ failed: [] });
  });

  test('transport: exchanges without a response are counted and said beside the verdict', () => {
    const report = sampleReport();
    expect(report.transport).toEqual({ exchanges: 7, failed: 1, withEvents: 1, kinds: { reset: 1, retried: 1 } });
    expect(report.verdict.summary).toContain('1 of 7 exchanges failed at the transport level; the verdict rests on the rest');
    expect(reportOf(recorded({ 'CAT-001': 'pass' })).verdict.summary).not.toContain('transport');
  });

  test('counts per status, per top-level section and per full section add up', () => {
    const report = sampleReport();
    expect(report.counts.total).toBe(requirements.length);
    const sum = (list: { total: number }[]) => list.reduce((n, s) => n + s.total, 0);
    expect(sum(report.sections)).toBe(requirements.length);
    expect(sum(report.subsections)).toBe(requirements.length);
    expect(report.sections.map((s) => s.section)).toEqual(['1', '2', '3', '4', '5', '6', '7', '8', '9']);
    expect(report.subsections.find((s) => s.section === '2.10')).toMatchObject({ title: 'Model catalog entry' });
    expect(report.counts).toMatchObject({ fail: 3, warn: 1, error: 5 });
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
    expect(redact(`-H "Authorization: Bearer $CONFORMANCE_API_KEY" key=${SAMPLE_SECRET}`, [SAMPLE_SECRET])).toBe('-H "Authorization: Bearer $CONFORMANCE_API_KEY" key=***REDACTED***');
    expect(redact('Authorization: Bearer $CONFORMANCE_API_KEY&quot;', [])).toBe('Authorization: Bearer $CONFORMANCE_API_KEY&quot;');
    expect(redact('Bearer abc.def', [])).toBe('Bearer ***REDACTED***');
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
    expect(xml).toMatch(new RegExp(`<testsuites name="chatconform conformance" tests="${requirements.length}" failures="3" errors="5"`));
    // What the kit could not judge is an <error>, never a <failure>.
    const timedOut = xml.slice(xml.lastIndexOf('<testcase ', xml.indexOf('name="STREAM-001: ')), xml.indexOf('</testcase>', xml.indexOf('name="STREAM-001: ')));
    expect(timedOut).toMatch(/<error message="the kit could not judge: the test timed out \(Test timeout of 60000ms exceeded\.\)" type="kit">/);
    expect(timedOut).not.toContain('<failure');
  });

  test('badge: the verdict and the pass count', () => {
    const failed = sampleReport();
    expect(badgeMessage(failed)).toBe('3 MUST failed');
    expect(renderBadge(failed)).toContain('#c62828');
    const passing = reportOf(recorded(Object.fromEntries(MUSTS.map((r) => [r.id, 'pass' as const]))));
    expect(badgeMessage(passing)).toBe(`${MUSTS.length}/${requirements.filter((r) => r.kind === 'requirement').length} pass`);
    expect(renderBadge(passing)).toContain('#2e7d32');
    const empty = reportOf([]);
    expect(badgeMessage(empty)).toBe('incomplete: 0% judged');
    expect(renderBadge(empty)).toMatch(/<svg[^>]*aria-label="conformance: incomplete: 0% judged"/);
    expect(renderBadge(empty)).toContain('#757575');
  });

  test('terminal: an incomplete run says so loudly, with the coverage', () => {
    const text = renderSummary(reportOf([]), []);
    expect(text).toMatch(/INCOMPLETE — no MUST requirement failed, but too little was judged for a pass/);
    expect(text).toContain('INCOMPLETE — NOT A PASS: no MUST requirement judged; core requirements not judged: CAT-031, CAT-032, CHAT-004, CHAT-005');
    // No test ran: no table of untested rows, no "0 of 0".
    expect(text).not.toMatch(/untested|0 of 0/);
  });

  test('terminal: per-section table, MUST failures with their one-line reason, seed, requests, cost, report folder', () => {
    const text = renderSummary(sampleReport(), ['/r/conformance.json', '/r/junit.xml'], undefined, '/elsewhere');
    expect(text).toMatch(/FAIL — 3 MUST requirements failed/);
    expect(text).toMatch(/section\s+pass\s+fail\s+warn\s+error\s+expected-fail\s+skip\s+observed\s+untested/);
    expect(text).toMatch(/§2 Resources and their fields\s+\d+\s+3\s+/);
    // The root causes come first, ranked; the matrix after them.
    expect(text.indexOf('Root causes (4), by impact:')).toBeGreaterThan(0);
    expect(text.indexOf('Root causes (4), by impact:')).toBeLessThan(text.indexOf('section '));
    expect(text).toMatch(/ 1\. FAIL REQ-010 .*completion_tokens 9 exceeds the cap 3/);
    expect(text).toMatch(/ 2\. FAIL RESP-001 .*chunk 0: \/choices\/0\/finish_reason must not be null .*\(2 tests, left 1 unjudged\)/);
    // Each card is followed by the one-line curl that replays it, the key read from the variable.
    expect(text).toMatch(/ 2\. FAIL RESP-001 .*\n {7}curl -sS -N -X POST 'http:\/\/127\.0\.0\.1:9\/v1\/chat\/completions' .*"Authorization: Bearer \$CONFORMANCE_API_KEY" --data-binary '\{"stream":true\}'\n/);
    const long = sampleReport();
    long.rootCauses[0]!.exchange!.curl = `curl -X POST 'http://127.0.0.1:9/v1/chat/completions' --data-binary '${'x'.repeat(5000)}'`;
    expect(renderSummary(long, [], undefined, '/elsewhere')).toMatch(/ 1\. FAIL REQ-010 .*\n {7}replay: its curl \(5\d{3} characters\) is in conformance\.html\n/);
    expect(text).toContain('transport: 1 of 7 exchanges failed at the transport level, 1 met transport events; the verdict rests on the rest');
    expect(text).toMatch(/CAT-027\s+§2\s+GET \/v1\/models: \/data\/0\/name: must not be null/);
    expect(text).toContain('seed 1234');
    expect(text).toContain('17 requests sent');
    expect(text).toContain('cost 0.0125');
    expect(text).toContain('reports in /r/: conformance.json, junit.xml');
  });

  test('terminal: observed traffic (the proxy: no seed, no requests of its own, no cost) shows only what it knows', () => {
    const report = sampleReport();
    delete report.run.seed;
    delete report.run.requests;
    delete report.run.cost;
    const line = renderSummary(report, [], undefined, '/elsewhere').split('\n').find((l) => l.includes('duration'))!;
    expect(line).toMatch(/^ {2}duration [\d.]+m?s$/);
  });
});

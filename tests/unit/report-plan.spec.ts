// One fold fed by the plan (report/fold.ts): every writer folds its cases with the parts of the run's plan that decide
// the verdict, and with the scope of the records it judges, so the same cases under the same plan get the same
// verdict whichever path folded them. On hand-made cases and in process: a target of a targets file against the
// same target run alone (tests/integration/targets-plan.spec.ts is the one CLI run), the reference of a --reference
// run, a client run's root causes (its consumer rules are mock-only records, which the server's scope leaves out),
// the proxy's (IMG-007 is a client rule traffic judges).
import { expect, test } from '@playwright/test';
import { runClientScenarios, type ClientDriver } from '../../client/engine.ts';
import { buildClientReport } from '../../client/report.ts';
import { SCENARIOS } from '../../client/scenarios.ts';
import type { CapturedExchange } from '../../proxy/forward.ts';
import { Traffic } from '../../proxy/traffic.ts';
import { parseBaseline } from '../../report/baseline.ts';
import { foldReport, referencePlan, targetPlan, type RecordedCase, type RunFacts, type VerdictPlan } from '../../report/fold.ts';
import { validateReport, type ConformanceReport } from '../../report/json.ts';
import { requirements } from '../../spec/requirements/index.ts';
import { answer } from '../fixtures/clients/flawed.mjs';
import { recordedCase, sampleInfo } from '../support/reports.ts';


const facts = (): RunFacts => ({ info: sampleInfo(), startedAt: new Date('2026-01-01T00:00:00Z'), durationMs: 10, stopReason: 'completed', errors: [] });

/** A target that fails RESP-005 (listed in the baseline), warns on CAT-038, and passes CHAT-004. */
const BROKEN: RecordedCase[] = [
  recordedCase('chat › answers', [{ id: 'RESP-005', status: 'fail' }, { id: 'CHAT-004', status: 'pass' }]),
  recordedCase('catalog › encoded id', [{ id: 'CAT-038', status: 'warn' }]),
];
const CLEAN: RecordedCase[] = [recordedCase('chat › answers', [{ id: 'RESP-005', status: 'pass' }, { id: 'CHAT-004', status: 'pass' }])];

const verdictOf = (r: ConformanceReport) => ({ result: r.verdict.result, exitCode: r.verdict.exitCode, summary: r.verdict.summary, statuses: r.requirements.map((q) => `${q.id} ${q.status}`) });

test('a target of a targets file is folded with the run\'s plan: the verdict and exit code of that target run alone', () => {
  const baseline = parseBaseline('expectedFailures:\n  - { id: RESP-005, reason: created in milliseconds }\n', 'expected.yaml');
  for (const plan of [{ baseline }, { baseline, failOn: 'warn' }, { failOn: 'warn' }, { baseline, selection: 'requirement RESP-005, CHAT-004', scope: ['RESP-005', 'CHAT-004'] }] as VerdictPlan[]) {
    for (const cases of [BROKEN, CLEAN]) {
      const alone = foldReport(cases, facts(), plan);
      const asTarget = foldReport(cases, facts(), targetPlan({ ...plan, models: { ids: ['m'], requests: { m: 0 }, maxFailingModels: 0 } }));
      expect(verdictOf(asTarget), JSON.stringify(plan)).toEqual(verdictOf(alone));
      expect(asTarget.verdict.baseline).toEqual(alone.verdict.baseline);
      expect(asTarget.verdict.failOn).toEqual(alone.verdict.failOn);
    }
  }
  // What the plan decides: the listed failure is excused (exit 0), a warning under fail-on warn fails, a stale entry fails.
  expect(foldReport(BROKEN, facts(), targetPlan({ baseline })).verdict.exitCode).toBe(0);
  expect(foldReport(BROKEN, facts(), targetPlan({ baseline, failOn: 'warn' })).verdict.exitCode).toBe(1);
  expect(foldReport(CLEAN, facts(), targetPlan({ baseline })).verdict).toMatchObject({ exitCode: 1, baseline: { stale: [{ id: 'RESP-005' }] } });
  // A target that runs some files only is a partial run of them, beside the run's own selection.
  expect(targetPlan({ selection: 'requirement RESP-005' }, ['suites/chat.spec.ts']).selection).toBe('requirement RESP-005; the spec files chat.spec.ts');
});

test('the reference of a --reference run: the run\'s selection, scope and trials, not the target\'s gate or baseline', () => {
  const baseline = parseBaseline('expectedFailures:\n  - { id: RESP-005, reason: known }\n', 'expected.yaml');
  const plan: VerdictPlan = { baseline, failOn: 'target-only', selection: 'requirement RESP-005', scope: ['RESP-005'], trials: { k: 3, minPassRate: 0.5 } };
  expect(referencePlan(plan)).toEqual({ selection: 'requirement RESP-005', scope: ['RESP-005'], trials: { k: 3, minPassRate: 0.5 } });
  const reference = foldReport(CLEAN, facts(), referencePlan(plan));
  expect(reference.verdict).toMatchObject({ result: 'partial', selection: 'requirement RESP-005' });
  expect(reference.verdict.baseline).toBeUndefined();
});

const inProcess =
  (flaw: string): ClientDriver =>
  async (env) => ({ exitCode: 0, signal: null, timedOut: false, flooded: false, stdout: JSON.stringify(await answer(env, flaw)), stderrTail: '', durationMs: 0 });

test('a client run folds with its own scope: a root-cause card for every client rule it fails or warns on', async () => {
  // Broken adapters, each one consumer mistake breaking a consumer rule (the catalog's mock-only records, which the
  // server's scope leaves out), run on the scenarios that judge that rule.
  const flaws: Record<string, string> = { 'ignore-stream-error': 'STREAM-018', 'chunk-decode': 'STREAM-014', 'split-lf-only': 'STREAM-008', 'annotations-back': 'SEARCH-030', 'hardcoded-model': 'CAT-040', 'swap-model': 'ERR-009' };
  for (const [flaw, rule] of Object.entries(flaws)) {
    expect(requirements.find((r) => r.id === rule)?.check, rule).toBe('mock-only');
    const scenarios = SCENARIOS.filter((s) => s.requirements.includes(rule));
    const results = await runClientScenarios({ driver: inProcess(flaw), scenarios, parallel: true });
    const report = buildClientReport({ results, command: `node flawed.mjs ${flaw}`, startedAt: new Date(0), durationMs: 1, seed: 0, reportDir: 'reports' });
    expect(validateReport(report)).toEqual([]);
    const bad = report.requirements.filter((r) => r.status === 'fail' || r.status === 'warn').map((r) => r.id);
    expect(bad, flaw).toContain(rule);
    // Every rule the client breaks has its card, naming the scenario it broke it in (never a made-up file or line).
    const cards = new Set(report.rootCauses.flatMap((c) => c.requirements));
    expect(bad.filter((id) => !cards.has(id)), flaw).toEqual([]);
    for (const c of report.rootCauses) for (const t of c.tests) expect(Object.keys(t).sort(), flaw).toEqual(['scenario', 'title']);
    expect(report.run.caseKind).toBe('scenario');
  }
});

test('the proxy folds with the traffic\'s catalog: a client rule traffic judges (IMG-007) has its card; cases are exchanges', () => {
  const traffic = new Traffic('http://127.0.0.1:9', 1_000_000);
  const body = Buffer.from('{"model":"m","messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:image/png;base64,AA=="}}]}]}');
  const x: CapturedExchange = {
    seq: 7,
    method: 'POST',
    path: '/v1/chat/completions',
    requestHeaders: { 'content-type': 'application/json' },
    requestBody: body,
    requestBytes: body.length,
    status: 400,
    responseHeaders: { 'content-type': 'application/json' },
    responseBody: Buffer.from('{"error":{"code":"images_not_supported","message":"m takes no images"}}'),
    responseBytes: 10,
    complete: true,
    startedAt: 0,
    durationMs: 1,
  };
  const exchange = { method: 'POST', path: x.path, url: `http://127.0.0.1:9${x.path}`, requestHeaders: {}, requestBody: body.toString(), requestBytes: body.length, status: 400, responseHeaders: {}, responseBody: '{}', responseBytes: 2, durationMs: 1, curl: 'curl -sS' };
  traffic.account(x, { exchange, records: [{ id: 'IMG-007', status: 'fail', party: 'client', exchange: 0, message: "the client's request: image parts sent to m, whose entry has supports_images false" }] });
  const report = traffic.report(10, '/tmp/unused');
  expect(validateReport(report)).toEqual([]);
  expect(report.requirements.find((r) => r.id === 'IMG-007')?.status).toBe('fail');
  expect(report.rootCauses.map((c) => c.id)).toEqual(['IMG-007']);
  // The exchange is the case: its number, no file, no line.
  expect(report.run.caseKind).toBe('exchange');
  expect(report.rootCauses[0]!.tests).toEqual([{ title: expect.stringContaining('#7 POST /v1/chat/completions'), exchange: 7 }]);
  expect(report.requirements.find((r) => r.id === 'IMG-007')!.evidence[0]!.location).toBe('exchange #7');
});

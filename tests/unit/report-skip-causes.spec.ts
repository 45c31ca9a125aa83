// Skip reasons and card texts name the failure that caused them (report/root-causes.ts causeNamed, report/results.ts
// causeOf): a skip whose cause is a failure on another requirement's card names that card, never a requirement the
// card does not lead; a card's "left N unjudged" counts only requirements the run left without a judgement. Every
// skip's named cause is compared with the report's cards, on in-process folds of recorded-style cases.
import { expect, test } from '@playwright/test';
import type { CheckRecord } from '../../judge/checker.ts';
import { foldReport } from '../../report/fold.ts';
import type { ConformanceReport } from '../../report/json.ts';
import { renderSummary } from '../../report/terminal.ts';
import type { TestOutcome } from '../../report/results.ts';
import { exchange, gatewayCases, llamaCases, recordedCase } from '../support/recorded-answers.ts';
import { sampleInfo } from '../support/reports.ts';
import { skipCauseProblems } from '../support/skip-causes.ts';

const facts = { info: sampleInfo(), startedAt: new Date(0), durationMs: 1, stopReason: 'completed' as const, errors: [] };
const fold = (cases: TestOutcome[]): ConformanceReport => foldReport(cases, facts, {});

const CATALOG = 'http://127.0.0.1:9/v1/models';
const models = (status: number, body: string, key: boolean) =>
  exchange(status, undefined, body, { method: 'GET', path: '/v1/models', url: CATALOG, requestHeaders: key ? { authorization: '***REDACTED***' } : {} });
const LIST = '{"object":"list","data":[{"id":"m","object":"model","created":1,"owned_by":"x","name":"m"}]}';
const UNAUTHORIZED = '{"error":{"message":"Unauthorized","type":"authentication_error","code":"invalid_api_key"}}';
const skips = (ids: string[], cause: string, message: string): CheckRecord[] => ids.map((id) => ({ id, status: 'skip', exchange: 0, message, cause: { id: cause, exchange: 0, message } }));

test('a skip caused by a failure on the card of another requirement names that card, not the requirement it blames', () => {
  // GET /v1/models answers the same 401 to every request, with a key or without: one card, the list read's (CAT-031).
  const cases = [
    recordedCase('catalog › lists the models', [{ id: 'CAT-031', status: 'fail', exchange: 0, statusOnly: true, message: 'GET /v1/models, expected status 200; received HTTP 401' }, ...skips(['CAT-001', 'CAT-005'], 'CAT-031', 'GET /v1/models gave no model list: HTTP 401')], [models(401, UNAUTHORIZED, true)]),
    recordedCase('catalog › answers without a credential', [{ id: 'AUTH-005', status: 'fail', exchange: 0, statusOnly: true, message: 'expected status 200; received HTTP 401' }, ...skips(['CAT-002'], 'AUTH-005', 'GET /v1/models gave no model list: HTTP 401')], [models(401, UNAUTHORIZED, false)]),
    recordedCase('catalog › entries read back', [{ id: 'AUTH-006', status: 'fail', exchange: 0, statusOnly: true, message: 'GET /v1/models with a credential, expected status 200; received HTTP 401' }], [models(401, UNAUTHORIZED, true)]),
  ];
  const report = fold(cases);
  expect(report.rootCauses.map((c) => [c.kind, c.id, c.requirements])).toEqual([['common-answer', 'CAT-031', ['CAT-031', 'AUTH-005', 'AUTH-006']]]);
  const cat002 = report.requirements.find((r) => r.id === 'CAT-002')!;
  expect(cat002.status).toBe('skip');
  expect(cat002.reason).not.toContain('AUTH-005');
  expect(cat002.reason).toContain('(root cause: the card of CAT-031: GET /v1/models gives most requests the same answer (3 of 3)');
  expect(report.rootCauses[0]!.blocked).toEqual(['CAT-001', 'CAT-002', 'CAT-005']);
  expect(skipCauseProblems(report)).toEqual([]);
});

test('a card counts as left unjudged only what the run did not judge elsewhere (the anonymous read\'s skips judged on the credentialed one)', () => {
  const cases = [
    recordedCase('catalog › lists the models', [{ id: 'CAT-031', status: 'pass', exchange: 0 }, { id: 'CAT-001', status: 'pass', exchange: 0 }, { id: 'CAT-005', status: 'pass', exchange: 0 }], [models(200, LIST, true)]),
    // Only the anonymous read is refused: AUTH-005's own card; the catalog checks it skipped were judged above.
    recordedCase('catalog › answers without a credential', [{ id: 'AUTH-005', status: 'fail', exchange: 0, statusOnly: true, message: 'expected status 200; received HTTP 401' }, ...skips(['CAT-001', 'CAT-005', 'CAT-002'], 'AUTH-005', 'GET /v1/models gave no model list: HTTP 401')], [models(401, UNAUTHORIZED, false)]),
  ];
  const report = fold(cases);
  expect(report.rootCauses.map((c) => [c.kind, c.id, c.blocked])).toEqual([['requirement', 'AUTH-005', ['CAT-002']]]);
  expect(renderSummary(report, [])).toContain('left 1 unjudged');
  expect(report.requirements.find((r) => r.id === 'CAT-002')!.reason).toBe('GET /v1/models gave no model list: HTTP 401 (root cause: AUTH-005 failed)');
  expect(skipCauseProblems(report)).toEqual([]);
});

test('every skip of the recorded llama-server and gateway runs names a cause its cards hold', () => {
  for (const cases of [llamaCases(), gatewayCases()]) {
    // A streamed test the 500 left unjudged: its cause is on the stream card.
    const streamed = cases.find((t) => t.title === 'streaming › a streamed completion');
    if (streamed) streamed.evidence!.checks.push(...skips(['STREAM-001'], 'CHAT-005', 'no stream to read: HTTP 500'));
    expect(skipCauseProblems(fold(cases))).toEqual([]);
  }
});

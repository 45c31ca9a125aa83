// One deviation, one card (report/causes.ts, report/root-causes.ts), on recorded-style answers of real servers: a
// same-answer card forms only when the same answer to the same request shape was seen on more than one request and
// explains every finding of the requirements it holds; a requirement's findings are on one card; a rule card names
// every behaviour it holds.
import { expect, test } from '@playwright/test';
import { rootCauses, type RootCause } from '../../report/root-causes.ts';
import { exchange, gatewayCases, ignoredCapsCases, llamaCases, recordedCase } from '../support/recorded-answers.ts';

const cards = (causes: RootCause[]) => causes.map((c) => [c.kind, c.requirements]);

/** Every requirement on at most one card. */
function oneCardEach(causes: RootCause[]): void {
  const ids = causes.flatMap((c) => c.requirements);
  expect(ids.length, `a requirement on two cards: ${JSON.stringify(cards(causes))}`).toBe(new Set(ids).size);
}

test('llama-server: a numeric error.code and the 500 to client faults are two cards, ERR-003 on one of them only', () => {
  const causes = rootCauses(llamaCases());
  expect(cards(causes)).toEqual([
    ['requirement', ['ERR-003']],
    ['same-answer', ['REQ-004', 'REQ-016', 'REQ-019']],
  ]);
  oneCardEach(causes);
  expect(causes[0]!.occurrences).toBe(5);
  expect(causes[1]!.deviation).toBe(
    'POST /v1/chat/completions answers 3 of its 13 requests HTTP 500 with error type "server_error", code 500, every one of them with none of the optional features: e.g. HTTP 500: {"error":{"code":500,"message":"\'messages\' is required","type":"server_error"}} (application/json)',
  );
});

test('a gateway in front of it: the null error.code, the 500 to client faults and the 500 to every stream are three cards', () => {
  const causes = rootCauses(gatewayCases());
  expect(cards(causes)).toEqual([
    ['same-answer', ['CHAT-005', 'STREAM-004', 'TOOL-001']],
    ['requirement', ['ERR-003']],
    ['same-answer', ['REQ-004', 'REQ-016', 'REQ-019']],
  ]);
  oneCardEach(causes);
  expect(causes[0]!.deviation).toContain('answers 3 of its 17 requests HTTP 500: {"error":{"message":"llama error: stream failed"');
  expect(causes[0]!.deviation).toContain('every one of them with stream true');
});

test('a rule card names every behaviour it holds: both ignored caps', () => {
  const causes = rootCauses(ignoredCapsCases());
  expect(cards(causes)).toEqual([['rule', ['REQ-008', 'REQ-010']]]);
  expect(causes[0]!.deviation).toBe(
    'the token cap in force is not applied: REQ-008: max_tokens 5: usage.completion_tokens is 66, above the cap in force 5; REQ-010: max_completion_tokens 5: usage.completion_tokens is 66, above the cap in force 5',
  );
});

test('one request judged by rules of two sections shows no shared cause: two cards, though each fails only there', () => {
  const served = Array.from({ length: 4 }, (_, i) => recordedCase(`chat ${i}`, [{ id: 'CHAT-004', status: 'pass', exchange: 0 }], [exchange(200, { model: 'm', messages: [] }, '{}')]));
  const fault = recordedCase('request rules › a request without messages is refused', [
    { id: 'REQ-004', status: 'warn', exchange: 0, statusOnly: true, message: 'expected a client error (4xx); received HTTP 500' },
    { id: 'ERR-003', status: 'fail', exchange: 0, message: 'error.code must be a string; received 500 (number)' },
  ], [exchange(500, { model: 'm' }, '{"error":{"code":500,"message":"\'messages\' is required","type":"server_error"}}')]);
  expect(cards(rootCauses([...served, fault]))).toEqual([
    ['requirement', ['ERR-003']],
    ['requirement', ['REQ-004']],
  ]);
  // Two rules of one section on one 500 (tool calls without declared tools: a 4xx, and no upstream failure): one card.
  const undeclared = recordedCase('tools › tool calls sent with no tools declared are refused', [
    { id: 'TOOL-012', status: 'fail', exchange: 0, statusOnly: true, message: 'expected a client-error (4xx) status; received HTTP 500' },
    { id: 'TOOL-013', status: 'fail', exchange: 0, message: 'the rejection must not be reported as an upstream failure; received HTTP 500' },
  ], [exchange(500, { model: 'm', messages: [{ role: 'assistant', tool_calls: [] }] }, '{"error":{"type":"api_error","code":"upstream_error","message":"upstream provider returned an error"}}')]);
  expect(cards(rootCauses([...served, undeclared]))).toEqual([['same-answer', ['TOOL-012', 'TOOL-013']]]);
});

test('one rule the catalog states twice is one card: a substituted model fails CHAT-009 and ROUTE-008; an accepted effort RSN-006 and RSN-010', () => {
  const ok = exchange(200, { model: 'acme/large', messages: [] }, '{"model":"acme/small"}');
  const causes = rootCauses([
    recordedCase('chat › the response names the requested model', [{ id: 'CHAT-009', status: 'fail', exchange: 0, message: 'model "acme/small" is not the requested "acme/large"' }], [ok]),
    recordedCase('routing › preferences never change the model', [{ id: 'ROUTE-008', status: 'fail', exchange: 0, message: 'with provider.order ["b"]: model "acme/small" is not the requested "acme/large"' }], [ok]),
    recordedCase('reasoning › an effort outside the set is refused', [
      { id: 'RSN-006', status: 'fail', exchange: 0, statusOnly: true, message: 'effort "extreme": expected status 400; received HTTP 200' },
      { id: 'RSN-010', status: 'fail', exchange: 0, message: 'effort "extreme": expected status 400 with a section 7 error body; received HTTP 200' },
    ], [ok]),
  ]);
  expect(cards(causes)).toEqual([
    ['rule', ['CHAT-009', 'ROUTE-008']],
    ['rule', ['RSN-006', 'RSN-010']],
  ]);
  expect(causes[0]!.deviation).toMatch(/^the response model is not the requested entry: CHAT-009: .*; ROUTE-008: with provider.order/);
});

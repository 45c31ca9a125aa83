// One deviation, one card (report/causes.ts, report/root-causes.ts), on recorded-style answers of real servers: a
// same-answer card forms only when the same answer to the same request shape was seen on more than one request and
// explains every finding of the requirements it holds; a requirement's findings are on one card; a rule card names
// every behaviour it holds.
import { expect, test } from '@playwright/test';
import { rootCauses, type RootCause } from '../../report/root-causes.ts';
import { gatewayCases, ignoredCapsCases, llamaCases } from '../support/recorded-answers.ts';

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

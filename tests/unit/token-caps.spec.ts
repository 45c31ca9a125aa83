// The token caps (judge/token-caps.ts): an answer within the cap in force is a case of the cap rules only when it
// shows the cap applied. A selection whose only cases cannot show it (a trials-only run of the cap property, whose
// generated caps happened to leave max_tokens the smaller) leaves REQ-011 unjudged, never passed.
import { expect, test } from '@playwright/test';
import { judgeCapInForce, type CapPair } from '../../judge/token-caps.ts';
import { aggregate, type TestOutcome } from '../../report/results.ts';
import { scratch, statusOf } from '../support/check-scratch.ts';

/** The caps judged on an answer of `used` completion tokens: the records the checker made. */
function judge(caps: CapPair, used: number, ids?: string[]) {
  const { check, respond } = scratch(['REQ-008', 'REQ-010', 'REQ-011', 'CHAT-008']);
  const res = respond(200, { id: 'c', object: 'chat.completion', usage: { completion_tokens: used } });
  res.exchange.requestBody = JSON.stringify({ model: 'm', messages: [], ...caps });
  judgeCapInForce(check, res, used, ids);
  return check.records;
}

test('both caps sent: a pass needs an answer stopped by max_completion_tokens while max_tokens would have let it stop elsewhere', () => {
  // max_completion_tokens the smaller, and the answer stopped at it: the larger max_tokens did not win.
  expect(statusOf(judge({ max_tokens: 256, max_completion_tokens: 5 }, 5), 'REQ-011')).toBe('pass');
  expect(statusOf(judge({ max_tokens: 256, max_completion_tokens: 5 }, 19), 'REQ-011')).toBe('fail');
  // max_completion_tokens the larger, and the answer ran past max_tokens to it: max_tokens did not win either.
  expect(statusOf(judge({ max_tokens: 5, max_completion_tokens: 40 }, 40), 'REQ-011')).toBe('pass');
});

test('an answer that cannot show which cap applied is no case: REQ-011 not judged, never passed', () => {
  // A server that applies max_tokens and ignores max_completion_tokens answers the smaller max_tokens alike.
  const smaller = judge({ max_tokens: 5, max_completion_tokens: 40 }, 5);
  expect(statusOf(smaller, 'REQ-011')).toBe('skip');
  expect(smaller.find((r) => r.id === 'REQ-011')).toMatchObject({ notApplicable: true });
  // An answer that ended on its own before the cap, and two equal caps.
  expect(statusOf(judge({ max_tokens: 256, max_completion_tokens: 40 }, 12), 'REQ-011')).toBe('skip');
  expect(statusOf(judge({ max_tokens: 8, max_completion_tokens: 8 }, 8), 'REQ-011')).toBe('skip');
  // One cap alone: the same (an answer shorter than the cap shows nothing of it); above it always fails.
  expect(statusOf(judge({ max_tokens: 40 }, 12), 'REQ-008')).toBe('skip');
  expect(statusOf(judge({ max_completion_tokens: 5 }, 5), 'REQ-010')).toBe('pass');
  expect(statusOf(judge({ max_completion_tokens: 5 }, 66), 'REQ-010')).toBe('fail');
});

test('a run whose every REQ-011 case is one of those leaves REQ-011 unjudged (skip), not PASS', () => {
  const cases = [judge({ max_tokens: 5, max_completion_tokens: 40 }, 5), judge({ max_tokens: 3, max_completion_tokens: 9 }, 3), judge({ max_tokens: 7, max_completion_tokens: 30 }, 7)];
  const outcomes: TestOutcome[] = cases.map((checks, i) => ({ title: 'property: token-cap precedence', file: 'suites/properties/token-caps.spec.ts', line: 36, status: 'judged', declared: ['REQ-011'], durationMs: 1, trial: i, evidence: { checks, exchanges: [] } }));
  const r = aggregate(outcomes).find((x) => x.id === 'REQ-011')!;
  expect(r.status).toBe('skip');
  expect(r.reason).toContain('does not show that cap applied');
});

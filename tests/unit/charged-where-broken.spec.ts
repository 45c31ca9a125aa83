// A finding is charged where its rule is broken:
// - CAT-045 (the list holds every available model) only on a readable list: an unreadable one (not JSON, no data
//   array) is the list's own rules' failure, and CAT-045 skips with that cause;
// - a property test never judges what the area's own test leaves unjudged: a 413 to a request with an unread field
//   leaves REQ-013/014 unjudged (LIMIT-003's cause) in request fuzzing as in limits.spec.ts, and so does a refusal
//   the same request without the field meets too (chat.spec.ts sends that control first).
import { expect, test } from '@playwright/test';
import { judgeListWhole } from '../../judge/comparisons.ts';
import { judgeFuzzCase } from '../../suites/lib/properties/fuzz-judge.ts';
import { completion, scratch, statusOf } from '../support/check-scratch.ts';

const served = [{ id: 'acme/model', res: { status: 200 } }];

test('CAT-045: an unreadable list is not charged with lacking a model; a readable one that lacks it is', () => {
  for (const [body, cause] of [['<html>busy</html>', 'CAT-032'], [{ object: 'list', data: 'nope' }, 'CAT-029']] as const) {
    const { check, respond } = scratch(['CAT-045']);
    judgeListWhole(check, respond(200, body, { 'content-type': 'text/html' }), [], served);
    const records = check.records.filter((r) => r.id === 'CAT-045');
    expect(records.map((r) => r.status), JSON.stringify(body)).toEqual(['skip']);
    expect(records[0]?.cause?.id).toBe(cause);
  }
  const { check, respond } = scratch(['CAT-045']);
  judgeListWhole(check, respond(200, { object: 'list', data: [{ id: 'other' }] }), ['other'], served);
  expect(statusOf(check.records, 'CAT-045')).toBe('fail');
});

test('request fuzzing: a 413 to an unread field leaves REQ-013/014 unjudged with LIMIT-003 as the cause; a 400 fails them', () => {
  for (const [fault, id] of [['unknown-fields', 'REQ-013'], ['unknown-nested-fields', 'REQ-014']] as const) {
    const sized = scratch([id, 'ERR-001']);
    judgeFuzzCase(sized.check, { fault, label: `an unread field (${fault})`, body: {} }, sized.respond(413, { error: { type: 'invalid_request_error', code: 'request_too_large', message: 'too large' } }));
    const mine = sized.check.records.filter((r) => r.id === id);
    expect(mine.map((r) => r.status)).toEqual(['skip']);
    expect(mine[0]?.cause?.id).toBe('LIMIT-003');
    const refused = scratch([id, 'ERR-001']);
    judgeFuzzCase(refused.check, { fault, label: `an unread field (${fault})`, body: {} }, refused.respond(400, { error: { type: 'invalid_request_error', code: 'unknown_field', message: 'unknown field' } }));
    expect(statusOf(refused.check.records, id)).toBe('fail');
  }
});

test('request fuzzing: a refusal that the same request without the unread field meets too leaves REQ-013/014 unjudged; one it does not meet fails them', () => {
  const upstream = { error: { type: 'server_error', code: 'upstream_error', message: 'the tools backend failed' } };
  for (const [fault, id] of [['unknown-fields', 'REQ-013'], ['unknown-nested-fields', 'REQ-014']] as const) {
    const f = { fault, label: `an unread field (${fault})`, body: { tools: [{ type: 'function', function: { name: 'f', x_unread: 1 } }] }, control: { tools: [{ type: 'function', function: { name: 'f' } }] } };
    const both = scratch([id, 'ERR-001']);
    judgeFuzzCase(both.check, f, both.respond(500, upstream), both.respond(500, upstream));
    const mine = both.check.records.filter((r) => r.id === id);
    expect(mine.map((r) => r.status)).toEqual(['skip']);
    expect(mine[0]?.message).toContain('the same request without the unread field is refused too');
    const onlyWith = scratch([id, 'ERR-001']);
    judgeFuzzCase(onlyWith.check, f, onlyWith.respond(500, upstream), onlyWith.respond(200, completion({ content: 'hi' })));
    expect(statusOf(onlyWith.check.records, id)).toBe('fail');
  }
});

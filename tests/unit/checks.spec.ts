// The checks judge what they are given, each under its own requirement, and none stops another: hand-made
// exchanges, judged by the same functions a run uses (judge/judge-response.ts), through a real Checker.
import { expect, test } from '@playwright/test';
import { judgeCompletion, judgeModelList, judgeRefusal, judgeStream } from '../../judge/judge-response.ts';
import { judgeRefusalAnswered, judgeRefusedBeforeParsing } from '../../judge/comparisons.ts';
import { Checker, Skipped, type CheckRecord } from '../../judge/checker.ts';
import { TargetResponse, type Exchange, type Target } from '../../run/target.ts';

import { completion, NOW, scratch, statusOf, type Json } from '../support/check-scratch.ts';

const sse = (payloads: (Json | string)[], framing: (p: string) => string = (p) => `data: ${p}\n\n`) => payloads.map((p) => framing(typeof p === 'string' ? p : JSON.stringify(p))).join('');
const chunk = (delta: Json, finish?: string, extra: Json = {}): Json => ({ id: 'c1', object: 'chat.completion.chunk', created: NOW(), model: 'm', choices: [{ index: 0, delta, ...(finish ? { finish_reason: finish } : {}) }], ...extra });

test.describe('one deviation, one requirement; the others still judged', () => {
  test('a null content is charged to RESP-001 alone, and every other rule of the completion is still judged', () => {
    const { check, respond } = scratch();
    judgeCompletion(check, respond(200, completion({ content: null })), 'm');
    expect(statusOf(check.records, 'RESP-001')).toBe('fail');
    expect(statusOf(check.records, 'RESP-013'), 'content null is one deviation, charged once').not.toBe('fail');
    for (const id of ['RESP-002', 'RESP-005', 'RESP-009', 'RESP-023', 'CHAT-009']) expect(statusOf(check.records, id), id).toBe('pass');
  });

  test('catalog deviations are charged once: a null to CAT-027 alone, a backend field to CAT-002 alone', () => {
    const { check, respond } = scratch(['CAT-031']);
    const entry = { id: 'm', name: 'M', min_tier: 'free', supports_images: false, supports_caching: false, supports_reasoning: false, supports_global_endpoint: true, is_featured: false };
    judgeModelList(check, respond(200, { object: 'list', data: [{ ...entry, featured_label: null, featured_tab: null, description: null }] }), 'CAT-031');
    expect(statusOf(check.records, 'CAT-027')).toBe('fail');
    for (const id of ['CAT-023', 'CAT-024', 'CAT-016']) expect(statusOf(check.records, id), id).not.toBe('fail');
    // CAT-041 states the same rule (section 9): its check records under CAT-027.
    expect(check.records.some((r) => r.id === 'CAT-041')).toBe(false);
    // A label carried by an entry that is not featured is still CAT-023's.
    const other = scratch(['CAT-031']);
    judgeModelList(other.check, other.respond(200, { object: 'list', data: [{ ...entry, featured_label: 'New' }] }), 'CAT-031');
    expect(statusOf(other.check.records, 'CAT-023')).toBe('fail');
    expect(statusOf(other.check.records, 'CAT-027')).toBe('pass');
    // A field naming the backend is CAT-002's deviation; an unknown field that names none is CAT-001's.
    const backend = scratch(['CAT-031']);
    judgeModelList(backend.check, backend.respond(200, { object: 'list', data: [{ ...entry, provider: 'upstream-a' }] }), 'CAT-031');
    expect(statusOf(backend.check.records, 'CAT-002')).toBe('fail');
    expect(statusOf(backend.check.records, 'CAT-001')).toBe('pass');
    const unknown = scratch(['CAT-031']);
    judgeModelList(unknown.check, unknown.respond(200, { object: 'list', data: [{ ...entry, object: 'model' }] }), 'CAT-031');
    expect(statusOf(unknown.check.records, 'CAT-001')).toBe('fail');
    expect(statusOf(unknown.check.records, 'CAT-002')).toBe('pass');
  });

  test('the list\'s own fields are the list\'s rules: a wrong object is CAT-028\'s, an entry\'s unknown object CAT-001\'s', () => {
    const entry = { id: 'm', name: 'M', min_tier: 'free', supports_images: false, supports_caching: false, supports_reasoning: false, supports_global_endpoint: true, is_featured: false };
    const list = scratch(['CAT-031']);
    judgeModelList(list.check, list.respond(200, { object: 'models', data: [entry] }), 'CAT-031');
    expect(statusOf(list.check.records, 'CAT-028')).toBe('fail');
    expect(statusOf(list.check.records, 'CAT-001')).not.toBe('fail');
    const inEntry = scratch(['CAT-031']);
    judgeModelList(inEntry.check, inEntry.respond(200, { object: 'list', data: [{ ...entry, object: 'model' }] }), 'CAT-031');
    expect(statusOf(inEntry.check.records, 'CAT-001')).toBe('fail');
    expect(statusOf(inEntry.check.records, 'CAT-028')).toBe('pass');
  });

  test('a url on a "search" action is charged to SEARCH-035 by the schema node that states it', () => {
    const { check, respond } = scratch();
    judgeCompletion(check, respond(200, completion({ content: 'Paris.', service_web_search: [{ type: 'search', query: 'louvre', url: 'https://example.org' }] })), 'm');
    expect(statusOf(check.records, 'SEARCH-035')).toBe('fail');
    expect(statusOf(check.records, 'SEARCH-034')).not.toBe('fail');
  });

  test('a refused completion leaves the completion rules skipped with the refusal as their cause, never failed', () => {
    const { check, respond } = scratch();
    const res = respond(400, { error: { type: 'invalid_request_error', code: 'bad', message: 'no' } });
    check.apply([], {}, res);
    expect(judgeCompletion(check, res, 'm')).toBeUndefined();
    expect(statusOf(check.records, 'CHAT-004')).toBe('fail');
    const skipped = check.records.filter((r) => r.status === 'skip');
    expect(skipped.length).toBeGreaterThan(10);
    expect(skipped.every((r) => r.cause?.id === 'CHAT-004' && r.cause.exchange === 0)).toBe(true);
  });

  test('no HTTP response at all is the kit\'s error, not the target\'s failure', () => {
    const { check, respond } = scratch();
    const res = respond(0, '');
    res.exchange.error = 'socket hang up';
    res.exchange.errorKind = 'reset';
    judgeCompletion(check, res, 'm');
    expect(check.records.some((r) => r.status === 'fail')).toBe(false);
    expect(statusOf(check.records, 'CHAT-004')).toBe('error');
  });

  test('a refusal that was expected: judged under its requirement, and the error body under ERR-001..004', () => {
    const { check, respond } = scratch();
    judgeRefusal(check, respond(200, completion({ content: 'hi' })), { id: 'CHAT-004', status: 400 });
    // The target did not refuse: the error-body rules have nothing to judge.
    expect(['skip']).toContain(statusOf(check.records, 'ERR-001'));
  });
});

test.describe('streams: what section 6 allows passes', () => {
  const whole = [chunk({ role: 'assistant', content: 'Hel' }), chunk({ content: 'lo' }), chunk({}, 'stop'), '[DONE]'];

  test('event: message, id: and retry: lines are legal SSE fields', () => {
    const { check, respond } = scratch();
    const body = 'retry: 3000\n\n' + sse(whole, (p) => `event: message\nid: 7\ndata: ${p}\n\n`);
    judgeStream(check, respond(200, body), 'm', { expectText: true });
    expect(check.records.filter((r) => r.status === 'fail')).toEqual([]);
    expect(statusOf(check.records, 'STREAM-002')).toBe('pass');
  });

  test('an event named other than message hides its data: STREAM-002 fails', () => {
    const { check, respond } = scratch();
    judgeStream(check, respond(200, sse(whole, (p) => `event: delta\ndata: ${p}\n\n`)), 'm');
    expect(statusOf(check.records, 'STREAM-002')).toBe('fail');
  });

  test('a usage chunk without choices is a warning for clients (CHAT-001), never a failed MUST', () => {
    const { check, respond } = scratch();
    const usage = { id: 'c1', object: 'chat.completion.chunk', created: NOW(), model: 'm', usage: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 } };
    judgeStream(check, respond(200, sse([...whole.slice(0, 3), usage, '[DONE]'])), 'm', { includeUsage: true });
    expect(check.records.filter((r) => r.status === 'fail')).toEqual([]);
    expect(check.records.some((r) => r.id === 'CHAT-001' && r.status === 'warn' && /choices/.test(r.message ?? ''))).toBe(true);
  });

  test('a field null in every chunk is one failure under RESP-001, and the rest of the stream is still judged', () => {
    const { check, respond } = scratch();
    const nullFinish = (delta: Json) => ({ ...chunk(delta), choices: [{ index: 0, delta, finish_reason: null }] });
    const body = sse([nullFinish({ role: 'assistant', content: 'Hi' }), nullFinish({ content: ' there' }), chunk({}, 'stop'), '[DONE]']);
    judgeStream(check, respond(200, body), 'm', { expectText: true });
    const fails = check.records.filter((r) => r.status === 'fail');
    expect([...new Set(fails.map((r) => r.id))]).toEqual(['RESP-001']);
    const nulls = fails.find((r) => r.id === 'RESP-001')!;
    expect(nulls.message, 'both chunks are named in the one failure').toMatch(/chunk 0[\s\S]*chunk 1/);
    for (const id of ['STREAM-004', 'STREAM-012', 'CHAT-009', 'RESP-011']) expect(statusOf(check.records, id), id).toBe('pass');
  });

  test('a stream that ends on an error event leaves the assembled completion unjudged, with that cause', () => {
    const { check, respond } = scratch();
    judgeStream(check, respond(200, sse([chunk({ role: 'assistant', content: 'Hi' }), { error: { message: 'boom', type: 'server_error' } }])), 'm');
    expect(check.records.filter((r) => r.status === 'fail')).toEqual([]);
    expect(check.records.some((r) => r.id === 'RESP-002' && r.status === 'skip' && /error event/.test(r.cause?.message ?? ''))).toBe(true);
  });
});

test.describe('meanings', () => {
  const cited = (text: string, start: number, end: number) => completion({ content: text, annotations: [{ type: 'url_citation', url_citation: { url: 'https://example.org', start_index: start, end_index: end } }] });

  test('citation offsets pass in whichever unit fits the text (UTF-16, code points, bytes), fail when none does', () => {
    const text = 'Le Louvre 🙂 est à Paris.'; // 24 code points, 25 UTF-16 units, 28 UTF-8 bytes
    for (const [end, expected] of [[24, 'pass'], [25, 'pass'], [28, 'pass'], [29, 'fail']] as const) {
      const { check, respond } = scratch();
      judgeCompletion(check, respond(200, cited(text, 0, end)), 'm');
      expect(statusOf(check.records, 'SEARCH-027'), `end_index ${end}`).toBe(expected);
    }
  });

  test('tool-call arguments cut by the token cap are not judged malformed', () => {
    const { check, respond } = scratch();
    const body = completion({ content: '', tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'f', arguments: '{"city": "Par' } }] });
    (body.choices as Json[])[0]!.finish_reason = 'length';
    judgeCompletion(check, respond(200, body), 'm');
    // Not a case of RESP-020: skipped with that reason, never failed (nor passed).
    expect(statusOf(check.records, 'RESP-020')).toBe('skip');
    expect(check.records.find((r) => r.id === 'RESP-020')!.message).toContain('token cap');
    (body.choices as Json[])[0]!.finish_reason = 'tool_calls';
    const again = scratch();
    judgeCompletion(again.check, again.respond(200, body), 'm');
    expect(statusOf(again.check.records, 'RESP-020')).toBe('fail');
  });

  test('a rule stated twice is recorded under its primary ID', () => {
    const exchanges: Exchange[] = [];
    const target = { exchanges, scrub: (s: string) => s } as unknown as Target;
    const check = new Checker(target, { declared: () => ['CHAT-008'] });
    check.that('CHAT-008', false, 'cap ignored', null);
    expect(check.records.map((r) => `${r.id} ${r.status}`)).toEqual(['REQ-011 fail']);
  });
});

test('the Checker leaves skipping and remarks to its runner: onSkip and onNote, scrubbed; without them a skip throws Skipped and a note is dropped', () => {
  const log = { exchanges: [], scrub: (s: string) => s.replaceAll('sk-secret', '***') };
  const notes: string[] = [];
  const driven = new Checker(log, {
    declared: () => ['CAT-001'],
    onSkip: (reason) => {
      throw new Error(`runner skipped: ${reason}`);
    },
    onNote: (m) => notes.push(m),
  });
  driven.note('the variant was not exercised (key sk-secret)');
  expect(notes).toEqual(['the variant was not exercised (key ***)']);
  expect(() => driven.skip('no model')).toThrow('runner skipped: no model');
  const plain = new Checker(log, { declared: () => ['CAT-001'] });
  plain.note('nobody hears this');
  expect(() => plain.skip('no model')).toThrow(Skipped);
  expect(plain.records).toEqual([{ id: 'CAT-001', status: 'skip', message: 'no model' }]);
});

test.describe('created: a Unix timestamp is seconds; a time far from now is only a SHOULD', () => {
  const judgeCreated = (created: unknown) => {
    const { check, respond } = scratch();
    judgeCompletion(check, respond(200, { ...completion({ content: 'Hi.' }), created }), 'm');
    return { must: statusOf(check.records, 'RESP-005'), should: statusOf(check.records, 'RESP-030'), schema: statusOf(check.records, 'RESP-004') };
  };

  test('milliseconds and a negative count fail RESP-005; a string is the schema\'s RESP-004 alone', () => {
    expect(judgeCreated(Date.now())).toEqual({ must: 'fail', should: 'none', schema: 'pass' });
    expect(judgeCreated(-5)).toEqual({ must: 'fail', should: 'none', schema: 'pass' });
    expect(judgeCreated(String(NOW())).schema).toBe('fail');
    expect(judgeCreated(String(NOW())).must).not.toBe('fail');
  });

  test('1700000000 (seconds, years ago) passes RESP-005 and warns under RESP-030; a few minutes off passes both', () => {
    expect(judgeCreated(1_700_000_000)).toEqual({ must: 'pass', should: 'warn', schema: 'pass' });
    expect(judgeCreated(NOW() - 600)).toEqual({ must: 'pass', should: 'pass', schema: 'pass' });
  });
});

test.describe('an oversized upload refused by a closed connection is no answer (LIMIT-007, a SHOULD)', () => {
  /** An upload that got no HTTP response: the connection closed under it. */
  const closedUpload = (respond: ReturnType<typeof scratch>['respond']) => {
    const res = respond(0, '');
    Object.assign(res.exchange, { error: 'read ECONNRESET', errorKind: 'reset' });
    return res;
  };

  test('both uploads closed: LIMIT-001 and LIMIT-002 hold, LIMIT-007 warns; a status on either passes it', () => {
    const { check, respond } = scratch(['LIMIT-002', 'LIMIT-007']);
    const valid = closedUpload(respond);
    const notJson = closedUpload(respond);
    judgeRefusedBeforeParsing(check, valid, notJson, 11_000_000);
    judgeRefusalAnswered(check, valid, notJson, 11_000_000);
    expect(statusOf(check.records, 'LIMIT-002')).toBe('pass');
    expect(statusOf(check.records, 'LIMIT-007')).toBe('warn');
    expect(check.records.find((r) => r.id === 'LIMIT-007')?.exchange).toBe(0);

    const answered = scratch(['LIMIT-007']);
    const refusal = { error: { type: 'invalid_request_error', code: 'request_too_large', message: 'too large' } };
    judgeRefusalAnswered(answered.check, answered.respond(413, refusal), closedUpload(answered.respond), 11_000_000);
    expect(statusOf(answered.check.records, 'LIMIT-007')).toBe('pass');
  });

  test('a refusal beside a close is the connection\'s race: LIMIT-002 is not judged on it, never failed; two statuses that differ fail it', () => {
    const refusal = { error: { type: 'invalid_request_error', code: 'request_too_large', message: 'too large' } };
    const race = scratch(['LIMIT-002']);
    judgeRefusedBeforeParsing(race.check, race.respond(413, refusal), closedUpload(race.respond), 11_000_000);
    expect(race.check.records.map((r) => [r.id, r.status])).toEqual([['LIMIT-002', 'skip']]);
    expect(race.check.records[0]!.message).toMatch(/the connection's race/);
    const parsed = scratch(['LIMIT-002']);
    judgeRefusedBeforeParsing(parsed.check, parsed.respond(413, refusal), parsed.respond(400, { error: { type: 'invalid_request_error', code: 'invalid_json', message: 'bad' } }), 11_000_000);
    expect(statusOf(parsed.check.records, 'LIMIT-002')).toBe('fail');
  });
});

// Verdicts a certifier can publish: a rule tied to a condition (a search ran) is judged only where it held, else
// skipped with that reason; a rule the contract states in a field's definition is judged at its level under its own
// ID; meanings tied together by the contract are compared; and nothing after [DONE] is part of a stream.
// Hand-made exchanges, judged by the same functions a run uses (judge/judge-response.ts), through a real Checker.
import { expect, test } from '@playwright/test';
import { judgeCompletion, judgeStream } from '../../judge/judge-response.ts';
import { Checker, type CheckRecord } from '../../judge/checker.ts';
import { TargetResponse, type Exchange, type Target } from '../../run/target.ts';
import { NO_ACTION_URL, NO_SEARCH_RAN, judgeActionUrls, judgeProvenancePlacement, judgeStreamProvenance, searchReport } from '../../judge/search.ts';

import { completion, NOW, scratch, statusOf, type Json } from '../support/check-scratch.ts';
import { aggregate, type TestOutcome } from '../../report/results.ts';
import { check as defineCheck, notApplicable } from '../../judge/checks/check.ts';
import { COMPLETION_CHECKS } from '../../judge/checks/completion.ts';
import { STREAM_CHECKS } from '../../judge/checks/stream.ts';
import { MODEL_LIST_CHECKS } from '../../judge/checks/catalog.ts';
const sse = (payloads: (Json | string)[]) => payloads.map((p) => `data: ${typeof p === 'string' ? p : JSON.stringify(p)}\n\n`).join('');
const chunk = (delta: Json, finish?: string, extra: Json = {}): Json => ({ id: 'c1', object: 'chat.completion.chunk', created: NOW(), model: 'm', choices: [{ index: 0, delta, ...(finish ? { finish_reason: finish } : {}) }], ...extra });
const call = (id: string) => ({ id, type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } });

test.describe('RESP-015: an empty tool-call id fails, streamed or not', () => {
  test('non-streamed', () => {
    const { check, respond } = scratch();
    judgeCompletion(check, respond(200, completion({ content: null, tool_calls: [call('')] })), 'm');
    expect(statusOf(check.records, 'RESP-015')).toBe('fail');
  });
  test('streamed', () => {
    const { check, respond } = scratch();
    const body = sse([chunk({ role: 'assistant', tool_calls: [{ index: 0, ...call('') }] }), chunk({}, 'tool_calls'), '[DONE]']);
    judgeStream(check, respond(200, body), 'm');
    expect(statusOf(check.records, 'RESP-015')).toBe('fail');
  });
});

test('RESP-021: a prompt written to the cache whole (prompt_tokens 0 beside cache_write_tokens) was read; 0 with nothing written fails', () => {
  const written = scratch();
  judgeCompletion(written.check, written.respond(200, completion({ content: 'Hi' }, { usage: { prompt_tokens: 0, completion_tokens: 1, total_tokens: 1, prompt_tokens_details: { cache_write_tokens: 12 } } })), 'm');
  expect(statusOf(written.check.records, 'RESP-021')).toBe('pass');
  const none = scratch();
  judgeCompletion(none.check, none.respond(200, completion({ content: 'Hi' }, { usage: { prompt_tokens: 0, completion_tokens: 1, total_tokens: 1 } })), 'm');
  expect(statusOf(none.check.records, 'RESP-021')).toBe('fail');
});

test.describe('after [DONE] nothing is read as part of the stream', () => {
  test('a usage chunk sent after [DONE] is no usage block: STREAM-016 fails (and STREAM-004 for the event after the sentinel)', () => {
    const { check, respond } = scratch();
    const usage = { id: 'c1', object: 'chat.completion.chunk', created: NOW(), model: 'm', choices: [], usage: { prompt_tokens: 5, completion_tokens: 1, total_tokens: 6 } };
    judgeStream(check, respond(200, sse([chunk({ role: 'assistant', content: 'Hi' }), chunk({}, 'stop'), '[DONE]', usage])), 'm', { includeUsage: true });
    expect(statusOf(check.records, 'STREAM-016')).toBe('fail');
    expect(statusOf(check.records, 'STREAM-004')).toBe('fail');
  });
});

test.describe('rules of a field\'s definition, judged at the contract\'s level', () => {
  test('chunks that carry different ids fail RESP-002: a stream is one completion with one id', () => {
    const { check, respond } = scratch();
    judgeStream(check, respond(200, sse([chunk({ role: 'assistant', content: 'Hi' }), chunk({}, 'stop', { id: 'c2' }), '[DONE]'])), 'm');
    expect(statusOf(check.records, 'RESP-002')).toBe('fail');
    expect(statusOf(check.records, 'CHAT-001')).not.toBe('warn');
  });

  test('a chunk whose created is in milliseconds fails RESP-005 (a MUST), even when the first chunk is right', () => {
    const { check, respond } = scratch();
    judgeStream(check, respond(200, sse([chunk({ role: 'assistant', content: 'Hi' }), chunk({}, 'stop', { created: Date.now() }), '[DONE]'])), 'm');
    const records = check.records.filter((r) => r.id === 'RESP-005');
    expect(records.map((r) => r.status)).toContain('fail');
  });

  test('created in milliseconds in an answer fails RESP-005, not a warning', () => {
    const { check, respond } = scratch();
    judgeCompletion(check, respond(200, completion({ content: 'Hi' }, { created: Date.now() })), 'm');
    expect(statusOf(check.records, 'RESP-005')).toBe('fail');
  });
});

test.describe('service_web_search_calls against the actions the answer reports', () => {
  test('a count of completed searches with no action listed fails SEARCH-038', () => {
    const { check, respond } = scratch();
    judgeCompletion(check, respond(200, completion({ content: 'Paris.' }, { usage: { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8, service_web_search_calls: 2 } })), 'm');
    expect(statusOf(check.records, 'SEARCH-038')).toBe('fail');
  });

  test('no count and no action: SEARCH-038 is not judged, and says so (its case, a completed search, never came)', () => {
    const { check, respond } = scratch();
    judgeCompletion(check, respond(200, completion({ content: 'Paris.' })), 'm');
    expect(statusOf(check.records, 'SEARCH-038')).toBe('skip');
    expect(check.records.filter((r) => r.id === 'SEARCH-038')).toContainEqual(expect.objectContaining({ notApplicable: true, message: expect.stringContaining('a search completed') }));
  });
});

test.describe('no pass without a search', () => {
  const report = (body: Json) => searchReport(body);
  test('an answer that shows no search leaves SEARCH-041 and SEARCH-042 skipped with the reason, never passed', () => {
    const { check, respond } = scratch(['SEARCH-041', 'SEARCH-042']);
    const res = respond(200, completion({ content: 'The Louvre is in Paris.' }));
    judgeProvenancePlacement(check, report(res.json() as Json), 'web_search_options', res);
    for (const id of ['SEARCH-041', 'SEARCH-042']) {
      expect(statusOf(check.records, id), id).toBe('skip');
      expect(check.records.find((r) => r.id === id)?.message).toContain(NO_SEARCH_RAN);
    }
  });

  test('an answer that searched is judged: provenance in its place passes', () => {
    const { check, respond } = scratch(['SEARCH-041', 'SEARCH-042']);
    const message = { content: 'Paris.', annotations: [{ type: 'url_citation', url_citation: { url: 'https://example.com/', start_index: 0, end_index: 5 } }], service_web_search: [{ type: 'search', query: 'louvre' }] };
    const res = respond(200, completion(message, { usage: { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8, service_web_search_calls: 1 } }));
    judgeProvenancePlacement(check, report(res.json() as Json), 'web_search_options', res);
    for (const id of ['SEARCH-041', 'SEARCH-042']) expect(statusOf(check.records, id), id).toBe('pass');
  });

  test('action urls (SEARCH-034): skipped with the reason when no action carries one, passed on a string url, failed on another type', () => {
    const none = scratch(['SEARCH-034']);
    const a = none.respond(200, completion({ content: 'Paris.', service_web_search: [{ type: 'search', query: 'louvre' }] }));
    judgeActionUrls(none.check, a.json() as Json, 'answer', a);
    expect(statusOf(none.check.records, 'SEARCH-034')).toBe('skip');
    expect(none.check.records[0]).toMatchObject({ notApplicable: true, message: expect.stringContaining(NO_ACTION_URL) });
    const good = scratch(['SEARCH-034']);
    const b = good.respond(200, completion({ content: 'Paris.', service_web_search: [{ type: 'open_page', url: 'https://example.com/' }] }));
    judgeActionUrls(good.check, b.json() as Json, 'answer', b);
    expect(statusOf(good.check.records, 'SEARCH-034')).toBe('pass');
    const bad = scratch(['SEARCH-034']);
    const c = bad.respond(200, completion({ content: 'Paris.', service_web_search: [{ type: 'open_page', url: 42 }] }));
    judgeActionUrls(bad.check, c.json() as Json, 'answer', c);
    expect(statusOf(bad.check.records, 'SEARCH-034')).toBe('fail');
  });

  test('a stream that shows no search leaves STREAM-015 skipped; one that counts searches without provenance in a delta fails it', () => {
    const plain = scratch(['STREAM-015']);
    const a = plain.respond(200, sse([chunk({ role: 'assistant', content: 'Paris.' }), chunk({}, 'stop'), '[DONE]']));
    judgeStreamProvenance(plain.check, a.stream(), a);
    expect(statusOf(plain.check.records, 'STREAM-015')).toBe('skip');

    const counted = scratch(['STREAM-015']);
    const usage = { id: 'c1', object: 'chat.completion.chunk', created: NOW(), model: 'm', choices: [], usage: { prompt_tokens: 5, completion_tokens: 1, total_tokens: 6, service_web_search_calls: 2 } };
    const b = counted.respond(200, sse([chunk({ role: 'assistant', content: 'Paris.' }), chunk({}, 'stop'), usage, '[DONE]']));
    judgeStreamProvenance(counted.check, b.stream(), b);
    expect(statusOf(counted.check.records, 'STREAM-015')).toBe('fail');
  });
});

// Issue 29, item 5: a check states the condition under which it judges; where it did not hold, the Checker records
// that (a `skip` marked notApplicable, with the reason), and the report folds it: `skip` with that reason when
// nothing judged the requirement, never `pass`; the verdict of a requirement judged elsewhere is untouched.
test.describe('no pass without a case', () => {
  const outcome = (records: CheckRecord[], exchanges: Exchange[] = []): TestOutcome => ({ title: 't', file: 'suites/x.spec.ts', line: 1, status: 'judged', declared: [], evidence: { checks: records, exchanges }, durationMs: 1 });
  const folded = (outcomes: TestOutcome[], id: string) => aggregate(outcomes).find((r) => r.id === id)!;
  const withCalls = (ids: string[]) => completion({ content: null, tool_calls: ids.map((id) => ({ id, type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } })) }, { choices: [{ index: 0, message: { role: 'assistant', content: null, tool_calls: ids.map((id) => ({ id, type: 'function', function: { name: 'get_weather', arguments: '{}' } })) }, finish_reason: 'tool_calls' }] });

  test('a tool-call rule: skip with the reason when no call came back, pass on distinct ids, a failure (MUST: a tool result answers one call) on repeated ones', () => {
    const none = scratch();
    judgeCompletion(none.check, none.respond(200, completion({ content: 'Sunny.' })), 'm');
    const skipped = none.check.records.filter((r) => r.id === 'RESP-016');
    expect(skipped).toContainEqual(expect.objectContaining({ status: 'skip', notApplicable: true, message: expect.stringContaining('a tool call came back'), exchange: 0 }));

    const distinct = scratch();
    judgeCompletion(distinct.check, distinct.respond(200, withCalls(['call_1', 'call_2'])), 'm');
    expect(statusOf(distinct.check.records, 'RESP-016')).toBe('pass');

    const repeated = scratch();
    judgeCompletion(repeated.check, repeated.respond(200, withCalls(['call_1', 'call_1'])), 'm');
    expect(statusOf(repeated.check.records, 'RESP-016')).toBe('fail');
  });

  test('a target that never searches gets no pass on any search-result requirement: each ends skip with its reason', () => {
    const { check, respond } = scratch();
    for (let i = 0; i < 3; i++) judgeCompletion(check, respond(200, completion({ content: 'The Louvre is in Paris.' })), 'm');
    const r = respond(200, sse([chunk({ role: 'assistant', content: 'Paris.' }), chunk({}, 'stop'), '[DONE]']));
    judgeStream(check, r, 'm');
    const results = aggregate([outcome(check.records)]);
    const search = results.filter((x) => /^SEARCH-/.test(x.id) && (x.tests.length > 0 || x.records.skip > 0));
    expect(search.map((x) => x.id)).toEqual(expect.arrayContaining(['SEARCH-027', 'SEARCH-029', 'SEARCH-038', 'SEARCH-039']));
    for (const x of search) {
      expect(x.status, x.id).toBe('skip');
      expect(x.reason, x.id).toMatch(/^no case: judged only when /);
    }
  });

  test('include_usage: STREAM-016 is skipped when the request did not ask for usage, passed when it did and got it', () => {
    const body = (usage: boolean) => sse([chunk({ role: 'assistant', content: 'Hi' }), chunk({}, 'stop'), ...(usage ? [{ id: 'c1', object: 'chat.completion.chunk', created: NOW(), model: 'm', choices: [], usage: { prompt_tokens: 5, completion_tokens: 1, total_tokens: 6 } }] : []), '[DONE]']);
    const plain = scratch();
    judgeStream(plain.check, plain.respond(200, body(false)), 'm');
    expect(statusOf(plain.check.records, 'STREAM-016')).toBe('skip');
    expect(plain.check.records.find((r) => r.id === 'STREAM-016')!.message).toContain('include_usage');
    const asked = scratch();
    judgeStream(asked.check, asked.respond(200, body(true)), 'm', { includeUsage: true });
    expect(statusOf(asked.check.records, 'STREAM-016')).toBe('pass');
  });

  test('folding: skip with the reason when nothing judged it; a judgement elsewhere keeps its verdict and counts no phantom case; untested when no test reached it', () => {
    const na: CheckRecord = { id: 'RESP-015', status: 'skip', message: 'no case: judged only when a tool call came back, and that never happened here', cause: { message: 'no case: judged only when a tool call came back, and that never happened here' }, notApplicable: true };
    const alone = folded([outcome([na])], 'RESP-015');
    expect(alone.status).toBe('skip');
    expect(alone.skipReasons).toEqual([na.message]);

    const judged = folded([outcome([na]), outcome([{ id: 'RESP-015', status: 'pass' }])], 'RESP-015');
    expect(judged.status).toBe('pass');
    expect(judged.cases).toEqual({ judged: 1, unjudged: 0 });
    expect(judged.reason).toBeUndefined();
    expect(folded([outcome([{ id: 'RESP-015', status: 'fail', message: 'an empty id' }, na])], 'RESP-015').status).toBe('fail');

    expect(folded([outcome([na])], 'RESP-017').status).toBe('untested');
  });

  test('every registered check with a condition states it, and says it when its case does not come', () => {
    const conditioned = [...COMPLETION_CHECKS, ...STREAM_CHECKS, ...MODEL_LIST_CHECKS].filter((c) => c.when !== undefined).map((c) => c.id);
    expect(new Set(conditioned)).toEqual(new Set(['RESP-015', 'RESP-016', 'RESP-017', 'RESP-018', 'RESP-020', 'RESP-021', 'RESP-031', 'SEARCH-053', 'RESP-022', 'RESP-023', 'RESP-025', 'SEARCH-027', 'SEARCH-029', 'SEARCH-038', 'SEARCH-039', 'CHAT-001', 'STREAM-016', 'CAT-002', 'CAT-030', 'CAT-023', 'CAT-024', 'CAT-008', 'CAT-012', 'CAT-013', 'CAT-014', 'CAT-015']));
    const { check } = scratch();
    check.apply([defineCheck('RESP-016', function neverACase() {
      return notApplicable();
    }, { when: 'a tool call came back' })], {}, null);
    // Recorded once per requirement and reason in a test, however many answers lacked the case.
    check.apply([defineCheck('RESP-016', function neverACase() {
      return notApplicable();
    }, { when: 'a tool call came back' })], {}, null);
    expect(check.records).toEqual([expect.objectContaining({ id: 'RESP-016', status: 'skip', notApplicable: true, message: 'no case: judged only when a tool call came back, and that never happened here' })]);
  });

  test('an empty catalog gives the entry rules no case: skipped with the reason, never passed', () => {
    const { check, respond } = scratch();
    const res = respond(200, { object: 'list', data: [] });
    check.apply(MODEL_LIST_CHECKS, { res, body: res.json(), entries: [] }, res);
    for (const id of ['CAT-002', 'CAT-030', 'CAT-008', 'CAT-012']) expect(statusOf(check.records, id), id).toBe('skip');
    expect(statusOf(check.records, 'CAT-032')).toBe('pass');
  });
});

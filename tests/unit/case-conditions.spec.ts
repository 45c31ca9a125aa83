// Verdicts a certifier can publish: a rule tied to a condition (a search ran) is judged only where it held, else
// skipped with that reason; a rule the contract states in a field's definition is judged at its level under its own
// ID; meanings tied together by the contract are compared; and nothing after [DONE] is part of a stream.
// Hand-made exchanges, judged by the same functions a run uses (judge/judge-response.ts), through a real Checker.
import { expect, test } from '@playwright/test';
import { judgeCompletion, judgeStream } from '../../judge/judge-response.ts';
import { Checker, type CheckRecord } from '../../judge/checker.ts';
import { TargetResponse, type Exchange, type Target } from '../../run/target.ts';
import { NO_SEARCH_RAN, checkProvenancePlacement, checkStreamProvenance, searchReport } from '../../suites/lib/requests/search.ts';

import { completion, NOW, scratch, statusOf, type Json } from '../support/check-scratch.ts';
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

  test('no count and no action: SEARCH-038 is not judged', () => {
    const { check, respond } = scratch();
    judgeCompletion(check, respond(200, completion({ content: 'Paris.' })), 'm');
    expect(statusOf(check.records, 'SEARCH-038')).toBe('none');
  });
});

test.describe('no pass without a search', () => {
  const report = (body: Json) => searchReport(body);
  test('an answer that shows no search leaves SEARCH-041 and SEARCH-042 skipped with the reason, never passed', () => {
    const { check, respond } = scratch(['SEARCH-041', 'SEARCH-042']);
    const res = respond(200, completion({ content: 'The Louvre is in Paris.' }));
    checkProvenancePlacement(check, report(res.json() as Json), 'web_search_options', res);
    for (const id of ['SEARCH-041', 'SEARCH-042']) {
      expect(statusOf(check.records, id), id).toBe('skip');
      expect(check.records.find((r) => r.id === id)?.message).toContain(NO_SEARCH_RAN);
    }
  });

  test('an answer that searched is judged: provenance in its place passes', () => {
    const { check, respond } = scratch(['SEARCH-041', 'SEARCH-042']);
    const message = { content: 'Paris.', annotations: [{ type: 'url_citation', url_citation: { url: 'https://example.com/', start_index: 0, end_index: 5 } }], service_web_search: [{ type: 'search', query: 'louvre' }] };
    const res = respond(200, completion(message, { usage: { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8, service_web_search_calls: 1 } }));
    checkProvenancePlacement(check, report(res.json() as Json), 'web_search_options', res);
    for (const id of ['SEARCH-041', 'SEARCH-042']) expect(statusOf(check.records, id), id).toBe('pass');
  });

  test('a stream that shows no search leaves STREAM-015 skipped; one that counts searches without provenance in a delta fails it', () => {
    const plain = scratch(['STREAM-015']);
    const a = plain.respond(200, sse([chunk({ role: 'assistant', content: 'Paris.' }), chunk({}, 'stop'), '[DONE]']));
    checkStreamProvenance(plain.check, a.stream(), a);
    expect(statusOf(plain.check.records, 'STREAM-015')).toBe('skip');

    const counted = scratch(['STREAM-015']);
    const usage = { id: 'c1', object: 'chat.completion.chunk', created: NOW(), model: 'm', choices: [], usage: { prompt_tokens: 5, completion_tokens: 1, total_tokens: 6, service_web_search_calls: 2 } };
    const b = counted.respond(200, sse([chunk({ role: 'assistant', content: 'Paris.' }), chunk({}, 'stop'), usage, '[DONE]']));
    checkStreamProvenance(counted.check, b.stream(), b);
    expect(statusOf(counted.check.records, 'STREAM-015')).toBe('fail');
  });
});

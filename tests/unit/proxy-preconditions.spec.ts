// The proxy judges an exchange by every judgement whose precondition it meets (judge/answers.ts ANSWER_RULES, the
// refusals a request is owed, the body limit), each precondition holding only where the contract's rule applies.
import { expect, test } from '@playwright/test';
import { judgeExchange, type JudgeContext } from '../../proxy/judge-exchange.ts';
import type { CapturedExchange } from '../../proxy/forward.ts';
import type { CheckRecord } from '../../judge/checker.ts';

const KEY = 'Bearer sk-test-preconditions';

function exchange(request: unknown, status: number, response: unknown, extra: Partial<CapturedExchange> = {}): CapturedExchange {
  const requestBody = Buffer.from(typeof request === 'string' ? request : JSON.stringify(request));
  const sse = typeof response === 'string';
  const responseBody = Buffer.from(sse ? response : JSON.stringify(response));
  return {
    seq: 1,
    method: 'POST',
    path: '/v1/chat/completions',
    requestHeaders: { 'content-type': 'application/json', authorization: KEY },
    requestBody,
    requestBytes: requestBody.length,
    status,
    responseHeaders: { 'content-type': sse ? 'text/event-stream' : 'application/json' },
    responseBody,
    responseBytes: responseBody.length,
    complete: true,
    startedAt: 0,
    durationMs: 1,
    ...extra,
  };
}

const ctx = (entries: Record<string, Record<string, unknown>> = {}): JudgeContext => ({
  upstream: 'http://127.0.0.1:9',
  scrub: (t) => t.replaceAll('sk-test-preconditions', '***'),
  secrets: ['sk-test-preconditions'],
  entryOf: (id) => entries[id],
  captureLimit: 10_000_000,
});

function judge(x: CapturedExchange, c: JudgeContext = ctx()): CheckRecord[] {
  return judgeExchange(x, x.responseBody, c).records;
}

/** The server's verdicts, `ID status` once each. */
const server = (records: readonly CheckRecord[]) => [...new Set(records.filter((r) => r.party === 'server').map((r) => `${r.id} ${r.status}`))];

const completion = (model: string, completionTokens?: number, message: Record<string, unknown> = { role: 'assistant', content: 'one two three' }, finish = 'length') => ({
  id: 'chatcmpl-1',
  object: 'chat.completion',
  created: Math.floor(Date.now() / 1000),
  model,
  choices: [{ index: 0, message, finish_reason: finish }],
  ...(completionTokens !== undefined ? { usage: { prompt_tokens: 5, completion_tokens: completionTokens, total_tokens: 5 + completionTokens } } : {}),
});

const ask = (extra: Record<string, unknown>) => ({ model: 'acme/chat-small', messages: [{ role: 'user', content: 'Count to 200.' }], ...extra });

test('both caps sent: REQ-011 (with CHAT-008, its restatement) is judged on usage.completion_tokens; an answer that kept max_tokens fails it', () => {
  // The repro: max_tokens 40, max_completion_tokens 5, completion_tokens 40: the proxy once said REQ-011 untested.
  const records = judge(exchange(ask({ max_tokens: 40, max_completion_tokens: 5 }), 200, completion('acme/chat-small', 40)));
  expect(server(records)).toContain('REQ-011 fail');
  expect(server(records)).not.toContain('REQ-008 pass');
  expect(records.find((r) => r.id === 'REQ-011' && r.party === 'server')!.message).toMatch(/usage\.completion_tokens is 40, above the cap in force 5/);
  // Kept: stopped by max_completion_tokens, where max_tokens would have let it run on.
  expect(server(judge(exchange(ask({ max_tokens: 40, max_completion_tokens: 5 }), 200, completion('acme/chat-small', 5))))).toContain('REQ-011 pass');
});

test('one cap alone: max_tokens judges REQ-008, max_completion_tokens REQ-010; an answer without usage judges no cap (too strict is a defect too)', () => {
  expect(server(judge(exchange(ask({ max_tokens: 5 }), 200, completion('acme/chat-small', 9))))).toContain('REQ-008 fail');
  expect(server(judge(exchange(ask({ max_completion_tokens: 5 }), 200, completion('acme/chat-small', 9))))).toContain('REQ-010 fail');
  const noUsage = server(judge(exchange(ask({ max_completion_tokens: 5 }), 200, completion('acme/chat-small'))));
  expect(noUsage.filter((r) => /^REQ-01[01] |^REQ-008 /.test(r))).toEqual([]);
  // An answer that ended before the cap shows nothing about it: no case, never a pass.
  expect(server(judge(exchange(ask({ max_completion_tokens: 50 }), 200, completion('acme/chat-small', 3, undefined, 'stop'))))).toContain('REQ-010 skip');
});

test('a model named: the answer names it (CHAT-010); include_usage true in a stream asks for a usage block (STREAM-016)', () => {
  expect(server(judge(exchange(ask({}), 200, completion('acme/chat-large', 3))))).toContain('CHAT-010 fail');
  expect(server(judge(exchange(ask({}), 200, completion('acme/chat-small', 3))))).toContain('CHAT-010 pass');
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) => `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model: 'acme/chat-small', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  const stream = `${chunk({ role: 'assistant', content: 'hi' })}${chunk({}, 'stop')}data: [DONE]\n\n`;
  expect(server(judge(exchange(ask({ stream: true, stream_options: { include_usage: true } }), 200, stream)))).toContain('STREAM-016 fail');
  expect(server(judge(exchange(ask({ stream: true }), 200, stream)))).not.toContain('STREAM-016 fail');
});

test('tools declared: a returned call names one of them (TOOL-006); a tools-less request carrying tool calls is owed a refusal (TOOL-012)', () => {
  const call = { id: 'call_1', type: 'function', function: { name: 'get_time', arguments: '{}' } };
  const tools = [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } }];
  expect(server(judge(exchange(ask({ tools }), 200, completion('acme/chat-small', 3, { role: 'assistant', content: null, tool_calls: [call] }, 'tool_calls'))))).toContain('TOOL-006 fail');
  const withCalls = { model: 'acme/chat-small', messages: [{ role: 'user', content: 'x' }, { role: 'assistant', content: 'y', tool_calls: [call] }, { role: 'tool', tool_call_id: 'call_1', content: '{}' }] };
  const records = judge(exchange(withCalls, 200, completion('acme/chat-small', 3)));
  expect(records.filter((r) => r.party === 'client').map((r) => `${r.id} ${r.status}`)).toContain('TOOL-012 fail');
  expect(server(records)).toContain('TOOL-012 fail');
});

test('search asked for: provenance out of its place fails SEARCH-041; an image part to an entry with supports_images false is owed a refusal (IMG-006)', () => {
  const misplaced = { ...completion('acme/chat-small', 3), citations: [{ type: 'url_citation', url_citation: { url: 'https://example.org', title: 't', start_index: 0, end_index: 3 } }] };
  expect(server(judge(exchange(ask({ web_search_options: {} }), 200, misplaced)))).toContain('SEARCH-041 fail');
  // The same answer to a request that asked for no search: the rule does not apply.
  expect(server(judge(exchange(ask({}), 200, misplaced))).filter((r) => r.startsWith('SEARCH-041'))).toEqual([]);
  const image = { model: 'acme/chat-small', messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/png;base64,AA==' } }] }] };
  const entries = { 'acme/chat-small': { id: 'acme/chat-small', supports_images: false } };
  expect(server(judge(exchange(image, 200, completion('acme/chat-small', 3)), ctx(entries)))).toContain('IMG-006 fail');
  expect(server(judge(exchange(image, 200, completion('acme/chat-small', 3)), ctx({ 'acme/chat-small': { id: 'acme/chat-small', supports_images: true } }))).filter((r) => r.startsWith('IMG-006'))).toEqual([]);
});

test('no credential on a chat request is owed a refusal (AUTH-002); the body limit is judged from the request size (LIMIT-001, LIMIT-003)', () => {
  const noKey = exchange(ask({}), 200, completion('acme/chat-small', 3));
  delete noKey.requestHeaders.authorization;
  expect(server(judge(noKey))).toContain('AUTH-002 fail');
  expect(server(judge(exchange(ask({}), 200, completion('acme/chat-small', 3)))).filter((r) => r.startsWith('AUTH-002'))).toEqual([]);
  // Sizes only (the bodies are not what the rule reads): over 10 MiB answered 200, 2 MB refused with 413.
  const big = exchange(ask({}), 200, completion('acme/chat-small', 3), { requestBytes: 11 * 1024 * 1024 });
  expect(server(judge(big))).toContain('LIMIT-001 fail');
  const under = exchange(ask({}), 413, { error: { type: 'invalid_request_error', code: 'request_too_large', message: 'too large' } }, { requestBytes: 2_000_000 });
  expect(server(judge(under))).toContain('LIMIT-003 fail');
});

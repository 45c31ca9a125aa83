// Scripted answers (mock/harness/script.ts): which rule answers (model, last user message, tool results, turn;
// the first that matches), what it says, and that the contract still shapes it: usage counts the scripted text,
// the cap cuts it, the stream carries the same text, reasoning only where the mock returns reasoning. Script
// files, JSON and YAML, and the clear refusal of bad ones.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { countTokens } from '../../mock/engine/tokens.ts';
import { compileScript, loadScriptFile, ScriptError, type ScriptDocument } from '../../mock/harness/script.ts';
import { TEST_ID_HEADER } from '../../mock/harness/names.ts';
import { MOCK_MODELS } from '../../mock/keys-and-models.ts';
import { createMockService } from '../../mock/service.ts';
import { validate } from '../../spec/validator.ts';
import { chat, events } from '../support/harness-calls.ts';

const weatherTool = { type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } };
const timeTool = { type: 'function', function: { name: 'get_time' } };

const loop: ScriptDocument = {
  rules: [
    { name: 'weather', match: { turn: 0, user_contains: 'weather' }, answer: { tool_calls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] } },
    { name: 'time', match: { tool_result: 'get_weather', turn: 1 }, answer: { tool_calls: [{ name: 'get_time' }] } },
    { name: 'answer', match: { tool_result: 'get_time' }, answer: { content: 'Sunny in Paris at 12:00.' } },
    { name: 'small only', match: { model: MOCK_MODELS.mini, user_matches: '^ping\\b' }, answer: { content: 'pong' } },
  ],
};

test('rules match on turn, last user message (substring, regex), tool results and model; the first match answers', async () => {
  const service = createMockService({ script: loop });
  const user = { role: 'user', content: 'What is the weather?' };
  const first = await chat(service, { messages: [user], tools: [weatherTool, timeTool] });
  expect(validate('chat-response', first.json).valid).toBe(true);
  const call1 = first.json.choices[0].message.tool_calls;
  expect(call1).toEqual([{ id: expect.stringMatching(/^call_[0-9a-f]{16}$/), type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }]);
  expect(first.json.choices[0].finish_reason).toBe('tool_calls');

  const round1 = [user, { role: 'assistant', content: null, tool_calls: call1 }, { role: 'tool', tool_call_id: call1[0].id, content: '{"sky":"clear"}' }];
  const second = await chat(service, { messages: round1, tools: [weatherTool, timeTool] });
  const call2 = second.json.choices[0].message.tool_calls;
  expect(call2.map((c: { function: { name: string; arguments: string } }) => c.function)).toEqual([{ name: 'get_time', arguments: '{}' }]);
  expect(call2[0].id).not.toBe(call1[0].id);

  const round2 = [...round1, { role: 'assistant', content: null, tool_calls: call2 }, { role: 'tool', tool_call_id: call2[0].id, content: '12:00' }];
  const third = await chat(service, { messages: round2, tools: [weatherTool, timeTool] });
  expect(third.json.choices[0]).toEqual({ index: 0, message: { role: 'assistant', content: 'Sunny in Paris at 12:00.' }, finish_reason: 'stop' });

  expect((await chat(service, { model: MOCK_MODELS.mini, messages: [{ role: 'user', content: 'ping me' }] })).json.choices[0].message.content).toBe('pong');
  // No rule matches: the mock's own answer.
  expect((await chat(service, { messages: [{ role: 'user', content: 'ping me' }] })).json.choices[0].message.content).toMatch(/^Mock answer:/);
  expect(service.harness.journal.entries().map((e) => e.script_rule ?? '-')).toEqual(['weather', 'time', 'answer', 'small only', '-']);
});

test('arguments left out are generated from the declared schema, as the mock does', async () => {
  const service = createMockService({ script: { rules: [{ answer: { tool_calls: [{ name: 'get_weather' }, { name: 'undeclared', id: 'call_mine' }] } }] } });
  const r = await chat(service, { tools: [weatherTool] });
  const calls = r.json.choices[0].message.tool_calls;
  expect(JSON.parse(calls[0].function.arguments)).toEqual({ city: expect.any(String) });
  expect(calls[1]).toEqual({ id: 'call_mine', type: 'function', function: { name: 'undeclared', arguments: '{}' } });
});

test('the contract still shapes the answer: usage counts the scripted text, the cap cuts it, the stream says the same', async () => {
  const content = 'One two three four five six seven eight nine ten.';
  const service = createMockService({ script: { rules: [{ answer: { content } }] } });
  const whole = await chat(service);
  expect(whole.json.choices[0]).toMatchObject({ message: { content }, finish_reason: 'stop' });
  expect(whole.json.usage.completion_tokens).toBe(countTokens(content));
  expect(whole.json.usage.total_tokens).toBe(whole.json.usage.prompt_tokens + countTokens(content));

  const capped = await chat(service, { max_completion_tokens: 4 });
  expect(capped.json.choices[0]).toMatchObject({ message: { content: 'One two three four' }, finish_reason: 'length' });
  expect(capped.json.usage.completion_tokens).toBe(4);

  const streamed = await chat(service, { stream: true, stream_options: { include_usage: true } });
  const evs = events(streamed.pieces!) as { choices?: { delta?: { content?: string }; finish_reason?: string }[]; usage?: unknown }[];
  expect(evs.map((e) => e.choices?.[0]?.delta?.content ?? '').join('')).toBe(content);
  expect(evs.at(-1)).toBe('[DONE]');
  expect(evs.find((e) => e.usage !== undefined)?.usage).toEqual(whole.json.usage);
});

test('reasoning only where the mock returns reasoning, within its bounds; a finish reason alone keeps the mock text', async () => {
  const service = createMockService({ script: { rules: [{ match: { model: MOCK_MODELS.reasoner }, answer: { reasoning: 'First this, then that.', content: 'Done.' } }, { answer: { finish_reason: 'length' } }] } });
  const asked = await chat(service, { model: MOCK_MODELS.reasoner, reasoning: { effort: 'low' } });
  expect(asked.json.choices[0].message).toEqual({ role: 'assistant', content: 'Done.', reasoning_content: 'First this, then that.' });
  expect(asked.json.usage.completion_tokens).toBe(countTokens('First this, then that.') + 1);
  const bounded = await chat(service, { model: MOCK_MODELS.reasoner, reasoning: { effort: 'low', max_tokens: 2 } });
  expect(bounded.json.choices[0].message.reasoning_content).toBe('First this,');
  const notAsked = await chat(service, { model: MOCK_MODELS.reasoner });
  expect(notAsked.json.choices[0].message).toEqual({ role: 'assistant', content: 'Done.' });
  const other = await chat(service);
  expect(other.json.choices[0]).toMatchObject({ message: { content: expect.stringMatching(/^Mock answer:/) }, finish_reason: 'length' });
});

test("a rule's fault: a status upfront, a stream cut; the test's script wins over the server's", async () => {
  const service = createMockService({ script: { rules: [{ name: 'busy', answer: { fault: '429:retry-after=0' } }] } });
  const busy = await chat(service, { stream: true });
  expect(busy.status).toBe(429);
  expect(busy.headers['retry-after']).toBe('0');
  expect(busy.json.error.message).toBe('scenario error requested by the scripted rule busy (fault 429:retry-after=0)');
  service.harness.setScript(compileScript({ rules: [{ answer: { content: 'a b c d e f g h i j k l m n o', fault: 'fail-after=2' } }] }, 'test'), 't1');
  const cut = await chat(service, { stream: true }, { [TEST_ID_HEADER]: 't1' });
  const evs = events(cut.pieces!);
  expect(evs).toHaveLength(3);
  expect(evs.at(-1)).toMatchObject({ error: { code: 'upstream_error' } });
});

test('script files: JSON and YAML load; a bad file is refused with one message naming it and every problem', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'chatconform-script-'));
  try {
    const file = (name: string, text: string) => {
      writeFileSync(path.join(dir, name), text);
      return path.join(dir, name);
    };
    expect(loadScriptFile(file('s.json', JSON.stringify(loop))).rules.map((r) => r.name)).toEqual(['weather', 'time', 'answer', 'small only']);
    const yaml = file('s.yaml', 'rules:\n  - match: { turn: 0 }\n    answer:\n      tool_calls:\n        - name: get_weather\n          arguments: { city: Paris }\n  - answer: { content: done }\n');
    expect(loadScriptFile(yaml).document.rules[0]!.answer.tool_calls).toEqual([{ name: 'get_weather', arguments: { city: 'Paris' } }]);

    const bad: [string, string, RegExp][] = [
      ['missing.json', '', /--script .*missing\.json: no such file/],
      ['b1.json', '{"rules": [', /--script .*b1\.json: not JSON/],
      ['b2.yaml', 'rules: [\n', /--script .*b2\.yaml: not YAML/],
      ['b3.json', '{"rules": [{"match": {"turn": -1}, "answer": {"content": 3}}], "extra": 1}', /does not match spec\/schemas\/mock-script\.schema\.json: .*\/rules\/0\/match\/turn.*\/rules\/0\/answer\/content/],
      ['b4.json', '{"rules": [{"name": "x", "match": {"user_matches": "["}, "answer": {"fault": "fail-after=-1", "tool_calls": [{"name": "f"}], "finish_reason": "stop"}}]}', /rules\[0\] \(x\): match\.user_matches is not a regular expression.*; rules\[0\] \(x\): answer\.fault "fail-after=-1".*; rules\[0\] \(x\): an answer with tool_calls finishes with tool_calls/],
    ];
    for (const [name, text, message] of bad) {
      const f = text === '' ? path.join(dir, name) : file(name, text);
      expect(() => loadScriptFile(f), name).toThrow(ScriptError);
      expect(() => loadScriptFile(f), name).toThrow(message);
    }
    expect(() => createMockService({ script: { rules: [{ answer: {} }] } as unknown as ScriptDocument })).toThrow(ScriptError);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a rule's search provenance: its citations over spans of its content, its actions, its completed count; none without search", async () => {
  const content = 'Alpha says one thing and Beta says another.';
  const search = {
    citations: [{ url: 'https://a.example/1', cited: 'Alpha says one thing' }, { url: 'https://b.example/2', title: 'Beta', cited: 'Beta says another' }],
    actions: [{ type: 'search' as const, query: 'alpha' }, { type: 'open_page' as const }, { type: 'find_in_page' as const, url: 'https://a.example/1', pattern: 'one' }],
    completed: 7,
  };
  const service = createMockService({ script: { rules: [{ answer: { content, search } }] } });
  const r = await chat(service, { web_search_options: {} });
  const message = r.json.choices[0].message;
  expect(message.annotations).toEqual([
    { type: 'url_citation', url_citation: { url: 'https://a.example/1', start_index: 0, end_index: 20 } },
    { type: 'url_citation', url_citation: { url: 'https://b.example/2', title: 'Beta', start_index: 25, end_index: 42 } },
  ]);
  expect(message.service_web_search).toEqual(search.actions);
  expect(r.json.usage.service_web_search_calls).toBe(7);
  expect(validate('chat-response', r.json).valid).toBe(true);
  // The stream carries the same provenance in its last content delta.
  const streamed = events((await chat(service, { web_search_options: {}, stream: true })).pieces!) as { choices?: { delta?: Record<string, unknown> }[] }[];
  expect(streamed.find((e) => e.choices?.[0]?.delta?.service_web_search)?.choices?.[0]?.delta).toMatchObject({ annotations: message.annotations, service_web_search: search.actions });
  // A request that asked for no search gets none.
  const plain = await chat(service);
  expect(plain.json.choices[0].message).toEqual({ role: 'assistant', content });
  expect(plain.json.usage.service_web_search_calls).toBeUndefined();
  expect(() => compileScript({ rules: [{ answer: { content: 'x', search: { citations: [{ url: 'u', cited: 'y' }] } } }] }, 'test')).toThrow(/citations\[0\]\.cited is not part of answer\.content/);
});

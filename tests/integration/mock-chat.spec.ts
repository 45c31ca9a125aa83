// Issue 3, points 4, 5, 7, 8, 9: non-streamed chat (determinism, caps, usage, caching), tools, reasoning,
// images and routing, over real HTTP. Every response is validated against spec/schemas.
import { expect, test } from '@playwright/test';
import Ajv2020 from 'ajv/dist/2020.js';
import { assertValid } from '../../spec/validator.ts';
import { MOCK_KEYS, MOCK_MODELS } from '../../mock/keys-and-models.ts';
import { useMock } from './support/use-mock.ts';

const server = useMock(test);

interface Answer {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

async function chat(body: Record<string, unknown>, key: string = MOCK_KEYS.full): Promise<Answer> {
  const res = await fetch(`${server.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  const parsed = JSON.parse(text);
  assertValid(res.status === 200 ? 'chat-response' : 'error', parsed);
  expect(text).not.toContain('null');
  return { status: res.status, headers: res.headers, body: parsed, text };
}

const user = (content: unknown): Record<string, unknown> => ({ role: 'user', content });
const msg = (a: Answer): any => a.body.choices[0].message;
const withoutVolatile = (text: string): string => text.replace(/"id":"chatcmpl-[^"]+"/, '').replace(/"created":\d+/, '');

test.describe('point 4: chat', () => {
  test('deterministic: the same request gives the same bytes apart from id and created', async () => {
    const req = { model: MOCK_MODELS.small, messages: [user('Tell me about rivers')] };
    const a = await chat(req);
    const b = await chat(req);
    expect(a.status).toBe(200);
    expect(withoutVolatile(a.text)).toBe(withoutVolatile(b.text));
    const c = await chat({ ...req, messages: [user('Tell me about mountains')] });
    expect(msg(c).content).not.toBe(msg(a).content);
  });

  test('the answer carries CJK and emoji, is long enough for small caps to bite, and names the entry', async () => {
    const a = await chat({ model: MOCK_MODELS.small, messages: [user('hello')] });
    expect(a.body.model).toBe(MOCK_MODELS.small);
    expect(a.body.object).toBe('chat.completion');
    expect(msg(a).role).toBe('assistant');
    expect(msg(a).content).toMatch(/[\u4e00-\u9fff]/u);
    expect(msg(a).content).toMatch(/\p{Extended_Pictographic}/u);
    expect(a.body.usage.completion_tokens).toBeGreaterThanOrEqual(40);
    expect(a.body.choices[0].finish_reason).toBe('stop');
  });

  test('max_completion_tokens wins over max_tokens; finish_reason length when capped', async () => {
    const base = { model: MOCK_MODELS.small, messages: [user('caps')] };
    const both = await chat({ ...base, max_tokens: 30, max_completion_tokens: 5 });
    expect(both.body.usage.completion_tokens).toBe(5);
    expect(both.body.choices[0].finish_reason).toBe('length');
    const legacy = await chat({ ...base, max_tokens: 7 });
    expect(legacy.body.usage.completion_tokens).toBe(7);
    const full = await chat(base);
    expect(full.body.choices[0].finish_reason).toBe('stop');
    expect(msg(full).content.startsWith(msg(both).content)).toBe(true);
  });

  test("the entry's catalog max_tokens also caps", async () => {
    const a = await chat({ model: MOCK_MODELS.tinyReasoner, messages: [user('x')], max_completion_tokens: 100000 });
    expect(a.body.usage.completion_tokens).toBeLessThanOrEqual(512);
  });

  test('usage: total = prompt + completion; cost from the prices; omitted when prices are unpublished', async () => {
    const a = await chat({ model: MOCK_MODELS.small, messages: [user('one two three')], max_tokens: 10 });
    const u = a.body.usage;
    expect(u.total_tokens).toBe(u.prompt_tokens + u.completion_tokens);
    expect(u.prompt_tokens).toBe(4); // 3 words + 1 for the role
    expect(u.cost).toBeCloseTo((4 * 0.15 + 10 * 0.6) / 1e6, 12);
    expect(u.cost_details).toBeUndefined();
    const mini = await chat({ model: MOCK_MODELS.mini, messages: [user('x')] });
    expect(mini.body.usage.cost).toBeUndefined();
    const large = await chat({ model: MOCK_MODELS.large, messages: [user('x')], max_tokens: 3 });
    expect(large.body.usage.cost_details.upstream_inference_cost).toBe(large.body.usage.cost);
  });

  test('caching: cache_control parts write the cache on the first call and read it on a repeat', async () => {
    const big = 'This long system prompt is cached. '.repeat(20);
    // A prompt of its own (this test, this repetition), so the first call is the one that writes the cache.
    const req = {
      model: MOCK_MODELS.caching,
      max_tokens: 5,
      messages: [
        { role: 'system', content: [{ type: 'text', text: `${big} ${test.info().testId}/${test.info().repeatEachIndex}`, cache_control: { type: 'ephemeral' } }] },
        user('question'),
      ],
    };
    const first = await chat(req);
    const d1 = first.body.usage.prompt_tokens_details;
    expect(d1.cache_write_tokens).toBeGreaterThan(100);
    expect(d1.cached_tokens).toBeUndefined();
    const second = await chat(req);
    const d2 = second.body.usage.prompt_tokens_details;
    expect(d2.cached_tokens).toBe(d1.cache_write_tokens);
    expect(d2.cache_write_tokens).toBeUndefined();
    expect(second.body.usage.cost).toBeLessThan(first.body.usage.cost);
    // no cache_control, or a non-caching entry: no details at all
    const plain = await chat({ ...req, messages: [user('question')] });
    expect(plain.body.usage.prompt_tokens_details).toBeUndefined();
    const nonCaching = await chat({ ...req, model: MOCK_MODELS.small });
    expect(nonCaching.body.usage.prompt_tokens_details).toBeUndefined();
  });
});

const weatherTool = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'Weather for a city',
    parameters: {
      type: 'object',
      properties: {
        city: { type: 'string', minLength: 2 },
        unit: { type: 'string', enum: ['celsius', 'fahrenheit'] },
        days: { type: 'integer', minimum: 1, maximum: 7 },
        detailed: { type: 'boolean' },
        tags: { type: 'array', items: { type: 'string' }, minItems: 1 },
        at: { type: 'object', properties: { lat: { type: 'number' }, lon: { type: 'number' } }, required: ['lat', 'lon'] },
      },
      required: ['city', 'unit'],
      additionalProperties: false,
    },
  },
};
const timeTool = { type: 'function', function: { name: 'get_time' } };

test.describe('point 5: tools', () => {
  const ajv = new Ajv2020({ strict: false });

  test('auto: a tool call whose arguments are a JSON string satisfying the declared schema', async () => {
    const a = await chat({ model: MOCK_MODELS.small, messages: [user('weather in Paris?')], tools: [weatherTool] });
    expect(a.body.choices[0].finish_reason).toBe('tool_calls');
    const calls = msg(a).tool_calls;
    expect(calls).toHaveLength(1);
    expect(calls[0].type).toBe('function');
    expect(calls[0].function.name).toBe('get_weather');
    expect(typeof calls[0].function.arguments).toBe('string');
    const args = JSON.parse(calls[0].function.arguments);
    expect(ajv.validate(weatherTool.function.parameters, args), JSON.stringify(ajv.errors)).toBe(true);
    expect(msg(a).content).toBeUndefined();
  });

  test('parallel calls: every declared function named in the last user message, distinct ids', async () => {
    const a = await chat({ model: MOCK_MODELS.small, messages: [user('use get_weather and get_time')], tools: [weatherTool, timeTool] });
    const calls = msg(a).tool_calls;
    expect(calls.map((c: any) => c.function.name)).toEqual(['get_weather', 'get_time']);
    expect(new Set(calls.map((c: any) => c.id)).size).toBe(2);
    expect(calls[1].function.arguments).toBe('{}');
  });

  test('tool_choice none gives text; required and the object form give a call', async () => {
    const base = { model: MOCK_MODELS.small, messages: [user('hello')], tools: [weatherTool, timeTool], max_tokens: 8 };
    const none = await chat({ ...base, tool_choice: 'none' });
    expect(msg(none).tool_calls).toBeUndefined();
    expect(typeof msg(none).content).toBe('string');
    const required = await chat({ ...base, tool_choice: 'required' });
    expect(msg(required).tool_calls[0].function.name).toBe('get_weather');
    const named = await chat({ ...base, tool_choice: { type: 'function', function: { name: 'get_time' } } });
    expect(msg(named).tool_calls.map((c: any) => c.function.name)).toEqual(['get_time']);
    const unknown = await chat({ ...base, tool_choice: { type: 'function', function: { name: 'nope' } } });
    expect([unknown.status, unknown.body.error.code]).toEqual([400, 'invalid_request']);
    expect(unknown.body.error.message).toContain('nope');
  });

  test('a tool result answering the call id gets a text answer; an unknown tool_call_id is 400', async () => {
    const first = await chat({ model: MOCK_MODELS.small, messages: [user('weather?')], tools: [weatherTool] });
    const call = msg(first).tool_calls[0];
    const turn2 = [user('weather?'), { role: 'assistant', content: '', tool_calls: [call] }, { role: 'tool', tool_call_id: call.id, content: '{"temp":21}' }];
    const second = await chat({ model: MOCK_MODELS.small, messages: turn2, tools: [weatherTool], max_tokens: 10 });
    expect(second.status).toBe(200);
    expect(msg(second).tool_calls).toBeUndefined();
    expect(second.body.choices[0].finish_reason).toBe('length');
    const wrong = await chat({
      model: MOCK_MODELS.small,
      tools: [weatherTool],
      messages: [turn2[0], turn2[1], { role: 'tool', tool_call_id: 'call_other', content: 'x' }],
    });
    expect([wrong.status, wrong.body.error.code]).toEqual([400, 'unknown_tool_call_id']);
  });

  test('tool calls in a message with no tools declared: 400 tools_not_declared (a client error)', async () => {
    const a = await chat({
      model: MOCK_MODELS.small,
      messages: [user('x'), { role: 'assistant', content: '', tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'f', arguments: '{}' } }] }, { role: 'tool', tool_call_id: 'call_1', content: 'ok' }],
    });
    expect([a.status, a.body.error.code, a.body.error.type]).toEqual([400, 'tools_not_declared', 'invalid_request_error']);
  });
});

test.describe('point 7: reasoning', () => {
  test('effort is validated against the entry set: xhigh accepted by the wide entry, refused by a narrow one', async () => {
    const ok = await chat({ model: MOCK_MODELS.reasoner, messages: [user('x')], reasoning: { effort: 'xhigh' } }, MOCK_KEYS.full);
    expect(ok.status).toBe(200);
    const minimal = await chat({ model: MOCK_MODELS.reasoner, messages: [user('x')], reasoning: { effort: 'minimal' } });
    expect(minimal.status).toBe(200);
    const narrow = await chat({ model: MOCK_MODELS.tinyReasoner, messages: [user('x')], reasoning: { effort: 'xhigh' } });
    expect([narrow.status, narrow.body.error.code]).toEqual([400, 'invalid_reasoning_effort']);
    const preview = await chat({ model: MOCK_MODELS.preview, messages: [user('x')], reasoning: { effort: 'medium' } });
    expect([preview.status, preview.body.error.code]).toEqual([400, 'invalid_reasoning_effort']);
  });

  test('reasoning_content when asked for and supported; never for a non-reasoning entry', async () => {
    const asked = await chat({ model: MOCK_MODELS.reasoner, messages: [user('x')], include_reasoning: true, max_tokens: 40 });
    expect(typeof msg(asked).reasoning_content).toBe('string');
    expect(msg(asked).reasoning_content.length).toBeGreaterThan(0);
    expect(asked.body.usage.completion_tokens).toBeLessThanOrEqual(40);
    const byEffort = await chat({ model: MOCK_MODELS.reasoner, messages: [user('x')], reasoning: { effort: 'high' } });
    expect(msg(byEffort).reasoning_content).toBeDefined();
    const off = await chat({ model: MOCK_MODELS.reasoner, messages: [user('x')], reasoning: { effort: 'high' }, include_reasoning: false });
    expect(msg(off).reasoning_content).toBeUndefined();
    const plain = await chat({ model: MOCK_MODELS.reasoner, messages: [user('x')] });
    expect(msg(plain).reasoning_content).toBeUndefined();
    const unsupported = await chat({ model: MOCK_MODELS.small, messages: [user('x')], include_reasoning: true });
    expect(msg(unsupported).reasoning_content).toBeUndefined();
  });
});

test.describe('point 8: images', () => {
  const imageMessage = user([
    { type: 'text', text: 'what is this?' },
    { type: 'image_url', image_url: { url: 'https://example.com/cat.png', detail: 'low' } },
  ]);
  test('image parts are refused for supports_images false and accepted for true', async () => {
    const refused = await chat({ model: MOCK_MODELS.small, messages: [imageMessage] });
    expect([refused.status, refused.body.error.code]).toEqual([400, 'images_not_supported']);
    const accepted = await chat({ model: MOCK_MODELS.vision, messages: [imageMessage], max_tokens: 5 });
    expect(accepted.status).toBe(200);
    expect(accepted.body.usage.prompt_tokens).toBeGreaterThanOrEqual(85);
  });
});

test.describe('point 9: routing', () => {
  const base = { model: MOCK_MODELS.routes, messages: [user('route me')], max_tokens: 5 };
  test('sort picks the best-ranked route; response.model is always the entry', async () => {
    const cases: [unknown, string][] = [[undefined, 'route-a'], ['price', 'route-b'], ['latency', 'route-a'], ['throughput', 'route-c'], ['unknown-sort', 'route-a']];
    for (const [sort, route] of cases) {
      const a = await chat({ ...base, provider: sort === undefined ? {} : { sort } });
      expect(a.status).toBe(200);
      expect(a.headers.get('x-mock-route'), String(sort)).toBe(route);
      expect(a.body.model).toBe(MOCK_MODELS.routes);
    }
  });

  test('order is honoured; unavailable ranked routes are skipped', async () => {
    const a = await chat({ ...base, provider: { order: ['route-c', 'route-a'] } });
    expect(a.headers.get('x-mock-route')).toBe('route-c');
    const b = await chat({ ...base, provider: { order: ['route-down', 'route-b'] } });
    expect(b.headers.get('x-mock-route')).toBe('route-b');
  });

  test('allow_fallbacks false with no ranked route available: 503 no_route_available, x-should-retry false', async () => {
    const refused = await chat({ ...base, provider: { order: ['route-down'], allow_fallbacks: false } });
    expect([refused.status, refused.body.error.code]).toEqual([503, 'no_route_available']);
    expect(refused.headers.get('x-should-retry')).toBe('false');
    const fallback = await chat({ ...base, provider: { order: ['route-down'], allow_fallbacks: true } });
    expect(fallback.status).toBe(200);
    expect(fallback.headers.get('x-mock-route')).toBe('route-a');
    expect(fallback.body.model).toBe(MOCK_MODELS.routes);
  });

  test('routing preferences do not change the text (never another model)', async () => {
    const a = await chat({ ...base, provider: { sort: 'price' } });
    const b = await chat({ ...base, provider: { sort: 'latency' } });
    expect(msg(a).content).toBe(msg(b).content);
  });
});

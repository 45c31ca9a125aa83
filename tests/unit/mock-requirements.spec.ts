// The reference mock honours the requirements it is the reference for, through the whole instance (createMockService):
// REQ-014 (a nested field the contract does not list is not read), RESP-026 (cache_write_tokens in addition to
// prompt_tokens) and LIMIT-006 (prompt plus answer within the entry's context_window).
import { expect, test } from '@playwright/test';
import { bodyFromBytes, type CoreRequest, type CoreResult } from '../../mock/core/http.ts';
import { MOCK_KEYS, MOCK_MODELS } from '../../mock/keys-and-models.ts';
import { createMockService, type MockService } from '../../mock/service.ts';
import { defaultCatalog } from '../../mock/core/fixture-data.ts';

type Json = Record<string, any>;

const fixed = (): MockService => createMockService({ now: () => 1_767_225_600_000, newId: () => 'chatcmpl-fixed' });

async function post(service: MockService, body: Json): Promise<{ status: number; json: Json }> {
  const headers = new Headers({ authorization: `Bearer ${MOCK_KEYS.full}`, 'content-type': 'application/json' });
  const request: CoreRequest = {
    method: 'POST',
    path: '/v1/chat/completions',
    header: (n) => headers.get(n) ?? undefined,
    body: bodyFromBytes(new TextEncoder().encode(JSON.stringify(body))),
  };
  const result: CoreResult = await service.handle(request);
  expect(result.kind).toBe('json');
  return { status: result.status, json: (result as { body: Json }).body };
}

const windowOf = (id: string): number => defaultCatalog().entries.find((e) => e.id === id)!.context_window!;

test.describe('REQ-014: a field not listed for a nested object is not read', () => {
  const weather = { name: 'get_weather', description: 'Current weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } };

  test('unlisted fields of messages, content parts, tools, functions and provider change nothing in the answer', async () => {
    const plain = {
      model: MOCK_MODELS.small,
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: [{ type: 'text', text: 'What is the weather in Paris?' }] },
      ],
      provider: { sort: 'price' },
    };
    const extra = {
      ...plain,
      messages: [
        { role: 'system', content: 'Be brief.', chatconform_unread: 'message field not in 2.2', weight: 3 },
        { role: 'user', content: [{ type: 'text', text: 'What is the weather in Paris?', chatconform_unread: { deep: [1, 2, 3] } }] },
      ],
      provider: { sort: 'price', chatconform_unread: true },
    };
    const a = await post(fixed(), plain);
    const b = await post(fixed(), extra);
    expect(a.status).toBe(200);
    expect(b.json).toEqual(a.json);

    // Tools: the calls (ids, arguments) and the prompt's tokens are those of the request without the fields.
    const withTools = { ...plain, tools: [{ type: 'function', function: weather }], tool_choice: 'required' };
    const withToolExtras = { ...withTools, tools: [{ type: 'function', chatconform_unread: 'tool field', function: { ...weather, strict: true, x_cache: 'function field' } }] };
    const c = await post(fixed(), withTools);
    const d = await post(fixed(), withToolExtras);
    expect(c.json.choices[0].finish_reason).toBe('tool_calls');
    expect(d.json).toEqual(c.json);
  });

  test('the prompt cache key does not read unlisted fields: the same prefix with one is a cache read', async () => {
    const service = fixed();
    const system = (extra: Json) => ({ role: 'system', content: [{ type: 'text', text: 'A long cached system prompt. '.repeat(10), cache_control: { type: 'ephemeral' }, ...extra }] });
    const first = await post(service, { model: MOCK_MODELS.caching, messages: [system({}), { role: 'user', content: 'Hello' }] });
    const second = await post(service, { model: MOCK_MODELS.caching, messages: [system({ chatconform_unread: 1 }), { role: 'user', content: 'Hello' }] });
    expect(first.json.usage.prompt_tokens_details.cache_write_tokens).toBeGreaterThan(0);
    expect(second.json.usage.prompt_tokens_details).toEqual({ cached_tokens: first.json.usage.prompt_tokens_details.cache_write_tokens });
  });
});

test.describe('RESP-026: cache_write_tokens are counted in addition to prompt_tokens', () => {
  test('a write reports the written tokens beside prompt_tokens, a read within them; cost charges each once', async () => {
    const service = fixed();
    const body = {
      model: MOCK_MODELS.caching,
      messages: [
        { role: 'system', content: [{ type: 'text', text: `Cached instructions. ${'The river is blue. '.repeat(20)}`, cache_control: { type: 'ephemeral' } }] },
        { role: 'user', content: 'Reply with one word.' },
      ],
      max_completion_tokens: 5,
    };
    const write = (await post(service, body)).json.usage;
    const read = (await post(service, body)).json.usage;
    const written = write.prompt_tokens_details.cache_write_tokens as number;
    expect(written).toBeGreaterThan(50);
    expect(write.prompt_tokens_details.cached_tokens).toBeUndefined();
    // The read counts the whole prompt in prompt_tokens (cached tokens are input tokens); the write counts the same
    // prompt as prompt_tokens plus cache_write_tokens.
    expect(read.prompt_tokens_details).toEqual({ cached_tokens: written });
    expect(write.prompt_tokens + written).toBe(read.prompt_tokens);
    expect(write.prompt_tokens).toBeGreaterThanOrEqual(1);
    expect(write.total_tokens).toBe(write.prompt_tokens + write.completion_tokens);
    // cache-pro: input 2, cache write 2.5, cache read 0.2, output 8 (per million): each token priced once.
    const entry = defaultCatalog().entries.find((e) => e.id === MOCK_MODELS.caching)!;
    const price = (n: number, p: number | undefined) => n * (p ?? 0);
    const expected = (price(write.prompt_tokens, entry.input_price) + price(written, entry.cache_write_price) + price(write.completion_tokens, entry.output_price)) / 1e6;
    expect(write.cost).toBeCloseTo(expected, 9);
  });
});

test.describe('LIMIT-006: prompt_tokens + completion_tokens never exceed the context window', () => {
  const model = MOCK_MODELS.small;
  const window = windowOf(model);
  // One token per word, one for the message's role.
  const promptOf = (tokens: number) => [{ role: 'user', content: 'word '.repeat(tokens - 1).trim() }];

  test('a prompt close to the window gets an answer cut where the window ends (finish_reason length)', async () => {
    for (const room of [0, 1, 7]) {
      const { status, json } = await post(fixed(), { model, messages: promptOf(window - room) });
      expect(status).toBe(200);
      expect(json.usage.prompt_tokens).toBe(window - room);
      expect(json.usage.prompt_tokens + json.usage.completion_tokens).toBeLessThanOrEqual(window);
      expect(json.choices[0].finish_reason).toBe('length');
    }
    // With room to spare the answer is the ordinary one.
    const roomy = await post(fixed(), { model, messages: promptOf(window - 500) });
    expect(roomy.json.choices[0].finish_reason).toBe('stop');
  });

  test('a scripted answer is cut at the window as the answer of the mock itself is', async () => {
    const script = { rules: [{ name: 'long', match: { model }, answer: { content: 'scripted '.repeat(200).trim() } }] };
    const service = createMockService({ now: () => 0, newId: () => 'chatcmpl-fixed', script });
    const { status, json } = await post(service, { model, messages: promptOf(window - 5) });
    expect(status).toBe(200);
    expect(json.choices[0].message.content).toBe('scripted scripted scripted scripted scripted');
    expect(json.usage.prompt_tokens + json.usage.completion_tokens).toBe(window);
    expect(json.choices[0].finish_reason).toBe('length');
  });

  test('tool calls that do not fit in the room left are refused upfront, never sent past the window', async () => {
    const tools = [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] } } }];
    // The tools' JSON counts in the prompt too.
    const probe = await post(fixed(), { model, messages: promptOf(10), tools, tool_choice: 'required' });
    const toolsTokens = probe.json.usage.prompt_tokens - 10;
    const callTokens = probe.json.usage.completion_tokens;
    expect(callTokens).toBeGreaterThan(1);
    // Room for one token less than the call: refused. Room for the call: answered, exactly at the window.
    const short = await post(fixed(), { model, messages: promptOf(window - toolsTokens - callTokens + 1), tools, tool_choice: 'required' });
    expect(short.status).toBe(400);
    expect(short.json.error.code).toBe('context_length_exceeded');
    const fits = await post(fixed(), { model, messages: promptOf(window - toolsTokens - callTokens), tools, tool_choice: 'required' });
    expect(fits.status).toBe(200);
    expect(fits.json.usage.prompt_tokens + fits.json.usage.completion_tokens).toBe(window);
  });
});

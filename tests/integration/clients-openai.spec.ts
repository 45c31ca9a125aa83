// Issue 8: the official `openai` SDK (openai-node 6.x), unmodified, against the mock over real HTTP. Only the
// base URL and the key change (section 1). Scenario headers go in per request (`{ headers }` request option).
// The SDK's retry behaviour on 5xx is documented by counting the requests it sends through its `fetch` option.
import { expect, test } from '@playwright/test';
import OpenAI, {
  APIError,
  AuthenticationError,
  BadRequestError,
  ConflictError,
  InternalServerError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  UnprocessableEntityError,
} from 'openai';
import { zodFunction } from 'openai/helpers/zod';
import { z } from 'zod';
import {
  FRAMINGS,
  MOCK_KEYS,
  MOCK_MODELS,
  MOCK_RESTRICTED_MODELS,
  fixtureEntries,
  fixtureEntry,
  publicEntry,
} from '../../mock/index.ts';
import { downRoute, thrown } from './support/sdk-helpers.ts';
import { useMock } from './support/use-mock.ts';

const mock = useMock(test);

interface Sent {
  method: string;
  url: string;
  at: number;
  status?: number;
}

/** A fetch that records every request the SDK sends (retries included), then delegates to the global fetch. */
function countingFetch(): { fetch: (input: string | URL | Request, init?: RequestInit) => Promise<Response>; sent: Sent[] } {
  const sent: Sent[] = [];
  const fetchFn = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = input instanceof Request ? input.url : String(input);
    const entry: Sent = { method: init?.method ?? (input instanceof Request ? input.method : 'GET'), url, at: Date.now() };
    sent.push(entry);
    const res = await fetch(input, init);
    entry.status = res.status;
    return res;
  };
  return { fetch: fetchFn, sent };
}

/** An unmodified client: base URL + key. `maxRetries: 0` unless a test documents retries. */
function client(opts: { apiKey?: string; maxRetries?: number; fetch?: ReturnType<typeof countingFetch>['fetch'] } = {}): OpenAI {
  return new OpenAI({
    baseURL: `${mock.url}/v1`,
    apiKey: opts.apiKey ?? MOCK_KEYS.full,
    maxRetries: opts.maxRetries ?? 0,
    ...(opts.fetch ? { fetch: opts.fetch } : {}),
  });
}

const ask = (content: string): OpenAI.ChatCompletionMessageParam[] => [{ role: 'user', content }];

/** Text of a raw stream, consumed with the SDK's own async iterator. */
async function streamedText(stream: AsyncIterable<OpenAI.ChatCompletionChunk>): Promise<{ text: string; chunks: OpenAI.ChatCompletionChunk[] }> {
  const chunks: OpenAI.ChatCompletionChunk[] = [];
  let text = '';
  for await (const chunk of stream) {
    chunks.push(chunk);
    text += chunk.choices[0]?.delta?.content ?? '';
  }
  return { text, chunks };
}

test.describe('models', () => {
  test('list: the active catalog in fixture order; a restricted key sees its list', async () => {
    const page = await client().models.list();
    const ids = page.data.map((m) => m.id);
    expect(ids).toEqual(fixtureEntries().filter((e) => e.mock.state !== 'deactivated').map((e) => e.id));
    expect(ids).not.toContain(MOCK_MODELS.deactivated);
    // The SDK's page iterator walks the same list.
    const iterated: string[] = [];
    for await (const m of client().models.list()) iterated.push(m.id);
    expect(iterated).toEqual(ids);

    const restricted = await client({ apiKey: MOCK_KEYS.restricted }).models.list();
    expect(restricted.data.map((m) => m.id)).toEqual([...MOCK_RESTRICTED_MODELS]);
  });

  test('retrieve: an id with a slash is URL-encoded by the SDK and decoded by the mock', async () => {
    const listed = await client().models.list();
    const slashed = listed.data.find((m) => m.id.includes('/'));
    expect(slashed, 'the catalog has an id with a slash').toBeDefined();
    const counter = countingFetch();
    const entry = await client({ fetch: counter.fetch }).models.retrieve(slashed!.id);
    expect(entry).toEqual(publicEntry(slashed!.id));
    expect(counter.sent).toHaveLength(1);
    expect(new URL(counter.sent[0]!.url).pathname).toBe(`/v1/models/${encodeURIComponent(slashed!.id)}`);
    expect(counter.sent[0]!.url).toContain('%2F');

    // Every listed entry reads back as listed, without a credential too (section 5: optional on the catalog).
    const anonymous = new OpenAI({ baseURL: `${mock.url}/v1`, apiKey: 'unused', maxRetries: 0, defaultHeaders: { authorization: null } });
    for (const m of listed.data) {
      expect(await anonymous.models.retrieve(m.id)).toEqual(m);
    }
  });

  test('retrieve: a deactivated id is PermissionDeniedError model_not_found, an unknown id NotFoundError', async () => {
    const deactivated = await thrown(client().models.retrieve(MOCK_MODELS.deactivated));
    expect(deactivated).toBeInstanceOf(PermissionDeniedError);
    expect((deactivated as APIError).code).toBe('model_not_found');
    const unknown = await thrown(client().models.retrieve('no-such-model/anywhere'));
    expect(unknown).toBeInstanceOf(NotFoundError);
    expect((unknown as APIError).code).toBe('unknown_model');
  });
});

test.describe('chat', () => {
  test('non-streamed: an assistant message, finish_reason stop, usage, the requested model', async () => {
    const res = await client().chat.completions.create({ model: MOCK_MODELS.small, messages: ask('hello') });
    expect(res.object).toBe('chat.completion');
    expect(res.model).toBe(MOCK_MODELS.small);
    expect(res.choices).toHaveLength(1);
    const choice = res.choices[0]!;
    expect(choice.message.role).toBe('assistant');
    expect(choice.message.content).toMatch(/^Mock answer:/);
    expect(choice.finish_reason).toBe('stop');
    expect(res.usage!.total_tokens).toBe(res.usage!.prompt_tokens + res.usage!.completion_tokens);
  });

  test('max_completion_tokens: finish_reason length, a prefix of the uncapped answer', async () => {
    const full = await client().chat.completions.create({ model: MOCK_MODELS.small, messages: ask('cap me') });
    const capped = await client().chat.completions.create({ model: MOCK_MODELS.small, messages: ask('cap me'), max_completion_tokens: 5 });
    expect(capped.choices[0]!.finish_reason).toBe('length');
    expect(capped.usage!.completion_tokens).toBeLessThanOrEqual(5);
    expect(full.choices[0]!.message.content!.startsWith(capped.choices[0]!.message.content!)).toBe(true);
  });

  test('streamed: role first, finish_reason last, one id; the text equals the non-streamed answer', async () => {
    const messages = ask('stream this');
    const whole = await client().chat.completions.create({ model: MOCK_MODELS.small, messages });
    const stream = await client().chat.completions.create({ model: MOCK_MODELS.small, messages, stream: true });
    const { text, chunks } = await streamedText(stream);
    expect(text).toBe(whole.choices[0]!.message.content);
    expect(chunks[0]!.choices[0]!.delta.role).toBe('assistant');
    expect(chunks.at(-1)!.choices[0]!.finish_reason).toBe('stop');
    expect(chunks.slice(0, -1).every((c) => !c.choices[0]!.finish_reason)).toBe(true);
    expect(new Set(chunks.map((c) => c.id)).size).toBe(1);
    expect(chunks.every((c) => c.object === 'chat.completion.chunk' && c.model === MOCK_MODELS.small)).toBe(true);
    // No usage chunk unless asked.
    expect(chunks.some((c) => c.usage)).toBe(false);
  });

  test('the stream helper (chat.completions.stream): content events and finalChatCompletion', async () => {
    const messages = ask('helper');
    const whole = await client().chat.completions.create({ model: MOCK_MODELS.small, messages });
    const stream = client().chat.completions.stream({ model: MOCK_MODELS.small, messages });
    let deltas = '';
    stream.on('content', (delta) => {
      deltas += delta;
    });
    const final = await stream.finalChatCompletion();
    expect(deltas).toBe(whole.choices[0]!.message.content);
    expect(final.choices[0]!.message.content).toBe(whole.choices[0]!.message.content);
    expect(final.choices[0]!.finish_reason).toBe('stop');
  });

  test('usage in a stream: exactly one usage chunk, choices [], last, equal to the non-streamed usage', async () => {
    const messages = ask('count my tokens');
    const whole = await client().chat.completions.create({ model: MOCK_MODELS.large, messages });
    const stream = await client().chat.completions.create({
      model: MOCK_MODELS.large,
      messages,
      stream: true,
      stream_options: { include_usage: true },
    });
    const { chunks } = await streamedText(stream);
    const withUsage = chunks.filter((c) => c.usage);
    expect(withUsage).toHaveLength(1);
    expect(withUsage[0]).toBe(chunks.at(-1));
    expect(withUsage[0]!.choices).toEqual([]);
    expect(withUsage[0]!.usage).toEqual(whole.usage);

    const helper = client().chat.completions.stream({ model: MOCK_MODELS.large, messages, stream_options: { include_usage: true } });
    expect((await helper.finalChatCompletion()).usage).toEqual(whole.usage);
  });

  for (const framing of [...FRAMINGS, FRAMINGS.join(',')]) {
    test(`framing ${framing}: the streamed answer and usage assemble identically`, async () => {
      const messages = ask(`framing ${framing}`);
      const whole = await client().chat.completions.create({ model: MOCK_MODELS.small, messages });
      const stream = await client().chat.completions.create(
        { model: MOCK_MODELS.small, messages, stream: true, stream_options: { include_usage: true } },
        { headers: { 'x-mock-framing': framing } },
      );
      const { text, chunks } = await streamedText(stream);
      expect(text).toBe(whole.choices[0]!.message.content);
      expect(chunks.find((c) => c.usage)?.usage).toEqual(whole.usage);
      expect(chunks.flatMap((c) => c.choices.map((x) => x.finish_reason)).filter(Boolean)).toEqual(['stop']);
    });
  }
});

test.describe('tool calls', () => {
  const Weather = z.object({ city: z.string().min(2), unit: z.enum(['c', 'f']), days: z.number().int().min(1).max(7).optional() });
  const Time = z.object({ tz: z.string() });
  const tools: OpenAI.ChatCompletionTool[] = [
    { type: 'function', function: { name: 'get_weather', description: 'Weather for a city', parameters: z.toJSONSchema(Weather) } },
    { type: 'function', function: { name: 'get_time', parameters: z.toJSONSchema(Time) } },
    { type: 'function', function: { name: 'ping' } },
  ];
  const messages = ask('call get_weather, get_time and ping');
  const parseArgs = (call: OpenAI.ChatCompletionMessageToolCall): unknown => {
    expect(call.type).toBe('function');
    if (call.type !== 'function') return undefined;
    const args: unknown = JSON.parse(call.function.arguments);
    if (call.function.name === 'get_weather') return Weather.parse(args);
    if (call.function.name === 'get_time') return Time.parse(args);
    expect(args).toEqual({});
    return args;
  };

  test('non-streamed: parallel calls, finish_reason tool_calls, arguments are JSON strings that parse', async () => {
    const res = await client().chat.completions.create({ model: MOCK_MODELS.small, messages, tools });
    const choice = res.choices[0]!;
    expect(choice.finish_reason).toBe('tool_calls');
    const calls = choice.message.tool_calls ?? [];
    expect(calls.map((c) => (c.type === 'function' ? c.function.name : c.type))).toEqual(['get_weather', 'get_time', 'ping']);
    expect(new Set(calls.map((c) => c.id)).size).toBe(3);
    for (const call of calls) parseArgs(call);
  });

  test('streamed: the SDK reassembles the deltas into the same calls', async () => {
    const whole = await client().chat.completions.create({ model: MOCK_MODELS.small, messages, tools });
    const done: string[] = [];
    const stream = client().chat.completions.stream({ model: MOCK_MODELS.small, messages, tools });
    stream.on('tool_calls.function.arguments.done', (e) => {
      done.push(e.name);
      expect(() => JSON.parse(e.arguments)).not.toThrow();
    });
    const final = await stream.finalChatCompletion();
    expect(final.choices[0]!.finish_reason).toBe('tool_calls');
    const calls = final.choices[0]!.message.tool_calls ?? [];
    expect(calls).toEqual(whole.choices[0]!.message.tool_calls);
    expect(done).toEqual(['get_weather', 'get_time', 'ping']);
    for (const call of calls) parseArgs(call);

    // The raw iterator: the first delta of each call has id, type and name; the index is distinct per call.
    const raw = await client().chat.completions.create({ model: MOCK_MODELS.small, messages, tools, stream: true }, { headers: { 'x-mock-framing': 'bytewise' } });
    const firsts = new Map<number, OpenAI.ChatCompletionChunk.Choice.Delta.ToolCall>();
    const args = new Map<number, string>();
    for await (const chunk of raw) {
      for (const d of chunk.choices[0]?.delta.tool_calls ?? []) {
        if (!firsts.has(d.index)) firsts.set(d.index, d);
        args.set(d.index, (args.get(d.index) ?? '') + (d.function?.arguments ?? ''));
      }
    }
    expect([...firsts.values()].map((d) => [d.id, d.type, d.function?.name])).toEqual(
      calls.map((c) => [c.id, 'function', c.type === 'function' ? c.function.name : undefined]),
    );
    expect([...args.values()]).toEqual(calls.map((c) => (c.type === 'function' ? c.function.arguments : undefined)));
  });

  test('chat.completions.parse with zodFunction: parsed_arguments', async () => {
    const res = await client().chat.completions.parse({
      model: MOCK_MODELS.small,
      messages: ask('get_weather please'),
      tools: [zodFunction({ name: 'get_weather', parameters: z.object({ city: z.string(), unit: z.enum(['c', 'f']) }) })],
    });
    const call = res.choices[0]!.message.tool_calls?.[0];
    if (!call) throw new Error('no tool call');
    expect(call.type).toBe('function');
    if (call.type === 'function') {
      expect(call.function.parsed_arguments).toEqual(JSON.parse(call.function.arguments));
      expect(['c', 'f']).toContain((call.function.parsed_arguments as { unit: string }).unit);
    }
  });

  const timeParams: OpenAI.FunctionParameters = z.toJSONSchema(Time);
  const timeTool: OpenAI.ChatCompletionTool = { type: 'function', function: { name: 'get_time', parameters: timeParams } };
  const toolResults = (msg: OpenAI.ChatCompletionMessage): OpenAI.ChatCompletionToolMessageParam[] =>
    (msg.tool_calls ?? []).map((c) => ({ role: 'tool', tool_call_id: c.id, content: '12:00' }));

  // A tool loop sends the assistant message back: as received (content omitted) or, from openai-node's helpers,
  // with content: null. The mock reads both as empty text (mock/core/request.ts): section 1 promises existing
  // clients work unchanged.
  test('tool loop: the assistant message echoed back as received (content omitted)', async () => {
    const first = await client().chat.completions.create({ model: MOCK_MODELS.small, messages: ask('get_time'), tools: [timeTool] });
    const msg = first.choices[0]!.message;
    const second = await client().chat.completions.create({
      model: MOCK_MODELS.small,
      tools: [timeTool],
      messages: [...ask('get_time'), msg, ...toolResults(msg)],
    });
    expect(second.choices[0]!.finish_reason).toBe('stop');
  });

  test('tool loop: runTools (the SDK sends content: null)', async () => {
    const runner = client().chat.completions.runTools({
      model: MOCK_MODELS.small,
      messages: ask('get_time'),
      tools: [
        {
          type: 'function',
          function: { name: 'get_time', description: 'The time in a zone', parameters: timeParams, parse: (s: string) => Time.parse(JSON.parse(s)), function: () => '12:00' },
        },
      ],
    });
    expect(await runner.finalContent()).toMatch(/^Mock answer:/);
  });

  test('tool loop with the assistant content set to "" (the workaround): the tool result round-trips', async () => {
    const first = await client().chat.completions.create({ model: MOCK_MODELS.small, messages: ask('get_time'), tools: [timeTool] });
    const msg = first.choices[0]!.message;
    const second = await client().chat.completions.create({
      model: MOCK_MODELS.small,
      tools: [timeTool],
      messages: [...ask('get_time'), { role: 'assistant', content: '', tool_calls: msg.tool_calls ?? [] }, ...toolResults(msg)],
    });
    expect(second.choices[0]!.finish_reason).toBe('stop');
    expect(second.choices[0]!.message.content).toMatch(/^Mock answer:/);
  });
});

test.describe('errors', () => {
  test('400: BadRequestError with code, type and the message of the body', async () => {
    const err = await thrown(
      client().chat.completions.create({
        model: MOCK_MODELS.small,
        messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://example.com/a.png' } }] }],
      }),
    );
    expect(err).toBeInstanceOf(BadRequestError);
    const e = err as BadRequestError;
    expect(e.status).toBe(400);
    expect(e.code).toBe('images_not_supported');
    expect(e.type).toBe('invalid_request_error');
    expect(e.error).toMatchObject({ code: 'images_not_supported', type: 'invalid_request_error' });
  });

  test('401: AuthenticationError invalid_api_key; also on a stream, before any chunk', async () => {
    const bad = client({ apiKey: 'sk-not-a-mock-key' });
    const err = await thrown(bad.chat.completions.create({ model: MOCK_MODELS.small, messages: ask('hi') }));
    expect(err).toBeInstanceOf(AuthenticationError);
    expect((err as APIError).status).toBe(401);
    expect((err as APIError).code).toBe('invalid_api_key');
    const streamed = await thrown(bad.chat.completions.create({ model: MOCK_MODELS.small, messages: ask('hi'), stream: true }));
    expect(streamed).toBeInstanceOf(AuthenticationError);
  });

  test('403: PermissionDeniedError model_not_allowed (restricted key), model_not_found, insufficient_tier', async () => {
    const cases: Array<[string, string, string]> = [
      [MOCK_KEYS.restricted, MOCK_MODELS.large, 'model_not_allowed'],
      [MOCK_KEYS.full, MOCK_MODELS.deactivated, 'model_not_found'],
      [MOCK_KEYS.free, MOCK_MODELS.large, 'insufficient_tier'],
    ];
    for (const [apiKey, model, code] of cases) {
      const err = await thrown(client({ apiKey }).chat.completions.create({ model, messages: ask('hi') }));
      expect(err, code).toBeInstanceOf(PermissionDeniedError);
      expect((err as APIError).status).toBe(403);
      expect((err as APIError).code).toBe(code);
    }
  });

  test('503: InternalServerError model_unavailable with retry-after', async () => {
    const err = await thrown(client().chat.completions.create({ model: MOCK_MODELS.unavailable, messages: ask('hi') }));
    expect(err).toBeInstanceOf(InternalServerError);
    expect(err).toBeInstanceOf(APIError);
    const e = err as InternalServerError;
    expect(e.status).toBe(503);
    expect(e.code).toBe('model_unavailable');
    expect(e.type).toBe('api_error');
    expect(e.headers?.get('retry-after')).toBe('1');
  });

  test('x-mock-status: every status maps to its SDK error class, code exposed', async () => {
    const classes: Array<[number, new (...args: any[]) => APIError, string]> = [
      [400, BadRequestError, 'mock_status'],
      [401, AuthenticationError, 'mock_status'],
      [403, PermissionDeniedError, 'mock_status'],
      [404, NotFoundError, 'mock_status'],
      [409, ConflictError, 'mock_status'],
      [422, UnprocessableEntityError, 'mock_status'],
      [429, RateLimitError, 'rate_limit_exceeded'],
      [500, InternalServerError, 'internal_error'],
      [502, InternalServerError, 'upstream_error'],
      [503, InternalServerError, 'service_unavailable'],
      [504, InternalServerError, 'upstream_timeout'],
    ];
    for (const [status, cls, code] of classes) {
      const err = await thrown(
        client().chat.completions.create({ model: MOCK_MODELS.small, messages: ask('hi') }, { headers: { 'x-mock-status': String(status) } }),
      );
      expect(err, String(status)).toBeInstanceOf(cls);
      expect((err as APIError).status).toBe(status);
      expect((err as APIError).code).toBe(code);
    }
    // The catalog endpoints too.
    const listErr = await thrown(client().models.list({ headers: { 'x-mock-status': '503' } }));
    expect(listErr).toBeInstanceOf(InternalServerError);
  });

  test('an error after the stream opened throws APIError (code upstream_error), never a shorter answer', async () => {
    const messages = ask('fail midway');
    const whole = await client().chat.completions.create({ model: MOCK_MODELS.small, messages });
    for (const failAfter of [0, 1, 3]) {
      for (const framing of ['lf', 'crlf,bytewise']) {
        const headers = { 'x-mock-fail-after': String(failAfter), 'x-mock-framing': framing };
        const stream = await client().chat.completions.create({ model: MOCK_MODELS.small, messages, stream: true }, { headers });
        let text = '';
        let received = 0;
        const err = await thrown(
          (async () => {
            for await (const chunk of stream) {
              received++;
              text += chunk.choices[0]?.delta?.content ?? '';
            }
          })(),
        );
        // openai-node's Stream throws an APIError (no HTTP status: the 200 already arrived) built from the event's error.
        expect(err, `fail-after ${failAfter} ${framing}`).toBeInstanceOf(APIError);
        const e = err as APIError;
        expect(e.status).toBeUndefined();
        expect(e.code).toBe('upstream_error');
        expect(e.type).toBe('api_error');
        expect(received).toBe(failAfter);
        expect(text.length).toBeLessThan(whole.choices[0]!.message.content!.length);
      }
    }
    // The stream helper rejects finalChatCompletion the same way.
    const helper = client().chat.completions.stream({ model: MOCK_MODELS.small, messages }, { headers: { 'x-mock-fail-after': '4' } });
    helper.on('error', () => {});
    const err = await thrown(helper.finalChatCompletion());
    expect(err).toBeInstanceOf(APIError);
    expect((err as APIError).code).toBe('upstream_error');
  });
});

// Documented behaviour of openai-node 6.x (src/client.ts shouldRetry / retryRequest): it retries 408, 409, 429
// and every 5xx, `maxRetries` times (default 2); `x-should-retry: true|false` overrides the status; the wait is
// `retry-after-ms`, else `retry-after` (seconds or an HTTP date), else exponential backoff from 0.5 s with jitter.
test.describe('retries', () => {
  test('503 with maxRetries 2: 3 requests, spaced by the mock\'s retry-after (1 s), then InternalServerError', async () => {
    const counter = countingFetch();
    const started = Date.now();
    const err = await thrown(
      client({ maxRetries: 2, fetch: counter.fetch }).chat.completions.create(
        { model: MOCK_MODELS.small, messages: ask('hi') },
        { headers: { 'x-mock-status': '503' } },
      ),
    );
    expect(err).toBeInstanceOf(InternalServerError);
    expect((err as APIError).code).toBe('service_unavailable');
    expect(counter.sent.map((s) => s.status)).toEqual([503, 503, 503]);
    // Without retry-after the first wait would be 0.375-0.5 s; retry-after: 1 makes each wait 1 s.
    const gaps = counter.sent.slice(1).map((s, i) => s.at - counter.sent[i]!.at);
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(950);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1900);
  });

  test('model_unavailable (503) with the default maxRetries: 3 requests', async () => {
    const counter = countingFetch();
    const c = new OpenAI({ baseURL: `${mock.url}/v1`, apiKey: MOCK_KEYS.full, fetch: counter.fetch });
    const err = await thrown(c.chat.completions.create({ model: MOCK_MODELS.unavailable, messages: ask('hi') }));
    expect((err as APIError).code).toBe('model_unavailable');
    expect(counter.sent).toHaveLength(3);
  });

  test('no_route_available (503, x-should-retry: false): one request, the SDK obeys the header', async () => {
    const counter = countingFetch();
    // `provider` is a contract field (2.8) the SDK's types do not declare; the SDK sends the body as given.
    const params: OpenAI.ChatCompletionCreateParamsNonStreaming & { provider: Record<string, unknown> } = {
      model: MOCK_MODELS.routes,
      messages: ask('hi'),
      provider: { order: [downRoute()], allow_fallbacks: false },
    };
    const err = await thrown(client({ maxRetries: 2, fetch: counter.fetch }).chat.completions.create(params));
    expect(err).toBeInstanceOf(InternalServerError);
    expect((err as APIError).code).toBe('no_route_available');
    expect((err as APIError).headers?.get('x-should-retry')).toBe('false');
    expect(counter.sent).toHaveLength(1);
  });

  test('400, 401 and 403 are not retried; neither is an error after the stream opened', async () => {
    for (const status of ['400', '401', '403']) {
      const counter = countingFetch();
      await thrown(
        client({ maxRetries: 2, fetch: counter.fetch }).chat.completions.create(
          { model: MOCK_MODELS.small, messages: ask('hi') },
          { headers: { 'x-mock-status': status } },
        ),
      );
      expect(counter.sent, status).toHaveLength(1);
    }
    const counter = countingFetch();
    const stream = await client({ maxRetries: 2, fetch: counter.fetch }).chat.completions.create(
      { model: MOCK_MODELS.small, messages: ask('hi'), stream: true },
      { headers: { 'x-mock-fail-after': '2' } },
    );
    await thrown(streamedText(stream));
    expect(counter.sent).toHaveLength(1);
  });
});

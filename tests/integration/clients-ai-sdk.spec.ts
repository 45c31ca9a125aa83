// Issue 8: the Vercel AI SDK (`ai` 6.x with `@ai-sdk/openai-compatible` 2.x), unmodified, against the mock over
// real HTTP. Only the base URL and the key change (section 1); scenario headers go in per call (`headers`).
// The AI SDK has no model-listing call for openai-compatible providers, so models come from the fixture
// handles; list/retrieve through an SDK is covered by clients-openai.spec.ts.
import { expect, test } from '@playwright/test';
import { APICallError, RetryError, generateText, stepCountIs, streamText, tool, type ModelMessage, type TextStreamPart, type ToolSet } from 'ai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { z } from 'zod';
import { FRAMINGS, MOCK_KEYS, MOCK_MODELS, fixtureEntry } from '../../mock/index.ts';
import { downRoute, thrown } from './support/sdk-helpers.ts';
import { useMock } from './support/use-mock.ts';

const mock = useMock(test);

interface Sent {
  url: string;
  at: number;
  status?: number;
}

/** A fetch that records every request the SDK sends (retries included), then delegates to the global fetch. */
function countingFetch(): { fetch: typeof fetch; sent: Sent[] } {
  const sent: Sent[] = [];
  const fetchFn: typeof fetch = async (input, init) => {
    const entry: Sent = { url: input instanceof Request ? input.url : String(input), at: Date.now() };
    sent.push(entry);
    const res = await fetch(input, init);
    entry.status = res.status;
    return res;
  };
  return { fetch: fetchFn, sent };
}

/** The provider a client author writes: name, base URL, key; includeUsage sends stream_options.include_usage. */
function provider(opts: { apiKey?: string; includeUsage?: boolean; fetch?: typeof fetch } = {}) {
  return createOpenAICompatible({
    name: 'mock',
    baseURL: `${mock.url}/v1`,
    apiKey: opts.apiKey ?? MOCK_KEYS.full,
    includeUsage: opts.includeUsage ?? false,
    ...(opts.fetch ? { fetch: opts.fetch } : {}),
  });
}
const model = (id: string, opts: Parameters<typeof provider>[0] = {}) => provider(opts).chatModel(id);

/** Every part of a streamText result; errors are parts, never thrown by the iterator. */
async function parts<T extends ToolSet>(result: { fullStream: AsyncIterable<TextStreamPart<T>> }): Promise<TextStreamPart<T>[]> {
  const out: TextStreamPart<T>[] = [];
  for await (const part of result.fullStream) out.push(part);
  return out;
}
const silent = (): void => {};

/** The code of the error body carried by an APICallError (`data` is the body parsed by the provider). */
function codeOf(err: APICallError): unknown {
  const data = err.data as { error?: { code?: unknown } } | undefined;
  return data?.error?.code;
}

test.describe('chat', () => {
  test('generateText: the answer, finish reason stop, usage; an id with a slash goes in the body as is', async () => {
    const counter = countingFetch();
    const res = await generateText({ model: model(MOCK_MODELS.large, { fetch: counter.fetch }), prompt: 'hello' });
    expect(res.text).toMatch(/^Mock answer:/);
    expect(res.finishReason).toBe('stop');
    expect(res.response.modelId).toBe(MOCK_MODELS.large);
    expect(res.usage.inputTokens).toBeGreaterThan(0);
    expect(res.usage.totalTokens).toBe(res.usage.inputTokens! + res.usage.outputTokens!);
    expect(counter.sent.map((s) => new URL(s.url).pathname)).toEqual(['/v1/chat/completions']);
  });

  test('streamText: text deltas assemble to the non-streamed answer; finish reason stop', async () => {
    const whole = await generateText({ model: model(MOCK_MODELS.small), prompt: 'stream this' });
    const result = streamText({ model: model(MOCK_MODELS.small), prompt: 'stream this', onError: silent });
    let text = '';
    for await (const delta of result.textStream) text += delta;
    expect(text).toBe(whole.text);
    expect(await result.finishReason).toBe('stop');
    expect(await result.text).toBe(whole.text);
  });

  test('usage in a stream: with includeUsage the stream reports the non-streamed usage; without, none', async () => {
    const whole = await generateText({ model: model(MOCK_MODELS.large), prompt: 'count my tokens' });
    const counter = countingFetch();
    const withUsage = streamText({ model: model(MOCK_MODELS.large, { includeUsage: true, fetch: counter.fetch }), prompt: 'count my tokens', onError: silent });
    await withUsage.consumeStream();
    const usage = await withUsage.usage;
    expect(usage.inputTokens).toBe(whole.usage.inputTokens);
    expect(usage.outputTokens).toBe(whole.usage.outputTokens);
    expect(usage.totalTokens).toBe(whole.usage.totalTokens);
    expect(await withUsage.finishReason).toBe('stop');
    expect(counter.sent).toHaveLength(1);
    const body = (await withUsage.request).body as { stream_options?: unknown } | undefined;
    expect(body?.stream_options).toEqual({ include_usage: true });

    const without = streamText({ model: model(MOCK_MODELS.large), prompt: 'count my tokens', onError: silent });
    await without.consumeStream();
    expect((await without.usage).inputTokens).toBeUndefined();
    expect(await without.text).toBe(whole.text);
  });

  for (const framing of [...FRAMINGS, FRAMINGS.join(',')]) {
    test(`framing ${framing}: the streamed answer and usage assemble identically`, async () => {
      const prompt = `framing ${framing}`;
      const whole = await generateText({ model: model(MOCK_MODELS.small), prompt });
      const result = streamText({
        model: model(MOCK_MODELS.small, { includeUsage: true }),
        prompt,
        headers: { 'x-mock-framing': framing },
        onError: silent,
      });
      const all = await parts(result);
      expect(all.filter((p) => p.type === 'error')).toEqual([]);
      expect(all.flatMap((p) => (p.type === 'text-delta' ? [p.text] : [])).join('')).toBe(whole.text);
      expect(await result.finishReason).toBe('stop');
      expect((await result.usage).totalTokens).toBe(whole.usage.totalTokens);
    });
  }
});

test.describe('tool calls', () => {
  const schemas = {
    get_weather: z.object({ city: z.string().min(2), unit: z.enum(['c', 'f']), days: z.number().int().min(1).max(7).optional() }),
    get_time: z.object({ tz: z.string() }),
    ping: z.object({}),
  };
  const tools = {
    get_weather: tool({ description: 'Weather for a city', inputSchema: schemas.get_weather }),
    get_time: tool({ inputSchema: schemas.get_time }),
    ping: tool({ inputSchema: schemas.ping }),
  };
  const prompt = 'call get_weather, get_time and ping';
  const summary = (calls: Array<{ toolCallId: string; toolName: string; input: unknown }>) =>
    calls.map((c) => ({ id: c.toolCallId, name: c.toolName, input: c.input }));

  test('generateText: parallel calls, finish reason tool-calls, inputs validated by the zod schemas', async () => {
    const res = await generateText({ model: model(MOCK_MODELS.small), prompt, tools });
    expect(res.finishReason).toBe('tool-calls');
    expect(res.toolCalls.map((c) => c.toolName)).toEqual(['get_weather', 'get_time', 'ping']);
    // Invalid inputs would be marked `invalid` (and not be typed); these parsed and validated.
    for (const call of res.toolCalls) {
      expect(call.invalid ?? false).toBe(false);
      expect(() => schemas[call.toolName as keyof typeof schemas].parse(call.input)).not.toThrow();
    }
    expect(res.toolCalls.find((c) => c.toolName === 'ping')?.input).toEqual({});
  });

  test('streamText: the SDK reassembles the argument deltas into the same calls (also bytewise + CRLF)', async () => {
    const whole = await generateText({ model: model(MOCK_MODELS.small), prompt, tools });
    for (const framing of ['lf', 'crlf,bytewise']) {
      const result = streamText({ model: model(MOCK_MODELS.small), prompt, tools, headers: { 'x-mock-framing': framing }, onError: silent });
      const all = await parts(result);
      expect(all.filter((p) => p.type === 'error')).toEqual([]);
      const deltas = new Map<string, string>();
      for (const p of all) if (p.type === 'tool-input-delta') deltas.set(p.id, (deltas.get(p.id) ?? '') + p.delta);
      const calls = await result.toolCalls;
      expect(summary(calls)).toEqual(summary(whole.toolCalls));
      for (const call of calls) expect(JSON.parse(deltas.get(call.toolCallId) ?? '')).toEqual(call.input);
      expect(await result.finishReason).toBe('tool-calls');
    }
  });
  // The provider sends the assistant turn of a tool loop with content: null; the mock reads it as empty text
  // (mock/core/request.ts), as section 1 promises existing clients work unchanged.
  test('a multi-step tool loop (execute + stopWhen) completes', async () => {
    const res = await generateText({
      model: model(MOCK_MODELS.small),
      prompt: 'get_time',
      tools: { get_time: tool({ inputSchema: schemas.get_time, execute: async () => '12:00' }) },
      stopWhen: stepCountIs(3),
      maxRetries: 0,
    });
    expect(res.steps).toHaveLength(2);
    expect(res.text).toMatch(/^Mock answer:/);
  });

  test('the tool loop with a client-side workaround (transformRequestBody: content null -> "")', async () => {
    const p = createOpenAICompatible({
      name: 'mock',
      baseURL: `${mock.url}/v1`,
      apiKey: MOCK_KEYS.full,
      transformRequestBody: (body) => ({
        ...body,
        messages: (body.messages as Array<Record<string, unknown>>).map((m) => (m.content === null ? { ...m, content: '' } : m)),
      }),
    });
    const res = await generateText({
      model: p.chatModel(MOCK_MODELS.small),
      prompt: 'get_time',
      tools: { get_time: tool({ inputSchema: schemas.get_time, execute: async ({ tz }) => `12:00 in ${tz}` }) },
      stopWhen: stepCountIs(3),
      maxRetries: 0,
    });
    expect(res.steps.map((s) => s.finishReason)).toEqual(['tool-calls', 'stop']);
    expect(res.text).toMatch(/^Mock answer:/);
  });
});

test.describe('errors', () => {
  test('400, 401, 403, 503: APICallError with statusCode, responseBody and the code in data', async () => {
    const cases: Array<{ status: number; code: string; apiKey?: string; modelId: string; retryable: boolean }> = [
      { status: 400, code: 'images_not_supported', modelId: MOCK_MODELS.small, retryable: false },
      { status: 401, code: 'invalid_api_key', apiKey: 'sk-not-a-mock-key', modelId: MOCK_MODELS.small, retryable: false },
      { status: 403, code: 'model_not_allowed', apiKey: MOCK_KEYS.restricted, modelId: MOCK_MODELS.large, retryable: false },
      { status: 403, code: 'model_not_found', modelId: MOCK_MODELS.deactivated, retryable: false },
      { status: 503, code: 'model_unavailable', modelId: MOCK_MODELS.unavailable, retryable: true },
    ];
    for (const c of cases) {
      const opts = c.apiKey ? { apiKey: c.apiKey } : {};
      // 400 images_not_supported: an image part (inline bytes, sent as a data URL) to an entry without images.
      const messages: ModelMessage[] = [
        {
          role: 'user',
          content:
            c.status === 400
              ? [{ type: 'text', text: 'what is this?' }, { type: 'image', image: new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10]), mediaType: 'image/png' }]
              : 'hi',
        },
      ];
      const err = await thrown(generateText({ model: model(c.modelId, opts), messages, maxRetries: 0 }));
      expect(APICallError.isInstance(err), `${c.status} ${c.code}`).toBe(true);
      const e = err as APICallError;
      expect(e.statusCode).toBe(c.status);
      expect(codeOf(e)).toBe(c.code);
      expect(JSON.parse(e.responseBody ?? '{}').error.code).toBe(c.code);
      expect(e.isRetryable).toBe(c.retryable);
      if (c.status === 503) expect(e.responseHeaders?.['retry-after']).toBe('1');
    }
  });

  test('x-mock-status: APICallError for every status; isRetryable for 408/409/429/5xx', async () => {
    for (const status of [400, 401, 403, 404, 408, 409, 422, 429, 500, 502, 503, 504]) {
      const err = await thrown(
        generateText({ model: model(MOCK_MODELS.small), prompt: 'hi', maxRetries: 0, headers: { 'x-mock-status': String(status) } }),
      );
      expect(APICallError.isInstance(err), String(status)).toBe(true);
      const e = err as APICallError;
      expect(e.statusCode).toBe(status);
      expect(typeof codeOf(e)).toBe('string');
      expect(e.isRetryable).toBe(status === 408 || status === 409 || status === 429 || status >= 500);
    }
  });

  test('streamText, failure before the stream opens: an error part carrying the APICallError', async () => {
    const errors: unknown[] = [];
    const result = streamText({
      model: model(MOCK_MODELS.small, { apiKey: 'sk-not-a-mock-key' }),
      prompt: 'hi',
      maxRetries: 0,
      onError: ({ error }) => {
        errors.push(error);
      },
    });
    const all = await parts(result);
    const errorParts = all.flatMap((p) => (p.type === 'error' ? [p.error] : []));
    expect(errorParts).toHaveLength(1);
    expect(APICallError.isInstance(errorParts[0])).toBe(true);
    expect((errorParts[0] as APICallError).statusCode).toBe(401);
    expect(codeOf(errorParts[0] as APICallError)).toBe('invalid_api_key');
    expect(errors).toEqual(errorParts);
    expect(all.some((p) => p.type === 'text-delta')).toBe(false);
  });

  // The AI SDK never throws from its stream iterators: an in-stream error event becomes an `error` part (the
  // event's error object as sent, here {message, type, code}), onError is called and the finish reason is
  // `error`. `await result.text` still resolves with the text received before the error, so a caller must
  // check finishReason (or the error part), not just read `text`: documented here so a change is noticed.
  test('an error after the stream opened: error part with code upstream_error and finish reason error', async () => {
    const whole = await generateText({ model: model(MOCK_MODELS.small), prompt: 'fail midway' });
    for (const failAfter of [0, 1, 3]) {
      for (const framing of ['lf', 'crlf,bytewise']) {
        const label = `fail-after ${failAfter} ${framing}`;
        const onError: unknown[] = [];
        const result = streamText({
          model: model(MOCK_MODELS.small, { includeUsage: true }),
          prompt: 'fail midway',
          headers: { 'x-mock-fail-after': String(failAfter), 'x-mock-framing': framing },
          onError: ({ error }) => {
            onError.push(error);
          },
        });
        const all = await parts(result);
        const errorParts = all.flatMap((p) => (p.type === 'error' ? [p.error] : []));
        expect(errorParts, label).toHaveLength(1);
        expect(errorParts[0]).toMatchObject({ type: 'api_error', code: 'upstream_error' });
        expect(onError).toEqual(errorParts);
        expect(await result.finishReason, label).toBe('error');
        expect(all.filter((p) => p.type === 'finish').map((p) => (p.type === 'finish' ? p.finishReason : ''))).toEqual(['error']);
        const partial = await result.text;
        expect(partial.length, label).toBeLessThan(whole.text.length);
        expect(whole.text.startsWith(partial)).toBe(true);
      }
    }
  });
});

// Documented behaviour of ai 6.x (retryWithExponentialBackoffRespectingRetryHeaders): generateText/streamText
// retry an APICallError whose isRetryable is true (status 408, 409, 429, 5xx) `maxRetries` times (default 2);
// the wait is `retry-after-ms`, else `retry-after` (when under 60 s), else 2 s doubling. After the last try the
// call throws RetryError (reason maxRetriesExceeded, lastError the APICallError); a non-retryable error on the
// first try is thrown as is. The openai-compatible provider does not read `x-should-retry`.
test.describe('retries', () => {
  test('503 with the default maxRetries (2): 3 requests spaced by retry-after (1 s), then RetryError', async () => {
    const counter = countingFetch();
    // The waits the SDK asks for, read from its timers rather than measured: a loaded machine stretches a gap, never
    // the delay requested. Only waits of a second or more are retry delays (the SDK's own first one is 2 s).
    const waits: number[] = [];
    const realSetTimeout = globalThis.setTimeout;
    globalThis.setTimeout = ((fn: (...a: unknown[]) => void, ms?: number, ...rest: unknown[]) => {
      if (typeof ms === 'number' && ms >= 1000) waits.push(ms);
      return realSetTimeout(fn, ms, ...rest);
    }) as typeof setTimeout;
    let err: unknown;
    try {
      err = await thrown(
        generateText({ model: model(MOCK_MODELS.small, { fetch: counter.fetch }), prompt: 'hi', headers: { 'x-mock-status': '503' } }),
      );
    } finally {
      globalThis.setTimeout = realSetTimeout;
    }
    expect(RetryError.isInstance(err)).toBe(true);
    const e = err as RetryError;
    expect(e.reason).toBe('maxRetriesExceeded');
    expect(e.errors).toHaveLength(3);
    expect(APICallError.isInstance(e.lastError)).toBe(true);
    expect((e.lastError as APICallError).statusCode).toBe(503);
    expect(codeOf(e.lastError as APICallError)).toBe('service_unavailable');
    expect(counter.sent.map((s) => s.status)).toEqual([503, 503, 503]);
    // retry-after: 1 replaces the SDK's own delays (2 s, then 4 s): two waits of 1 s, and the requests came after them.
    // (Other timers of a second or more run meanwhile, the mock's and the HTTP client's: only the SDK's delays count.)
    expect(waits.filter((ms) => ms === 1000)).toHaveLength(2);
    expect(waits.filter((ms) => ms === 2000 || ms === 4000), "the SDK's own backoff was used").toEqual([]);
    const gaps = counter.sent.slice(1).map((s, i) => s.at - counter.sent[i]!.at);
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(950);
  });

  test('no_route_available (503, x-should-retry: false): the AI SDK ignores the header and retries', async () => {
    const counter = countingFetch();
    const err = await thrown(
      generateText({
        model: model(MOCK_MODELS.routes, { fetch: counter.fetch }),
        prompt: 'hi',
        maxRetries: 1,
        // Unknown provider options are sent as extra body fields: `provider` (2.8).
        providerOptions: { mock: { provider: { order: [downRoute()], allow_fallbacks: false } } },
      }),
    );
    expect(RetryError.isInstance(err)).toBe(true);
    const last = (err as RetryError).lastError as APICallError;
    expect(codeOf(last)).toBe('no_route_available');
    expect(last.responseHeaders?.['x-should-retry']).toBe('false');
    expect(counter.sent).toHaveLength(2);
    // No retry-after on this refusal, so the SDK waits its own first delay (2 s).
    expect(last.responseHeaders?.['retry-after']).toBeUndefined();
    expect(counter.sent[1]!.at - counter.sent[0]!.at).toBeGreaterThanOrEqual(1900);
  });

  test('streamText retries a 503 before the stream opens', async () => {
    const counter = countingFetch();
    const result = streamText({ model: model(MOCK_MODELS.unavailable, { fetch: counter.fetch }), prompt: 'hi', maxRetries: 1, onError: silent });
    const errorParts = (await parts(result)).flatMap((p) => (p.type === 'error' ? [p.error] : []));
    expect(errorParts).toHaveLength(1);
    expect(RetryError.isInstance(errorParts[0])).toBe(true);
    expect(codeOf((errorParts[0] as RetryError).lastError as APICallError)).toBe('model_unavailable');
    expect(counter.sent).toHaveLength(2);
  });

  test('400, 401 and 403 are not retried (APICallError thrown as is); neither is an error after the stream opened', async () => {
    for (const status of ['400', '401', '403']) {
      const counter = countingFetch();
      const err = await thrown(
        generateText({ model: model(MOCK_MODELS.small, { fetch: counter.fetch }), prompt: 'hi', headers: { 'x-mock-status': status } }),
      );
      expect(APICallError.isInstance(err), status).toBe(true);
      expect(counter.sent, status).toHaveLength(1);
    }
    const counter = countingFetch();
    const result = streamText({
      model: model(MOCK_MODELS.small, { fetch: counter.fetch }),
      prompt: 'hi',
      headers: { 'x-mock-fail-after': '2' },
      onError: silent,
    });
    await parts(result);
    expect(await result.finishReason).toBe('error');
    expect(counter.sent).toHaveLength(1);
  });
});

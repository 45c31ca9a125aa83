// Issue 8, point 2: the mock in-process. `setupServer(...handlers)` from msw/node intercepts the unmodified
// openai SDK's requests to a host that does not exist; nothing listens. MSW patches the globals of this worker
// process, so the file runs serially, listens in beforeAll, closes in afterAll and checks that the global fetch
// is the original again (no interception leaks into the next file this worker runs).
import { expect, test } from '@playwright/test';
import { setupServer } from 'msw/node';
import OpenAI, { AuthenticationError, type APIError } from 'openai';
import { generateText } from 'ai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { MOCK_KEYS, MOCK_MODELS, fixtureEntries, handlers, publicEntry } from '../../mock/index.ts';

test.describe.configure({ mode: 'serial' });

/** A host that does not resolve: a request that escaped interception would fail. */
const BASE_URL = 'https://mock.chatconform.test/v1';

const server = setupServer(...handlers);
const intercepted: string[] = [];
let originalFetch: typeof fetch;

test.beforeAll(() => {
  originalFetch = globalThis.fetch;
  server.events.on('request:start', ({ request }) => {
    intercepted.push(`${request.method} ${request.url}`);
  });
  server.listen({ onUnhandledRequest: 'error' });
});

test.afterAll(() => {
  server.events.removeAllListeners();
  server.close();
  expect(globalThis.fetch, 'the global fetch is restored after server.close()').toBe(originalFetch);
});

test.beforeEach(() => {
  intercepted.length = 0;
});

/**
 * Created after server.listen(): openai-node captures the global fetch when the client is constructed, so a
 * client built before listen() would bypass MSW.
 */
const client = (apiKey: string = MOCK_KEYS.full): OpenAI => new OpenAI({ baseURL: BASE_URL, apiKey, maxRetries: 0 });

test('list models and retrieve one with a slash in its id', async () => {
  const page = await client().models.list();
  expect(page.data.map((m) => m.id)).toEqual(fixtureEntries().filter((e) => e.mock.state !== 'deactivated').map((e) => e.id));
  expect(await client().models.retrieve(MOCK_MODELS.large)).toEqual(publicEntry(MOCK_MODELS.large));
  expect(intercepted).toEqual([`GET ${BASE_URL}/models`, `GET ${BASE_URL}/models/${encodeURIComponent(MOCK_MODELS.large)}`]);
});

test('chat, non-streamed', async () => {
  const res = await client().chat.completions.create({ model: MOCK_MODELS.small, messages: [{ role: 'user', content: 'hello' }] });
  expect(res.choices[0]!.message.content).toMatch(/^Mock answer:/);
  expect(res.choices[0]!.finish_reason).toBe('stop');
  expect(intercepted).toEqual([`POST ${BASE_URL}/chat/completions`]);
});

test('chat, streamed (with usage): the same text as non-streamed', async () => {
  const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'stream in-process' }];
  const whole = await client().chat.completions.create({ model: MOCK_MODELS.small, messages });
  const stream = await client().chat.completions.create(
    { model: MOCK_MODELS.small, messages, stream: true, stream_options: { include_usage: true } },
    { headers: { 'x-mock-framing': 'crlf' } },
  );
  let text = '';
  let usage: OpenAI.CompletionUsage | undefined;
  for await (const chunk of stream) {
    text += chunk.choices[0]?.delta?.content ?? '';
    usage ??= chunk.usage ?? undefined;
  }
  expect(text).toBe(whole.choices[0]!.message.content);
  expect(usage).toEqual(whole.usage);
});

test('errors and scenario headers work in-process too', async () => {
  const err = await client('sk-not-a-mock-key')
    .chat.completions.create({ model: MOCK_MODELS.small, messages: [{ role: 'user', content: 'hi' }] })
    .then(() => undefined, (e: unknown) => e);
  expect(err).toBeInstanceOf(AuthenticationError);
  expect((err as APIError).code).toBe('invalid_api_key');

  const stream = await client().chat.completions.create(
    { model: MOCK_MODELS.small, messages: [{ role: 'user', content: 'hi' }], stream: true },
    { headers: { 'x-mock-fail-after': '2' } },
  );
  const streamErr = await (async () => {
    for await (const _ of stream) {
      // drain
    }
  })().then(() => undefined, (e: unknown) => e);
  expect((streamErr as APIError).code).toBe('upstream_error');
});

test('any mount prefix before /v1/, and the AI SDK through the same interception', async () => {
  const prefixed = new OpenAI({ baseURL: 'https://gateway.chatconform.test/api/v1', apiKey: MOCK_KEYS.full, maxRetries: 0 });
  expect((await prefixed.models.list()).data.length).toBeGreaterThan(0);

  // The AI SDK reads the global fetch at call time, so it is intercepted whenever the server listens.
  const provider = createOpenAICompatible({ name: 'mock', baseURL: BASE_URL, apiKey: MOCK_KEYS.full });
  const res = await generateText({ model: provider.chatModel(MOCK_MODELS.small), prompt: 'hello', maxRetries: 0 });
  expect(res.text).toMatch(/^Mock answer:/);
  expect(intercepted).toEqual(['GET https://gateway.chatconform.test/api/v1/models', `POST ${BASE_URL}/chat/completions`]);
});

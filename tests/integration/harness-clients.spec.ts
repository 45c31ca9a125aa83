// Issue 16: the mock as a client author's test harness, driven the way a client author drives it, with the
// official SDKs unmodified (only base URL and key change) and no x-mock-* header anywhere:
// - the openai SDK retries a 429 that a server-wide fault (`chatconform mock --fault`, another process) answers,
//   and the journal shows each try;
// - the AI SDK reports a stream cut by a runtime fault (set for one test over the control API) as an error;
// - a scripted tool-call loop runs two tool rounds with the openai SDK's runTools, then answers.
// The last two use the Playwright fixture of docs/testing.md (support/chatconform-fixture.ts).
import OpenAI from 'openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { streamText, type TextStreamPart, type ToolSet } from 'ai';
import { startChatconformMock, type ChatconformMock } from '../../entries/testing.ts';
import { MOCK_MODELS } from '../../mock/keys-and-models.ts';
import { expect, test } from './support/chatconform-fixture.ts';
import { CliProcesses } from './support/cli-process.ts';

test.describe('a server-wide fault from the command line (another process)', () => {
  const cli = new CliProcesses();
  let mock: ChatconformMock;

  test.beforeAll(async () => {
    // The first two of every three requests get 429 with retry-after: 0 (so the SDK's wait is its own short backoff).
    const { url } = await cli.start(['mock', '--port', '0', '--fault', '429:retry-after=0@2/3']);
    mock = await startChatconformMock({ url });
  });
  test.afterAll(async () => {
    await mock?.close();
    cli.stopAll();
  });

  test('the openai SDK retries the 429s (maxRetries 2) and succeeds on its third try; the journal shows the three', async () => {
    expect((await mock.faults.list()).map((f) => f.spec)).toEqual(['429:retry-after=0@2/3']);
    const client = new OpenAI({ baseURL: mock.baseURL, apiKey: mock.apiKey, maxRetries: 2 });
    const completion = await client.chat.completions.create({ model: MOCK_MODELS.small, messages: [{ role: 'user', content: 'retry me' }] });
    expect(completion.choices[0]!.message.content).toMatch(/^Mock answer:/);

    const tries = await mock.journal.entries();
    expect(tries.map((e) => [e.method, e.path, e.status, e.outcome])).toEqual([
      ['POST', '/v1/chat/completions', 429, 'error'],
      ['POST', '/v1/chat/completions', 429, 'error'],
      ['POST', '/v1/chat/completions', 200, 'answered'],
    ]);
    expect(tries.map((e) => e.faults ?? [])).toEqual([['429:retry-after=0@2/3'], ['429:retry-after=0@2/3'], []]);
    expect(tries.map((e) => e.error_code)).toEqual(['rate_limit_exceeded', 'rate_limit_exceeded', undefined]);
    // The SDK numbers its tries; nothing in the requests asked for a fault; the key never shows.
    expect(tries.map((e) => e.headers['x-stainless-retry-count'])).toEqual(['0', '1', '2']);
    for (const e of tries) {
      expect(Object.keys(e.headers).filter((h) => h.startsWith('x-mock-'))).toEqual([]);
      expect(e.headers.authorization).toBe('***REDACTED***');
    }
    // The body of the successful try is the one the SDK sent (the 429s were answered before the body was read).
    expect(tries[2]!.json).toEqual({ model: MOCK_MODELS.small, messages: [{ role: 'user', content: 'retry me' }] });
    expect((await mock.faults.list())[0]).toMatchObject({ seen: 3, fired: 2 });
  });
});

async function parts<T extends ToolSet>(result: { fullStream: AsyncIterable<TextStreamPart<T>> }): Promise<TextStreamPart<T>[]> {
  const out: TextStreamPart<T>[] = [];
  for await (const part of result.fullStream) out.push(part);
  return out;
}

test('the AI SDK survives a stream cut by a runtime fault and reports it as an error', async ({ mock }) => {
  const provider = createOpenAICompatible({ name: 'mock', baseURL: mock.baseURL, apiKey: mock.apiKey, includeUsage: true, headers: mock.headers });
  const whole = streamText({ model: provider.chatModel(MOCK_MODELS.small), prompt: 'tell me a story', onError: () => {} });
  const wholeText = await whole.text;

  const [fault] = await mock.faults.add('fail-after=3');
  expect(fault).toMatchObject({ spec: 'fail-after=3', test_id: mock.testId, seen: 0 });
  const errors: unknown[] = [];
  const cut = streamText({ model: provider.chatModel(MOCK_MODELS.small), prompt: 'tell me a story', onError: ({ error }) => void errors.push(error) });
  const all = await parts(cut);

  const errorParts = all.flatMap((p) => (p.type === 'error' ? [p.error] : []));
  expect(errorParts).toHaveLength(1);
  expect(errorParts[0]).toMatchObject({ type: 'api_error', code: 'upstream_error' });
  expect(errors).toEqual(errorParts);
  expect(await cut.finishReason).toBe('error');
  const partial = await cut.text;
  expect(partial.length).toBeLessThan(wholeText.length);
  expect(wholeText.startsWith(partial)).toBe(true);

  // Assert what the client sent, and what it got: the journal of this test only.
  const sent = await mock.journal.entries();
  expect(sent.map((e) => [e.test_id, e.outcome, e.faults ?? []])).toEqual([
    [mock.testId, 'stream', []],
    [mock.testId, 'stream-error', ['fail-after=3']],
  ]);
  expect(sent[1]!.json).toMatchObject({ model: MOCK_MODELS.small, stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: 'tell me a story' }] });
});

test('a scripted tool-call loop: the openai SDK runs two tool rounds, then gets the answer', async ({ mock }) => {
  await mock.script.set({
    rules: [
      { name: 'ask for the weather', match: { turn: 0 }, answer: { tool_calls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] } },
      { name: 'ask for the time', match: { turn: 1, tool_result: 'get_weather' }, answer: { tool_calls: [{ name: 'get_time', arguments: { zone: 'Europe/Paris' } }] } },
      { name: 'answer', match: { tool_result: 'get_time' }, answer: { content: 'It is 12:00 and sunny in Paris.' } },
    ],
  });
  const client = new OpenAI({ baseURL: mock.baseURL, apiKey: mock.apiKey, maxRetries: 0, defaultHeaders: mock.headers });
  const ran: string[] = [];
  const runner = client.chat.completions.runTools({
    model: MOCK_MODELS.small,
    messages: [{ role: 'user', content: 'Should I take an umbrella to my 12:00 meeting in Paris?' }],
    tools: [
      {
        type: 'function',
        function: {
          name: 'get_weather',
          description: 'The weather in a city',
          parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
          parse: JSON.parse,
          function: (args: { city: string }) => (ran.push(`get_weather ${args.city}`), '{"sky":"clear"}'),
        },
      },
      {
        type: 'function',
        function: {
          name: 'get_time',
          description: 'The time in a zone',
          parameters: { type: 'object', properties: { zone: { type: 'string' } }, required: ['zone'] },
          parse: JSON.parse,
          function: (args: { zone: string }) => (ran.push(`get_time ${args.zone}`), '12:00'),
        },
      },
    ],
  });
  expect(await runner.finalContent()).toBe('It is 12:00 and sunny in Paris.');
  expect(ran).toEqual(['get_weather Paris', 'get_time Europe/Paris']);

  const turns = await mock.journal.entries();
  expect(turns.map((e) => e.script_rule)).toEqual(['ask for the weather', 'ask for the time', 'answer']);
  expect(turns.map((e) => (e.json as { messages: unknown[] }).messages.length)).toEqual([1, 3, 5]);
  expect((await runner.totalUsage()).completion_tokens).toBeGreaterThan(0);
});

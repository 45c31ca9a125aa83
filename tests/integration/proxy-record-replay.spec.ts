// Issue 14: record through the proxy (`--record DIR`), then replay (`chatconform mock --replay DIR`). Non-streamed
// bodies come back byte-equal, streams event-equal; the openai SDK works against the replay; an unrecorded request
// gets a section 7 error naming what is missing, or with `--fallback generate` the generated mock's answer. No
// recording holds a credential.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import OpenAI, { NotFoundError } from 'openai';
import { MOCK_KEYS, MOCK_MODELS, startMockServer, type RunningMockServer } from '../../mock/index.ts';
import { createReplayService } from '../../mock/replay/service.ts';
import { readRecordings, requestKey, RecordingError } from '../../mock/replay/recording.ts';
import { startTrafficProxy } from '../../proxy/index.ts';
import { decodeSse } from '../../judge/decoding/sse.ts';
import { validate } from '../../spec/validator.ts';
import { CliProcesses } from './support/cli-process.ts';

let dir: string;
let recordDir: string;
const cli = new CliProcesses();
/** What the client got through the proxy while recording: raw bodies by request. */
const seen: { label: string; path: string; body?: string; text: string; stream: boolean }[] = [];

const key = { authorization: `Bearer ${MOCK_KEYS.full}`, 'content-type': 'application/json' };
const question = [{ role: 'user', content: 'Name three rivers of Europe.' }];
const requests = [
  { label: 'catalog', path: '/v1/models' },
  { label: 'entry', path: `/v1/models/${encodeURIComponent(MOCK_MODELS.small)}` },
  { label: 'completion', path: '/v1/chat/completions', body: JSON.stringify({ model: MOCK_MODELS.small, messages: question, max_completion_tokens: 30 }) },
  { label: 'stream', path: '/v1/chat/completions', body: JSON.stringify({ model: MOCK_MODELS.small, messages: question, stream: true, stream_options: { include_usage: true } }) },
  { label: 'refusal', path: '/v1/chat/completions', body: JSON.stringify({ model: 'no/such-model', messages: question }) },
];

async function send(base: string, r: { path: string; body?: string }, headers: Record<string, string> = key): Promise<Response> {
  return fetch(`${base}${r.path}`, r.body === undefined ? { headers } : { method: 'POST', headers, body: r.body });
}

/** `chatconform mock --replay` of the recording; its URL once it says it is replaying. */
async function startReplay(args: string[]): Promise<string> {
  const replay = await cli.start(['mock', '--port', '0', '--replay', recordDir, ...args], (out) => /^mock listening on (http:\/\/\S+) \(replaying \d+ exchange/m.exec(out)?.[1]);
  return replay.url;
}

test.beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'chatconform-replay-'));
  recordDir = path.join(dir, 'recorded');
  const mock: RunningMockServer = await startMockServer({ port: 0 });
  const proxy = await startTrafficProxy({ upstream: mock.url, port: 0, reportDir: path.join(dir, 'reports'), recordDir, onViolation: () => {}, log: () => {} });
  try {
    for (const r of requests) {
      const res = await send(proxy.url, r);
      seen.push({ ...r, text: await res.text(), stream: (res.headers.get('content-type') ?? '').includes('event-stream') });
    }
  } finally {
    await proxy.stop();
    await mock.close();
  }
});
test.afterAll(() => {
  cli.stopAll();
  rmSync(dir, { recursive: true, force: true });
});

test('the recording: one file per exchange, in the documented format, with no credential', () => {
  const files = readdirSync(recordDir).sort();
  expect(files).toEqual([
    '000001-get-v1-models.json',
    expect.stringMatching(/^000002-get-v1-models-acme-2Fchat-small\.json$/),
    '000003-post-v1-chat-completions.json',
    '000004-post-v1-chat-completions.json',
    '000005-post-v1-chat-completions.json',
  ]);
  for (const f of files) {
    const text = readFileSync(path.join(recordDir, f), 'utf8');
    expect(text).not.toContain(MOCK_KEYS.full);
    expect(validate('recording', JSON.parse(text)).valid, f).toBe(true);
  }
  const stream = readRecordings(recordDir)[3]!;
  // The event boundaries as sent: every chunk one event, [DONE] last.
  expect(stream.response.events!.at(-1)).toMatchObject({ data: '[DONE]', atMs: expect.any(Number) });
  expect(stream.response.events!.map((e) => e.data)).toEqual(decodeSse([seen[3]!.text]).map((e) => e.data));
  expect(stream.request.headers.authorization).toBeUndefined();
});

test('replay: bodies byte-equal, streams event-equal, refusals as recorded', async () => {
  const url = await startReplay([]);
  for (const r of seen) {
    const res = await send(url, r);
    const text = await res.text();
    if (r.stream) expect(decodeSse([text]), r.label).toEqual(decodeSse([r.text]));
    else expect(text, r.label).toBe(r.text);
  }
  // The n-th identical request gets the n-th answer, then the last again: still the recorded one here.
  expect(await (await send(url, requests[2]!)).text()).toBe(seen[2]!.text);
});

test('the openai SDK works against the replay', async () => {
  const url = await startReplay([]);
  const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: 'sk-any-key-the-replay-accepts', maxRetries: 0 });
  const list = await client.models.list();
  expect(list.data.map((m) => m.id)).toContain(MOCK_MODELS.small);
  const done = await client.chat.completions.create({ model: MOCK_MODELS.small, messages: [{ role: 'user', content: 'Name three rivers of Europe.' }], max_completion_tokens: 30 });
  expect(done.choices[0]!.message.content).toBe((JSON.parse(seen[2]!.text) as { choices: { message: { content: string } }[] }).choices[0]!.message.content);
  const stream = await client.chat.completions.create({ model: MOCK_MODELS.small, messages: [{ role: 'user', content: 'Name three rivers of Europe.' }], stream: true, stream_options: { include_usage: true } });
  let text = '';
  for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
  expect(text.length).toBeGreaterThan(0);
  // Not recorded: a section 7 error that says what is missing.
  const missing = await client.chat.completions.create({ model: MOCK_MODELS.small, messages: [{ role: 'user', content: 'never asked' }] }).catch((e: unknown) => e);
  expect(missing).toBeInstanceOf(NotFoundError);
  const err = missing as NotFoundError;
  expect(err.code).toBe('not_recorded');
  expect(err.message).toMatch(/no recording .* matches POST \/v1\/chat\/completions \(model "acme\/chat-small", 1 message\(s\): no recorded completion has this normalised request\)/);
});

test('--fallback generate: an unrecorded request is answered by the generated mock', async () => {
  const url = await startReplay(['--fallback', 'generate']);
  const res = await send(url, { path: '/v1/chat/completions', body: JSON.stringify({ model: MOCK_MODELS.small, messages: [{ role: 'user', content: 'never asked' }] }) }, { authorization: 'Bearer sk-not-a-mock-key', 'content-type': 'application/json' });
  expect(res.status).toBe(200);
  const body = (await res.json()) as { choices: { message: { content: string } }[] };
  expect(body.choices[0]!.message.content.length).toBeGreaterThan(0);
});

test('the normalised request: key order, unlisted fields and credentials do not matter; what the service reads does', () => {
  const a = requestKey('POST', '/v1/chat/completions', { json: { model: 'm', messages: [{ role: 'user', content: 'x' }], user: 'u1' } });
  const b = requestKey('post', '/v1/chat/completions/', { json: { messages: [{ content: 'x', role: 'user' }], model: 'm', metadata: { t: 1 } } });
  expect(a).toBe(b);
  expect(requestKey('POST', '/v1/chat/completions', { json: { model: 'm', messages: [], stream: true } })).not.toBe(requestKey('POST', '/v1/chat/completions', { json: { model: 'm', messages: [] } }));
});

test('bad recordings are refused with the file and the problem named', async () => {
  const bad = path.join(dir, 'bad');
  rmSync(bad, { recursive: true, force: true });
  const { mkdirSync } = await import('node:fs');
  mkdirSync(bad);
  writeFileSync(path.join(bad, '000001-get-v1-models.json'), '{"format": "something-else"}');
  expect(() => createReplayService({ dir: bad })).toThrow(RecordingError);
  expect(() => createReplayService({ dir: bad })).toThrow(/000001-get-v1-models\.json does not match spec\/schemas\/recording\.schema\.json/);
  expect(() => createReplayService({ dir: path.join(dir, 'nowhere') })).toThrow(/no such directory/);
  // The CLI: one line, exit 3 (a file the command cannot use).
  const { code, stderr } = await cli.run(['mock', '--port', '0', '--replay', bad]);
  expect(code).toBe(3);
  expect(stderr).toMatch(/^error: --replay .*000001-get-v1-models\.json does not match/m);
});

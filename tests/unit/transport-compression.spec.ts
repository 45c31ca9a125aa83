// Compressed answers (issue 29, item 6): HTTP lets a server compress what the client accepts, and the contract
// says nothing against it. The target client undoes gzip, deflate and br, records the coding in the exchange,
// and the judge sees the decoded answer, a stream included; a body that does not decode is a transport failure.
import http from 'node:http';
import { rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import zlib from 'node:zlib';
import { expect, test } from '@playwright/test';
import { Checker } from '../../judge/checker.ts';
import { judgeCompletion, judgeStream } from '../../judge/judge-response.ts';
import { ACCEPT_ANY_CODING, type ContentCoding } from '../../run/http.ts';
import { Target } from '../../run/target.ts';
import { unitRunConfig } from '../support/run-config.ts';
import { startMockServer } from '../../mock/server.ts';
import { MOCK_KEYS } from '../../mock/keys-and-models.ts';

const KEY = 'sk-unit-compression-0123456789';
const MODEL = 'acme/chat-small';
const COMPLETION = {
  id: 'chatcmpl-unit',
  object: 'chat.completion',
  created: Math.floor(Date.now() / 1000),
  model: MODEL,
  choices: [{ index: 0, message: { role: 'assistant', content: 'Hello there.' }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 },
};
const chunk = (delta: Record<string, unknown>, finish?: string) => ({ id: 'chatcmpl-unit', object: 'chat.completion.chunk', created: COMPLETION.created, model: MODEL, choices: [{ index: 0, delta, ...(finish ? { finish_reason: finish } : {}) }] });
const EVENTS = [chunk({ role: 'assistant' }), chunk({ content: 'Hello ' }), chunk({ content: 'there.' }), chunk({}, 'stop')].map((c) => `data: ${JSON.stringify(c)}\n\n`).concat('data: [DONE]\n\n');

const compressor = (coding: ContentCoding) => (coding === 'gzip' ? zlib.createGzip() : coding === 'deflate' ? zlib.createDeflate() : zlib.createBrotliCompress());

let server: http.Server;
let baseUrl: string;
const accepted: (string | undefined)[] = [];
const folders: string[] = [];

test.beforeAll(async () => {
  // The coding comes from the request's x-unit-coding; a stream is flushed event by event, as a server does.
  server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (d: Buffer) => (raw += d.toString('utf8')));
    req.on('end', () => {
      accepted.push(req.headers['accept-encoding']);
      const coding = req.headers['x-unit-coding'] as ContentCoding | 'corrupt';
      const stream = JSON.parse(raw || '{}').stream === true;
      if (coding === 'corrupt') {
        res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
        return void res.end(Buffer.from('not gzip at all'));
      }
      res.writeHead(200, { 'content-type': stream ? 'text/event-stream' : 'application/json', 'content-encoding': coding, vary: 'accept-encoding' });
      const z = compressor(coding);
      z.pipe(res);
      if (!stream) return void z.end(JSON.stringify(COMPLETION));
      for (const e of EVENTS) {
        z.write(e);
        z.flush();
      }
      z.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

test.afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  for (const dir of folders) rmSync(dir, { recursive: true, force: true });
});

const newTarget = () => new Target(unitRunConfig({ baseUrl, apiKey: KEY, folders }));
const ask = (target: Target, coding: string, stream = false) =>
  target.chat({ model: MODEL, messages: [{ role: 'user', content: 'Say hello.' }], ...(stream ? { stream: true } : {}) }, { headers: { 'accept-encoding': ACCEPT_ANY_CODING, 'x-unit-coding': coding } });

for (const coding of ['gzip', 'deflate', 'br'] as const) {
  test(`a ${coding} answer is decoded, recorded as ${coding}, and judged like an uncompressed one; a ${coding} stream too`, async () => {
    const target = newTarget();
    const res = await ask(target, coding);
    expect(accepted.at(-1)).toBe(ACCEPT_ANY_CODING);
    expect(res.exchange.responseEncoding).toBe(coding);
    expect(res.exchange.error).toBeUndefined();
    expect(res.json()).toEqual(COMPLETION);
    expect(res.exchange.responseBody).toBe(JSON.stringify(COMPLETION));
    const streamed = await ask(target, coding, true);
    expect(streamed.exchange.responseEncoding).toBe(coding);
    expect(streamed.text).toBe(EVENTS.join(''));

    const check = new Checker(target);
    judgeCompletion(check, res, MODEL);
    judgeStream(check, streamed, MODEL, { expectText: true });
    // A rule whose case this answer does not carry (a tool call, a search) is no case: not judged, not unclean.
    expect(check.records.filter((r) => r.status !== 'pass' && !r.notApplicable).map((r) => `${r.status} ${r.id}: ${r.message}`)).toEqual([]);
    expect(check.records.filter((r) => r.exchange === 0).length).toBeGreaterThan(0);
    expect(check.records.filter((r) => r.exchange === 1).length).toBeGreaterThan(0);
  });
}

test('an answer that says gzip but does not decode is a protocol failure of the transport, with its status kept', async () => {
  const res = await ask(newTarget(), 'corrupt');
  expect(res.status).toBe(200);
  expect(res.exchange.errorKind).toBe('protocol');
  expect(res.exchange.responseEncoding).toBe('gzip');
});

test('the mock\'s compressed variant gzips what a client accepts, a stream too, and nothing else; each answer is judged clean', async () => {
  const mock = await startMockServer({ port: 0, variant: ['compressed'] });
  try {
    const target = new Target(unitRunConfig({ baseUrl: mock.url, apiKey: MOCK_KEYS.full, folders }));
    const body = { model: MODEL, messages: [{ role: 'user', content: 'Say hello.' }], max_completion_tokens: 8 };
    const gzipped = await target.chat(body, { headers: { 'accept-encoding': ACCEPT_ANY_CODING } });
    const streamed = await target.chat({ ...body, stream: true }, { headers: { 'accept-encoding': 'gzip' } });
    const plain = await target.chat(body);
    const refused = await target.chat(body, { headers: { 'accept-encoding': 'gzip;q=0, identity' } });
    expect([gzipped, streamed, plain, refused].map((r) => r.exchange.responseEncoding ?? 'identity')).toEqual(['gzip', 'gzip', 'identity', 'identity']);
    const check = new Checker(target);
    for (const r of [gzipped, plain, refused]) judgeCompletion(check, r, MODEL);
    // A rule whose case this answer does not carry (a tool call, a search) is no case: not judged, not unclean.
    judgeStream(check, streamed, MODEL, { expectText: true });
    expect(check.records.filter((r) => r.status !== 'pass' && !r.notApplicable).map((r) => `${r.status} ${r.id}: ${r.message}`)).toEqual([]);
  } finally {
    await mock.close();
  }
});

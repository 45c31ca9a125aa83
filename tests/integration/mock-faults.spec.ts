// The faults client authors ask for, on the wire (node:http on 127.0.0.1, and MSW in process): a malformed JSON body
// on a 200, a connection reset mid-stream, a stall with no bytes. Each time a client sees the fault, and the mock keeps
// serving other clients meanwhile. The grammar and the answers themselves: tests/unit/mock-faults.spec.ts.
import { expect, test } from '@playwright/test';
import http from 'node:http';
import { setupServer } from 'msw/node';
import { decodeSse } from '../../judge/decoding/sse.ts';
import { createHandlers } from '../../mock/handlers.ts';
import { MOCK_KEYS, MOCK_MODELS } from '../../mock/keys-and-models.ts';
import { startMockServer } from '../../mock/server.ts';
import { useMock } from './support/use-mock.ts';

const server = useMock(test);

interface Raw {
  status?: number;
  headers?: http.IncomingHttpHeaders;
  body: string;
  /** the error that ended the exchange (ECONNRESET for a reset), if any */
  error?: NodeJS.ErrnoException;
}

/** One request with node:http, read to its end or to the error that ends it. `abortAfterMs` gives up that early. */
function raw(base: string, method: string, path: string, opts: { headers?: Record<string, string>; body?: unknown; onRequest?: (req: http.ClientRequest) => void } = {}): Promise<Raw> {
  return new Promise((resolve) => {
    const out: Raw = { body: '' };
    const text = opts.body === undefined ? undefined : JSON.stringify(opts.body);
    const req = http.request(`${base}${path}`, {
      method,
      headers: { ...(text !== undefined ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) } : {}), ...opts.headers },
      agent: false,
    });
    const end = (error?: NodeJS.ErrnoException): void => {
      if (error) out.error = error;
      resolve(out);
    };
    req.on('response', (res) => {
      out.status = res.statusCode;
      out.headers = res.headers;
      res.setEncoding('utf8');
      res.on('data', (d: string) => (out.body += d));
      res.on('end', () => end());
      res.on('error', end);
    });
    req.on('error', end);
    opts.onRequest?.(req);
    req.end(text);
  });
}

const chatBody = (over: Record<string, unknown> = {}) => ({ model: MOCK_MODELS.small, messages: [{ role: 'user', content: 'Hello' }], ...over });
const auth = { authorization: `Bearer ${MOCK_KEYS.full}` };

test.describe('node:http', () => {
  test('malformed JSON on a 200: the client reads a 200 application/json body that does not parse', async () => {
    const bad = await raw(server.url, 'POST', '/v1/chat/completions', { headers: { ...auth, 'x-mock-malformed-json': 'true' }, body: chatBody() });
    expect(bad.status).toBe(200);
    expect(bad.headers!['content-type']).toBe('application/json');
    expect(bad.headers!['content-length']).toBe(String(Buffer.byteLength(bad.body)));
    expect(bad.body.startsWith('{"id":"chatcmpl-')).toBe(true);
    expect(() => JSON.parse(bad.body)).toThrow(SyntaxError);
    const good = await raw(server.url, 'POST', '/v1/chat/completions', { headers: auth, body: chatBody() });
    expect(JSON.parse(good.body).object).toBe('chat.completion');
  });

  test('a reset mid-stream: the client gets the first N events, then ECONNRESET; others are served meanwhile', async () => {
    const [cut, other] = await Promise.all([
      raw(server.url, 'POST', '/v1/chat/completions', { headers: { ...auth, 'x-mock-reset-after': '3', 'x-mock-chunk-delay-ms': '20' }, body: chatBody({ stream: true }) }),
      raw(server.url, 'GET', '/v1/models'),
    ]);
    expect(cut.status).toBe(200);
    expect(cut.error?.code).toBe('ECONNRESET');
    const events = decodeSse([cut.body]);
    // The three events sent before the reset arrive (the reset comes where the fourth would), never [DONE].
    expect(events.length).toBe(3);
    expect(cut.body).not.toContain('[DONE]');
    expect(other.status).toBe(200);
    expect(JSON.parse(other.body).object).toBe('list');
  });

  test('a reset by a runtime fault, as a server-wide --fault', async () => {
    const mock = await startMockServer({ port: 0, fault: 'reset-after=1@1/2' });
    try {
      const first = await raw(mock.url, 'POST', '/v1/chat/completions', { headers: auth, body: chatBody({ stream: true }) });
      const second = await raw(mock.url, 'POST', '/v1/chat/completions', { headers: auth, body: chatBody({ stream: true }) });
      expect(first.error?.code).toBe('ECONNRESET');
      expect(first.body).not.toContain('[DONE]');
      expect(second.error).toBeUndefined();
      expect(second.body).toContain('data: [DONE]');
    } finally {
      await mock.close();
    }
  });

  test('a stall: no byte; it ends when the client goes away, and the mock serves others meanwhile', async () => {
    const mock = await startMockServer({ port: 0 });
    try {
      const testId = { 'x-chatconform-test-id': 'stall' };
      const added = await raw(mock.url, 'POST', '/_chatconform/faults', { headers: testId, body: { fault: 'stall=300s' } });
      expect(added.status).toBe(201);
      let stalled!: http.ClientRequest;
      const pending = raw(mock.url, 'POST', '/v1/chat/completions', { headers: { ...auth, ...testId }, body: chatBody(), onRequest: (req) => (stalled = req) });
      // The fault fired once the request arrived (decided when it comes, before it is answered).
      const fired = async () => JSON.parse((await raw(mock.url, 'GET', '/_chatconform/faults?test_id=stall')).body).faults[0].fired as number;
      await expect.poll(fired).toBe(1);
      const served = await raw(mock.url, 'GET', '/v1/models');
      expect(served.status).toBe(200);
      const journal = async () => JSON.parse((await raw(mock.url, 'GET', '/_chatconform/journal?test_id=stall')).body).entries as { outcome: string; status: number }[];
      // Still stalled: the journal records a request when its answer is made.
      expect(await journal()).toEqual([]);
      stalled.destroy();
      const seen = await pending;
      expect(seen.status).toBeUndefined();
      expect(seen.body).toBe('');
      // The stall ended with the client, long before its bound of 300 s.
      await expect.poll(journal).toEqual([expect.objectContaining({ outcome: 'reset', status: 0, faults: ['stall=300s'] })]);
    } finally {
      await mock.close();
    }
  });

  test('a bounded stall resets the connection without a byte; close() ends stalls still pending', async () => {
    const mock = await startMockServer({ port: 0, fault: 'stall=100ms@1/2' });
    const first = await raw(mock.url, 'GET', '/v1/models');
    expect(first.status).toBeUndefined();
    expect(first.error?.code).toBe('ECONNRESET');
    expect((await raw(mock.url, 'GET', '/v1/models')).status).toBe(200);
    // The third request stalls (1 of every 2) for 100 ms; a stall without a bound: the header's 300 s.
    const long = raw(mock.url, 'GET', '/v1/models', { headers: { 'x-mock-stall-ms': '300000' } });
    const fired = async () => JSON.parse((await raw(mock.url, 'GET', '/_chatconform/faults')).body).faults[0].seen as number;
    await expect.poll(fired).toBe(3);
    await mock.close();
    const ended = await long;
    expect(ended.status).toBeUndefined();
    expect(ended.error).toBeDefined();
  });
});

test.describe('MSW', () => {
  const msw = setupServer(...createHandlers());
  test.beforeAll(() => msw.listen({ onUnhandledRequest: 'error' }));
  test.afterAll(() => msw.close());
  const url = 'http://mock.test/v1/chat/completions';
  const post = (headers: Record<string, string>, body: Record<string, unknown>, signal?: AbortSignal) =>
    fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...auth, ...headers }, body: JSON.stringify(body), ...(signal ? { signal } : {}) });

  test('malformed JSON, a reset stream and a stall reach a fetch client as the same faults', async () => {
    const bad = await post({ 'x-mock-malformed-json': '1' }, chatBody());
    expect(bad.status).toBe(200);
    await expect(bad.json()).rejects.toThrow(SyntaxError);

    const cut = await post({ 'x-mock-reset-after': '2' }, chatBody({ stream: true }));
    expect(cut.status).toBe(200);
    await expect(cut.text()).rejects.toThrow();

    const bounded = post({ 'x-mock-stall-ms': '50' }, chatBody());
    await expect(bounded).rejects.toThrow(/fetch failed|Failed to fetch|network/i);

    const abort = new AbortController();
    const stalled = post({ 'x-mock-stall-ms': '300000' }, chatBody(), abort.signal);
    const other = await post({}, chatBody());
    expect(other.status).toBe(200);
    abort.abort();
    await expect(stalled).rejects.toThrow(/abort/i);
  });
});

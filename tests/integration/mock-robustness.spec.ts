// The node:http adapter under inputs no client should send: every one gets a section-7 JSON error (never a 5xx,
// never a hang), a POST with no body at all is answered, `Expect: 100-continue` sends the 100 only once the
// mock reads the body, and 1,000 streams dropped by their clients leave the server's handles and memory flat
// (loose bounds: this proves nothing leaks per stream, it measures nothing).
import net from 'node:net';
import http from 'node:http';
import { expect, test } from '@playwright/test';
import { startMockServer } from '../../mock/server.ts';
import { MOCK_KEYS, MOCK_MODELS } from '../../mock/keys-and-models.ts';
import { useMock } from './support/use-mock.ts';
import { HANG_BOUND_MS } from '../support/hang-bound.ts';

const mock = useMock(test, { headersTimeoutMs: 2000, bodyIdleTimeoutMs: 2000, bodyTimeoutMs: 4000 });

/** Sends raw bytes on a fresh connection; resolves with everything the server sent until it closed (or 5 s). */
function raw(port: number, ...parts: (string | Buffer)[]): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    let out = '';
    const timer = setTimeout(() => socket.destroy(), 5000);
    socket.on('data', (d) => {
      out += d.toString('utf8');
      // One whole response with a Content-Length: done.
      const m = /\r\ncontent-length: (\d+)\r\n/i.exec(out);
      const head = out.indexOf('\r\n\r\n');
      if (m && head >= 0 && Buffer.byteLength(out.slice(head + 4)) >= Number(m[1])) socket.end();
    });
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(out);
    });
    socket.on('error', () => {});
    for (const p of parts) socket.write(p);
  });
}

const statusOf = (response: string): number => Number(/^HTTP\/1\.1 (\d{3})/.exec(response)?.[1] ?? 0);
const errorOf = (response: string): { type?: unknown; code?: unknown; message?: unknown } => {
  const body = response.slice(response.lastIndexOf('\r\n\r\n') + 4);
  return (JSON.parse(body) as { error: { type?: unknown; code?: unknown; message?: unknown } }).error;
};

test('every malformed request gets a 4xx section-7 JSON error, never a 5xx or a hang', async () => {
  const auth = `Authorization: Bearer ${MOCK_KEYS.full}\r\n`;
  const cases: { name: string; bytes: string }[] = [
    { name: 'no body, no Content-Length', bytes: `POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n${auth}Connection: close\r\n\r\n` },
    { name: 'not JSON', bytes: `POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n${auth}Content-Length: 5\r\nConnection: close\r\n\r\nhello` },
    { name: 'a JSON array', bytes: `POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n${auth}Content-Length: 2\r\nConnection: close\r\n\r\n[]` },
    { name: 'invalid UTF-8', bytes: `POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n${auth}Content-Length: 2\r\nConnection: close\r\n\r\n\u00ff\u00fe` },
    { name: 'no credential', bytes: 'POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}' },
    { name: 'a non-Bearer scheme', bytes: 'GET /v1/models HTTP/1.1\r\nHost: x\r\nAuthorization: Basic abc\r\nConnection: close\r\n\r\n' },
    { name: 'a malformed percent-escape', bytes: 'GET /v1/models/%E0%A4%A HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n' },
    { name: 'a wrong method', bytes: 'DELETE /v1/models HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n' },
    { name: 'an unknown path', bytes: 'GET /v2/everything HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n' },
    { name: 'a bad scenario header', bytes: 'GET /v1/models HTTP/1.1\r\nHost: x\r\nx-mock-framing: sideways\r\nConnection: close\r\n\r\n' },
    { name: 'another origin in absolute form', bytes: 'GET http://elsewhere.example/v1/models HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n' },
    { name: 'not HTTP at all', bytes: 'HELLO\r\n\r\n' },
    { name: 'headers too large', bytes: `GET /v1/models HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n` },
  ];
  for (const c of cases) {
    const response = await raw(mock.port, c.bytes);
    const status = statusOf(response);
    expect(status, `${c.name}: ${response.slice(0, 200)}`).toBeGreaterThanOrEqual(400);
    expect(status, c.name).toBeLessThan(500);
    expect(response, c.name).toMatch(/\r\ncontent-type: application\/json/i);
    const error = errorOf(response);
    for (const field of ['type', 'code', 'message'] as const) expect(typeof error[field], `${c.name}: error.${field}`).toBe('string');
  }
});

test('a POST with no body and no Content-Length is answered without waiting for a body', async () => {
  const t0 = Date.now();
  const response = await raw(mock.port, `POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${MOCK_KEYS.full}\r\n\r\n`);
  expect(statusOf(response)).toBe(400);
  expect(errorOf(response).code).toBe('invalid_json');
  expect(Date.now() - t0, 'answered at all (a hang bound, not a speed)').toBeLessThan(HANG_BOUND_MS);
});

test('Expect: 100-continue: the 100 comes when the mock reads the body, then the answer', async () => {
  const body = JSON.stringify({ model: MOCK_MODELS.small, messages: [{ role: 'user', content: 'hi' }] });
  const response = await new Promise<string>((resolve) => {
    const socket = net.connect(mock.port, '127.0.0.1');
    let out = '';
    let sent = false;
    socket.on('data', (d) => {
      out += d.toString('utf8');
      if (!sent && out.startsWith('HTTP/1.1 100')) {
        sent = true;
        socket.write(body);
      }
      if (/\r\n\r\n\{.*\}$/s.test(out.slice(out.indexOf('HTTP/1.1 2')))) socket.end();
    });
    socket.on('close', () => resolve(out));
    socket.write(
      `POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${MOCK_KEYS.full}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n`,
    );
    setTimeout(() => socket.destroy(), 5000);
  });
  expect(response.startsWith('HTTP/1.1 100 Continue\r\n\r\n')).toBe(true);
  expect(response).toContain('HTTP/1.1 200 OK');
});

test('answers made in the same turn go out together, each on its own connection; clients that hang up first are skipped', async () => {
  // The adapter writes the answers of one turn of the event loop at its end (mock/server.ts, TurnEnd). Many
  // requests at once, streamed and not, beside clients that hang up before their answer is written: each
  // answer must reach its own client, and be the one that question gets when asked alone.
  const ask = (i: number, stream: boolean): string =>
    JSON.stringify({ model: MOCK_MODELS.small, messages: [{ role: 'user', content: `question number ${i}` }], ...(stream ? { stream: true } : {}) });
  const headers = { authorization: `Bearer ${MOCK_KEYS.full}`, 'content-type': 'application/json' };
  const post = async (i: number, stream: boolean): Promise<string> => {
    const res = await fetch(`${mock.url}/v1/chat/completions`, { method: 'POST', headers, body: ask(i, stream) });
    expect(res.status).toBe(200);
    const text = await res.text();
    if (!stream) return (JSON.parse(text) as { choices: { message: { content: string } }[] }).choices[0]!.message.content;
    return text
      .split('\n\n')
      .filter((e) => e.startsWith('data: {'))
      .map((e) => (JSON.parse(e.slice(6)) as { choices: { delta?: { content?: string } }[] }).choices[0]?.delta?.content ?? '')
      .join('');
  };
  const hangUp = (i: number): Promise<void> =>
    new Promise((resolve) => {
      const body = ask(i, i % 2 === 0);
      const socket = net.connect(mock.port, '127.0.0.1', () => {
        socket.write(
          `POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${MOCK_KEYS.full}\r\n` +
            `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
        );
        socket.destroy();
        resolve();
      });
      socket.on('error', () => resolve());
    });
  const together = await Promise.all([
    ...Array.from({ length: 40 }, (_, i) => post(i, i % 3 === 0)),
    ...Array.from({ length: 10 }, (_, i) => hangUp(i).then(() => '')),
  ]);
  for (let i = 0; i < 40; i++) expect(together[i], `question ${i}`).toBe(await post(i, false));
  expect(new Set(together.slice(0, 40)).size).toBeGreaterThan(30);
});

test('1,000 streams aborted by the client leave handles and memory flat', async () => {
  test.setTimeout(120_000);
  // A server of its own, so the count of its connections is this test's alone.
  const own = await startMockServer({ port: 0 });
  try {
    const body = JSON.stringify({ model: MOCK_MODELS.small, messages: [{ role: 'user', content: 'hi' }], stream: true });
    const abortOne = (): Promise<void> =>
      new Promise((resolve) => {
        const req = http.request(`${own.url}/v1/chat/completions`, {
          method: 'POST',
          agent: false,
          // Every event waits 20 ms: the stream is open when its client goes away.
          headers: { authorization: `Bearer ${MOCK_KEYS.full}`, 'x-mock-chunk-delay-ms': '20', 'content-length': Buffer.byteLength(body) },
        });
        req.on('response', (res) => {
          res.once('data', () => {
            req.destroy();
            resolve();
          });
        });
        req.on('error', () => resolve());
        req.end(body);
      });
    const runBatch = async (n: number): Promise<void> => {
      let left = n;
      await Promise.all(
        Array.from({ length: 50 }, async () => {
          while (left > 0) {
            left--;
            await abortOne();
          }
        }),
      );
    };
    const handles = (): number => process.getActiveResourcesInfo().filter((r) => r === 'TCPSocketWrap' || r === 'Timeout').length;
    await runBatch(100); // warm up
    await new Promise((r) => setTimeout(r, 500));
    global.gc?.();
    const before = { handles: handles(), rss: process.memoryUsage().rss };
    await runBatch(1000);
    // Every aborted stream's socket and delay timer must go away.
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline && handles() > before.handles + 5) await new Promise((r) => setTimeout(r, 100));
    const after = { handles: handles(), rss: process.memoryUsage().rss };
    console.log(`  1,000 aborted streams: sockets and timers ${before.handles} -> ${after.handles}, RSS ${(before.rss / 2 ** 20).toFixed(0)} -> ${(after.rss / 2 ** 20).toFixed(0)} MB`);
    expect(after.handles).toBeLessThanOrEqual(before.handles + 5);
    expect(after.rss - before.rss).toBeLessThan(150 * 2 ** 20);
    expect((await fetch(`${own.url}/v1/models`)).status).toBe(200);
  } finally {
    await own.close();
  }
});

// Slow is not broken (run/http.ts, run/target.ts): the transport's two clocks, an idle timeout (time since the
// last byte) and an overall bound, and what the judge makes of an answer the kit stopped waiting for (`error`,
// with what arrived and when, never a failure); and the retry of a request whose reused connection dropped while
// its body was still being sent. Tiny servers on 127.0.0.1. No test asserts speed: each bounds a hang generously.
import { rmSync } from 'node:fs';
import http from 'node:http';
import type net from 'node:net';
import { expect, test } from '@playwright/test';
import { listen } from '../support/listen.ts';
import { sendRequest } from '../../run/http.ts';
import { Target } from '../../run/target.ts';
import { Checker } from '../../judge/checker.ts';
import { judgeStream } from '../../judge/judge-response.ts';
import { unitRunConfig } from '../support/run-config.ts';

/** Far above any idle timeout here: a test that reaches it has hung (the transport ignored its idle clock). */
const GENEROUS_MS = 30_000;

interface Tiny {
  url: string;
  close(): Promise<void>;
}

async function serve(handle: (req: http.IncomingMessage, res: http.ServerResponse) => void, setup?: (server: http.Server) => void): Promise<Tiny> {
  const server = http.createServer(handle);
  server.keepAliveTimeout = 60_000;
  setup?.(server);
  return listen(server);
}

const chunk = (n: number) => `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: n === 0 ? { role: 'assistant', content: 'w0 ' } : { content: `w${n} ` } }] })}\n\n`;

/** A stream of `events` chunks then [DONE], one event every `everyMs`; `events` Infinity: never ends. */
function dripping(everyMs: number, events: number): (req: http.IncomingMessage, res: http.ServerResponse) => void {
  return (req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    let n = 0;
    const timer = setInterval(() => {
      if (res.destroyed) return clearInterval(timer);
      if (n < events) return void res.write(chunk(n++));
      clearInterval(timer);
      res.end('data: [DONE]\n\n');
    }, everyMs);
    res.on('close', () => clearInterval(timer));
  };
}

/** The head and `events` chunks, then silence (the connection stays open). */
function goesSilent(events: number): (req: http.IncomingMessage, res: http.ServerResponse) => void {
  return (req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    for (let n = 0; n < events; n++) res.write(chunk(n));
  };
}

test('a stream that sends a byte every 200 ms for longer than the idle timeout passes through whole', async () => {
  // 12 events 200 ms apart: about 2.6 s, over three times the idle timeout.
  const server = await serve(dripping(200, 12));
  try {
    const res = await sendRequest({ method: 'POST', url: `${server.url}/v1/chat/completions`, headers: {}, body: Buffer.from('{}'), timeoutMs: GENEROUS_MS, idleTimeoutMs: 800 });
    expect(res.error).toBeUndefined();
    expect(res.status).toBe(200);
    expect(res.body.toString()).toContain('data: [DONE]');
    expect(res.body.toString().match(/^data: \{/gm)).toHaveLength(12);
  } finally {
    await server.close();
  }
});

test('a stream that goes silent times out on the idle clock, keeps its status, and says what arrived and when', async () => {
  test.setTimeout(2 * GENEROUS_MS);
  const server = await serve(goesSilent(3));
  try {
    const res = await sendRequest({ method: 'POST', url: `${server.url}/v1/chat/completions`, headers: {}, body: Buffer.from('{}'), timeoutMs: GENEROUS_MS, idleTimeoutMs: 500 });
    expect(res.status).toBe(200);
    expect(res.errorKind).toBe('timeout');
    expect(res.error).toMatch(/^request timed out after 500 ms while reading the response body \(the idle timeout: no byte in that time\): HTTP 200 arrived at \d+\.\d s, then \d+ body byte\(s\) \(3 event\(s\)\), the last at \d+\.\d s, \d+ ms before the kit stopped waiting$/);
    expect(res.body.toString().match(/^data: /gm)).toHaveLength(3);
  } finally {
    await server.close();
  }
});

test('a server that never answers times out on the idle clock, before any response, with status 0', async () => {
  test.setTimeout(2 * GENEROUS_MS);
  const server = await serve((req) => void req.resume());
  try {
    const res = await sendRequest({ method: 'GET', url: `${server.url}/v1/models`, headers: {}, timeoutMs: GENEROUS_MS, idleTimeoutMs: 500 });
    expect(res.status).toBe(0);
    expect(res.errorKind).toBe('timeout');
    expect(res.error).toBe('request timed out after 500 ms before any response (the idle timeout: no byte in that time)');
  } finally {
    await server.close();
  }
});

test('a stream still arriving at the overall bound is cut there, and the error says what had arrived and how recently', async () => {
  test.setTimeout(2 * GENEROUS_MS);
  const server = await serve(dripping(50, Infinity));
  try {
    const res = await sendRequest({ method: 'POST', url: `${server.url}/v1/chat/completions`, headers: {}, body: Buffer.from('{}'), timeoutMs: 1_500, idleTimeoutMs: 1_000 });
    expect(res.status).toBe(200);
    expect(res.errorKind).toBe('timeout');
    expect(res.error).toMatch(/^request timed out after 1500 ms while reading the response body \(the overall bound on one request\): HTTP 200 arrived at \d+\.\d s, then \d+ body byte\(s\) \(\d+ event\(s\)\), the last at \d+\.\d s/);
  } finally {
    await server.close();
  }
});

test('an upload that keeps moving, slower than the idle timeout in all, is not cut by the idle clock', async () => {
  test.setTimeout(2 * GENEROUS_MS);
  // The server reads about 1.6 MB per 100 ms: 64 MB take some four seconds, nearly three idle timeouts, during
  // which nothing is received; the bytes queued in the client keep shrinking, and that is progress.
  const server = await serve((req, res) => {
    let window = 0;
    req.on('data', (d: Buffer) => {
      window += d.length;
      if (window < 1_600_000) return;
      req.pause();
      setTimeout(() => {
        window = 0;
        req.resume();
      }, 100);
    });
    req.on('end', () => res.end('read'));
  });
  try {
    const body = Buffer.alloc(64 * 1024 * 1024, 0x23);
    const res = await sendRequest({ method: 'POST', url: `${server.url}/upload`, headers: {}, body, timeoutMs: GENEROUS_MS, idleTimeoutMs: 1_500 });
    expect(res.error).toBeUndefined();
    expect(res.body.toString()).toBe('read');
  } finally {
    await server.close();
  }
});

test.describe('the judge: an answer the kit stopped waiting for is error, never a failure', () => {
  const scratch: string[] = [];
  test.afterAll(() => {
    for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
  });

  for (const [what, handler, timeouts] of [
    ['went silent mid-stream (the idle clock)', goesSilent(3), { requestTimeoutMs: GENEROUS_MS, idleTimeoutMs: 500 }],
    ['was still arriving at the overall bound', dripping(50, Infinity), { requestTimeoutMs: 1_500, idleTimeoutMs: 1_000 }],
  ] as const) {
    test(`a stream that ${what}`, async () => {
      test.setTimeout(2 * GENEROUS_MS);
      const server = await serve(handler);
      try {
        const target = new Target(unitRunConfig({ baseUrl: server.url, apiKey: 'sk-unit-idle-0123456789', folders: scratch }, timeouts));
        const check = new Checker(target, { declared: () => [] });
        const res = await target.chat({ model: 'm', stream: true, messages: [{ role: 'user', content: 'hi' }] });
        expect(res.exchange.errorKind).toBe('timeout');
        judgeStream(check, res, 'm');
        const failed = check.records.filter((r) => r.status === 'fail' || r.status === 'warn');
        expect(failed.map((r) => `${r.id}: ${r.message}`)).toEqual([]);
        const error = check.records.find((r) => r.status === 'error');
        expect(error?.id).toBe('CHAT-005');
        expect(error?.message).toMatch(/^the kit stopped waiting before the answer \(HTTP 200\) was complete, so it is not judged \(timeout: request timed out after \d+ ms while reading the response body .*HTTP 200 arrived at .* event\(s\)/);
        // The stream's own requirements are skipped with that root cause, not judged on half a stream.
        expect(check.records.find((r) => r.id === 'STREAM-004')?.status).toBe('skip');
      } finally {
        await server.close();
      }
    });
  }
});

test('a request whose reused connection drops while its body is still being sent is sent again on a fresh one', async () => {
  test.setTimeout(2 * GENEROUS_MS);
  // The second request on a connection is read for 256 KB, then the connection is dropped: the server closing an
  // idle connection as the request arrives (HTTP/1.1 allows it), with the upload under way.
  const served = new WeakMap<net.Socket, number>();
  const seen: { connection: number; bytes: number }[] = [];
  let connections = 0;
  const ids = new WeakMap<net.Socket, number>();
  const server = await serve((req, res) => {
    const s = req.socket;
    if (!ids.has(s)) ids.set(s, ++connections);
    const nth = (served.get(s) ?? 0) + 1;
    served.set(s, nth);
    let bytes = 0;
    req.on('data', (d: Buffer) => {
      bytes += d.length;
      if (nth === 2 && bytes > 256 * 1024) s.destroy();
    });
    req.on('end', () => {
      seen.push({ connection: ids.get(s)!, bytes });
      res.end(`answer ${ids.get(s)}.${nth}`);
    });
  });
  try {
    const first = await sendRequest({ method: 'GET', url: `${server.url}/one`, headers: {}, timeoutMs: GENEROUS_MS });
    expect(first.status).toBe(200);
    // Large enough that most of it is still queued in the client when the connection drops.
    const body = Buffer.alloc(32 * 1024 * 1024, 0x23);
    const second = await sendRequest({ method: 'POST', url: `${server.url}/two`, headers: {}, body, timeoutMs: GENEROUS_MS });
    expect(second.error).toBeUndefined();
    expect(second.status).toBe(200);
    expect(second.body.toString()).toBe('answer 2.1');
    expect(second.events).toHaveLength(1);
    expect(second.events[0]!.kind).toBe('retried');
    expect(second.events[0]!.message).toMatch(/reused kept-alive one and it closed while the request body was still being sent, with nothing received, so the request was sent again on a fresh connection$/);
    // The whole body reached the server on the fresh connection.
    expect(seen.at(-1)).toEqual({ connection: 2, bytes: body.length });
  } finally {
    await server.close();
  }
});

// The suite's transport (run/http.ts) against tiny servers on 127.0.0.1: the retry on a fresh
// connection after a kept-alive close (and none after a close on a fresh one), the classification of each
// failure, the body cap and the event cap.
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { expect, test } from '@playwright/test';
import { EventCounter, sendRequest, type TransportRequest } from '../../run/http.ts';
import { listen } from '../support/listen.ts';
import { HANG_BOUND_MS } from '../support/hang-bound.ts';

interface Tiny {
  url: string;
  /** Requests seen, with the number of the connection each came on. */
  seen: { connection: number; method: string; body: string; headers: http.IncomingHttpHeaders }[];
  close(): Promise<void>;
}


/** An HTTP server whose handler gets the request, its connection number, and the how-many-th request on it. */
async function httpServer(handle: (req: http.IncomingMessage, res: http.ServerResponse, connection: number, nth: number) => void): Promise<Tiny> {
  const seen: Tiny['seen'] = [];
  const ids = new WeakMap<net.Socket, { id: number; count: number }>();
  let connections = 0;
  const server = http.createServer((req, res) => {
    let c = ids.get(req.socket);
    if (!c) ids.set(req.socket, (c = { id: ++connections, count: 0 }));
    const nth = ++c.count;
    const chunks: Buffer[] = [];
    req.on('data', (d: Buffer) => chunks.push(d));
    req.on('end', () => {
      seen.push({ connection: c.id, method: req.method ?? '', body: Buffer.concat(chunks).toString('utf8'), headers: req.headers });
      handle(req, res, c.id, nth);
    });
  });
  server.keepAliveTimeout = 60_000;
  return { ...(await listen(server)), seen };
}

const send = (url: string, extra: Partial<TransportRequest> = {}) => sendRequest({ method: 'GET', url, headers: {}, timeoutMs: 2_000, ...extra });

test('a request that dies unanswered on a reused kept-alive connection is sent again once, on a fresh one', async () => {
  // The second request on the first connection is dropped: the server closes the connection as it arrives,
  // the race HTTP/1.1 allows a server's idle close.
  const server = await httpServer((req, res, connection, nth) => {
    if (connection === 1 && nth === 2) return req.socket.destroy();
    res.end(`answer ${connection}.${nth}`);
  });
  try {
    const first = await send(`${server.url}/one`);
    expect(first.status).toBe(200);
    expect(first.events).toEqual([]);
    const second = await send(`${server.url}/two`, { method: 'POST', body: Buffer.from('{"n":2}'), headers: { 'content-type': 'application/json' } });
    expect(second.error).toBeUndefined();
    expect(second.status).toBe(200);
    expect(second.body.toString()).toBe('answer 2.1');
    expect(second.events).toHaveLength(1);
    expect(second.events[0]!.kind).toBe('retried');
    expect(second.events[0]!.message).toMatch(/reused kept-alive/);
    // The same bytes went both times: on the old connection and on a new one.
    expect(server.seen.map((s) => [s.connection, s.method, s.body])).toEqual([
      [1, 'GET', ''],
      [1, 'POST', '{"n":2}'],
      [2, 'POST', '{"n":2}'],
    ]);
  } finally {
    await server.close();
  }
});

test('no retry when the connection was fresh: the failure is reported as a reset with status 0', async () => {
  const server = await httpServer((req) => req.socket.destroy());
  try {
    const res = await send(`${server.url}/x`);
    expect(res.status).toBe(0);
    expect(res.errorKind).toBe('reset');
    expect(res.error).toMatch(/socket hang up|ECONNRESET/);
    expect(res.events).toEqual([]);
    expect(server.seen).toHaveLength(1);
  } finally {
    await server.close();
  }
});

test('no retry once response bytes arrived, even on a reused connection', async () => {
  const server = await httpServer((req, res, connection, nth) => {
    if (nth === 1) return res.end('ok');
    // Half a status line, then the connection dies: the request may have been processed.
    req.socket.end('HTTP/1.1 2');
  });
  try {
    expect((await send(`${server.url}/a`)).status).toBe(200);
    const res = await send(`${server.url}/b`);
    expect(res.status).toBe(0);
    expect(res.error).toBeDefined();
    expect(res.events).toEqual([]);
    expect(server.seen).toHaveLength(2);
  } finally {
    await server.close();
  }
});

test('the request body goes as given, bytes and Content-Length, never re-encoded', async () => {
  const server = await httpServer((_req, res) => res.end('ok'));
  try {
    const raw = Buffer.from('{"model": not json, "é": "\u00e9"', 'utf8');
    const res = await send(`${server.url}/raw`, { method: 'POST', body: raw, headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(200);
    expect(server.seen[0]!.body).toBe(raw.toString('utf8'));
    expect(server.seen[0]!.headers['content-length']).toBe(String(raw.length));
  } finally {
    await server.close();
  }
});

test('an answer that comes before the upload ends (an early 413, then the connection closed) is the answer', async () => {
  const seenHead: number[] = [];
  const server = http.createServer((req, res) => {
    seenHead.push(1);
    req.on('error', () => {});
    const body = '{"error":{"type":"invalid_request_error","code":"payload_too_large","message":"too large"}}';
    res.writeHead(413, { 'content-type': 'application/json', 'content-length': String(body.length), connection: 'close' });
    res.end(body);
    setTimeout(() => req.socket.destroy(), 100);
  });
  const t = await listen(server);
  try {
    const res = await send(`${t.url}/big`, { method: 'POST', body: Buffer.alloc(32 * 1024 * 1024, 'x'), timeoutMs: 10_000 });
    expect(res.status).toBe(413);
    expect(res.error).toBeUndefined();
    expect(JSON.parse(res.body.toString()).error.code).toBe('payload_too_large');
    expect(seenHead).toHaveLength(1);
  } finally {
    await t.close();
  }
});

test('classification: a server that never answers is a timeout with status 0, bounded by the deadline', async () => {
  const server = await httpServer(() => {});
  try {
    const started = Date.now();
    const res = await send(`${server.url}/hang`, { timeoutMs: 300 });
    const took = Date.now() - started;
    console.log(`timeout of 300 ms honoured in ${took} ms`);
    expect(res.status).toBe(0);
    expect(res.errorKind).toBe('timeout');
    expect(res.error).toMatch(/timed out after 300 ms before any response/);
    expect(took, 'a hang bound, not a speed: the error names the 300 ms deadline').toBeLessThan(HANG_BOUND_MS);
  } finally {
    await server.close();
  }
});

test('classification: a body that stalls after the head is a timeout that keeps the status', async () => {
  const server = await httpServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"partial":');
  });
  try {
    const res = await send(`${server.url}/stall`, { timeoutMs: 300 });
    expect(res.status).toBe(200);
    expect(res.errorKind).toBe('timeout');
    expect(res.error).toMatch(/while reading the response body/);
    expect(res.body.toString()).toBe('{"partial":');
  } finally {
    await server.close();
  }
});

test('classification: a body cut short of its Content-Length is a reset that keeps the status', async () => {
  const server = await httpServer((req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
    res.write('{"cut":', () => req.socket.destroy());
  });
  try {
    const res = await send(`${server.url}/cut`);
    expect(res.status).toBe(200);
    expect(res.errorKind).toBe('reset');
    expect(res.body.toString()).toBe('{"cut":');
  } finally {
    await server.close();
  }
});

test('classification: refused, protocol, tls, other', async () => {
  // refused: a port that was free a moment ago and is closed now
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const port = (probe.address() as AddressInfo).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  const refused = await send(`http://127.0.0.1:${port}/`);
  expect([refused.status, refused.errorKind]).toEqual([0, 'refused']);

  // protocol: bytes that are not HTTP
  const garbage = await listen(net.createServer((s) => s.once('data', () => s.end('\x16\x03garbage that is not HTTP\r\n\r\n'))));
  // tls: an https request to a plain-HTTP server
  const plain = await httpServer((_req, res) => res.end('plain'));
  try {
    const protocol = await send(`${garbage.url}/`);
    expect([protocol.status, protocol.errorKind]).toEqual([0, 'protocol']);
    const tls = await send(plain.url.replace('http:', 'https:'));
    expect([tls.status, tls.errorKind], tls.error).toEqual([0, 'tls']);
  } finally {
    await garbage.close();
    await plain.close();
  }

  const other = await send('ftp://127.0.0.1/');
  expect([other.status, other.errorKind]).toEqual([0, 'other']);
});

test('the body cap: past it the read stops, the connection is dropped, and the answer says so', async () => {
  const cap = 64 * 1024;
  let written = 0;
  const server = await httpServer((_req, res) => {
    // An endless chunked body: only the cap can stop it.
    res.writeHead(200, { 'content-type': 'application/json' });
    const block = Buffer.alloc(16 * 1024, 'x');
    const pump = () => {
      while (!res.destroyed && res.write(block)) written += block.length;
      if (!res.destroyed) res.once('drain', pump);
    };
    res.on('error', () => {});
    pump();
  });
  try {
    const res = await send(`${server.url}/big`, { maxBodyBytes: cap, timeoutMs: 10_000 });
    expect(res.status).toBe(200);
    expect(res.errorKind).toBe('too-large');
    expect(res.error).toBe(`response larger than ${cap} bytes`);
    expect(res.body.length).toBe(cap);
    // The server stops being read: what it could push is bounded by socket buffers, not by its will.
    await new Promise((r) => setTimeout(r, 200));
    const after = written;
    await new Promise((r) => setTimeout(r, 200));
    expect(written).toBe(after);
  } finally {
    await server.close();
  }
});

test('the event cap: a stream of more events than the cap stops with "more than N events"', async () => {
  const server = await httpServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    // 500 tiny events, with CRLF line ends, in one write
    res.end(Array.from({ length: 500 }, (_, i) => `data: {"n":${i}}\r\n\r\n`).join(''));
  });
  try {
    const res = await send(`${server.url}/stream`, { maxEvents: 50 });
    expect(res.status).toBe(200);
    expect(res.errorKind).toBe('too-large');
    expect(res.error).toBe('response stream of more than 50 events');
    const under = await send(`${server.url}/stream`, { maxEvents: 500 });
    expect(under.error).toBeUndefined();
    expect(under.body.toString().split('\r\n\r\n')).toHaveLength(501);
  } finally {
    await server.close();
  }
});

test('events are counted at blank lines, whatever the line ends and however the bytes are split', () => {
  const text = 'data: a\n\ndata: b\r\n\r\n: comment\r\rdata: c\ndata: d\n\n\n\n';
  for (const size of [1, 2, 3, 7, text.length]) {
    const counter = new EventCounter();
    const bytes = Buffer.from(text);
    for (let i = 0; i < bytes.length; i += size) counter.push(bytes.subarray(i, i + size));
    // a, b, the comment block, c+d: extra blank lines make no event
    expect(counter.count, `split every ${size} bytes`).toBe(4);
  }
});

test('Expect: 100-continue: the body waits for the 100, so a refusal from the head is read and the body never sent', async () => {
  let received = 0;
  const refusing = http.createServer();
  refusing.on('connection', (socket) => socket.on('data', (d: Buffer) => (received += d.length)));
  // A server that refuses from the head (Content-Length) and never asks for the body.
  refusing.on('checkContinue', (_req, res) => {
    res.writeHead(413, { 'content-type': 'application/json', connection: 'close' });
    res.end('{"error":{"type":"invalid_request_error","code":"too_large","message":"too large"}}');
  });
  const r = await listen(refusing);
  try {
    const body = Buffer.alloc(4 * 1024 * 1024, 'a');
    const res = await send(`${r.url}/v1/chat/completions`, { method: 'POST', body, headers: { expect: '100-continue', 'content-type': 'application/json' } });
    expect(res.status).toBe(413);
    expect(res.body.toString()).toContain('too_large');
    expect(received, 'bytes the server received: the head only').toBeLessThan(4096);
  } finally {
    await r.close();
  }
  // A server that sends its 100 (Node's does by itself) gets the whole body.
  const echo = await httpServer((req, res, _c, _n) => res.end(String(Number(req.headers['content-length']))));
  try {
    const body = Buffer.alloc(300_000, 'b');
    const res = await send(`${echo.url}/up`, { method: 'POST', body, headers: { expect: '100-continue' } });
    expect(res.status).toBe(200);
    expect(echo.seen[0]!.body.length).toBe(body.length);
  } finally {
    await echo.close();
  }
});

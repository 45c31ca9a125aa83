// Hostile targets: tiny node:http / node:net servers on 127.0.0.1 that misbehave at the transport level. The
// conformance suite run against each must finish in bounded time, write its report with failures and exit
// non-zero: never hang, never crash. Used by tests/integration/hostile-targets.spec.ts.
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { MOCK_KEYS } from '../../../mock/fixtures.ts';
import { startMockServer, type RunningMockServer } from '../../../mock/server.ts';

export interface HostileTarget {
  url: string;
  /** A key the target accepts, for the targets that put the real mock behind a proxy. */
  apiKey?: string;
  close(): Promise<void>;
}

/** Listens on 127.0.0.1 (free port); close() drops every open connection first, so nothing keeps it alive. */
async function listen(server: http.Server | net.Server, extra?: () => Promise<void>): Promise<HostileTarget> {
  const sockets = new Set<net.Socket>();
  server.on('connection', (s: net.Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    // A test target never lets a socket error crash the test process.
    s.on('error', () => {});
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await extra?.();
    },
  };
}

/** Drains a request body (so the client is not blocked writing it), bounded. */
function drain(req: http.IncomingMessage): void {
  req.on('error', () => {});
  req.resume();
}

/** Accepts every connection, reads the request, never answers. */
export function hangingTarget(): Promise<HostileTarget> {
  const server = http.createServer((req) => drain(req));
  server.requestTimeout = 0;
  server.headersTimeout = 0;
  server.keepAliveTimeout = 0;
  return listen(server);
}

/** Answers every connection with bytes that are not HTTP at all, then closes it. */
export function garbageTarget(): Promise<HostileTarget> {
  let seed = 0x2545f491;
  const garbage = Buffer.alloc(4096);
  for (let i = 0; i < garbage.length; i++) {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    garbage[i] = seed & 0xff;
  }
  const server = net.createServer((socket) => {
    socket.once('data', () => socket.end(garbage));
  });
  return listen(server);
}

const HTML = `<!doctype html><html><head><title>Welcome</title></head><body><h1>It works!</h1><p>${'<div class="spacer"></div>'.repeat(40)}</p></body></html>`;

/** Answers every request 200 with an HTML page (a default vhost, a captive portal, a login page). */
export function htmlTarget(): Promise<HostileTarget> {
  const server = http.createServer((req, res) => {
    drain(req);
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(HTML);
  });
  return listen(server);
}

/**
 * A real mock behind a proxy that answers everything intact except streamed completions, which it cuts
 * mid-stream: status and headers go out, then the first half of the events, then the connection is destroyed.
 */
export async function closesMidStreamTarget(): Promise<HostileTarget> {
  const mock = await startMockServer({ port: 0 });
  const server = http.createServer((req, res) => {
    void forward(mock, req).then(
      ({ status, headers, body, requestBody }) => {
        if (!asksForStream(requestBody) || status !== 200) {
          res.writeHead(status, headers);
          res.end(body);
          return;
        }
        // No content-length: the client cannot tell a cut body from a short one by length alone.
        delete headers['content-length'];
        res.writeHead(status, headers);
        res.write(body.subarray(0, Math.max(1, Math.floor(body.length / 2))), () => res.destroy());
      },
      () => res.destroy(),
    );
  });
  return { ...(await listen(server, () => mock.close())), apiKey: MOCK_KEYS.full };
}

/**
 * A real mock behind a proxy that serves the catalog intact, but answers every streamed chat completion with
 * a stream that never ends: one valid chunk every 5 ms, forever, and never [DONE].
 */
export async function streamsForeverTarget(): Promise<HostileTarget> {
  const mock = await startMockServer({ port: 0 });
  const server = http.createServer((req, res) => {
    void forward(mock, req).then(
      ({ status, headers, body, requestBody }) => {
        if (!asksForStream(requestBody) || status !== 200) {
          res.writeHead(status, headers);
          res.end(body);
          return;
        }
        let model = 'unknown';
        try {
          model = String((JSON.parse(requestBody.toString('utf8')) as { model?: unknown }).model);
        } catch {
          // keep "unknown"
        }
        res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
        let n = 0;
        const chunk = () =>
          `data: ${JSON.stringify({ id: 'chatcmpl-forever', object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model, choices: [{ index: 0, delta: { content: `word${n++} ` } }] })}\n\n`;
        const timer = setInterval(() => {
          if (res.destroyed || res.writableEnded) return clearInterval(timer);
          res.write(chunk());
        }, 5);
        res.on('close', () => clearInterval(timer));
      },
      () => res.destroy(),
    );
  });
  return { ...(await listen(server, () => mock.close())), apiKey: MOCK_KEYS.full };
}

/**
 * Answers every request 200 with a gigantic JSON-looking body, streamed as fast as the client reads it:
 * `{"object":"list","data":[],"padding":"xxxx…` for `bytes` bytes (never closed as JSON).
 */
export function giganticBodyTarget(bytes: number): Promise<HostileTarget> {
  const block = Buffer.alloc(1024 * 1024, 'x');
  const server = http.createServer((req, res) => {
    drain(req);
    const head = Buffer.from('{"object":"list","data":[],"padding":"');
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(bytes) });
    let sent = 0;
    const pump = () => {
      if (sent === 0) {
        res.write(head);
        sent = head.length;
      }
      while (sent < bytes) {
        const n = Math.min(block.length, bytes - sent);
        sent += n;
        if (!res.write(n === block.length ? block : block.subarray(0, n))) {
          res.once('drain', pump);
          return;
        }
      }
      res.end();
    };
    res.on('error', () => {});
    pump();
  });
  return listen(server);
}

/** Whether a request body is a chat request with stream true. */
function asksForStream(requestBody: Buffer): boolean {
  try {
    return (JSON.parse(requestBody.toString('utf8')) as { stream?: unknown }).stream === true;
  } catch {
    return false;
  }
}

/** Sends a request to the mock and buffers its whole answer (the proxies above need the body to cut it). */
async function forward(mock: RunningMockServer, req: http.IncomingMessage): Promise<{ status: number; headers: Record<string, string>; body: Buffer; requestBody: Buffer }> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const requestBody = Buffer.concat(chunks);
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string' && !['host', 'content-length', 'connection', 'expect'].includes(k)) headers[k] = v;
  const method = req.method ?? 'GET';
  const upstream = await fetch(`${mock.url}${req.url ?? '/'}`, {
    method,
    headers,
    ...(method !== 'GET' && method !== 'HEAD' && requestBody.length > 0 ? { body: requestBody } : {}),
  });
  const body = Buffer.from(await upstream.arrayBuffer());
  const out: Record<string, string> = {};
  upstream.headers.forEach((v, k) => {
    if (!['content-length', 'content-encoding', 'transfer-encoding', 'connection', 'keep-alive'].includes(k)) out[k] = v;
  });
  out['content-length'] = String(body.length);
  return { status: upstream.status, headers: out, body, requestBody };
}

// Hostile targets: tiny node:http / node:net servers on 127.0.0.1 that misbehave at the transport level. The
// conformance suite run against each must finish in bounded time, write its report with failures and exit
// non-zero: never hang, never crash. Used by tests/integration/hostile-targets.spec.ts.
import http from 'node:http';
import { listen } from '../../support/listen.ts';
import net from 'node:net';
import { MOCK_KEYS } from '../../../mock/keys-and-models.ts';
import { startMockServer, type RunningMockServer } from '../../../mock/server.ts';

export interface HostileTarget {
  url: string;
  /** A key the target accepts, for the targets that put the real mock behind a proxy. */
  apiKey?: string;
  close(): Promise<void>;
}

/** Listens on 127.0.0.1 (free port); close() drops every open connection first, so nothing keeps it alive. */

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
  const server = http.createServer((req, res) => {
    drain(req);
    sendGigantic(res, bytes);
  });
  return listen(server);
}

/**
 * The reference mock behind a proxy that serves the catalog intact (so every test finds its models and sends
 * its requests) but answers every other request with a gigantic body of `bytes` bytes.
 */
export async function giganticAnswersTarget(bytes: number): Promise<HostileTarget> {
  const mock = await startMockServer({ port: 0 });
  const server = http.createServer((req, res) => {
    if (req.method === 'GET' && req.url?.startsWith('/v1/models')) {
      void forward(mock, req).then(
        ({ status, headers, body }) => {
          res.writeHead(status, headers);
          res.end(body);
        },
        () => res.destroy(),
      );
      return;
    }
    drain(req);
    sendGigantic(res, bytes);
  });
  return { ...(await listen(server, () => mock.close())), apiKey: MOCK_KEYS.full };
}

const GIGANTIC_BLOCK = Buffer.alloc(1024 * 1024, 'x');

/** Writes a 200 answer of `bytes` bytes as fast as the client reads it. */
function sendGigantic(res: http.ServerResponse, bytes: number): void {
  const head = Buffer.from('{"object":"list","data":[],"padding":"');
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(bytes) });
  let sent = 0;
  const pump = () => {
    if (sent === 0) {
      res.write(head);
      sent = head.length;
    }
    while (sent < bytes && !res.destroyed) {
      const n = Math.min(GIGANTIC_BLOCK.length, bytes - sent);
      sent += n;
      if (!res.write(n === GIGANTIC_BLOCK.length ? GIGANTIC_BLOCK : GIGANTIC_BLOCK.subarray(0, n))) {
        res.once('drain', pump);
        return;
      }
    }
    res.end();
  };
  res.on('error', () => {});
  pump();
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

/**
 * Forwards a request to `upstream` and its answer back unchanged (status, headers, body streamed as it comes),
 * apart from the hop-by-hop headers each side sets for itself.
 */
export function forwarder(upstream: URL, agent: http.Agent): (req: http.IncomingMessage, res: http.ServerResponse, body?: Buffer) => void {
  return (req, res, body) => {
    const headers = { ...req.headers };
    delete headers.connection;
    delete headers['keep-alive'];
    // A body the proxy read first goes as one piece with its length; otherwise the request streams through.
    if (body) {
      headers['content-length'] = String(body.length);
      delete headers['transfer-encoding'];
    }
    const out = http.request({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers, agent }, (answer) => {
      const back = { ...answer.headers };
      for (const h of ['connection', 'keep-alive', 'transfer-encoding']) delete back[h];
      res.writeHead(answer.statusCode ?? 502, back);
      answer.pipe(res);
    });
    out.on('error', () => res.destroy());
    if (body) out.end(body);
    else req.pipe(out);
  };
}

/**
 * The reference mock behind a proxy that forwards everything unchanged and records the `model` of every
 * completion request, in order: what the suite asked of the target.
 */
export async function recordingTarget(): Promise<HostileTarget & { models: string[] }> {
  const mock = await startMockServer({ port: 0 });
  const agent = new http.Agent({ keepAlive: true });
  const forward = forwarder(new URL(mock.url), agent);
  const models: string[] = [];
  const server = http.createServer((req, res) => {
    if (req.method !== 'POST') return forward(req, res);
    // Buffered (the suite's bodies are small, apart from the 10 MB probe, which names no model worth recording).
    const chunks: Buffer[] = [];
    req.on('data', (d: Buffer) => chunks.push(d));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      try {
        const model = (JSON.parse(body.toString('utf8')) as { model?: unknown }).model;
        if (typeof model === 'string') models.push(model);
      } catch {
        // Not JSON: nothing to record.
      }
      forward(req, res, body);
    });
  });
  const t = await listen(server, async () => {
    agent.destroy();
    await mock.close();
  });
  return { ...t, apiKey: MOCK_KEYS.full, models };
}

/** What the rate-limiting proxy did. */
export interface RateLimitStats {
  forwarded: number;
  /** Requests answered 429 by the proxy itself. */
  limited: number;
}

/**
 * The reference mock behind a proxy that answers every `every`-th request with 429, `Retry-After: 0` and a JSON
 * error (a rate limit, as paid APIs send it) and forwards the others unchanged. The suite must retry each such
 * request and reach the mock's own verdict.
 */
export async function rateLimitingTarget(every = 5): Promise<HostileTarget & { stats: RateLimitStats }> {
  const mock = await startMockServer({ port: 0 });
  const agent = new http.Agent({ keepAlive: true });
  const forward = forwarder(new URL(mock.url), agent);
  const stats: RateLimitStats = { forwarded: 0, limited: 0 };
  let n = 0;
  const server = http.createServer((req, res) => {
    if (++n % every === 0) {
      stats.limited++;
      drain(req);
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '0' });
      res.end(JSON.stringify({ error: { type: 'rate_limit_error', code: 'rate_limit_exceeded', message: 'too many requests; retry after 0 s' } }));
      return;
    }
    stats.forwarded++;
    forward(req, res);
  });
  const t = await listen(server, async () => {
    agent.destroy();
    await mock.close();
  });
  return { ...t, apiKey: MOCK_KEYS.full, stats };
}

/** What the connection-closing proxy did. */
export interface ClosingStats {
  connections: number;
  /** Requests forwarded to the mock and answered. */
  forwarded: number;
  /** Requests that arrived on a connection about to be closed, and were never answered. */
  dropped: number;
}

/**
 * The reference mock behind a transport that forwards every request and answer unchanged (status, headers,
 * body, streamed as it comes) but closes each kept-alive connection a moment (5-50 ms) after each response,
 * without `Connection: close`: what HTTP/1.1 lets a server do to an idle connection (RFC 9112 9.5), and what
 * short keep-alive timeouts do. A request that arrives in that moment is never answered.
 */
export async function closesKeptAliveTarget(): Promise<HostileTarget & { stats: ClosingStats }> {
  const mock = await startMockServer({ port: 0 });
  const upstream = new URL(mock.url);
  const agent = new http.Agent({ keepAlive: true });
  const stats: ClosingStats = { connections: 0, forwarded: 0, dropped: 0 };
  const closing = new WeakSet<net.Socket>();
  // Deterministic spread of delays over 5-50 ms.
  let n = 0;
  const nextDelay = () => 5 + ((n++ * 17) % 46);
  const forward = forwarder(upstream, agent);
  const server = http.createServer((req, res) => {
    const socket = req.socket;
    if (closing.has(socket)) {
      stats.dropped++;
      drain(req);
      return;
    }
    forward(req, res);
    res.on('finish', () => {
      stats.forwarded++;
      closing.add(socket);
      setTimeout(() => socket.destroy(), nextDelay());
    });
  });
  server.on('connection', () => stats.connections++);
  // The proxy's own idle timeout must not be what closes connections.
  server.keepAliveTimeout = 60_000;
  const t = await listen(server, async () => {
    agent.destroy();
    await mock.close();
  });
  return { ...t, apiKey: MOCK_KEYS.full, stats };
}

/**
 * The reference mock behind a proxy that takes `key` (a credential the mock does not know) in place of the
 * mock's own, and echoes `echoed` (by default the same key; another target's, for a run of many) into every answer:
 * a response header, a top-level field of every JSON body, every catalog entry's name, and every streamed chunk. A
 * run against it must leave `echoed` nowhere on disk.
 */
export async function echoesKeyTarget(key: string, echoed = key): Promise<HostileTarget> {
  const mock = await startMockServer({ port: 0 });
  const echoJson = (value: unknown): unknown => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
    const o: Record<string, unknown> = { ...(value as Record<string, unknown>), echo: `Authorization: Bearer ${echoed}` };
    if (o.object === 'list' && Array.isArray(o.data)) {
      o.data = o.data.map((m: unknown) => (typeof m === 'object' && m !== null && typeof (m as { name?: unknown }).name === 'string' ? { ...m, name: `${(m as { name: string }).name} ${echoed}` } : m));
    }
    if (o.object === 'model' && typeof o.name === 'string') o.name = `${o.name} ${echoed}`;
    return o;
  };
  const server = http.createServer((req, res) => {
    if (req.headers.authorization === `Bearer ${key}`) req.headers.authorization = `Bearer ${MOCK_KEYS.full}`;
    void forward(mock, req).then(
      ({ status, headers, body }) => {
        let text = body.toString('utf8');
        const type = headers['content-type'] ?? '';
        if (type.includes('text/event-stream')) {
          text = text.replace(/^data: ?(\{.*\})\r?$/gm, (line, json: string) => {
            try {
              return `data: ${JSON.stringify(echoJson(JSON.parse(json)))}`;
            } catch {
              return line;
            }
          });
        } else if (type.includes('json')) {
          try {
            text = JSON.stringify(echoJson(JSON.parse(text)));
          } catch {
            // not JSON after all: sent as it came
          }
        }
        const out = Buffer.from(text, 'utf8');
        res.writeHead(status, { ...headers, 'content-length': String(out.length), 'x-echo': echoed });
        res.end(out);
      },
      () => res.destroy(),
    );
  });
  return listen(server, () => mock.close());
}

/** `{"x":{"x":…1…}}`, `depth` objects deep, as text (JSON.stringify of such a value would overflow the stack). */
export function nestedJsonText(depth: number): string {
  return `${'{"x":'.repeat(depth)}1${'}'.repeat(depth)}`;
}

/**
 * The reference mock behind a proxy that adds one field, `depth` objects deep, to every JSON answer (the catalog and
 * each of its entries, a model, a completion and its message, an error) and every streamed chunk and its delta: a run against it must judge (or refuse in one line), never
 * crash on the depth.
 */
export async function nestsAnswersTarget(depth: number): Promise<HostileTarget> {
  const mock = await startMockServer({ port: 0 });
  const deep = nestedJsonText(depth);
  // Spliced in as text (JSON.stringify of such a value would overflow the stack): into every catalog entry, message
  // and delta, and before the closing brace of each JSON object answered.
  const withDeep = (json: string): string => {
    if (!/^\s*\{[^]*\}\s*$/.test(json)) return json;
    const inner = json.replace(/"object":"model"/g, `"object":"model","deep":${deep}`).replace(/"(message|delta)":\{/g, `"$1":{"deep":${deep},`);
    return `${inner.replace(/\}\s*$/, '')}${/^\s*\{\s*\}\s*$/.test(inner) ? '' : ','}"deep":${deep}}`;
  };
  const server = http.createServer((req, res) => {
    void forward(mock, req).then(
      ({ status, headers, body }) => {
        let text = body.toString('utf8');
        const type = headers['content-type'] ?? '';
        if (type.includes('text/event-stream')) text = text.replace(/^data: ?(\{.*\})\r?$/gm, (_line, json: string) => `data: ${withDeep(json)}`);
        else if (type.includes('json')) text = withDeep(text);
        const out = Buffer.from(text, 'utf8');
        res.writeHead(status, { ...headers, 'content-length': String(out.length) });
        res.end(out);
      },
      () => res.destroy(),
    );
  });
  return { ...(await listen(server, () => mock.close())), apiKey: MOCK_KEYS.full };
}

// The thin node:http adapter over the same MSW handlers: IncomingMessage -> Fetch Request (body streamed),
// msw's getResponse, Response -> ServerResponse written chunk by chunk. No behaviour lives here.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { getResponse, type HttpHandler } from 'msw';
import { createHandlers, notFoundResponse, toResponse } from './handlers.ts';
import { errorResult, MockHttpError } from './core/errors.ts';
import { bodyLimitOf, checkContentLength } from './core/limits.ts';
import type { MockOptions } from './core/types.ts';

export interface StartOptions extends MockOptions {
  /** 0 (default) picks a free port */
  port?: number;
  /** only 127.0.0.1 is supported */
  host?: string;
  /** serve these handlers instead of createHandlers(options) */
  handlers?: HttpHandler[];
}

export interface RunningMockServer {
  /** origin, e.g. http://127.0.0.1:8787 (no trailing slash) */
  url: string;
  port: number;
  close(): Promise<void>;
}

/** Most bytes of an unread request body the server discards after answering before it drops the connection. */
const DRAIN_LIMIT_BYTES = 64 * 1024 * 1024;

/**
 * The request body as a web stream, pulled from the IncomingMessage with backpressure. Cancelling it (the core
 * stops reading past the body limit) does not destroy the socket, so the error response still goes out.
 */
function bodyStream(req: http.IncomingMessage, onFirstPull: () => void): ReadableStream<Uint8Array> {
  let done = false;
  let pulled = false;
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        req.pause();
        req.on('data', (chunk: Buffer) => {
          if (done) return;
          controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
          if ((controller.desiredSize ?? 0) <= 0) req.pause();
        });
        req.once('end', () => {
          if (done) return;
          done = true;
          controller.close();
        });
        req.once('error', (err) => {
          if (done) return;
          done = true;
          controller.error(err);
        });
        req.once('aborted', () => {
          if (done) return;
          done = true;
          controller.error(new Error('client aborted the request'));
        });
      },
      pull() {
        if (!pulled) {
          pulled = true;
          onFirstPull();
        }
        req.resume();
      },
      cancel() {
        done = true;
        req.pause();
      },
    },
    // highWaterMark 0: nothing is read from the socket before the core asks for it.
    { highWaterMark: 0 },
  );
}

function toRequest(req: http.IncomingMessage, origin: string, signal: AbortSignal, onFirstPull: () => void): Request {
  const headers = new Headers();
  const raw = req.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i]!, raw[i + 1]!);
  const method = req.method ?? 'GET';
  const url = new URL(req.url ?? '/', origin);
  if (url.origin !== origin) throw new Error('absolute-form request target for another origin');
  const hasBody = method !== 'GET' && method !== 'HEAD';
  const init: RequestInit & { duplex?: 'half' } = { method, headers, signal };
  if (hasBody) {
    init.body = bodyStream(req, onFirstPull);
    init.duplex = 'half';
  }
  return new Request(url, init);
}

/** res.write that resolves once the chunk is handed to the socket, so each write is its own send. */
function write(res: http.ServerResponse, chunk: Uint8Array): Promise<void> {
  return new Promise((resolve, reject) => {
    res.write(chunk, (err) => (err ? reject(err) : resolve()));
  });
}

/** After answering: throw away what is left of the request body (bounded), or drop the connection. */
function discardRest(req: http.IncomingMessage): void {
  if (req.complete || req.destroyed) return;
  let seen = 0;
  req.removeAllListeners('data');
  req.on('data', (chunk: Buffer) => {
    seen += chunk.byteLength;
    if (seen > DRAIN_LIMIT_BYTES) req.socket.destroy();
  });
  req.resume();
}

async function handle(
  handlers: HttpHandler[],
  origin: string,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  expectContinue = false,
): Promise<void> {
  req.socket.setNoDelay(true);
  const abort = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) abort.abort();
  });
  let request: Request;
  let response: Response;
  try {
    // `Expect: 100-continue`: the 100 goes out only when the core starts reading the body, so a request refused
    // upfront (credential, Content-Length over the limit) gets its final answer without sending the body.
    request = toRequest(req, origin, abort.signal, () => {
      if (expectContinue && !res.headersSent) res.writeContinue();
    });
  } catch (err) {
    response = toResponse(errorResult(400, 'invalid_request', `invalid request: ${(err as Error).message}`));
    await send(req, res, response, abort.signal);
    return;
  }
  try {
    response = (await getResponse(handlers, request)) ?? notFoundResponse(request);
  } catch (err) {
    response = toResponse(errorResult(500, 'internal_error', `the mock failed: ${(err as Error).message}`));
  }
  await send(req, res, response, abort.signal);
}

async function send(req: http.IncomingMessage, res: http.ServerResponse, response: Response, signal: AbortSignal): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  const setCookies = response.headers.getSetCookie();
  if (setCookies.length > 0) headers['set-cookie'] = setCookies;
  const streaming = (response.headers.get('content-type') ?? '').startsWith('text/event-stream');
  if (!response.body || !streaming) {
    // A JSON (or empty) body: one write with its Content-Length.
    const body = response.body ? Buffer.from(await response.arrayBuffer()) : undefined;
    if (body) headers['content-length'] = String(body.byteLength);
    res.writeHead(response.status, headers);
    res.end(body);
    discardRest(req);
    return;
  }
  res.writeHead(response.status, headers);
  res.flushHeaders();
  const reader = response.body.getReader();
  try {
    for (;;) {
      if (signal.aborted) break;
      const { done, value } = await reader.read();
      if (done) break;
      if (signal.aborted) break;
      await write(res, value);
    }
  } catch {
    // the client went away or the body failed: stop quietly
  } finally {
    if (signal.aborted) {
      await reader.cancel().catch(() => {});
      res.destroy();
    } else {
      res.end();
      discardRest(req);
    }
  }
}

/** Starts the mock on 127.0.0.1 (port 0 = a free port). */
export async function startMockServer(opts: StartOptions = {}): Promise<RunningMockServer> {
  const host = opts.host ?? '127.0.0.1';
  if (host !== '127.0.0.1') throw new Error(`the mock listens on 127.0.0.1 only (got host ${host})`);
  const { port: wantedPort = 0, host: _h, handlers: given, ...mockOptions } = opts;
  const handlers = given ?? createHandlers(mockOptions);
  let origin = '';
  const serve = (req: http.IncomingMessage, res: http.ServerResponse, expectContinue: boolean): void => {
    handle(handlers, origin, req, res, expectContinue).catch(() => {
      if (!res.headersSent) {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { type: 'api_error', code: 'internal_error', message: 'the mock failed' } }));
      } else res.destroy();
    });
  };
  const server = http.createServer((req, res) => serve(req, res, false));
  // `Expect: 100-continue` with a Content-Length over the limit: the core's 413, without asking for the body.
  // (MSW clones each request, and the clone pulls one chunk eagerly, so the core alone cannot hold the 100 back.)
  const limit = bodyLimitOf(mockOptions);
  server.on('checkContinue', (req, res) => {
    try {
      checkContentLength(new Headers({ 'content-length': req.headers['content-length'] ?? '' }), limit);
    } catch (err) {
      if (err instanceof MockHttpError) {
        void send(req, res, toResponse(err.toResult()), new AbortController().signal);
        return;
      }
    }
    serve(req, res, true);
  });
  server.on('clientError', (_err, socket) => {
    if (socket.writable) {
      const body = JSON.stringify({ error: { type: 'invalid_request_error', code: 'bad_request', message: 'malformed HTTP request' } });
      socket.end(`HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
    } else socket.destroy();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(wantedPort, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  origin = `http://${host}:${port}`;
  return {
    url: origin,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

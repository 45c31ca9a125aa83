// The thin node:http adapter over the same MSW handlers: IncomingMessage -> Fetch Request (body streamed),
// msw's getResponse, Response -> ServerResponse written chunk by chunk. No behaviour lives here beyond HTTP/1.1
// transport: the bounds on slow clients, Expect, pipelining and malformed framing (mock/README.md, "Transport").
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { getResponse, type HttpHandler } from 'msw';
import { createHandlers, errorResponse, notFoundResponse } from './handlers.ts';
import { MockHttpError, shapeErrorResult } from './core/errors.ts';
import { bodyLimitOf, checkContentLength } from './core/limits.ts';
import type { MockOptions } from './core/types.ts';

/** The documented defaults of the transport bounds (mock/README.md, "Transport"). */
export const DEFAULT_HEADERS_TIMEOUT_MS = 10_000;
export const DEFAULT_BODY_IDLE_TIMEOUT_MS = 10_000;
export const DEFAULT_BODY_TIMEOUT_MS = 60_000;

export interface StartOptions extends MockOptions {
  /** 0 (default) picks a free port */
  port?: number;
  /** only 127.0.0.1 is supported */
  host?: string;
  /** serve these handlers instead of createHandlers(options) */
  handlers?: HttpHandler[];
  /** the request line and headers must arrive within this many ms (408, then close); default 10,000 */
  headersTimeoutMs?: number;
  /** a request body that sends nothing for this many ms is cut (408 when no answer has started, then close); default 10,000 */
  bodyIdleTimeoutMs?: number;
  /** a request body still incomplete this many ms after its headers is cut likewise; default 60,000 */
  bodyTimeoutMs?: number;
}

export interface RunningMockServer {
  /** origin, e.g. http://127.0.0.1:8787 (no trailing slash) */
  url: string;
  port: number;
  close(): Promise<void>;
}

interface Bounds {
  bodyIdleTimeoutMs: number;
  bodyTimeoutMs: number;
}

/** Most bytes of an unread request body the server discards after answering before it drops the connection. */
const DRAIN_LIMIT_BYTES = 64 * 1024 * 1024;

/**
 * One request's body as a web stream, pulled from the IncomingMessage with backpressure, and the clocks that cut a
 * body that stalls or takes too long. Cancelling the stream (the core stops reading past the body limit) does not
 * destroy the socket, so the error response still goes out.
 */
class RequestBody {
  readonly stream: ReadableStream<Uint8Array>;
  private controller!: ReadableStreamDefaultController<Uint8Array>;
  private done = false;
  private pulled = false;
  private idleTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly totalTimer: ReturnType<typeof setTimeout>;
  /** Set when a bound tripped: the connection closes after the answer. */
  cut: MockHttpError | undefined;
  /** Called when a bound trips (the transport then decides: answer 408, or close). */
  onCut: (err: MockHttpError) => void = () => {};

  constructor(
    private readonly req: http.IncomingMessage,
    private readonly bounds: Bounds,
    private readonly onFirstPull: () => void,
  ) {
    this.totalTimer = setTimeout(
      () => this.trip(new MockHttpError(408, 'request_timeout', `the request body did not complete within ${bounds.bodyTimeoutMs} ms`)),
      bounds.bodyTimeoutMs,
    );
    this.totalTimer.unref();
    req.once('end', () => this.stopClocks());
    req.once('close', () => this.stopClocks());
    this.stream = new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          this.controller = controller;
          req.pause();
          req.on('data', (chunk: Buffer) => {
            this.armIdle();
            if (this.done) return;
            controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
            if ((controller.desiredSize ?? 0) <= 0) req.pause();
          });
          req.once('end', () => this.finish(() => controller.close()));
          req.once('error', (err) => this.finish(() => controller.error(err)));
          req.once('aborted', () => this.finish(() => controller.error(new Error('client aborted the request'))));
        },
        pull: () => {
          if (!this.pulled) {
            this.pulled = true;
            this.onFirstPull();
          }
          // The idle clock runs only while the core waits for bytes: a paused body is not the client's stall.
          this.armIdle();
          req.resume();
        },
        cancel: () => {
          this.done = true;
          clearTimeout(this.idleTimer);
          req.pause();
        },
      },
      // highWaterMark 0: nothing is read from the socket before the core asks for it.
      { highWaterMark: 0 },
    );
  }

  /** After answering: throw away what is left of the body (bounded, and on the same clocks), or drop the connection. */
  discardRest(): void {
    const req = this.req;
    if (req.complete || req.destroyed) return;
    if (this.cut) {
      req.socket.destroy();
      return;
    }
    let seen = 0;
    this.done = true;
    req.removeAllListeners('data');
    req.on('data', (chunk: Buffer) => {
      this.armIdle();
      seen += chunk.byteLength;
      if (seen > DRAIN_LIMIT_BYTES) req.socket.destroy();
    });
    this.armIdle();
    req.resume();
  }

  private armIdle(): void {
    if (this.req.complete) return;
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(
      () => this.trip(new MockHttpError(408, 'request_timeout', `the request body sent nothing for ${this.bounds.bodyIdleTimeoutMs} ms`)),
      this.bounds.bodyIdleTimeoutMs,
    );
    this.idleTimer.unref();
  }

  private trip(err: MockHttpError): void {
    this.stopClocks();
    if (this.req.complete || this.cut) return;
    this.cut = err;
    // A core still reading the body gets the 408 as its read error and answers it with the envelope.
    if (!this.done) this.finish(() => this.controller.error(err));
    this.onCut(err);
  }

  private finish(action: () => void): void {
    if (this.done) return;
    this.done = true;
    clearTimeout(this.idleTimer);
    action();
  }

  private stopClocks(): void {
    clearTimeout(this.idleTimer);
    clearTimeout(this.totalTimer);
  }
}

function toRequest(req: http.IncomingMessage, origin: string, signal: AbortSignal, body: RequestBody | undefined): Request {
  const headers = new Headers();
  const raw = req.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i]!, raw[i + 1]!);
  const method = req.method ?? 'GET';
  const url = new URL(req.url ?? '/', origin);
  if (url.origin !== origin) throw new Error('absolute-form request target for another origin');
  const init: RequestInit & { duplex?: 'half' } = { method, headers, signal };
  if (body) {
    init.body = body.stream;
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

/** A whole HTTP/1.1 error response as bytes for a socket that has no ServerResponse (framing errors, slow headers). */
function rawErrorResponse(options: MockOptions, status: number, code: string, message: string): string {
  const result = shapeErrorResult(options, status, code, message);
  const body = typeof result.body === 'string' ? result.body : JSON.stringify(result.body);
  const head = Object.entries(result.headers).map(([k, v]) => `${k}: ${v}\r\n`).join('');
  return `HTTP/1.1 ${result.status} ${http.STATUS_CODES[result.status] ?? 'Error'}\r\n${head}content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`;
}

/**
 * Answers still owed on a connection. A framing error (a malformed request after a valid pipelined one, or the
 * bytes past a short Content-Length) is answered only after them, so no framed request loses its answer.
 */
class Owed {
  private count = 0;
  private then: (() => void) | undefined;
  add(res: http.ServerResponse): void {
    this.count++;
    let settled = false;
    const settle = (): void => {
      if (settled) return;
      settled = true;
      if (--this.count === 0 && this.then) {
        const run = this.then;
        this.then = undefined;
        run();
      }
    };
    res.once('finish', settle);
    res.once('close', settle);
  }
  /** Runs `action` once every owed answer has gone out (at once when none is owed). */
  afterAll(action: () => void): void {
    if (this.count === 0) action();
    else this.then = action;
  }
}

async function handle(
  handlers: HttpHandler[],
  options: MockOptions,
  bounds: Bounds,
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
  const method = req.method ?? 'GET';
  // `Expect: 100-continue`: the 100 goes out only when the core starts reading the body, so a request refused
  // upfront (credential, Content-Length over the limit) gets its final answer without sending the body.
  const body =
    method !== 'GET' && method !== 'HEAD'
      ? new RequestBody(req, bounds, () => {
          if (expectContinue && !res.headersSent) res.writeContinue();
        })
      : undefined;
  if (body) {
    body.onCut = () => {
      // No keep-alive after a cut body: where the next request would start is unknown.
      res.shouldKeepAlive = false;
      if (res.writableEnded) req.socket.destroy();
    };
  }
  let request: Request;
  let response: Response;
  try {
    request = toRequest(req, origin, abort.signal, body);
  } catch (err) {
    await send(req, res, body, errorResponse(options, 400, 'invalid_request', `invalid request: ${(err as Error).message}`), abort.signal);
    return;
  }
  try {
    response = (await getResponse(handlers, request)) ?? notFoundResponse(request, options);
  } catch (err) {
    response = errorResponse(options, 500, 'internal_error', `the mock failed: ${(err as Error).message}`);
  }
  await send(req, res, body, response, abort.signal);
}

async function send(req: http.IncomingMessage, res: http.ServerResponse, body: RequestBody | undefined, response: Response, signal: AbortSignal): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  const setCookies = response.headers.getSetCookie();
  if (setCookies.length > 0) headers['set-cookie'] = setCookies;
  if (body?.cut) res.shouldKeepAlive = false;
  const streaming = (response.headers.get('content-type') ?? '').startsWith('text/event-stream');
  if (!response.body || !streaming) {
    // A JSON (or empty) body: one write with its Content-Length.
    const bytes = response.body ? Buffer.from(await response.arrayBuffer()) : undefined;
    if (bytes) headers['content-length'] = String(bytes.byteLength);
    if (res.destroyed) return;
    res.writeHead(response.status, headers);
    res.end(bytes);
    body?.discardRest();
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
      body?.discardRest();
    }
  }
}

/** Starts the mock on 127.0.0.1 (port 0 = a free port). */
export async function startMockServer(opts: StartOptions = {}): Promise<RunningMockServer> {
  const host = opts.host ?? '127.0.0.1';
  if (host !== '127.0.0.1') throw new Error(`the mock listens on 127.0.0.1 only (got host ${host})`);
  const {
    port: wantedPort = 0,
    host: _h,
    handlers: given,
    headersTimeoutMs = DEFAULT_HEADERS_TIMEOUT_MS,
    bodyIdleTimeoutMs = DEFAULT_BODY_IDLE_TIMEOUT_MS,
    bodyTimeoutMs = DEFAULT_BODY_TIMEOUT_MS,
    ...mockOptions
  } = opts;
  for (const [name, v] of Object.entries({ headersTimeoutMs, bodyIdleTimeoutMs, bodyTimeoutMs })) {
    if (!Number.isInteger(v) || v <= 0) throw new Error(`${name} must be a positive integer (got ${v})`);
  }
  const bounds: Bounds = { bodyIdleTimeoutMs, bodyTimeoutMs };
  const handlers = given ?? createHandlers(mockOptions);
  const owed = new WeakMap<Socket, Owed>();
  const owedOn = (socket: Socket): Owed => {
    let o = owed.get(socket);
    if (!o) owed.set(socket, (o = new Owed()));
    return o;
  };
  let origin = '';
  const serve = (req: http.IncomingMessage, res: http.ServerResponse, expectContinue: boolean): void => {
    owedOn(req.socket).add(res);
    handle(handlers, mockOptions, bounds, origin, req, res, expectContinue).catch((err: unknown) => {
      if (!res.headersSent) void send(req, res, undefined, errorResponse(mockOptions, 500, 'internal_error', `the mock failed: ${(err as Error)?.message}`), new AbortController().signal);
      else res.destroy();
    });
  };
  const server = http.createServer(
    {
      // Node's own per-request clock would fire on requests the handler is already answering; the body clocks
      // above cover the body, so only the header clock is Node's.
      requestTimeout: 0,
      headersTimeout: headersTimeoutMs,
      // How often Node checks the header clock: a bound of N ms is enforced within N + N/4 ms (at most +1 s).
      connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(headersTimeoutMs / 4))),
    },
    (req, res) => serve(req, res, false),
  );
  // `Expect: 100-continue` with a Content-Length over the limit: the core's 413, without asking for the body.
  // (MSW clones each request, and the clone pulls one chunk eagerly, so the core alone cannot hold the 100 back.)
  const limit = bodyLimitOf(mockOptions);
  server.on('checkContinue', (req, res) => {
    try {
      checkContentLength(new Headers({ 'content-length': req.headers['content-length'] ?? '' }), limit);
    } catch (err) {
      if (err instanceof MockHttpError) {
        owedOn(req.socket).add(res);
        res.shouldKeepAlive = false; // the body was never asked for
        void send(req, res, undefined, errorResponse(mockOptions, err.status, err.code, err.message, err.headers), new AbortController().signal);
        return;
      }
    }
    serve(req, res, true);
  });
  // Any other expectation: 417 with the envelope (Node's default answers it with an empty body).
  server.on('checkExpectation', (req, res) => {
    owedOn(req.socket).add(res);
    res.shouldKeepAlive = false;
    const message = `the Expect header "${String(req.headers.expect).slice(0, 100)}" cannot be met; only "100-continue" is supported`;
    void send(req, res, undefined, errorResponse(mockOptions, 417, 'expectation_failed', message), new AbortController().signal);
  });
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => {
    let answer: string | undefined;
    if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
      answer = rawErrorResponse(mockOptions, 408, 'request_timeout', `the request headers did not arrive within ${headersTimeoutMs} ms`);
    } else if (err.code === 'HPE_HEADER_OVERFLOW') {
      answer = rawErrorResponse(mockOptions, 431, 'headers_too_large', 'the request headers are too large');
    } else if (err.code !== 'ECONNRESET' && err.code !== 'EPIPE') {
      answer = rawErrorResponse(mockOptions, 400, 'bad_request', `malformed HTTP request (${err.code ?? 'parse error'})`);
    }
    // The malformed bytes come after the requests already framed on this connection: answer those first.
    owedOn(socket).afterAll(() => {
      if (answer !== undefined && socket.writable) socket.end(answer);
      else socket.destroy();
    });
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

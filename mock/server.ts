// The node:http adapter over the core, direct: IncomingMessage -> the core's plain request (the body pulled from
// the socket only as the core reads it), the core's result -> ServerResponse (JSON in one write, a stream event by
// event with backpressure). No Fetch Request or Response on the way. No behaviour lives here beyond HTTP/1.1
// transport: the bounds on slow clients, Expect, pipelining and malformed framing (mock/README.md, "Transport
// bounds"); the transport's own refusals come from the instance's one error builder.
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo, Socket } from 'node:net';
import { MockHttpError } from './core/errors.ts';
import { jsonText, NO_BODY, type BodySource, type CoreRequest, type CoreResult, type StreamWrites } from './core/http.ts';
import { toWrites } from './core/sse-encoder.ts';
import { servedPath } from './harness/names.ts';
import type { MockOptions } from './options.ts';
import { createMockService, type MockService } from './service.ts';

/** The documented defaults of the transport bounds (mock/README.md, "Transport"). */
export const DEFAULT_HEADERS_TIMEOUT_MS = 10_000;
export const DEFAULT_BODY_IDLE_TIMEOUT_MS = 10_000;
export const DEFAULT_BODY_TIMEOUT_MS = 60_000;

export interface StartOptions extends MockOptions {
  /** 0 (default) picks a free port */
  port?: number;
  /** the address to listen on: 127.0.0.1 by default; another (0.0.0.0 for a container) serves other hosts too */
  host?: string;
  /** serve this instance instead of createMockService(options) */
  service?: MockService;
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
  clocks: BodyClocks;
}

/**
 * The clocks of the request bodies being read, checked together on one interval per server: two timers set and
 * cleared per request cost more than the rest of reading a small body. A bound of N ms is enforced within
 * N + N/4 ms (+1 s at most), as Node enforces the header bound.
 */
class BodyClocks {
  private readonly bodies = new Set<RequestBody>();
  private timer: ReturnType<typeof setInterval> | undefined;
  constructor(private readonly everyMs: number) {}

  watch(body: RequestBody): void {
    this.bodies.add(body);
    if (this.timer === undefined) {
      this.timer = setInterval(() => this.check(), this.everyMs);
      this.timer.unref();
    }
  }

  unwatch(body: RequestBody): void {
    this.bodies.delete(body);
  }

  private check(): void {
    const now = performance.now();
    for (const body of this.bodies) body.checkClocks(now);
    if (this.bodies.size === 0) this.stop();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }
}

/** Most bytes of an unread request body the server discards after answering before it drops the connection. */
const DRAIN_LIMIT_BYTES = 64 * 1024 * 1024;

/**
 * One request's body as the core's BodySource: a chunk is taken from the socket only when the core asks for one
 * (the socket stays paused otherwise, so nothing is buffered past what the core has read), and the clocks that cut
 * a body that stalls or takes too long. Cancelling (the core stops past the body limit) pauses the socket without
 * destroying it, so the error response still goes out.
 */
class RequestBody implements BodySource {
  private readonly queue: Buffer[] = [];
  private ended = false;
  private failure: Error | undefined;
  private waiter: { resolve: (v: Uint8Array | null) => void; reject: (e: Error) => void } | undefined;
  private done = false;
  /** whether the core has asked for the body */
  pulled = false;
  /** when the body started (its total clock) and since when it has sent nothing (its idle clock, while on); performance.now() */
  private readonly since = performance.now();
  private idleSince = 0;
  private idleOn = false;
  /** Set when a bound tripped: the connection closes after the answer. */
  cut: MockHttpError | undefined;
  /** Called when a bound trips (the transport then decides: answer 408, or close). */
  onCut: (err: MockHttpError) => void = () => {};

  constructor(
    private readonly req: http.IncomingMessage,
    private readonly bounds: Bounds,
    private readonly onFirstRead: () => void,
  ) {
    bounds.clocks.watch(this);
    req.pause();
    req.on('data', (chunk: Buffer) => {
      this.armIdle();
      if (this.done) return;
      this.queue.push(chunk);
      req.pause();
      this.wake();
    });
    req.once('end', () => {
      this.stopClocks();
      this.ended = true;
      this.wake();
    });
    req.once('close', () => this.stopClocks());
    req.once('error', (err) => this.fail(err));
    req.once('aborted', () => this.fail(new Error('client aborted the request')));
  }

  read(): Promise<Uint8Array | null> {
    if (!this.pulled) {
      this.pulled = true;
      this.onFirstRead();
    }
    if (this.failure) return Promise.reject(this.failure);
    const next = this.queue.shift();
    if (next) return Promise.resolve(next);
    // `complete`: the parser has seen the whole message, and nothing is left unread. (The 'end' event would
    // only come after another resume, a turn of the loop later.)
    if (this.ended || this.done || (this.req.complete && this.req.readableLength === 0)) return Promise.resolve(null);
    // The idle clock runs only while the core waits for bytes: a paused body is not the client's stall.
    this.armIdle();
    this.req.resume();
    return new Promise((resolve, reject) => {
      this.waiter = { resolve, reject };
    });
  }

  cancel(): void {
    this.done = true;
    this.queue.length = 0;
    this.idleOn = false;
    this.req.pause();
  }

  private wake(): void {
    const w = this.waiter;
    if (!w) return;
    if (this.failure) {
      this.waiter = undefined;
      w.reject(this.failure);
      return;
    }
    const next = this.queue.shift();
    if (next) {
      this.waiter = undefined;
      w.resolve(next);
    } else if (this.ended) {
      this.waiter = undefined;
      w.resolve(null);
    }
  }

  private fail(err: Error): void {
    if (this.done || this.ended || this.failure) return;
    this.failure = err;
    this.idleOn = false;
    this.wake();
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
    this.queue.length = 0;
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
    this.idleOn = true;
    this.idleSince = performance.now();
    this.bounds.clocks.watch(this);
  }

  /** Called by the server's BodyClocks: cuts the body when one of its bounds has passed. */
  checkClocks(now: number): void {
    const { bodyTimeoutMs, bodyIdleTimeoutMs } = this.bounds;
    if (now - this.since >= bodyTimeoutMs) {
      this.trip(new MockHttpError(408, 'request_timeout', `the request body did not complete within ${bodyTimeoutMs} ms`));
    } else if (this.idleOn && now - this.idleSince >= bodyIdleTimeoutMs) {
      this.trip(new MockHttpError(408, 'request_timeout', `the request body sent nothing for ${bodyIdleTimeoutMs} ms`));
    }
  }

  private trip(err: MockHttpError): void {
    this.stopClocks();
    if (this.req.complete || this.cut) return;
    this.cut = err;
    // A core still reading the body gets the 408 as its read error and answers it with the envelope.
    this.fail(err);
    this.onCut(err);
  }

  private stopClocks(): void {
    this.idleOn = false;
    this.bounds.clocks.unwatch(this);
  }
}

/** Paths that are already normal: no dot segment, query, fragment, or character the URL parser would re-encode. */
const PLAIN_PATH = /^\/[A-Za-z0-9\-_~%!$&'()*+,;=:@/]*$/;

/** The path of a request target, or undefined for an absolute-form target naming another origin. */
function pathOf(target: string, origin: string): string | undefined {
  if (PLAIN_PATH.test(target)) return target;
  const url = new URL(target, origin);
  return url.origin === origin ? servedPath(target, url.pathname) : undefined;
}

/** The core's plain request for an IncomingMessage (exported for the bench's ladder, bench/ladder-server.ts). */
export function toCoreRequest(req: http.IncomingMessage, path: string, body: BodySource): CoreRequest {
  const headers = req.headers;
  return {
    method: req.method ?? 'GET',
    path,
    header: (name) => {
      // Node keeps only the first of duplicated singleton headers (Authorization among them): a request sending two
      // credentials must be seen with both, and refused, never served with the first.
      if (name === 'authorization') return allValues(req.rawHeaders, name);
      const v = headers[name];
      return Array.isArray(v) ? v.join(', ') : v;
    },
    body,
    headers: () => {
      const all: Record<string, string> = {};
      for (const k in headers) {
        const v = headers[k];
        if (v !== undefined) all[k] = Array.isArray(v) ? v.join(', ') : v;
      }
      return all;
    },
    ...queryOf(req.url),
  };
}

/** The query of a request target, when it has one. */
function queryOf(target: string | undefined): { query?: string } {
  const q = target?.indexOf('?') ?? -1;
  return q >= 0 ? { query: target!.slice(q + 1) } : {};
}

/** Every value of a header in the raw header list, joined as HTTP joins list values; undefined when absent. */
function allValues(raw: readonly string[], name: string): string | undefined {
  let out: string | undefined;
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i]!.length === name.length && raw[i]!.toLowerCase() === name) out = out === undefined ? raw[i + 1]! : `${out}, ${raw[i + 1]!}`;
  }
  return out;
}

/** JSON bytes of a body; frozen bodies (the catalog lists, built once) are encoded once. */
const encoded = new WeakMap<object, Buffer>();
function jsonBytes(body: unknown): Buffer {
  const frozen = body !== null && typeof body === 'object' && Object.isFrozen(body);
  let bytes = frozen ? encoded.get(body as object) : undefined;
  if (bytes === undefined) {
    bytes = Buffer.from(jsonText(body));
    if (frozen) encoded.set(body as object, bytes);
  }
  return bytes;
}

/** A whole HTTP/1.1 error response as bytes for a socket that has no ServerResponse (framing errors, slow headers). */
function rawErrorResponse(service: MockService, status: number, code: string, message: string): string {
  const result = service.error({ status, code, message });
  const body = result.kind === 'text' ? result.body : result.kind === 'json' ? jsonText(result.body) : '';
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
    // 'close' comes once per response, after 'finish' or when the connection goes.
    res.once('close', () => {
      if (--this.count === 0 && this.then) {
        const run = this.then;
        this.then = undefined;
        run();
      }
    });
  }
  /** Runs `action` once every owed answer has gone out (at once when none is owed). */
  afterAll(action: () => void): void {
    if (this.count === 0) action();
    else this.then = action;
  }
}

async function handle(
  service: MockService,
  bounds: Bounds,
  turn: TurnEnd,
  origin: string,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  expectContinue = false,
): Promise<void> {
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
  let result: CoreResult;
  let path: string | undefined;
  try {
    path = pathOf(req.url ?? '/', origin);
  } catch {
    path = undefined;
  }
  if (path === undefined) {
    result = service.error({ status: 400, code: 'invalid_request', message: 'invalid request: absolute-form request target for another origin' });
  } else {
    try {
      result = await service.handle(toCoreRequest(req, path, body ?? NO_BODY));
    } catch (err) {
      result = service.error({ status: 500, code: 'internal_error', message: `the mock failed: ${(err as Error)?.message}` });
    }
  }
  // The body was never asked for after `Expect: 100-continue`: the client may never send it.
  if (expectContinue && body && !body.pulled) res.shouldKeepAlive = false;
  await send(req, res, body, result, turn);
}

/** Most characters of encoded events joined into one write of an unpaced stream. */
export const WRITE_BATCH_CHARS = 16 * 1024;

/** Consecutive pieces joined into strings of up to WRITE_BATCH_CHARS (a longer piece stays whole): the writes of an unpaced stream. */
export function batches(pieces: readonly string[]): string[] {
  const out: string[] = [];
  let current = '';
  for (const p of pieces) {
    if (current.length > 0 && current.length + p.length > WRITE_BATCH_CHARS) {
      out.push(current);
      current = '';
    }
    current += p;
  }
  if (current.length > 0) out.push(current);
  return out;
}

/** Bytes of a slab, the smallest the stream writes are carved from. */
const SLAB_BYTES = 32 * 1024;

/**
 * The UTF-8 bytes of a stream's writes, carved from shared slabs, as Node carves small Buffers from its pool. Why:
 * written as strings, each write is measured (Buffer.byteLength) and then encoded again into memory allocated for
 * that write alone; encoded here, once, into a slab, a stream costs one pass over its text and an allocation every
 * few streams. A slab is never written twice: it is freed when the last write carved from it is.
 */
export class WriteSlabs {
  private slab = Buffer.allocUnsafe(0);
  private used = 0;

  /** The writes of an unpaced stream (the batches of `batches`), as bytes. */
  writes(pieces: readonly string[]): Buffer[] {
    // Each batch is encoded joined, as a string write was: a surrogate pair split across two pieces stays one character.
    return batches(pieces).map((text) => this.encode(text));
  }

  private encode(text: string): Buffer {
    // UTF-8 takes at most 3 bytes for each UTF-16 code unit.
    const bound = text.length * 3;
    if (this.slab.length - this.used < bound) {
      this.slab = Buffer.allocUnsafe(Math.max(SLAB_BYTES, bound));
      this.used = 0;
    }
    const start = this.used;
    const end = start + this.slab.write(text, start);
    this.used = end;
    return this.slab.subarray(start, end);
  }
}

/** One set of slabs for the process (like Node's own pool). */
const slabs = new WriteSlabs();

/** Whether a stream goes out event by event on its clocks (delays, one-byte writes), not in batches. */
const paced = (writes: StreamWrites): boolean => writes.chunkDelayMs > 0 || writes.writeDelayMs > 0 || writes.framing.has('bytewise');

/** Resolves when `res` can take more (drain) or is gone (close). */
function drained(res: http.ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

/** res.write that resolves once the chunk is handed to the socket, so each write is its own send. */
function writeAlone(res: http.ServerResponse, chunk: Uint8Array): Promise<void> {
  return new Promise((resolve) => {
    res.write(chunk, () => resolve());
  });
}

/**
 * The end of the current turn of the event loop: the answers made ready during one turn go out together, one
 * after the other, once every request that arrived in that turn has been answered (setImmediate runs right after
 * the poll phase, so an idle server adds no wait). Why: a write to a loopback socket whose reader sleeps pays for
 * waking it, and on shared vCPUs that wake-up cost more than the mock's own work on a chat request; written
 * back to back, the answers of one turn wake a client once (bench/README.md, "The last runs, and what moved them").
 */
export class TurnEnd {
  private next: Promise<void> | undefined;
  private readonly fire = (resolve: () => void): void => {
    setImmediate(() => {
      this.next = undefined;
      resolve();
    });
  };

  wait(): Promise<void> {
    this.next ??= new Promise(this.fire);
    return this.next;
  }
}

async function send(req: http.IncomingMessage, res: http.ServerResponse, body: RequestBody | undefined, result: CoreResult, turn?: TurnEnd): Promise<void> {
  if (body?.cut) res.shouldKeepAlive = false;
  if (turn !== undefined && !(result.kind === 'sse' && paced(result.writes))) await turn.wait();
  if (res.destroyed) return;
  if (result.kind !== 'sse') {
    // A JSON (or text) body: one write with its Content-Length.
    const bytes = result.kind === 'json' ? jsonBytes(result.body) : Buffer.from(result.body);
    res.writeHead(result.status, { ...result.headers, 'content-length': String(bytes.byteLength) });
    res.end(bytes);
    body?.discardRest();
    return;
  }
  let gone = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let wake: (() => void) | undefined;
  const onClose = (): void => {
    if (res.writableFinished) return;
    gone = true;
    clearTimeout(timer);
    wake?.();
  };
  res.once('close', onClose);
  const sleep = (ms: number): Promise<void> =>
    new Promise((resolve) => {
      wake = resolve;
      timer = setTimeout(resolve, ms);
    });
  res.writeHead(result.status, result.headers);
  const { pieces, writes } = result;
  try {
    if (!paced(writes)) {
      // Unpaced, the events go out in writes of up to WRITE_BATCH_CHARS (a short stream in one), each waiting for
      // the socket to drain when it is full: the same bytes in far fewer chunks and syscalls.
      for (const batch of slabs.writes(pieces)) {
        if (gone) break;
        if (!res.write(batch)) await drained(res);
      }
    } else {
      res.flushHeaders();
      for (const piece of pieces) {
        if (writes.chunkDelayMs > 0) await sleep(writes.chunkDelayMs);
        for (const w of toWrites(piece, { framing: writes.framing })) {
          if (writes.writeDelayMs > 0) await sleep(writes.writeDelayMs);
          if (gone) break;
          await writeAlone(res, w);
        }
        if (gone) break;
      }
    }
  } finally {
    res.off('close', onClose);
    if (gone) res.destroy();
    else {
      res.end();
      body?.discardRest();
    }
  }
}

/** Starts the mock on 127.0.0.1, or the address `host` names (port 0 = a free port). */
export async function startMockServer(opts: StartOptions = {}): Promise<RunningMockServer> {
  const host = opts.host ?? '127.0.0.1';
  if (net.isIP(host) === 0 && host !== 'localhost') throw new Error(`host must be an IP address or localhost (got ${JSON.stringify(host)})`);
  const {
    port: wantedPort = 0,
    host: _h,
    service: given,
    headersTimeoutMs = DEFAULT_HEADERS_TIMEOUT_MS,
    bodyIdleTimeoutMs = DEFAULT_BODY_IDLE_TIMEOUT_MS,
    bodyTimeoutMs = DEFAULT_BODY_TIMEOUT_MS,
    ...mockOptions
  } = opts;
  for (const [name, v] of Object.entries({ headersTimeoutMs, bodyIdleTimeoutMs, bodyTimeoutMs })) {
    if (!Number.isInteger(v) || v <= 0) throw new Error(`${name} must be a positive integer (got ${v})`);
  }
  const bounds: Bounds = { bodyIdleTimeoutMs, bodyTimeoutMs, clocks: new BodyClocks(Math.max(50, Math.min(1000, Math.floor(Math.min(bodyIdleTimeoutMs, bodyTimeoutMs) / 4)))) };
  const service = given ?? createMockService(mockOptions);
  const turn = new TurnEnd();
  const owed = new WeakMap<Socket, Owed>();
  const owedOn = (socket: Socket): Owed => {
    let o = owed.get(socket);
    if (!o) owed.set(socket, (o = new Owed()));
    return o;
  };
  let origin = '';
  const serve = (req: http.IncomingMessage, res: http.ServerResponse, expectContinue: boolean): void => {
    owedOn(req.socket).add(res);
    handle(service, bounds, turn, origin, req, res, expectContinue).catch((err: unknown) => {
      if (!res.headersSent) void send(req, res, undefined, service.error({ status: 500, code: 'internal_error', message: `the mock failed: ${(err as Error)?.message}` }));
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
  // `Expect: 100-continue`: the 100 goes out when the core first reads the body (RequestBody).
  server.on('checkContinue', (req, res) => serve(req, res, true));
  // Any other expectation: 417 with the envelope (Node's default answers it with an empty body).
  server.on('checkExpectation', (req, res) => {
    owedOn(req.socket).add(res);
    res.shouldKeepAlive = false;
    const message = `the Expect header "${String(req.headers.expect).slice(0, 100)}" cannot be met; only "100-continue" is supported`;
    void send(req, res, undefined, service.error({ status: 417, code: 'expectation_failed', message }));
  });
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => {
    let answer: string | undefined;
    if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
      answer = rawErrorResponse(service, 408, 'request_timeout', `the request headers did not arrive within ${headersTimeoutMs} ms`);
    } else if (err.code === 'HPE_HEADER_OVERFLOW') {
      answer = rawErrorResponse(service, 431, 'headers_too_large', 'the request headers are too large');
    } else if (err.code !== 'ECONNRESET' && err.code !== 'EPIPE') {
      answer = rawErrorResponse(service, 400, 'bad_request', `malformed HTTP request (${err.code ?? 'parse error'})`);
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
  origin = `http://${net.isIPv6(host) ? `[${host}]` : host}:${port}`;
  return {
    url: origin,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        bounds.clocks.stop();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

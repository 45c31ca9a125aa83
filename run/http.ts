// The suite's one HTTP transport, on node:http/https with a keep-alive agent. It only moves bytes and says
// what happened on the way; judging the answer is the checks' business. What it guarantees:
// - the request body goes exactly as given (bytes, Content-Length set), nothing is re-encoded;
// - two clocks bound the wait: an idle timeout (time since the last byte received, or since the upload last
//   moved) and a generous overall bound on the whole exchange (connect, upload, head, body, and a retry). A slow
//   stream that keeps arriving is never cut by the idle clock; either clock's failure says what arrived and when;
// - what is read is bounded: a body cap in bytes, and for event streams a cap in events, so a worker's memory
//   stays bounded whatever the target sends;
// - a request whose reused kept-alive connection drops before any response byte (while its body is still being
//   sent, or after) is sent again once on a fresh connection: the server closed an idle connection as HTTP/1.1
//   allows (RFC 9112 9.5), the request was not answered, and RFC 9110 9.2.2 lets a client retry it;
// - every failure is classified (`TransportErrorKind`); `status` stays 0 when no response head arrived, and a
//   failure after the head keeps the status: a cut or oversized body is the target's (broken) answer, a timeout
//   the kit's own limit (judge/exchange.ts noResponse: not judged).
import http from 'node:http';
import https from 'node:https';
import type { Socket } from 'node:net';
import zlib from 'node:zlib';

export type { TransportErrorKind, TransportEvent } from '../judge/exchange.ts';
import type { TransportErrorKind, TransportEvent } from '../judge/exchange.ts';

/** Default body cap (CONFORMANCE_MAX_BODY_BYTES overrides it). */
export const DEFAULT_MAX_BODY_BYTES = 16 * 1024 * 1024;
/** Default cap on the events of one event stream. */
export const DEFAULT_MAX_EVENTS = 100_000;
/** Default idle timeout: the longest wait for the next byte (CONFORMANCE_IDLE_TIMEOUT_MS overrides it). */
export const DEFAULT_IDLE_TIMEOUT_MS = 15_000;
/** Default overall bound on one request, retry included (CONFORMANCE_REQUEST_TIMEOUT_MS overrides it). */
export const DEFAULT_REQUEST_TIMEOUT_MS = 120_000;

export interface TransportRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: Buffer;
  /**
   * Without a body, send no Content-Length and no Transfer-Encoding either (Node would add "Content-Length: 0"):
   * the request HTTP/1.1 reads as having an empty body, which some servers wait on forever.
   */
  noLengthHeaders?: boolean;
  /** The overall bound on the whole exchange, retry included: past it the kit stops waiting, bytes arriving or not. */
  timeoutMs: number;
  /**
   * The longest wait without progress: no byte received (the head, then the body) and no upload progress.
   * Default (and at most): `timeoutMs`.
   */
  idleTimeoutMs?: number;
  maxBodyBytes?: number;
  maxEvents?: number;
}

export interface TransportResult {
  /** 0 when no response head arrived. */
  status: number;
  headers: Record<string, string>;
  /** What was read (at most the cap; cut short when `error` is set). */
  body: Buffer;
  error?: string;
  errorKind?: TransportErrorKind;
  /** The content coding the answer came in (gzip, deflate, br), undone: `body` is the decoded answer. */
  encoding?: ContentCoding;
  /**
   * Set for a request sent with `Expect: 100-continue`: whether the server's 100 (Continue) arrived. False with
   * no status: the server never said anything, though it could answer from the head alone (RFC 9110 10.1.1).
   */
  continued?: boolean;
  events: TransportEvent[];
}

/** The content codings the transport undoes (RFC 9110 8.4.1); `x-gzip` is read as gzip. */
export type ContentCoding = 'gzip' | 'deflate' | 'br';

/** What a client that takes every coding the transport undoes sends (RFC 9110 12.5.3). */
export const ACCEPT_ANY_CODING = 'gzip, deflate, br';

// One pool per worker process, shared by every test: keep-alive reuse across requests is what real clients do,
// and it is what exposes a server's idle-connection closes. Free sockets are unref'd by Node, so the pool never
// keeps a process alive.
const agents = {
  'http:': new http.Agent({ keepAlive: true }),
  'https:': new https.Agent({ keepAlive: true }),
};

/** Closes the pooled idle connections (e.g. before stopping a server the run started). */
export function closeIdleConnections(): void {
  for (const agent of Object.values(agents)) {
    for (const list of Object.values(agent.freeSockets)) for (const s of list ?? []) s.destroy();
  }
}

/** A failure the transport raises itself (deadline, caps), with its kind. */
class TransportFailure extends Error {
  constructor(
    readonly kind: TransportErrorKind,
    message: string,
  ) {
    super(message);
  }
}

export function classify(err: unknown): TransportErrorKind {
  if (err instanceof TransportFailure) return err.kind;
  const code = String((err as { code?: unknown })?.code ?? '');
  const message = err instanceof Error ? err.message : String(err);
  if (code === 'ECONNREFUSED') return 'refused';
  if (code === 'ECONNRESET' || code === 'EPIPE' || code === 'ERR_STREAM_PREMATURE_CLOSE' || /socket hang up|aborted/i.test(message)) return 'reset';
  if (code === 'ETIMEDOUT' || code === 'ESOCKETTIMEDOUT') return 'timeout';
  if (/^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|HOSTNAME_MISMATCH)/.test(code) || /\b(ssl|tls)\b/i.test(message)) return 'tls';
  if (code.startsWith('HPE_') || code === 'Z_DATA_ERROR' || code === 'Z_BUF_ERROR' || code === 'ERR_INVALID_HTTP_TOKEN' || /parse error/i.test(message)) return 'protocol';
  return 'other';
}

function describe(err: unknown): string {
  if (err instanceof TransportFailure) return err.message;
  const code = (err as { code?: unknown })?.code;
  const message = err instanceof Error ? err.message.split('\n')[0]! : String(err);
  return typeof code === 'string' && !message.includes(code) ? `${message} (${code})` : message;
}

function flatHeaders(raw: http.IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

/**
 * Counts server-sent events as bytes arrive: an event ends at a blank line (LF, CRLF or CR line ends, split
 * anywhere across chunks). Only lines with content between blank lines make an event.
 */
export class EventCounter {
  count = 0;
  private lineHasContent = false;
  private pendingEvent = false;
  private lastWasCR = false;

  push(chunk: Uint8Array): void {
    for (let i = 0; i < chunk.length; i++) {
      const b = chunk[i]!;
      if (b === 0x0a && this.lastWasCR) {
        // The LF of a CRLF: the line already ended at the CR.
        this.lastWasCR = false;
        continue;
      }
      this.lastWasCR = b === 0x0d;
      if (b === 0x0a || b === 0x0d) {
        if (!this.lineHasContent && this.pendingEvent) {
          this.count++;
          this.pendingEvent = false;
        }
        this.lineHasContent = false;
      } else if (!this.lineHasContent) {
        this.lineHasContent = true;
        this.pendingEvent = true;
      }
    }
  }
}

interface Attempt {
  result: TransportResult;
  /** Set when the attempt may be sent again on a fresh connection: why (a reused connection dropped, unanswered). */
  retry?: string;
}

/** Sends one request; never rejects: every failure is in the result. */
export async function sendRequest(request: TransportRequest): Promise<TransportResult> {
  const started = Date.now();
  const clock: Clock = { started, deadline: started + request.timeoutMs, idleMs: Math.min(request.idleTimeoutMs ?? request.timeoutMs, request.timeoutMs) };
  const events: TransportEvent[] = [];
  const url = new URL(request.url);
  const pooled = agents[url.protocol as keyof typeof agents];
  if (!pooled) return { status: 0, headers: {}, body: Buffer.alloc(0), error: `unsupported URL scheme ${url.protocol}`, errorKind: 'other', events };
  const first = await attempt(request, url, pooled, clock);
  if (first.retry === undefined || Date.now() >= clock.deadline) return { ...first.result, events };
  events.push({ kind: 'retried', message: `${first.result.error}: ${first.retry}, so the request was sent again on a fresh connection` });
  // A one-off agent guarantees a new connection (the pool may hold other idle sockets the server closed too).
  const fresh = url.protocol === 'https:' ? new https.Agent({ keepAlive: true, maxSockets: 1 }) : new http.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const second = await attempt(request, url, fresh, clock);
    return { ...second.result, events };
  } finally {
    fresh.destroy();
  }
}

/** The two clocks of one request: the overall deadline (shared by a retry) and the idle timeout. */
interface Clock {
  started: number;
  deadline: number;
  idleMs: number;
}

/** The body goes out in slices of this size, so that its progress (a slice handed to the OS) is seen. */
const UPLOAD_SLICE_BYTES = 256 * 1024;

/** Seconds into the request, for the messages: `1.7 s`. */
const at = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

function attempt(request: TransportRequest, url: URL, agent: http.Agent, clock: Clock): Promise<Attempt> {
  const maxBody = request.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const maxEvents = request.maxEvents ?? DEFAULT_MAX_EVENTS;
  const headers: Record<string, string> = { ...request.headers };
  if (request.body !== undefined) headers['content-length'] = String(request.body.length);
  const lib = url.protocol === 'https:' ? https : http;

  return new Promise<Attempt>((resolve) => {
    let status = 0;
    let responseHeaders: Record<string, string> = {};
    const chunks: Buffer[] = [];
    let size = 0;
    let received = false;
    let settled = false;
    let socket: Socket | undefined;
    let res: http.IncomingMessage | undefined;
    let decoded: zlib.Gunzip | zlib.Inflate | zlib.BrotliDecompress | undefined;
    let coding: ContentCoding | undefined;
    let counter: EventCounter | undefined;
    const expects = Object.keys(headers).some((k) => k.toLowerCase() === 'expect' && /100-continue/i.test(headers[k]!));
    let continued = false;
    // The idle clock: reset by every byte received and by upload progress (each slice of the body handed to the OS).
    let activeAt = Date.now();
    let headAt: number | undefined;
    let lastByteAt: number | undefined;
    const onSocketData = () => {
      received = true;
      activeAt = lastByteAt = Date.now();
    };

    /** What arrived and when, for a timeout's message: the kit stopped waiting, this is what it had. */
    const arrived = (now: number): string => {
      if (headAt === undefined) return '';
      const events = counter ? ` (${counter.count} event(s))` : '';
      const last = lastByteAt !== undefined ? `, the last at ${at(lastByteAt - clock.started)}, ${now - lastByteAt} ms before the kit stopped waiting` : '';
      return `: HTTP ${status} arrived at ${at(headAt - clock.started)}, then ${size} body byte(s)${events}${last}`;
    };

    const tick = () => {
      if (settled) return;
      const now = Date.now();
      const where = status === 0 ? 'before any response' : 'while reading the response body';
      if (now >= clock.deadline) {
        return finish(new TransportFailure('timeout', `request timed out after ${clock.deadline - clock.started} ms ${where} (the overall bound on one request)${arrived(now)}`));
      }
      if (now - activeAt >= clock.idleMs) {
        return finish(new TransportFailure('timeout', `request timed out after ${clock.idleMs} ms ${where} (the idle timeout: no byte in that time)${arrived(now)}`));
      }
      timer = setTimeout(tick, Math.max(1, Math.min(clock.deadline, activeAt + clock.idleMs) - now));
    };

    const finish = (err?: unknown) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket?.off('data', onSocketData);
      const result: TransportResult = { status, headers: responseHeaders, body: Buffer.concat(chunks, size), events: [] };
      if (coding) result.encoding = coding;
      if (expects) result.continued = continued;
      let retry: string | undefined;
      if (err !== undefined) {
        result.error = describe(err);
        result.errorKind = classify(err);
        // A reused connection that drops before any answer (a reset, EPIPE, a hang-up: never our own timeout)
        // was closed by the server as idle; the request was not answered, whether or not its body was all sent.
        if (status === 0 && !received && req?.reusedSocket === true && result.errorKind === 'reset' && !(err instanceof TransportFailure)) {
          retry = request.body !== undefined && !req.writableFinished
            ? 'the connection was a reused kept-alive one and it closed while the request body was still being sent, with nothing received'
            : 'the connection was a reused kept-alive one and nothing was received';
        }
        // Past a bound or on a broken answer the connection is of no further use: never return it to the pool.
        req?.destroy();
        res?.destroy();
        decoded?.destroy();
        socket?.destroy();
      } else if (request.body !== undefined && req?.writableEnded === false) {
        // An answer that came before the upload ended (an early 413): the rest of the body is not sent, and the
        // connection, mid-request, is of no further use.
        req.destroy();
      }
      resolve(retry !== undefined ? { result, retry } : { result });
    };

    let req: http.ClientRequest | undefined;
    try {
      req = lib.request(url, { method: request.method, headers, agent });
    } catch (err) {
      // E.g. a header value Node refuses to send: nothing went out.
      return resolve({ result: { status: 0, headers: {}, body: Buffer.alloc(0), error: describe(err), errorKind: 'other', events: [] } });
    }
    let timer = setTimeout(tick, Math.max(0, Math.min(clock.deadline, activeAt + clock.idleMs) - Date.now()));
    req.on('socket', (s) => {
      socket = s;
      s.on('data', onSocketData);
      guardSocket(s);
    });
    // The wait for the answer starts when the upload ends.
    req.on('finish', () => {
      activeAt = Math.max(activeAt, Date.now());
    });
    req.on('error', (err) => {
      // Once the answer's head is in, a failed upload is the server's choice (an early 413 that closes while
      // the body is still going); the answer itself is judged by how its body ends, below.
      if (!res) finish(err);
    });
    req.on('response', (response) => {
      res = response;
      headAt = Date.now();
      status = response.statusCode ?? 0;
      responseHeaders = flatHeaders(response.headers);
      const isStream = /^text\/event-stream/i.test(responseHeaders['content-type'] ?? '');
      counter = isStream ? new EventCounter() : undefined;
      coding = codingOf(responseHeaders['content-encoding']);
      decoded = decoder(response, coding);
      const source: NodeJS.ReadableStream = decoded ?? response;
      source.on('data', (chunk: Buffer) => {
        if (settled) return;
        if (size + chunk.length > maxBody) {
          chunks.push(chunk.subarray(0, maxBody - size));
          size = maxBody;
          return finish(new TransportFailure('too-large', `response larger than ${maxBody} bytes`));
        }
        chunks.push(chunk);
        size += chunk.length;
        if (counter) {
          counter.push(chunk);
          if (counter.count > maxEvents) return finish(new TransportFailure('too-large', `response stream of more than ${maxEvents} events`));
        }
      });
      source.on('end', () => finish());
      source.on('error', (err) => finish(err));
      response.on('error', (err) => finish(err));
      // A body that stops before its framing says it is complete ends in 'close' without 'end'.
      response.on('close', () => {
        if (!response.complete) finish(Object.assign(new Error('the connection closed before the response body was complete'), { code: 'ECONNRESET' }));
      });
    });
    if (request.body === undefined && request.noLengthHeaders) {
      req.removeHeader('content-length');
      req.removeHeader('transfer-encoding');
    }
    const body = request.body;
    if (body === undefined) return void req.end();
    // The bytes as given, written in slices: each slice's callback is upload progress for the idle clock, so a
    // slow upload that keeps moving is not silence. Content-Length is set, so nothing is chunked.
    const sending = req;
    let offset = 0;
    const progressed = () => {
      activeAt = Math.max(activeAt, Date.now());
    };
    const pump = () => {
      while (offset < body.length && !settled) {
        const slice = body.subarray(offset, offset + UPLOAD_SLICE_BYTES);
        offset += slice.length;
        if (!sending.write(slice, progressed)) return void sending.once('drain', pump);
      }
      if (!settled) sending.end();
    };
    // `Expect: 100-continue`: the head goes first and the body waits for the server's 100 (or its early answer,
    // which ends the exchange unsent), so a server that refuses from the head is read, never written into. A server
    // that ignores Expect gets the body after a second, as curl sends it.
    if (!expects) return void pump();
    let started = false;
    const go = () => {
      clearTimeout(fallback);
      if (started || settled || res) return;
      started = true;
      pump();
    };
    const fallback = setTimeout(go, EXPECT_CONTINUE_WAIT_MS);
    req.once('continue', () => {
      continued = true;
      go();
    });
    req.flushHeaders();
  });
}

/** How long an upload sent with `Expect: 100-continue` waits for the server's 100 before it is sent anyway. */
const EXPECT_CONTINUE_WAIT_MS = 1_000;

const guarded = new WeakSet<Socket>();

/**
 * Node detaches the request's error listener from a kept-alive socket between requests and when an answer
 * ends before the upload does (an early 413); a reset arriving in such a gap would be an unhandled 'error'
 * that kills the worker. The request still learns of it through its own listener when one is attached.
 */
function guardSocket(s: Socket): void {
  if (guarded.has(s)) return;
  guarded.add(s);
  s.on('error', () => {});
}

/** The coding a Content-Encoding names, when it is one the transport undoes (identity and others: undefined). */
export function codingOf(header: string | undefined): ContentCoding | undefined {
  const e = (header ?? '').trim().toLowerCase();
  return e === 'gzip' || e === 'x-gzip' ? 'gzip' : e === 'deflate' || e === 'br' ? e : undefined;
}

/**
 * A decoder for a compressed answer (one the kit accepted, or one a server compressed unasked: HTTP lets it when
 * a request names no Accept-Encoding); the caps apply to its output, and a body that does not decode is a
 * `protocol` failure (Z_DATA_ERROR).
 */
function decoder(response: http.IncomingMessage, coding: ContentCoding | undefined): zlib.Gunzip | zlib.Inflate | zlib.BrotliDecompress | undefined {
  const z = coding === 'gzip' ? zlib.createGunzip() : coding === 'deflate' ? zlib.createInflate() : coding === 'br' ? zlib.createBrotliDecompress() : undefined;
  if (z) response.pipe(z);
  return z;
}

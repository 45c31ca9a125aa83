// The proxy's transport: a node:http server on 127.0.0.1 that forwards every request to the upstream unchanged and
// streams the answer back as it arrives (an event stream is never buffered: each chunk from the upstream is written
// to the client at once, with backpressure). Beside the bytes it forwards, it keeps a bounded copy of each side
// (the first `captureLimit` bytes) and hands the finished exchange to `onExchange`, which judges it after the
// client has its answer. No request waits on a check.
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';

/** One exchange as the proxy saw it: the client's request, and what the upstream answered. */
export interface CapturedExchange {
  /** 1, 2, … in the order requests arrived. */
  seq: number;
  method: string;
  /** The path the client asked for, query included. */
  path: string;
  /** The request's headers as the client sent them (lower-case names; repeated ones joined). */
  requestHeaders: Record<string, string>;
  /** The first `captureLimit` bytes of the request body. */
  requestBody: Buffer;
  requestBytes: number;
  /** 0 when the upstream gave no response the proxy could relay (then `error` says why and the client got a 502). */
  status: number;
  responseHeaders: Record<string, string>;
  /** The first `captureLimit` bytes of the response body, as they came (still content-encoded, if they were). */
  responseBody: Buffer;
  responseBytes: number;
  /** The response arrived whole. */
  complete: boolean;
  /** When each captured chunk of the response arrived (ms after its head) and where it ends in `responseBody`. */
  responseTimes?: [atMs: number, endByte: number][];
  error?: string;
  /**
   * Who ended the exchange early: the upstream (down, timed out, cut, or an answer that cannot be relayed: a bad
   * status line), the client (went away), or the proxy itself (an exception of its own, logged).
   */
  failure?: 'upstream-down' | 'upstream-timeout' | 'upstream-cut' | 'upstream-invalid' | 'client-gone' | 'proxy-error';
  startedAt: number;
  durationMs: number;
}

export interface ProxyOptions {
  /** The upstream's base URL (origin and optional path prefix, without /v1). */
  upstream: string;
  port?: number;
  host?: string;
  /** The upstream must send response headers, and then keep sending, within this bound (ms). Default 120,000. */
  upstreamTimeoutMs?: number;
  /** Bytes of each body kept for the checks (default 10 MB, the contract's body limit); the rest is forwarded only. */
  captureLimit?: number;
  onExchange: (exchange: CapturedExchange) => void;
  /** A line for the operator (upstream down, a request cut). */
  log: (line: string) => void;
}

export interface RunningProxy {
  url: string;
  port: number;
  close(): Promise<void>;
}

export const DEFAULT_CAPTURE_LIMIT = 10_000_000;
export const DEFAULT_UPSTREAM_TIMEOUT_MS = 120_000;

/** Hop-by-hop headers (RFC 9110 7.6.1): they describe one connection and are never forwarded. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade']);

/** A bounded copy of a body: the first `limit` bytes, and the count of all of them. */
class Capture {
  private readonly parts: Buffer[] = [];
  private kept = 0;
  bytes = 0;
  /** When each kept chunk arrived (ms after `since`) and where it ends in the body: a stream's pace, for a replay. */
  readonly times: [atMs: number, endByte: number][] = [];
  since = Date.now();
  constructor(private readonly limit: number) {}
  add(chunk: Buffer): void {
    this.bytes += chunk.length;
    if (this.kept >= this.limit) return;
    const part = this.kept + chunk.length <= this.limit ? chunk : chunk.subarray(0, this.limit - this.kept);
    this.parts.push(part);
    this.kept += part.length;
    this.times.push([Date.now() - this.since, this.kept]);
  }
  get body(): Buffer {
    return this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts);
  }
}

function joined(headers: http.IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) if (v !== undefined) out[k] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

/** The headers that go on: all but hop-by-hop ones and those the `connection` header names. */
function forwardable(headers: http.IncomingHttpHeaders): http.OutgoingHttpHeaders {
  const named = new Set(String(headers.connection ?? '').toLowerCase().split(',').map((s) => s.trim()).filter(Boolean));
  const out: http.OutgoingHttpHeaders = {};
  for (const [k, v] of Object.entries(headers)) if (v !== undefined && !HOP_BY_HOP.has(k) && !named.has(k)) out[k] = v;
  return out;
}

/**
 * The path and query of a request target. A client that uses the proxy as an HTTP proxy (HTTP_PROXY) sends the
 * absolute form, `GET http://host/v1/models`: its path goes upstream like any other.
 */
function originPath(target: string): string {
  if (!/^https?:\/\//i.test(target)) return target;
  try {
    const u = new URL(target);
    return `${u.pathname}${u.search}`;
  } catch {
    return target;
  }
}

/** Text from the wire as a log line shows it: control bytes and DEL escaped, never sent to a terminal. */
const printable = (text: string): string => text.replace(/[\x00-\x1f\x7f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);

/** The proxy's own answer when the upstream gave none it could relay: a section 7 error body, status 502. */
function badGateway(res: http.ServerResponse, code: string, message: string): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = JSON.stringify({ error: { type: 'upstream_error', code, message } });
  // A writeHead that threw (an answer that cannot be relayed) may have left its headers behind.
  for (const name of res.getHeaderNames()) res.removeHeader(name);
  // The reason given: one that threw may have been kept too.
  res.writeHead(502, 'Bad Gateway', { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) });
  res.end(body);
}

export async function startProxy(opts: ProxyOptions): Promise<RunningProxy> {
  const upstream = new URL(opts.upstream);
  if (upstream.protocol !== 'http:' && upstream.protocol !== 'https:') throw new Error(`--upstream must be an http or https URL (got ${opts.upstream})`);
  if (upstream.username || upstream.password) throw new Error('--upstream must not carry credentials: the clients send their own');
  const base = upstream.pathname.replace(/\/+$/, '');
  const client = upstream.protocol === 'https:' ? https : http;
  // Kept-alive connections to the upstream, as many as the clients need (50 concurrent streams, say).
  const agent = new client.Agent({ keepAlive: true, maxSockets: Infinity });
  const timeoutMs = opts.upstreamTimeoutMs ?? DEFAULT_UPSTREAM_TIMEOUT_MS;
  const limit = opts.captureLimit ?? DEFAULT_CAPTURE_LIMIT;
  let seq = 0;

  const forward = (req: http.IncomingMessage, res: http.ServerResponse): void => {
    const started = Date.now();
    const requestCopy = new Capture(limit);
    const responseCopy = new Capture(limit);
    const exchange: CapturedExchange = {
      seq: ++seq,
      method: req.method ?? 'GET',
      path: originPath(req.url ?? '/'),
      requestHeaders: joined(req.headers),
      requestBody: Buffer.alloc(0),
      requestBytes: 0,
      status: 0,
      responseHeaders: {},
      responseBody: Buffer.alloc(0),
      responseBytes: 0,
      complete: false,
      startedAt: started,
      durationMs: 0,
    };
    let finished = false;
    const finish = (failure?: CapturedExchange['failure'], error?: string): void => {
      if (finished) return;
      finished = true;
      exchange.requestBody = requestCopy.body;
      exchange.requestBytes = requestCopy.bytes;
      exchange.responseBody = responseCopy.body;
      exchange.responseBytes = responseCopy.bytes;
      if (responseCopy.times.length > 0) exchange.responseTimes = responseCopy.times;
      exchange.durationMs = Date.now() - started;
      if (failure) exchange.failure = failure;
      if (error) exchange.error = error;
      try {
        opts.onExchange(exchange);
      } catch (err) {
        opts.log(`proxy: could not judge exchange #${exchange.seq}: ${(err as Error).message}`);
      }
    };

    let upstreamReq: http.ClientRequest | undefined;
    /** Ends the exchange without a relayed answer: 502 JSON when nothing of it was sent yet, else a cut. */
    const abandon = (code: string, failure: CapturedExchange['failure'], what: string): void => {
      opts.log(`proxy: ${exchange.method} ${exchange.path}: ${what}; ${res.headersSent ? 'cut the answer' : 'answered 502'}`);
      upstreamReq?.destroy();
      try {
        badGateway(res, code, `chatconform proxy: ${what}`);
      } catch {
        res.destroy();
      }
      finish(failure, what);
    };
    /**
     * Each step of the exchange runs guarded: an exception in it (a bug of the proxy, or an input Node refuses) is
     * logged and fails this exchange only; the process goes on serving the others.
     */
    const guarded =
      <A extends unknown[]>(step: (...args: A) => void) =>
      (...args: A): void => {
        try {
          step(...args);
        } catch (err) {
          abandon('proxy_error', 'proxy-error', `the proxy failed on this exchange (${(err as Error)?.message ?? String(err)})`);
        }
      };

    const headers = forwardable(req.headers);
    headers.host = upstream.host;
    let requestEnded = false;

    /**
     * Sends the request upstream: on a pooled connection, or (`fresh`) on a new one of its own, for the one retry of
     * a request that died on a pooled connection the upstream was closing.
     */
    const send = (fresh: boolean): void => {
      const sent = client.request({
        protocol: upstream.protocol,
        hostname: upstream.hostname,
        port: upstream.port || undefined,
        method: exchange.method,
        path: `${base}${exchange.path}`,
        headers,
        agent: fresh ? false : agent,
      });
      upstreamReq = sent;
      let answered = false;
      // What the connection had read when this request got it: more, and the upstream had begun to answer.
      let readBefore = -1;
      sent.once('socket', (socket: Socket) => {
        readBefore = socket.bytesRead;
      });
      sent.setTimeout(timeoutMs, () => sent.destroy(Object.assign(new Error(`the upstream sent nothing for ${timeoutMs} ms`), { code: 'UPSTREAM_TIMEOUT' })));
      sent.on(
        'error',
        guarded((err: NodeJS.ErrnoException) => {
          if (finished || sent !== upstreamReq) return;
          const timedOut = err.code === 'UPSTREAM_TIMEOUT';
          // A kept-alive connection the upstream closed as this request went out on it (RFC 9112 9.3.1): one retry
          // on a new connection, only when not a byte of the answer came (so the upstream answered nothing) and the
          // whole body sent so far is still at hand. Never once the answer has begun.
          const stale = !fresh && !timedOut && !answered && sent.reusedSocket && sent.socket !== null && sent.socket.bytesRead === readBefore;
          if (stale && !res.headersSent && requestCopy.bytes <= limit) {
            opts.log(`proxy: ${exchange.method} ${exchange.path}: the upstream closed a kept-alive connection under the request (${err.code ?? err.message}); sent again on a new one`);
            send(true);
            return;
          }
          if (!res.headersSent) {
            const what = timedOut ? err.message : `the upstream ${opts.upstream} could not be reached (${err.code ?? err.message})`;
            abandon(timedOut ? 'upstream_timeout' : 'upstream_unreachable', timedOut ? 'upstream-timeout' : 'upstream-down', what);
          } else {
            // The answer had begun: the client sees the cut, as it would without the proxy.
            res.destroy();
            finish(timedOut ? 'upstream-timeout' : 'upstream-cut', timedOut ? err.message : `the upstream cut the answer (${err.code ?? err.message})`);
          }
        }),
      );
      sent.on(
        'response',
        guarded((upstreamRes: http.IncomingMessage) => {
          answered = true;
          relay(upstreamRes);
        }),
      );
      // A retry: the body so far goes first (the copy holds all of it), then the rest as it comes.
      if (fresh && requestCopy.bytes > 0) sent.write(requestCopy.body);
      if (requestEnded) sent.end();
      // A client paused for the dead request's backpressure goes on.
      if (fresh) req.resume();
    };

    /** Relays the upstream's answer as it comes: the head at once, then each chunk, with backpressure. */
    const relay = (upstreamRes: http.IncomingMessage): void => {
      responseCopy.since = Date.now();
      const status = upstreamRes.statusCode ?? 0;
      try {
        // Node refuses to send what HTTP cannot carry (a status below 100, a control byte in the reason phrase
        // or a header): such an answer cannot be relayed, and the client hears so from the proxy.
        res.writeHead(status, upstreamRes.statusMessage, forwardable(upstreamRes.headers));
      } catch (err) {
        upstreamRes.destroy();
        abandon('upstream_invalid_response', 'upstream-invalid', `the upstream's answer cannot be relayed ("${printable(`${status} ${upstreamRes.statusMessage ?? ''}`)}": ${(err as Error).message})`);
        return;
      }
      exchange.status = status;
      exchange.responseHeaders = joined(upstreamRes.headers);
      // Headers now, not with the first body byte: an event stream's client sees it open when the upstream opens it.
      res.flushHeaders();
      upstreamRes.on(
        'data',
        guarded((chunk: Buffer) => {
          responseCopy.add(chunk);
          if (!res.write(chunk)) {
            upstreamRes.pause();
            res.once('drain', () => upstreamRes.resume());
          }
        }),
      );
      upstreamRes.once(
        'end',
        guarded(() => {
          exchange.complete = true;
          res.end();
          finish();
        }),
      );
      upstreamRes.once('aborted', () => {
        res.destroy();
        finish('upstream-cut', 'the upstream cut the answer');
      });
      upstreamRes.once('error', () => {
        res.destroy();
        finish('upstream-cut', 'the upstream cut the answer');
      });
    };

    guarded(() => {
      // The request body goes to whichever request is current (a retry replaces the first), with backpressure.
      req.on(
        'data',
        guarded((chunk: Buffer) => {
          requestCopy.add(chunk);
          const target = upstreamReq;
          if (!target || target.destroyed) return;
          if (!target.write(chunk)) {
            req.pause();
            target.once('drain', () => req.resume());
          }
        }),
      );
      req.once(
        'end',
        guarded(() => {
          requestEnded = true;
          if (upstreamReq && !upstreamReq.destroyed) upstreamReq.end();
        }),
      );
      send(false);
      // The client went away before the answer was whole: stop asking the upstream.
      res.once('close', () => {
        if (!res.writableFinished && !finished) {
          upstreamReq?.destroy();
          finish('client-gone', 'the client closed the connection before the answer was complete');
        }
      });
    })();
  };

  const server = http.createServer((req, res) => {
    try {
      forward(req, res);
    } catch (err) {
      // forward() guards its own steps; this is the last line before the process, which must go on serving.
      opts.log(`proxy: ${req.method ?? '?'} ${printable(req.url ?? '')}: the proxy failed on this exchange (${(err as Error)?.message ?? String(err)})`);
      try {
        badGateway(res, 'proxy_error', 'chatconform proxy: the proxy failed on this exchange');
      } catch {
        res.destroy();
      }
    }
  });
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => {
    if (socket.writable && err.code !== 'ECONNRESET') {
      const body = JSON.stringify({ error: { type: 'invalid_request_error', code: 'bad_request', message: `malformed HTTP request (${err.code ?? 'parse error'})` } });
      socket.end(`HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
    } else socket.destroy();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://${opts.host ?? '127.0.0.1'}:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
        agent.destroy();
      }),
  };
}

// The node:http adapter over the core: wiring of the transport (mock/transport/) around one instance. A request
// becomes the core's plain request (the body pulled from the socket only as the core reads it), the core's result
// goes out through a writer: the reference writer by default, the fast one (turn-end batching, slab encoding) when
// asked, as `chatconform mock` does. No behaviour lives here beyond HTTP/1.1 transport (mock/README.md, "Transport
// bounds"); the transport's own refusals come from the instance's one error builder.
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import type { CoreResult } from './core/http.ts';
import type { MockOptions } from './options.ts';
import { LargeBodyGate, DEFAULT_LARGE_BODY_BOUNDS, type LargeBodyBounds } from './engine/large-body-gate.ts';
import { createMockService, type MockService } from './service.ts';
import { checkEvery, hardenConnections, OwedAnswers, serverOptions } from './transport/connection-hardening.ts';
import { BodyClocks, type BodyBounds } from './transport/request-body.ts';
import { ParseThread } from './transport/parse-thread.ts';
import type { CorsPolicy } from './transport/cors.ts';
import { send } from './transport/send.ts';
import { serveRequest, type Exchange } from './transport/serve-request.ts';
import { referenceWriter, type Writer } from './transport/writer.ts';

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
  /** how answers are written: the reference writer (default), or fastWriter() (mock/transport/fast-writer.ts) */
  writer?: Writer;
  /** the request line and headers must arrive within this many ms (408, then close); default 10,000 */
  headersTimeoutMs?: number;
  /** a request body that sends nothing for this many ms is cut (408 when no answer has started, then close); default 10,000 */
  bodyIdleTimeoutMs?: number;
  /** a request body still incomplete this many ms after its headers is cut likewise; default 60,000 */
  bodyTimeoutMs?: number;
  /** answer browsers: preflights and the allow-origin header, for this origin or `*` (the control API excepted) */
  cors?: CorsPolicy;
  /**
   * large chat bodies (256 KB or more) in flight: `concurrency` read, checked and decoded at a time (default 2),
   * `queue` more waiting, unread (default 8); past that 503 `large_bodies_busy` with retry-after `retryAfterS`
   * (default 1). Not applied to a `service` given.
   */
  largeBodies?: Partial<LargeBodyBounds>;
}

export interface RunningMockServer {
  /** origin, e.g. http://127.0.0.1:8787 (no trailing slash) */
  url: string;
  port: number;
  close(): Promise<void>;
}

/** Starts the mock on 127.0.0.1, or the address `host` names (port 0 = a free port). */
export async function startMockServer(opts: StartOptions = {}): Promise<RunningMockServer> {
  const host = opts.host ?? '127.0.0.1';
  if (net.isIP(host) === 0 && host !== 'localhost') throw new Error(`host must be an IP address or localhost (got ${JSON.stringify(host)})`);
  const {
    port: wantedPort = 0,
    host: _h,
    service: given,
    writer = referenceWriter,
    headersTimeoutMs = DEFAULT_HEADERS_TIMEOUT_MS,
    bodyIdleTimeoutMs = DEFAULT_BODY_IDLE_TIMEOUT_MS,
    bodyTimeoutMs = DEFAULT_BODY_TIMEOUT_MS,
    cors,
    largeBodies,
    ...mockOptions
  } = opts;
  for (const [name, v] of Object.entries({ headersTimeoutMs, bodyIdleTimeoutMs, bodyTimeoutMs })) {
    if (!Number.isInteger(v) || v <= 0) throw new Error(`${name} must be a positive integer (got ${v})`);
  }
  const bounds: BodyBounds = { bodyIdleTimeoutMs, bodyTimeoutMs, clocks: new BodyClocks(checkEvery(Math.min(bodyIdleTimeoutMs, bodyTimeoutMs))) };
  // Large bodies are parsed and validated off the serving thread (mock/engine/checked-bodies.ts).
  const parseThread = given ? undefined : new ParseThread();
  const service = given ?? createMockService(mockOptions, { checkBody: parseThread!.check, largeBodies: new LargeBodyGate({ ...DEFAULT_LARGE_BODY_BOUNDS, ...largeBodies }) });
  const exchange: Exchange = { service, bounds, writer, origin: '', ...(cors ? { cors } : {}) };
  const owed = new OwedAnswers();
  // The transport's own refusals are not held back by the writer.
  const refuse = (res: http.ServerResponse, result: CoreResult): void => void send(res, result, writer, undefined, false);
  const serve = (req: http.IncomingMessage, res: http.ServerResponse, expectContinue: boolean): void => {
    owed.add(res);
    serveRequest(exchange, req, res, expectContinue).catch((err: unknown) => {
      if (!res.headersSent) refuse(res, service.error({ status: 500, code: 'internal_error', message: `the mock failed: ${(err as Error)?.message}` }));
      else res.destroy();
    });
  };
  const server = http.createServer(serverOptions(headersTimeoutMs), (req, res) => serve(req, res, false));
  // `Expect: 100-continue`: the 100 goes out when the core first reads the body (RequestBody).
  server.on('checkContinue', (req, res) => serve(req, res, true));
  hardenConnections(server, service, owed, headersTimeoutMs, refuse);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(wantedPort, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  exchange.origin = `http://${net.isIPv6(host) ? `[${host}]` : host}:${port}`;
  return {
    url: exchange.origin,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        bounds.clocks.stop();
        void parseThread?.close();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

// The reference mock in process, as the judge sees a target: a request goes to `createMockService(options)` (no
// server, no socket) and its answer comes back as the judge's `Exchange` and `TargetResponse`, with the bytes the
// mock would send. The request and the answer cross the mock's own MSW adapter (`fromRequest`, `toResponse`), so a
// stream's body is the adapter's SSE writes (framings and all) and a JSON body is the adapter's serialisation:
// nothing is re-encoded here. One small function per kind of request the suite sends.
import { createMockService, fromRequest, toResponse, type MockOptions, type MockService } from '../../mock/index.ts';
import { MOCK_KEYS } from '../../mock/keys-and-models.ts';
import type { ExchangeLog } from '../../judge/checker.ts';
import { TargetResponse, type Exchange } from '../../judge/exchange.ts';

type Json = Record<string, unknown>;

/** An origin nothing listens on: the request never leaves the process. */
const ORIGIN = 'http://mock.in-process.test';

export interface SendOptions {
  /** The bearer key; `null` sends no Authorization header. Default MOCK_KEYS.full. */
  key?: string | null;
  headers?: Record<string, string>;
  /** A JSON value, or the exact text of the body. */
  body?: Json | string;
}

/** One mock instance and the exchanges sent to it: the log a `Checker` reads (its evidence). */
export class InProcessMock implements ExchangeLog {
  readonly service: MockService;
  readonly exchanges: Exchange[] = [];

  constructor(options: MockOptions = {}) {
    this.service = createMockService(options);
  }

  /** Nothing secret leaves the process: the keys are public fixtures. */
  scrub(text: string): string {
    return text;
  }

  /** Sends one request through the mock's MSW adapter and records the exchange. */
  async send(method: string, path: string, opts: SendOptions = {}): Promise<TargetResponse> {
    const key = opts.key === undefined ? MOCK_KEYS.full : opts.key;
    const requestHeaders: Record<string, string> = { ...(key === null ? {} : { authorization: `Bearer ${key}` }), ...opts.headers };
    const requestBody = opts.body === undefined ? undefined : typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
    if (requestBody !== undefined) requestHeaders['content-type'] ??= 'application/json';
    // What an HTTP/1.1 client sends with a body (the mock's server reads its limit from it before the body).
    if (requestBody !== undefined) requestHeaders['content-length'] ??= String(Buffer.byteLength(requestBody));
    const started = performance.now();
    const request = new Request(`${ORIGIN}${path}`, { method, headers: requestHeaders, ...(requestBody !== undefined ? { body: requestBody } : {}) });
    // `Expect: 100-continue` as the mock's server answers it: the 100 goes out when the core first reads the body.
    const expects = /100-continue/i.test(Object.entries(requestHeaders).find(([k]) => k.toLowerCase() === 'expect')?.[1] ?? '');
    const core = fromRequest(request);
    let read = false;
    const response = toResponse(await this.service.handle({ ...core, body: { read: () => ((read = true), core.body.read()), cancel: () => core.body.cancel() } }));
    // A network error (the mock reset the connection): no status and no body, as the suite's transport records one.
    const reset = response.type === 'error';
    const body = reset ? Buffer.alloc(0) : Buffer.from(await response.arrayBuffer());
    const responseBody = body.toString('utf8');
    const exchange: Exchange = {
      method,
      path,
      url: `${ORIGIN}${path}`,
      requestHeaders,
      ...(requestBody !== undefined ? { requestBody } : {}),
      requestBytes: requestBody === undefined ? 0 : Buffer.byteLength(requestBody),
      status: response.status,
      responseHeaders: Object.fromEntries(response.headers),
      responseBody,
      responseBytes: body.byteLength,
      durationMs: performance.now() - started,
      ...(reset ? { error: 'read ECONNRESET (the connection was reset)', errorKind: 'reset' as const } : {}),
      ...(expects ? { continued: read } : {}),
      curl: `curl -X ${method} '${ORIGIN}${path}'`,
    };
    this.exchanges.push(exchange);
    return new TargetResponse(exchange, body);
  }

  /** GET /v1/models. */
  modelList(opts: SendOptions = {}): Promise<TargetResponse> {
    return this.send('GET', '/v1/models', opts);
  }

  /** GET /v1/models/{id}, the id percent-encoded as the suite sends it. */
  modelEntry(id: string, opts: SendOptions = {}): Promise<TargetResponse> {
    return this.send('GET', `/v1/models/${encodeURIComponent(id)}`, opts);
  }

  /** POST /v1/chat/completions, not streamed (`stream` is left out unless the body sets it). */
  chat(body: Json, opts: Omit<SendOptions, 'body'> = {}): Promise<TargetResponse> {
    return this.send('POST', '/v1/chat/completions', { ...opts, body });
  }

  /** POST /v1/chat/completions with `stream: true`. */
  stream(body: Json, opts: Omit<SendOptions, 'body'> = {}): Promise<TargetResponse> {
    return this.send('POST', '/v1/chat/completions', { ...opts, body: { ...body, stream: true } });
  }

  /** POST /v1/chat/completions with a body given as text (a malformed or oversized one). */
  raw(text: string, opts: Omit<SendOptions, 'body'> = {}): Promise<TargetResponse> {
    return this.send('POST', '/v1/chat/completions', { ...opts, body: text });
  }
}

// MSW 2.x adapter: request handlers that match the `/v1/...` suffix for any origin and any mount prefix, so
// `setupServer(...handlers)` intercepts a client pointed at any base URL. Each one turns the Fetch Request into
// the core's plain request and the core's result into a Response; no behaviour lives here.
import { http, HttpResponse, type HttpHandler } from 'msw';
import { bodyFromStream, type CoreRequest, type CoreResult } from './core/http.ts';
import { jsonText } from './engine/chat-json.ts';
import type { MockOptions } from './options.ts';
import { createMockService, type MockService } from './service.ts';
import { sseBody } from './sse-body.ts';

/** A core result as a Fetch Response (MSW's HttpResponse). */
export function toResponse(result: CoreResult): HttpResponse<any> {
  // A connection reset before any byte (a stall's end): what fetch reports as a network error.
  if (result.kind === 'sse' && result.writes.resetAfter === 0) return HttpResponse.error();
  const init = { status: result.status, headers: result.headers };
  const body = result.kind === 'sse' ? sseBody(result.pieces, result.writes) : result.kind === 'text' ? result.body : jsonText(result.body);
  // A result that names gzip (the variant compressed) is gzipped: the header never claims a coding the body lacks.
  if (result.headers['content-encoding'] === 'gzip') return new HttpResponse(new Response(body).body!.pipeThrough(new CompressionStream('gzip')), init);
  return new HttpResponse(body, init);
}

/** A Fetch Request as the core's plain request. */
export function fromRequest(request: Request): CoreRequest {
  const url = new URL(request.url);
  return {
    method: request.method,
    path: url.pathname,
    header: (name) => request.headers.get(name) ?? undefined,
    body: bodyFromStream(request.body),
    headers: () => Object.fromEntries(request.headers),
    ...(url.search.length > 1 ? { query: url.search.slice(1) } : {}),
    closed: () => abortedOf(request.signal),
  };
}

/** Resolves when the client aborts its request (the fetch's signal). */
function abortedOf(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}

/**
 * Paths, matched on the suffix of any origin and mount prefix. Regular expressions without capture groups, so
 * that MSW never percent-decodes a path itself (a malformed escape becomes a 400 from the core, not a throw).
 */
export const PATHS = {
  /** GET {prefix}/v1/models */
  models: /\/v1\/models\/?$/,
  /** GET {prefix}/v1/models/{model_id} (URL-encoded or raw slashes in the id) */
  // honours: CAT-038 (no capture group: the core decodes the id)
  model: /\/v1\/models\/.+$/,
  /** POST {prefix}/v1/chat/completions */
  chat: /\/v1\/chat\/completions\/?$/,
  /** anything else under {prefix}/v1/ */
  v1: /\/v1\//,
  /** the harness's control API: /_chatconform/... at the root */
  control: /^[a-z][a-z0-9+.-]*:\/\/[^/]+\/_chatconform(\/|$)/i,
} as const;

/** The handlers of one mock service (one prompt cache). */
export function handlersFor(service: MockService): HttpHandler[] {
  const answer = async ({ request }: { request: Request }): Promise<HttpResponse<any>> => toResponse(await service.handle(fromRequest(request)));
  return [
    http.get(PATHS.models, answer),
    http.get(PATHS.model, answer),
    http.post(PATHS.chat, answer),
    // Any other method or path under /v1/: 405 for a known path, 404 otherwise.
    http.all(PATHS.v1, answer),
    // The harness's control API (mock/harness/control.ts), at the root of any origin.
    http.all(PATHS.control, answer),
  ];
}

/** Fresh handlers with their own state (prompt cache), configured by `options`. */
export function createHandlers(options: MockOptions = {}): HttpHandler[] {
  return handlersFor(createMockService(options));
}

/** The default handlers: `setupServer(...handlers)`. */
export const handlers: HttpHandler[] = createHandlers();

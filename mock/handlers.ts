// MSW 2.x request handlers over the core. They match on the `/v1/...` suffix for any origin and any mount
// prefix, so `setupServer(...handlers)` intercepts a client pointed at any base URL.
import { http, HttpResponse, type HttpHandler } from 'msw';
import { shapeErrorResult } from './core/errors.ts';
import { createMockService, type MockService } from './core/service.ts';
import type { MockOptions, MockResult } from './core/types.ts';

/** A core result as a Fetch Response (MSW's HttpResponse). */
export function toResponse(result: MockResult): HttpResponse<any> {
  const init = { status: result.status, headers: result.headers };
  if (result.kind === 'sse' || result.kind === 'text') return new HttpResponse(result.body, init);
  return new HttpResponse(serialise(result.body), init);
}

/** JSON text of a body; frozen bodies (the catalog lists) are serialised once. */
const serialised = new WeakMap<object, string>();
function serialise(body: unknown): string {
  if (body === null || typeof body !== 'object' || !Object.isFrozen(body)) return JSON.stringify(body);
  let text = serialised.get(body);
  if (text === undefined) {
    text = JSON.stringify(body);
    serialised.set(body, text);
  }
  return text;
}

/**
 * Paths, matched on the suffix of any origin and mount prefix. Regular expressions without capture groups, so
 * that MSW never percent-decodes a path itself (a malformed escape becomes a 400 from the core, not a throw).
 */
export const PATHS = {
  /** GET {prefix}/v1/models */
  models: /\/v1\/models\/?$/,
  /** GET {prefix}/v1/models/{model_id} (URL-encoded or raw slashes in the id) */
  model: /\/v1\/models\/.+$/,
  /** POST {prefix}/v1/chat/completions */
  chat: /\/v1\/chat\/completions\/?$/,
  /** anything else under {prefix}/v1/ */
  v1: /\/v1\//,
} as const;

/** The handlers of one mock service (one prompt cache). */
export function handlersFor(service: MockService): HttpHandler[] {
  return [
    http.get(PATHS.models, async ({ request }) => toResponse(await service.listModels(request))),
    http.get(PATHS.model, async ({ request }) => {
      const path = new URL(request.url).pathname;
      const rawId = path.slice(path.indexOf('/v1/models/') + '/v1/models/'.length).replace(/\/$/, '');
      return toResponse(await service.getModel(request, rawId));
    }),
    http.post(PATHS.chat, async ({ request }) => toResponse(await service.chatCompletions(request))),
    // Any other method or path under /v1/: 405 for a known path, 404 otherwise.
    http.all(PATHS.v1, async ({ request }) => toResponse(await service.fallback(request))),
  ];
}

/** Fresh handlers with their own state (prompt cache), configured by `options`. */
export function createHandlers(options: MockOptions = {}): HttpHandler[] {
  return handlersFor(createMockService(options));
}

/** The default handlers: `setupServer(...handlers)`. */
export const handlers: HttpHandler[] = createHandlers();

/** An error response from the one error builder (core/errors.ts), shaped by the instance's modes. */
export function errorResponse(options: MockOptions, status: number, code: string, message: string, headers: Record<string, string> = {}): Response {
  return toResponse(shapeErrorResult(options, status, code, message, headers));
}

/** 404 for a request no handler matched (the node:http server uses it for paths outside /v1/). */
export function notFoundResponse(request: Request, options: MockOptions = {}): Response {
  return errorResponse(options, 404, 'not_found', `no such endpoint: ${request.method} ${new URL(request.url).pathname}`);
}

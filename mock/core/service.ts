// The mock as plain async functions from a Fetch Request to a MockResult. One instance holds the parsed
// fixtures and the prompt cache; MSW handlers and the node:http server both call it.
import { indexKeys, readCredential, requireKey } from './auth.ts';
import { Catalog } from './catalog.ts';
import { admit, complete, streamPieces, toChunks, toResponseBody } from './chat.ts';
import { errorResult, MockHttpError } from './errors.ts';
import { catalogOf, keysOf } from './fixtures.ts';
import { checkContentLength, DEFAULT_BODY_LIMIT_BYTES, readBodyLimited } from './limits.ts';
import { parseChatRequest } from './request.ts';
import { readScenario, scenarioError } from './scenario.ts';
import { sseBody } from './sse-stream.ts';
import type { ApiKey, MockOptions, MockResult } from './types.ts';
import { PromptCache } from './usage.ts';

const JSON_HEADERS = { 'content-type': 'application/json' };

export interface MockService {
  readonly options: MockOptions;
  readonly catalog: Catalog;
  listModels(request: Request): Promise<MockResult>;
  getModel(request: Request, rawId: string): Promise<MockResult>;
  chatCompletions(request: Request): Promise<MockResult>;
  /** Unknown path (404 not_found) or a known path with the wrong method (405 method_not_allowed). */
  fallback(request: Request): MockResult;
  /** Forgets the prompt cache. */
  resetCache(): void;
}

/** Known paths (suffix after an optional mount prefix) and their methods. */
export function matchPath(pathname: string): { route: 'models' | 'model' | 'chat'; id?: string } | undefined {
  const i = pathname.indexOf('/v1/');
  if (i < 0) return undefined;
  const rest = pathname.slice(i);
  if (/^\/v1\/models\/?$/.test(rest)) return { route: 'models' };
  if (/^\/v1\/chat\/completions\/?$/.test(rest)) return { route: 'chat' };
  if (rest.startsWith('/v1/models/')) return { route: 'model', id: rest.slice('/v1/models/'.length).replace(/\/$/, '') };
  return undefined;
}

const ALLOW: Record<string, string> = { models: 'GET', model: 'GET', chat: 'POST' };

async function guard(run: () => Promise<MockResult> | MockResult): Promise<MockResult> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof MockHttpError) return err.toResult();
    return errorResult(500, 'internal_error', `the mock failed: ${(err as Error)?.message ?? String(err)}`);
  }
}

export function createMockService(options: MockOptions = {}): MockService {
  const catalog = new Catalog(catalogOf(options));
  const keys = indexKeys(keysOf(options));
  const cache = new PromptCache(options.cacheCapacity);
  const limit = options.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES;
  const now = options.now ?? Date.now;
  const newId = options.newId ?? (() => `chatcmpl-${crypto.randomUUID().replace(/-/g, '')}`);

  const optionalKey = (headers: Headers): ApiKey | undefined => {
    const c = readCredential(headers, keys);
    return c.kind === 'key' ? c.key : undefined;
  };
  const upfront = (headers: Headers): void => {
    const s = readScenario(headers);
    if (s.status !== undefined) throw scenarioError(s.status);
  };

  return {
    options,
    catalog,
    listModels: (request) =>
      guard(() => {
        upfront(request.headers);
        const key = optionalKey(request.headers);
        return { status: 200, headers: JSON_HEADERS, kind: 'json', body: catalog.list(key) };
      }),

    getModel: (request, rawId) =>
      guard(() => {
        upfront(request.headers);
        const key = optionalKey(request.headers);
        let id: string;
        try {
          id = decodeURIComponent(rawId);
        } catch {
          throw new MockHttpError(400, 'invalid_request', `invalid request: the model id in the path is not valid percent-encoding: ${rawId}`);
        }
        return { status: 200, headers: JSON_HEADERS, kind: 'json', body: catalog.get(id, key) };
      }),

    chatCompletions: (request) =>
      guard(async () => {
        const scenario = readScenario(request.headers);
        if (scenario.status !== undefined) throw scenarioError(scenario.status);
        const key = requireKey(request.headers, keys);
        checkContentLength(request.headers, limit);
        const bytes = await readBodyLimited(request.body, limit);
        const req = parseChatRequest(bytes);
        const entry = catalog.resolveForChat(req.model, key);
        const { route, search } = admit(req, entry);
        const completion = complete(req, entry, route, search, cache);
        const env = { id: newId(), created: Math.floor(now() / 1000) };
        const headers = { 'x-mock-route': route.name };
        if (req.stream === true) {
          const chunks = toChunks(completion, env, req.stream_options?.include_usage === true, options);
          return {
            status: 200,
            headers: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', ...headers },
            kind: 'sse',
            body: sseBody(streamPieces(chunks, scenario), scenario),
          };
        }
        return { status: 200, headers: { ...JSON_HEADERS, ...headers }, kind: 'json', body: toResponseBody(completion, env, options) };
      }),

    fallback: (request) => {
      const m = matchPath(new URL(request.url).pathname);
      if (!m) return errorResult(404, 'not_found', `no such endpoint: ${request.method} ${new URL(request.url).pathname}`);
      const allow = ALLOW[m.route]!;
      return errorResult(405, 'method_not_allowed', `method ${request.method} is not allowed here; use ${allow}`, { allow });
    },

    resetCache: () => cache.clear(),
  };
}

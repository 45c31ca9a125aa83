// The mock as plain async functions from a Fetch Request to a MockResult. One instance holds the parsed
// fixtures and the prompt cache; MSW handlers and the node:http server both call it.
import { indexKeys, readCredential, requireKey } from './auth.ts';
import { Catalog } from './catalog.ts';
import { admit, complete, streamErrorPayload, streamPieces, toChunks, toResponseBody } from './chat.ts';
import { errorResult, MockHttpError, shapeErrorResult } from './errors.ts';
import { catalogOf, keysOf } from './fixture-data.ts';
import { bodyLimitOf, checkContentLength, PARSE_FIRST_READ_LIMIT_BYTES, readBodyLimited, tooLarge } from './limits.ts';
import { defectOn, modesOf, shapeJson, variantOn } from './modes.ts';
import { parseChatRequest, type ChatRequest } from './request.ts';
import { readScenario, scenarioError, type Scenario } from './scenario.ts';
import { encodeStream } from './sse-encoder.ts';
import { sseBody } from './sse-stream.ts';
import type { ApiKey, MockOptions, MockResult } from './types.ts';
import { PromptCache } from './usage.ts';

const JSON_HEADERS = { 'content-type': 'application/json' };
const SSE_HEADERS = { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' };
/** Defect stream-wrong-content-type: the event stream labelled as JSON. */
const WRONG_SSE_HEADERS = { 'content-type': 'application/json', 'cache-control': 'no-cache' };

export interface MockService {
  readonly options: MockOptions;
  readonly catalog: Catalog;
  listModels(request: Request): Promise<MockResult>;
  getModel(request: Request, rawId: string): Promise<MockResult>;
  chatCompletions(request: Request): Promise<MockResult>;
  /** Unknown path (404 not_found) or a known path with the wrong method (405 method_not_allowed). */
  fallback(request: Request): Promise<MockResult>;
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

/** Delays of the variant slow (mock/variants.ts) unless MockOptions.slow says otherwise. */
export const SLOW_DEFAULTS = { headersMs: 3000, eventMs: 100 } as const;

/** The slow variant's delays of an instance, or undefined when the variant is off. */
function slowOf(options: MockOptions): { headersMs: number; eventMs: number } | undefined {
  if (!variantOn(options, 'slow')) return undefined;
  return { headersMs: options.slow?.headersMs ?? SLOW_DEFAULTS.headersMs, eventMs: options.slow?.eventMs ?? SLOW_DEFAULTS.eventMs };
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs a handler; a MockHttpError becomes the error response the instance's modes shape. Variant slow waits first. */
async function guard(options: MockOptions, run: () => Promise<MockResult> | MockResult): Promise<MockResult> {
  let result: MockResult;
  try {
    result = await run();
  } catch (err) {
    if (err instanceof MockHttpError) result = err.toResult(options);
    else result = errorResult(500, 'internal_error', `the mock failed: ${(err as Error)?.message ?? String(err)}`);
  }
  const slow = slowOf(options);
  if (slow && slow.headersMs > 0) await sleep(slow.headersMs);
  return result;
}

/** Refusal codes of hosted search (the defect search-refusal-streamed turns them into a 200 stream). */
const SEARCH_REFUSALS = new Set(['web_search_not_supported', 'web_search_output_budget_too_small']);

export function createMockService(options: MockOptions = {}): MockService {
  modesOf(options); // refuses unknown defect and variant names now, not at the first request
  const catalog = new Catalog(catalogOf(options), options);
  const keys = indexKeys(keysOf(options));
  const cache = new PromptCache(options.cacheCapacity);
  const limit = bodyLimitOf(options);
  const now = options.now ?? Date.now;
  const newId = options.newId ?? (() => `chatcmpl-${crypto.randomUUID().replace(/-/g, '')}`);
  const lenientKeys = { unknown: defectOn(options, 'invalid-key-accepted'), none: defectOn(options, 'chat-without-credential') };

  const optionalKey = (headers: Headers): ApiKey | undefined => {
    const c = readCredential(headers, keys, lenientKeys.unknown);
    if (c.kind === 'none' && defectOn(options, 'catalog-requires-credential')) {
      throw new MockHttpError(401, 'missing_api_key', 'an API key is required: send "Authorization: Bearer <API_KEY>"');
    }
    return c.kind === 'key' ? c.key : undefined;
  };
  const upfront = (headers: Headers): void => {
    const s = readScenario(headers);
    if (s.status !== undefined) throw scenarioError(s.status);
  };
  /** The scenario's framings plus the variants' (crlf, multiline, ...). */
  const framed = (scenario: Scenario): Scenario => {
    const extra = modesOf(options).framing;
    const slow = slowOf(options);
    let s = extra.size === 0 ? scenario : { ...scenario, framing: new Set([...scenario.framing, ...extra]) };
    if (slow) s = { ...s, chunkDelayMs: Math.max(s.chunkDelayMs, slow.eventMs) };
    return s;
  };
  /** A 200 stream that opens, says `text`, then fails with an in-stream error event (defects that stream refusals). */
  const failingStream = (scenario: Scenario, req: ChatRequest | undefined, err: MockHttpError, text: string): MockResult => {
    const base = { id: newId(), object: 'chat.completion.chunk', created: Math.floor(now() / 1000), model: req?.model ?? 'unknown' };
    const payloads: unknown[] = [{ ...base, choices: [{ index: 0, delta: { role: 'assistant' } }] }];
    if (text) payloads.push({ ...base, choices: [{ index: 0, delta: { content: text } }] });
    payloads.push(streamErrorPayload(err.code, err.message));
    const s = framed(scenario);
    const pieces = encodeStream(payloads.map((p) => shapeJson(options, p)), { framing: s.framing, ...(variantOn(options, 'sse-fields') ? { sseFields: true } : {}) });
    return { status: 200, headers: SSE_HEADERS, kind: 'sse', body: sseBody(pieces, s) };
  };

  /** The body, read within the limit (the defect oversized-parsed-first parses first, then checks the size). */
  const readChat = async (request: Request): Promise<ChatRequest> => {
    if (defectOn(options, 'oversized-parsed-first')) {
      const bytes = await readBodyLimited(request.body, PARSE_FIRST_READ_LIMIT_BYTES);
      const req = parseChatRequest(bytes, options);
      if (bytes.byteLength > limit) throw tooLarge(limit);
      return req;
    }
    checkContentLength(request.headers, limit);
    return parseChatRequest(await readBodyLimited(request.body, limit), options);
  };

  const serveChat = async (request: Request, scenario: Scenario): Promise<MockResult> => {
    let req: ChatRequest | undefined;
    try {
      let key: ApiKey;
      if (defectOn(options, 'stream-error-as-200')) {
        // The body is read before the credential, so that every failure of a stream request can open a stream.
        req = await readChat(request);
        key = requireKey(request.headers, keys, lenientKeys);
      } else {
        key = requireKey(request.headers, keys, lenientKeys);
        req = await readChat(request);
      }
      // Parsing a large body and building its completion are each one synchronous pass: let other requests
      // (GET /v1/models) in between the two.
      await new Promise<void>((resolve) => setImmediate(resolve));
      let entry = catalog.resolveForChat(req.model, key);
      let admitted: ReturnType<typeof admit>;
      try {
        admitted = admit(req, entry, options);
      } catch (err) {
        if (err instanceof MockHttpError && SEARCH_REFUSALS.has(err.code) && req.stream === true && defectOn(options, 'search-refusal-streamed')) {
          return failingStream(scenario, req, err, 'Let me search the web for that. ');
        }
        throw err;
      }
      const { route, search } = admitted;
      // Defect routing-substitute-model: another entry answers, and the response says so.
      let shown: string | undefined;
      if (admitted.substitute) {
        shown = catalog.aliasOf(entry.id);
        entry = catalog.byId.get(shown) ?? entry;
      } else if (defectOn(options, 'response-model-rerouted') && entry.supports_reasoning && req.reasoning !== undefined) {
        // Requests with a reasoning object go through the alias that implements it, whose name the response reports.
        shown = catalog.aliasOf(entry.id, (e) => e.supports_reasoning);
      }
      const completion = complete(req, entry, route, search, cache, options);
      const env = { id: newId(), created: Math.floor(now() / 1000), ...(shown !== undefined ? { model: shown } : {}) };
      const headers = { 'x-mock-route': route.name };
      if (req.stream === true) {
        const chunks = toChunks(completion, env, req.stream_options?.include_usage === true, options);
        const s = framed(scenario);
        return {
          status: 200,
          headers: { ...(defectOn(options, 'stream-wrong-content-type') ? WRONG_SSE_HEADERS : SSE_HEADERS), ...headers },
          kind: 'sse',
          body: sseBody(streamPieces(chunks, s, options), s),
        };
      }
      return { status: 200, headers: { ...JSON_HEADERS, ...headers }, kind: 'json', body: toResponseBody(completion, env, options) };
    } catch (err) {
      if (err instanceof MockHttpError && req?.stream === true && defectOn(options, 'stream-error-as-200')) return failingStream(scenario, req, err, '');
      throw err;
    }
  };

  return {
    options,
    catalog,
    listModels: (request) =>
      guard(options, () => {
        upfront(request.headers);
        const key = optionalKey(request.headers);
        return { status: 200, headers: JSON_HEADERS, kind: 'json', body: shapeJson(options, catalog.list(key)) };
      }),

    getModel: (request, rawId) =>
      guard(options, () => {
        upfront(request.headers);
        const key = optionalKey(request.headers);
        let id: string;
        try {
          id = decodeURIComponent(rawId);
        } catch {
          throw new MockHttpError(400, 'invalid_request', `invalid request: the model id in the path is not valid percent-encoding: ${rawId}`);
        }
        return { status: 200, headers: JSON_HEADERS, kind: 'json', body: shapeJson(options, catalog.get(id, key)) };
      }),

    chatCompletions: (request) =>
      guard(options, async () => {
        const scenario = readScenario(request.headers);
        if (scenario.status !== undefined) throw scenarioError(scenario.status);
        return serveChat(request, scenario);
      }),

    fallback: (request) =>
      guard(options, () => {
        const m = matchPath(new URL(request.url).pathname);
        if (!m) return shapeErrorResult(options, 404, 'not_found', `no such endpoint: ${request.method} ${new URL(request.url).pathname}`);
        const allow = ALLOW[m.route]!;
        return shapeErrorResult(options, 405, 'method_not_allowed', `method ${request.method} is not allowed here; use ${allow}`, { allow });
      }),

    resetCache: () => cache.clear(),
  };
}

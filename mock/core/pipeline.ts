// The contract as one pipeline of named stages, each a plain function of plain data. `createStages` builds them
// for one mock instance (fixtures, keys, prompt cache); a stage calls the others through `s`, the instance's
// final stage table, so a layer built on top (mock/modes/) can replace or wrap any one of them once, when the
// instance is created. Read `chat` top to bottom: it is the happy path of POST /v1/chat/completions.
import { authenticate } from './auth.ts';
import { Catalog, CONTRACT_VIEW, type ModelList } from './catalog.ts';
import {
  admit,
  capOf,
  complete,
  toChunks,
  toEvents,
  toResponseBody,
  usageOf,
  type Completion,
  type Envelope,
} from './chat.ts';
import { errorResult, MockHttpError } from './errors.ts';
import type { CoreRequest, CoreResult, StreamWrites } from './http.ts';
import { bodyLimitOf, checkContentLength, readBodyLimited } from './limits.ts';
import { parseChatRequest, type ChatRequest } from './request.ts';
import { pickRoute } from './routing.ts';
import { encodeEvent, encodeStream, type FramingOptions, type SsePayload } from './sse-encoder.ts';
import type { ApiKey, CatalogFixture, CoreOptions, FixtureEntry, MockRoute, PublicCatalogEntry } from './types.ts';
import type { Usage } from './usage.ts';
import { PromptCache } from './usage.ts';

// honours: CHAT-002 (JSON; the local mock is exempt from the scheme)
export const JSON_HEADERS: Readonly<Record<string, string>> = { 'content-type': 'application/json' };
export const SSE_HEADERS: Readonly<Record<string, string>> = { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' };

/** An error the pipeline answers: what the error stage gets. */
export interface ErrorInput {
  status: number;
  code: string;
  message: string;
  headers?: Record<string, string>;
}

/** What the stages of a chat request share once the body is parsed. */
export interface Turn {
  request: CoreRequest;
  req: ChatRequest;
}

/** The context of one chat turn as `chat` fills it. */
interface ChatTurn extends Turn {
  key: ApiKey;
  entry: FixtureEntry;
  search: boolean;
  route: MockRoute;
  cap: number | undefined;
}

export interface Stages {
  /** 4: the three endpoints (after an optional mount prefix), 404 and 405 for anything else */
  handle(request: CoreRequest): Promise<CoreResult>;
  /** 4.1, 5: GET /v1/models */
  listModels(input: { request: CoreRequest }): CoreResult | Promise<CoreResult>;
  /** 4.2, 5: GET /v1/models/{model_id} (the id percent-decoded) */
  getModel(input: { request: CoreRequest; rawId: string }): CoreResult | Promise<CoreResult>;
  /** 4.3: POST /v1/chat/completions */
  chat(input: { request: CoreRequest }): Promise<CoreResult>;
  /** 5, 4.3 rule 1, 2.1-2.7: a chat's credential, its body (`size` bytes) and the request parsed from it */
  receive(input: { request: CoreRequest }): Promise<Turn & { key: ApiKey; size: number }>;
  /** 4: an unknown path (404) or a known path with another method (405) */
  fallback(input: { request: CoreRequest }): CoreResult | Promise<CoreResult>;

  /** 5: the bearer credential; `required` for chat (401 missing_api_key), optional for the catalog */
  authenticate(input: { request: CoreRequest; required: boolean }): ApiKey | undefined;
  /** 4.3 rule 1, 8: the body, read within the limit (413 from Content-Length, or while reading) */
  readBody(input: { request: CoreRequest }): Promise<Uint8Array>;
  /** 2.1-2.7: the body decoded and validated (400) */
  parse(input: { request: CoreRequest; bytes: Uint8Array }): ChatRequest;
  /** 5, 7: the entry a key may use (404 unknown, 403 not allowed / deactivated / tier, 503 unavailable) */
  resolveModel(input: Turn & { key: ApiKey }): FixtureEntry;
  /** 2.5-2.7, 4.3 rules 3 and 7, 7: the capability gates */
  admit(input: Turn & { entry: FixtureEntry }): { search: boolean };
  /** 2.8, 4.3 rules 4-5, 7 rule 3: the serving route, and the entry that answers (always the requested one) */
  route(input: Turn & { entry: FixtureEntry; search: boolean }): { route: MockRoute; entry: FixtureEntry };
  /** 4.3 rule 2, 8: the output cap */
  cap(input: Turn & { entry: FixtureEntry }): number | undefined;
  /** 2.9: what the answer says (text or tool calls, reasoning, search provenance, token counts) */
  complete(input: Turn & { entry: FixtureEntry; route: MockRoute; search: boolean; cap: number | undefined }): Completion;
  /** 2.9 Usage */
  usage(input: Turn & { entry: FixtureEntry; completion: Completion }): Usage;
  /** 2.9: id, created (Unix seconds) and the model the response names (4.3 rule 4) */
  envelope(input: Turn & { entry: FixtureEntry; completion: Completion }): Envelope;
  /** 2.9: the non-streamed body */
  responseBody(input: Turn & { completion: Completion; envelope: Envelope }): Record<string, unknown>;
  /** 6: the stream's chunks */
  chunks(input: Turn & { completion: Completion; envelope: Envelope }): Record<string, unknown>[];
  /** 6 rules 4 and 10: the event sequence (chunks, then [DONE]) */
  events(input: { request: CoreRequest; chunks: Record<string, unknown>[] }): SsePayload[];
  /** 6 rules 1-3, 5: how events are written (plain: LF, `data: `, a blank line after each) */
  framing(input: { request: CoreRequest }): FramingOptions;
  /** 6 rules 1-3, 5: one event as text, in the framing (`index`: its position in the stream; `final`: the last) */
  event(input: { payload: SsePayload; framing: FramingOptions; final: boolean; index: number }): string;
  /** 6 rule 7: how encoded events go out (one write per event, no delay) */
  writes(input: { request: CoreRequest; framing: FramingOptions }): StreamWrites;
  /** 4.3, 6: a 200 stream of `events` */
  streamResult(input: { request: CoreRequest; events: SsePayload[]; headers?: Record<string, string> }): CoreResult;
  /** 7: an error response: the error body {error: {type, code, message}} with its status */
  error(input: ErrorInput): CoreResult;

  /** 2.10: one entry as the catalog shows it (built once per instance) */
  publicEntry(entry: FixtureEntry): PublicCatalogEntry;
  /** 2.11, 3: the entries the list shows (deactivated ones are not) */
  listedEntries(entries: readonly FixtureEntry[]): FixtureEntry[];
  /** 2.11: the list object */
  modelList(data: PublicCatalogEntry[]): ModelList;
}

/** What the stages of one instance share. */
export interface Instance {
  readonly options: CoreOptions;
  readonly catalog: Catalog;
  readonly keys: Map<string, ApiKey>;
  readonly cache: PromptCache;
  readonly bodyLimit: number;
  readonly now: () => number;
  readonly newId: () => string;
}

/** Known paths (the suffix after an optional mount prefix). */
// honours: VER-001
export function matchPath(pathname: string): { route: 'models' | 'model' | 'chat'; id?: string } | undefined {
  const i = pathname.indexOf('/v1/');
  if (i < 0) return undefined;
  const rest = pathname.slice(i);
  if (rest === '/v1/models' || rest === '/v1/models/') return { route: 'models' };
  if (rest === '/v1/chat/completions' || rest === '/v1/chat/completions/') return { route: 'chat' };
  if (rest.startsWith('/v1/models/')) return { route: 'model', id: rest.slice('/v1/models/'.length).replace(/\/$/, '') };
  return undefined;
}

const ALLOW: Record<string, string> = { models: 'GET', model: 'GET', chat: 'POST' };

/** The contract's stages, calling each other through `s` (filled by the caller with these or wrapped ones). */
export function contractStages(i: Instance, s: Stages): Stages {
  const jsonResult = (body: unknown, headers: Record<string, string> = JSON_HEADERS): CoreResult => ({ status: 200, headers, kind: 'json', body });
  return {
    // honours: ERR-005 (a failure before a stream opens is a JSON error response, also when stream is true)
    handle: async (request) => {
      try {
        const m = matchPath(request.path);
        if (m === undefined || request.method !== ALLOW[m.route]) return await s.fallback({ request });
        if (m.route === 'models') return await s.listModels({ request });
        if (m.route === 'model') return await s.getModel({ request, rawId: m.id ?? '' });
        return await s.chat({ request });
      } catch (err) {
        if (err instanceof MockHttpError) return s.error({ status: err.status, code: err.code, message: err.message, headers: err.headers });
        return s.error({ status: 500, code: 'internal_error', message: `the mock failed: ${(err as Error)?.message ?? String(err)}` });
      }
    },

    // honours: CAT-031, CAT-032, CAT-035, CAT-043, AUTH-005, AUTH-006 (no body or query read; credential optional; JSON)
    listModels: ({ request }) => {
      const key = s.authenticate({ request, required: false });
      return jsonResult(i.catalog.list(key));
    },

    // honours: CAT-038, CAT-044 (the id percent-decoded; credential optional)
    getModel: ({ request, rawId }) => {
      const key = s.authenticate({ request, required: false });
      let id: string;
      try {
        id = decodeURIComponent(rawId);
      } catch {
        throw new MockHttpError(400, 'invalid_request', `invalid request: the model id in the path is not valid percent-encoding: ${rawId}`);
      }
      return jsonResult(i.catalog.get(id, key));
    },

    chat: async ({ request }) => {
      // One context object for the whole turn, widened as the stages answer (no copy per stage).
      const asked = await s.receive({ request });
      const req = asked.req;
      const resolved = Object.assign(asked, { entry: s.resolveModel(asked), search: false });
      resolved.search = s.admit(resolved).search;
      const served = s.route(resolved);
      resolved.entry = served.entry;
      const t: ChatTurn = Object.assign(resolved, { route: served.route, cap: s.cap(resolved) });
      const completion = s.complete(t);
      const withCompletion = Object.assign(t, { completion });
      completion.usage = s.usage(withCompletion);
      const done = Object.assign(withCompletion, { envelope: s.envelope(withCompletion) });
      // honours: ROUTE-009 (the serving route the preferences chose is observable on the mock)
      const headers = { 'x-mock-route': t.route.name };
      // honours: REQ-005, REQ-012
      // honours: CHAT-004, CHAT-005, STREAM-001 (an event stream only for stream true; stream_options read only then)
      if (req.stream === true) {
        return s.streamResult({ request, events: s.events({ request, chunks: s.chunks(done) }), headers });
      }
      return jsonResult(s.responseBody(done), { ...JSON_HEADERS, ...headers });
    },

    receive: async ({ request }) => {
      const key = s.authenticate({ request, required: true })!;
      const bytes = await s.readBody({ request });
      return { request, req: s.parse({ request, bytes }), key, size: bytes.byteLength };
    },

    fallback: ({ request }) => {
      const m = matchPath(request.path);
      if (!m) return s.error({ status: 404, code: 'not_found', message: `no such endpoint: ${request.method} ${request.path}` });
      const allow = ALLOW[m.route]!;
      return s.error({ status: 405, code: 'method_not_allowed', message: `method ${request.method} is not allowed here; use ${allow}`, headers: { allow } });
    },

    authenticate: ({ request, required }) => authenticate(request.header('authorization'), i.keys, required),

    // honours: CHAT-007, LIMIT-002 (the body limit is applied before the body is parsed)
    readBody: async ({ request }) => {
      checkContentLength(request.header('content-length'), i.bodyLimit);
      return readBodyLimited(request.body, i.bodyLimit);
    },

    parse: ({ bytes }) => parseChatRequest(bytes),
    resolveModel: ({ req, key }) => i.catalog.resolveForChat(req.model, key),
    admit: ({ req, entry }) => admit(req, entry),
    // honours: ROUTE-008, CHAT-010 (whatever the route, the entry that answers is the requested one)
    route: ({ req, entry, search }) => ({ route: pickRoute(req, entry, search), entry }),
    cap: ({ req, entry }) => capOf(req, entry),
    complete: ({ req, entry, route, search, cap }) => complete(req, entry, route, search, cap, i.cache),
    usage: ({ entry, completion }) => usageOf(completion, entry),
    // honours: RESP-004, RESP-005, RESP-006, RESP-030, CHAT-009 (created in Unix seconds, now; model is the requested catalog id)
    envelope: ({ entry }) => ({ id: i.newId(), created: Math.floor(i.now() / 1000), model: entry.id }),
    responseBody: ({ completion, envelope }) => toResponseBody(completion, envelope),
    chunks: ({ req, completion, envelope }) => toChunks(completion, envelope, req.stream_options?.include_usage === true),
    events: ({ chunks }) => toEvents(chunks),
    framing: () => ({ framing: new Set() }),
    event: ({ payload, framing, final }) => encodeEvent(payload, framing, final),
    writes: ({ framing }) => ({ framing: framing.framing ?? new Set(), chunkDelayMs: 0, writeDelayMs: 0 }),
    streamResult: ({ request, events, headers = {} }) => {
      const framing = s.framing({ request });
      const pieces = encodeStream(events, framing, (payload, final, index) => s.event({ payload, framing, final, index }));
      return { status: 200, headers: { ...SSE_HEADERS, ...headers }, kind: 'sse', pieces, writes: s.writes({ request, framing }) };
    },
    error: ({ status, code, message, headers }) => errorResult(status, code, message, headers),

    publicEntry: (entry) => CONTRACT_VIEW.publicEntry(entry),
    listedEntries: (entries) => CONTRACT_VIEW.listedEntries(entries),
    modelList: (data) => CONTRACT_VIEW.modelList(data),
  };
}

/** Completion ids: `chatcmpl-` and 32 hex digits, a random prefix per instance and a counter (unique, cheap). */
// honours: RESP-002
function sequentialIds(): () => string {
  const prefix = crypto.randomUUID().replace(/-/g, '').slice(0, 20);
  let n = 0;
  return () => `chatcmpl-${prefix}${(n++ % 2 ** 48).toString(16).padStart(12, '0')}`;
}

/** How a layer replaces a stage: it gets the stage below it and returns the one to use. */
export type StageWrapper<K extends keyof Stages> = (next: Stages[K]) => Stages[K];

/**
 * The stage table of one instance: the contract's stages, with `layers` wrapped around them in order (the last
 * layer is outermost). Built once per instance; a request only runs the table. The catalog is built after the
 * layers, from the final catalog stages.
 */
export function buildInstance(
  options: CoreOptions,
  layers: (i: Instance, s: Stages) => ReadonlyArray<Partial<{ [K in keyof Stages]: StageWrapper<K> }>>,
  catalogFixture: CatalogFixture,
  keys: Map<string, ApiKey>,
): { instance: Instance; stages: Stages } {
  const s = {} as Stages;
  let catalog: Catalog | undefined;
  const instance: Instance = {
    options,
    // built below, once the catalog stages are final (a layer reads it when a request comes, never while built)
    get catalog(): Catalog {
      if (catalog === undefined) throw new Error('the catalog is built after the layers');
      return catalog;
    },
    keys,
    cache: new PromptCache(options.cacheCapacity),
    bodyLimit: bodyLimitOf(options),
    now: options.now ?? Date.now,
    newId: options.newId ?? sequentialIds(),
  };
  Object.assign(s, contractStages(instance, s));
  for (const layer of layers(instance, s)) {
    const wrap = <K extends keyof Stages>(name: K): void => {
      const wrapper = layer[name];
      if (wrapper) s[name] = wrapper(s[name]);
    };
    for (const name of Object.keys(layer) as (keyof Stages)[]) wrap(name);
  }
  catalog = new Catalog(catalogFixture, {
    publicEntry: (e) => s.publicEntry(e),
    listedEntries: (es) => s.listedEntries(es),
    modelList: (data) => s.modelList(data),
  });
  return { instance, stages: s };
}

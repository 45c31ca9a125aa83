// `chatconform mock --replay DIR`: a mock instance that serves recorded exchanges (recording.ts) instead of
// generating answers. The catalog is the recorded GET /v1/models; a completion is matched by its normalised request
// (requestKey) and served as recorded, a stream event by event. A request nothing matches gets a section 7 error
// naming what is missing, or, with fallback `generate`, the generated mock's answer. Errors come from the generated
// mock's one error builder, so they have the shape every other answer of the mock has.
import { bodyFromBytes, type CoreRequest, type CoreResult, type StreamWrites } from '../core/http.ts';
import { readBodyLimited, checkContentLength } from '../core/limits.ts';
import { matchPath } from '../core/pipeline.ts';
import { MockHttpError } from '../core/errors.ts';
import { checkNesting } from '../core/request.ts';
import { MOCK_KEYS } from '../keys-and-models.ts';
import type { MockOptions } from '../options.ts';
import { createMockService, type MockService } from '../service.ts';
import { control } from '../harness/control.ts';
import { isControlPath } from '../harness/names.ts';
import { readRecordings, requestKey, type RecordedEvent, type Recording } from './recording.ts';
import { batches } from '../transport/fast-writer.ts';

export type ReplayFallback = 'error' | 'generate';
export type ReplayPace = 'fast' | 'recorded';

/** The longest wait between two replayed events: a recording of a stalled stream never stalls a replay for long. */
export const MAX_REPLAY_GAP_MS = 30_000;

/** The wait before each event to keep a stream's recorded pace (an event without a time: no wait). */
export function recordedDelays(events: readonly RecordedEvent[]): number[] {
  let previous = 0;
  return events.map((e) => {
    if (e.atMs === undefined) return 0;
    const gap = Math.min(MAX_REPLAY_GAP_MS, Math.max(0, e.atMs - previous));
    previous = e.atMs;
    return Math.round(gap);
  });
}

export interface ReplayOptions {
  /** the directory `chatconform proxy --record` wrote */
  dir: string;
  /** what an unrecorded request gets: a section 7 error (default), or the generated mock's answer */
  fallback?: ReplayFallback;
  /** how a recorded stream goes out: as fast as the client reads (default), or at the pace it was recorded */
  pace?: ReplayPace;
  /**
   * options of the generated mock (the error builder, and the answers of fallback `generate`); its journal records
   * the replayed requests too (GET /_chatconform/journal). Faults and scripts shape generated answers only.
   */
  mock?: MockOptions;
}

/** Headers that describe one transfer, not the answer: never replayed. */
const TRANSFER_HEADERS = new Set(['content-length', 'transfer-encoding', 'connection', 'keep-alive', 'date', 'content-encoding']);

/** One recorded event as it goes out again: its name and id when it had them, its data line by line. */
function encodeRecordedEvent(e: RecordedEvent): string {
  let text = e.event !== undefined ? `event: ${e.event}\n` : '';
  if (e.id !== undefined) text += `id: ${e.id}\n`;
  for (const line of e.data.split('\n')) text += `data: ${line}\n`;
  return `${text}\n`;
}

/** A value and everything in it frozen: an answer built once and served to every request that matches it. */
function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

/**
 * The answer a recording holds, as the core's plain result: built once, when the recordings are loaded, and frozen
 * (a million-event stream took 1.2 s to build, and was built for every request). Frozen, its JSON body and its
 * stream are also encoded only once by the fast writer (mock/transport/fast-writer.ts).
 */
function resultOf(rec: Recording, pace: ReplayPace): CoreResult {
  return deepFreeze(builtResult(rec, pace));
}

function builtResult(rec: Recording, pace: ReplayPace): CoreResult {
  const { status } = rec.response;
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(rec.response.headers)) if (!TRANSFER_HEADERS.has(k.toLowerCase())) headers[k.toLowerCase()] = v;
  if (rec.response.events !== undefined) {
    const writes: StreamWrites = { framing: new Set(), chunkDelayMs: 0, writeDelayMs: 0 };
    const pieces = rec.response.events.map(encodeRecordedEvent);
    if (pace === 'recorded') {
      writes.delaysMs = recordedDelays(rec.response.events);
      return { status, headers, kind: 'sse', pieces, writes };
    }
    // Unpaced, the events go out joined into the writes the fast writer would make of them: a thousand strings to
    // keep instead of a million. Each made flat here (joined by `+=`, a string is a tree of its parts, which the
    // first answer to encode it took 600 ms to flatten), through its UTF-8 bytes, which are what is sent anyway.
    // The last event stays alone: the journal reads a stream's outcome from it.
    const joined = batches(pieces.slice(0, -1)).map((text) => Buffer.from(text).toString());
    return { status, headers, kind: 'sse', pieces: [...joined, ...pieces.slice(-1)], writes };
  }
  if (rec.response.body !== undefined) return { status, headers, kind: 'json', body: rec.response.body };
  return { status, headers, kind: 'text', body: rec.response.bodyText ?? '' };
}

/** What a request sent, as the key reads it: its JSON value, or its text when it is not JSON. */
function bodyOf(bytes: Uint8Array): { json?: unknown; text?: string } {
  if (bytes.byteLength === 0) return {};
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  // The live mock's nesting bound (400 nesting_too_deep), before the parse and the request key's recursive walk.
  checkNesting(text);
  try {
    return { json: JSON.parse(text) };
  } catch {
    return { text };
  }
}

/** A short description of a chat request for the not-recorded message. */
function describeChat(body: { json?: unknown }): string {
  const b = body.json as { model?: unknown; messages?: unknown; stream?: unknown } | undefined;
  if (!b || typeof b !== 'object') return 'a body that is not a JSON object';
  const parts = [`model ${JSON.stringify(b.model)}`];
  if (Array.isArray(b.messages)) parts.push(`${b.messages.length} message(s)`);
  if (b.stream === true) parts.push('stream true');
  return parts.join(', ');
}

export function createReplayService(opts: ReplayOptions): MockService & { recordings: number } {
  // Only the answers built from them are kept: the recordings' own objects (a million events) go once loaded.
  let recordings: Recording[] | undefined = readRecordings(opts.dir);
  const exchanges = recordings.length;
  const completions = recordings.filter((r) => matchPath(r.request.path)?.route === 'chat').length;
  // Two instances of the generated mock: one answers (fallback, errors) and journals nothing; the other's harness
  // fronts the replay, so the journal and the control API see every request once.
  const generated = createMockService({ ...(opts.mock ?? {}), journalSize: 0 });
  const front = createMockService(opts.mock ?? {}).harness;
  const fallback = opts.fallback ?? 'error';
  const pace = opts.pace ?? 'fast';
  // Every answer of a request in order; the n-th identical request gets the n-th answer, then the last again.
  const byKey = new Map<string, CoreResult[]>();
  let catalog: CoreResult | undefined;
  let catalogBody: unknown;
  for (const rec of recordings) {
    const r = rec.request;
    const key = requestKey(r.method, r.path, { ...(r.body !== undefined ? { json: r.body } : {}), ...(r.bodyText !== undefined ? { text: r.bodyText } : {}) });
    const answer = resultOf(rec, pace);
    const list = byKey.get(key);
    if (list) list.push(answer);
    else byKey.set(key, [answer]);
    if (r.method.toUpperCase() === 'GET' && matchPath(r.path)?.route === 'models' && rec.response.status === 200) {
      catalog = answer;
      catalogBody = rec.response.body;
    }
  }
  recordings = undefined;
  const served = new Map<string, number>();
  const next = (key: string): CoreResult | undefined => {
    const list = byKey.get(key);
    if (!list) return undefined;
    const n = served.get(key) ?? 0;
    served.set(key, n + 1);
    return list[Math.min(n, list.length - 1)];
  };
  const notRecorded = (request: CoreRequest, what: string): CoreResult =>
    generated.error({
      status: 404,
      code: 'not_recorded',
      message: `no recording in ${opts.dir} matches ${request.method} ${request.path} (${what}); the directory holds ${exchanges} exchange(s), ${completions} of them completions. Record it through chatconform proxy --record, or replay with --fallback generate`,
    });

  /** The entry of the recorded catalog whose id is `id`, as GET /v1/models/{id} shows it. */
  const catalogEntry = (id: string): unknown => {
    const data = (catalogBody as { data?: unknown } | undefined)?.data;
    return Array.isArray(data) ? data.find((e) => (e as { id?: unknown } | null)?.id === id) : undefined;
  };

  /** The generated mock's answer to a request the recordings do not hold (its keys stand in for the client's). */
  const generate = (request: CoreRequest, bytes: Uint8Array | undefined): Promise<CoreResult> => {
    const auth = request.header('authorization');
    const known = auth !== undefined && Object.values(MOCK_KEYS).some((k) => auth.includes(k));
    return generated.handle({
      method: request.method,
      path: request.path,
      header: (name) => (name === 'authorization' && auth !== undefined && !known ? `Bearer ${MOCK_KEYS.full}` : request.header(name)),
      body: bytes ? bodyFromBytes(bytes) : request.body,
    });
  };

  const replay = async (request: CoreRequest): Promise<CoreResult> => {
    try {
      const route = matchPath(request.path)?.route;
      const method = request.method.toUpperCase();
      if (method === 'GET' && route === 'models') {
        if (catalog) return catalog;
        return fallback === 'generate' ? await generate(request, undefined) : notRecorded(request, 'no GET /v1/models answered 200 was recorded');
      }
      if (method === 'GET') {
        const answer = next(requestKey(method, request.path, {}));
        if (answer) return answer;
        if (route === 'model') {
          let id = '';
          try {
            id = decodeURIComponent(matchPath(request.path)?.id ?? '');
          } catch {
            // Not percent-encoding: no entry has that id.
          }
          const entry = catalogEntry(id);
          if (entry !== undefined) return { status: 200, headers: { 'content-type': 'application/json' }, kind: 'json', body: entry };
        }
        return fallback === 'generate' ? await generate(request, undefined) : notRecorded(request, 'no such GET was recorded, and the recorded catalog has no such entry');
      }
      // The contract requires a credential on a completion; any key will do, the recordings hold none.
      if (route === 'chat' && method === 'POST' && !/^\s*bearer\s+\S/i.test(request.header('authorization') ?? '')) {
        throw new MockHttpError(401, 'missing_api_key', 'an API key is required: send "Authorization: Bearer <API_KEY>"');
      }
      checkContentLength(request.header('content-length'), generated.bodyLimit);
      const bytes = await readBodyLimited(request.body, generated.bodyLimit);
      const body = bodyOf(bytes);
      const answer = next(requestKey(method, request.path, body));
      if (answer) return answer;
      if (fallback === 'generate') return await generate(request, bytes);
      return notRecorded(request, route === 'chat' ? `${describeChat(body)}: no recorded completion has this normalised request` : 'no such request was recorded');
    } catch (err) {
      if (err instanceof MockHttpError) return generated.error({ status: err.status, code: err.code, message: err.message, headers: err.headers });
      return generated.error({ status: 500, code: 'internal_error', message: `the replay failed: ${(err as Error)?.message ?? String(err)}` });
    }
  };

  return {
    options: generated.options,
    catalog: generated.catalog,
    bodyLimit: generated.bodyLimit,
    harness: front,
    handle: (request) => (isControlPath(request.path) ? control(front, request) : front.handle(request, replay, (input) => generated.error(input))),
    error: (input) => generated.error(input),
    resetCache: () => served.clear(),
    recordings: exchanges,
  };
}

// Scenario headers: request headers the contract does not read, which select faults and framings so client
// authors can reproduce the nasty cases (documented in mock/README.md). Not contract: a layer over the core's
// stages, applied to every instance outermost, after the modes (so x-mock-fail-after wins over a mode's events).
import { MockHttpError } from './core/errors.ts';
import type { CoreRequest, CoreResult } from './core/http.ts';
import { streamErrorPayload } from './core/chat.ts';
import type { StageWrapper, Stages } from './core/pipeline.ts';
import { FRAMINGS, type Framing } from './core/sse-encoder.ts';

export { FRAMINGS, type Framing };

export interface Scenario {
  /** x-mock-status: answer this error status upfront */
  status?: number;
  /** x-mock-retry-after: the retry-after seconds of that status (default: 1 for 429 and 503, none for others) */
  retryAfter?: number;
  /** what asked for the status, named in the error message (default: the x-mock-status header) */
  statusBy?: string;
  /** x-mock-fail-after: in a stream, an error event after N data events, then the end (no [DONE]) */
  failAfter?: number;
  /** what asked for the failing stream, named in its error event (default: the x-mock-fail-after header) */
  failAfterBy?: string;
  /** x-mock-chunk-delay-ms: delay before each event */
  chunkDelayMs: number;
  /** x-mock-write-delay-ms: delay before each network write (per byte with bytewise) */
  writeDelayMs: number;
  /** x-mock-framing: comma-separated framing variants */
  framing: Set<Framing>;
  /** x-mock-malformed-json: a JSON answer of status 200 is cut in the middle (the rest of the answer unchanged) */
  malformedJson?: boolean;
  /** x-mock-reset-after: in a stream, the connection is reset (TCP RST) after N events */
  resetAfter?: number;
  /** x-mock-stall-ms: no byte of the answer for N ms, or until the client goes away; then the connection is reset */
  stallMs?: number;
}

/** The largest delay (ms) and x-mock-fail-after a scenario may ask for. */
export const MAX_DELAY_MS = 10_000;
export const MAX_FAIL_AFTER = 1_000_000;
/** The largest retry-after (seconds) a scenario may ask for. */
export const MAX_RETRY_AFTER_S = 3600;
/** The longest stall (ms): a client that never gives up holds a connection, never the mock, at most this long. */
export const MAX_STALL_MS = 300_000;

/** A header lookup: Headers.get, or CoreRequest.header. */
export type HeaderLookup = (name: string) => string | null | undefined;

function intHeader(header: HeaderLookup, name: string, min: number, max: number): number | undefined {
  const raw = header(name);
  if (raw === null || raw === undefined) return undefined;
  const v = raw.trim();
  if (!/^\d+$/.test(v) || Number(v) < min || Number(v) > max) {
    throw new MockHttpError(400, 'invalid_scenario_header', `${name} must be an integer from ${min} to ${max} (got "${raw}")`);
  }
  return Number(v);
}

export function readScenario(header: HeaderLookup): Scenario {
  const framing = new Set<Framing>();
  const rawFraming = header('x-mock-framing');
  if (rawFraming !== null && rawFraming !== undefined) {
    for (const part of rawFraming.split(',').map((p) => p.trim().toLowerCase()).filter(Boolean)) {
      if (part === 'lf') continue;
      if (!(FRAMINGS as readonly string[]).includes(part)) {
        throw new MockHttpError(
          400,
          'invalid_scenario_header',
          `x-mock-framing has an unknown value "${part}"; known: lf, ${FRAMINGS.join(', ')}`,
        );
      }
      framing.add(part as Framing);
    }
  }
  const scenario: Scenario = {
    chunkDelayMs: intHeader(header, 'x-mock-chunk-delay-ms', 0, MAX_DELAY_MS) ?? 0,
    writeDelayMs: intHeader(header, 'x-mock-write-delay-ms', 0, MAX_DELAY_MS) ?? 0,
    framing,
  };
  const status = intHeader(header, 'x-mock-status', 400, 599);
  if (status !== undefined) scenario.status = status;
  const failAfter = intHeader(header, 'x-mock-fail-after', 0, MAX_FAIL_AFTER);
  if (failAfter !== undefined) scenario.failAfter = failAfter;
  const retryAfter = intHeader(header, 'x-mock-retry-after', 0, MAX_RETRY_AFTER_S);
  if (retryAfter !== undefined) scenario.retryAfter = retryAfter;
  const malformed = header('x-mock-malformed-json');
  if (malformed !== null && malformed !== undefined) {
    if (!/^(1|true)$/i.test(malformed.trim())) throw new MockHttpError(400, 'invalid_scenario_header', `x-mock-malformed-json must be 1 or true (got "${malformed}")`);
    scenario.malformedJson = true;
  }
  const resetAfter = intHeader(header, 'x-mock-reset-after', 0, MAX_FAIL_AFTER);
  if (resetAfter !== undefined) scenario.resetAfter = resetAfter;
  const stallMs = intHeader(header, 'x-mock-stall-ms', 1, MAX_STALL_MS);
  if (stallMs !== undefined) scenario.stallMs = stallMs;
  return scenario;
}

/** The error answered for x-mock-status (and for a fault that asks for a status: one implementation). */
export function scenarioError(status: number, retryAfter?: number, by = `x-mock-status: ${status}`): MockHttpError {
  const headers: Record<string, string> = {};
  let code = 'mock_status';
  if (status === 429) code = 'rate_limit_exceeded';
  else if (status === 503) code = 'service_unavailable';
  else if (status === 500) code = 'internal_error';
  else if (status === 502) code = 'upstream_error';
  else if (status === 504) code = 'upstream_timeout';
  const after = retryAfter ?? (status === 429 || status === 503 ? 1 : undefined);
  if (after !== undefined) headers['retry-after'] = String(after);
  return new MockHttpError(status, code, `scenario error requested by ${by}`, headers);
}

/**
 * Scenario fields from elsewhere than the request's own headers (the harness's faults and scripted answers,
 * mock/harness/), asked for each time a stage reads the scenario. The request's x-mock-* headers win field by field;
 * framings add up.
 */
export type ScenarioSource = (request: CoreRequest) => Partial<Scenario> | undefined;

/** `over` laid on `under`, field by field (a delay of 0 is no delay, so it sets nothing); framings add up. */
export function mergeScenario(under: Partial<Scenario>, over: Partial<Scenario>): Partial<Scenario> {
  const merged: Partial<Scenario> = { ...under };
  if (over.chunkDelayMs) merged.chunkDelayMs = over.chunkDelayMs;
  if (over.writeDelayMs) merged.writeDelayMs = over.writeDelayMs;
  if (over.framing && over.framing.size > 0) merged.framing = new Set([...(under.framing ?? []), ...over.framing]);
  if (over.status !== undefined) {
    // A status comes with its own retry-after and origin, never with those of the status it replaces.
    merged.status = over.status;
    delete merged.retryAfter;
    delete merged.statusBy;
    if (over.statusBy !== undefined) merged.statusBy = over.statusBy;
  }
  if (over.retryAfter !== undefined) merged.retryAfter = over.retryAfter;
  if (over.failAfter !== undefined) {
    merged.failAfter = over.failAfter;
    delete merged.failAfterBy;
    if (over.failAfterBy !== undefined) merged.failAfterBy = over.failAfterBy;
  }
  if (over.malformedJson) merged.malformedJson = true;
  if (over.resetAfter !== undefined) merged.resetAfter = over.resetAfter;
  if (over.stallMs !== undefined) merged.stallMs = over.stallMs;
  return merged;
}

const NONE: Scenario = { chunkDelayMs: 0, writeDelayMs: 0, framing: new Set() };

const complete = (p: Partial<Scenario>): Scenario => ({ ...p, chunkDelayMs: p.chunkDelayMs ?? 0, writeDelayMs: p.writeDelayMs ?? 0, framing: p.framing ?? new Set() });

/**
 * The scenario layer of one instance: upfront faults, failing streams, framings and delays. `source` adds scenario
 * fields that do not come from the request's headers (the harness's faults, mock/harness/).
 */
export function scenarioLayer(s: Stages, source?: ScenarioSource): Partial<{ [K in keyof Stages]: StageWrapper<K> }> {
  // Headers are read once per request, kept while it is answered (`handle` below), and dropped with it (a WeakMap
  // entry per request kept each request's objects alive into the old generation; bench/README.md). A request
  // without any x-mock-* header shares NONE.
  const seen = new Map<CoreRequest, Scenario | undefined>();
  const of = (request: CoreRequest): Scenario => {
    let sc = seen.get(request);
    if (sc === undefined) {
      // Read where a stage first asks (a bad header is that stage's 400); a request a layer below `handle` made
      // anew is not kept, and is read again.
      sc = hasScenarioHeader(request) ? readScenario((n) => request.header(n)) : NONE;
      if (seen.has(request)) seen.set(request, sc);
    }
    const more = source?.(request);
    return more === undefined ? sc : complete(mergeScenario(more, sc));
  };
  const upfront = (request: CoreRequest): void => {
    const sc = of(request);
    if (sc.status !== undefined) throw scenarioError(sc.status, sc.retryAfter, sc.statusBy);
  };
  return {
    handle: (next) => async (request) => {
      seen.set(request, undefined);
      try {
        const result = await next(request);
        let sc: Scenario;
        try {
          sc = of(request);
        } catch {
          return result; // a malformed x-mock-* header, answered 400 where a stage first read it
        }
        if (sc.stallMs !== undefined) return await stalled(request, sc.stallMs);
        return sc.malformedJson ? malformed(result) : result;
      } finally {
        seen.delete(request);
      }
    },
    listModels: (next) => (input) => (upfront(input.request), next(input)),
    getModel: (next) => (input) => (upfront(input.request), next(input)),
    chat: (next) => (input) => (upfront(input.request), next(input)),
    events: (next) => (input) => {
      const { failAfter, failAfterBy } = of(input.request);
      if (failAfter === undefined) return next(input);
      const { chunks } = input;
      return [
        ...chunks.slice(0, failAfter),
        streamErrorPayload('upstream_error', `the stream failed after ${Math.min(failAfter, chunks.length)} chunks (${failAfterBy ?? 'x-mock-fail-after'})`),
      ];
    },
    framing: (next) => (input) => {
      const f = next(input);
      const extra = of(input.request).framing;
      return extra.size === 0 ? f : { ...f, framing: new Set([...(f.framing ?? []), ...extra]) };
    },
    writes: (next) => (input) => {
      const w = next(input);
      const sc = of(input.request);
      if (sc.chunkDelayMs === 0 && sc.writeDelayMs === 0 && sc.resetAfter === undefined) return w;
      const paced = { ...w, chunkDelayMs: Math.max(w.chunkDelayMs, sc.chunkDelayMs), writeDelayMs: Math.max(w.writeDelayMs, sc.writeDelayMs) };
      return sc.resetAfter === undefined ? paced : { ...paced, resetAfter: sc.resetAfter };
    },
  };
}

const SCENARIO_HEADERS = [
  'x-mock-status',
  'x-mock-retry-after',
  'x-mock-fail-after',
  'x-mock-framing',
  'x-mock-chunk-delay-ms',
  'x-mock-write-delay-ms',
  'x-mock-malformed-json',
  'x-mock-reset-after',
  'x-mock-stall-ms',
];

/**
 * A JSON answer of status 200 as text cut in the middle, the rest of it unchanged (its content-type still says JSON):
 * a body a proxy truncated. Other answers are left as they are.
 */
export function malformed(result: CoreResult): CoreResult {
  if (result.kind !== 'json' || result.status !== 200) return result;
  const text = JSON.stringify(result.body);
  let cut = Math.floor(text.length / 2);
  // Never half a surrogate pair: the bytes stay UTF-8, only the JSON is broken.
  const last = text.charCodeAt(cut - 1);
  if (last >= 0xd800 && last <= 0xdbff) cut--;
  return { status: 200, headers: result.headers, kind: 'text', body: text.slice(0, cut) };
}

/** A result that says: reset the connection before the status line (nothing is sent). */
export const RESET_UPFRONT: CoreResult = { status: 0, headers: {}, kind: 'sse', pieces: [], writes: { framing: new Set(), chunkDelayMs: 0, writeDelayMs: 0, resetAfter: 0 } };

/**
 * A stall: nothing for `ms`, or until the client goes away, whichever comes first; then the connection is reset. It
 * holds one timer (unref'd: a stall never keeps a process alive) and no work; the answer made for it is dropped.
 */
export async function stalled(request: CoreRequest, ms: number): Promise<CoreResult> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ms);
      timer.unref?.();
    }),
    ...(request.closed ? [request.closed()] : []),
  ]);
  clearTimeout(timer);
  return RESET_UPFRONT;
}
const hasScenarioHeader = (request: CoreRequest): boolean => SCENARIO_HEADERS.some((h) => request.header(h) !== undefined);

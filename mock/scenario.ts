// Scenario headers: request headers the contract does not read, which select faults and framings so client
// authors can reproduce the nasty cases (documented in mock/README.md). Not contract: a layer over the core's
// stages, applied to every instance outermost, after the modes (so x-mock-fail-after wins over a mode's events).
import { MockHttpError } from './core/errors.ts';
import type { CoreRequest } from './core/http.ts';
import { streamError, type StageWrapper, type Stages } from './core/pipeline.ts';
import { FRAMINGS, type Framing } from './core/sse-encoder.ts';

export { FRAMINGS, type Framing };

export interface Scenario {
  /** x-mock-status: answer this error status upfront */
  status?: number;
  /** x-mock-fail-after: in a stream, an error event after N data events, then the end (no [DONE]) */
  failAfter?: number;
  /** x-mock-chunk-delay-ms: delay before each event */
  chunkDelayMs: number;
  /** x-mock-write-delay-ms: delay before each network write (per byte with bytewise) */
  writeDelayMs: number;
  /** x-mock-framing: comma-separated framing variants */
  framing: Set<Framing>;
}

const MAX_DELAY_MS = 10_000;

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
  const failAfter = intHeader(header, 'x-mock-fail-after', 0, 1_000_000);
  if (failAfter !== undefined) scenario.failAfter = failAfter;
  return scenario;
}

/** The error answered for x-mock-status. */
export function scenarioError(status: number): MockHttpError {
  const headers: Record<string, string> = {};
  let code = 'mock_status';
  if (status === 429) {
    code = 'rate_limit_exceeded';
    headers['retry-after'] = '1';
  } else if (status === 503) {
    code = 'service_unavailable';
    headers['retry-after'] = '1';
  } else if (status === 500) code = 'internal_error';
  else if (status === 502) code = 'upstream_error';
  else if (status === 504) code = 'upstream_timeout';
  return new MockHttpError(status, code, `scenario error requested by x-mock-status: ${status}`, headers);
}

const NONE: Scenario = { chunkDelayMs: 0, writeDelayMs: 0, framing: new Set() };

/** The scenario layer of one instance: upfront faults, failing streams, framings and delays. */
export function scenarioLayer(s: Stages): Partial<{ [K in keyof Stages]: StageWrapper<K> }> {
  // Read once per request; a request without any x-mock-* header shares NONE.
  const seen = new WeakMap<CoreRequest, Scenario>();
  const of = (request: CoreRequest): Scenario => {
    let sc = seen.get(request);
    if (sc === undefined) {
      sc = hasScenarioHeader(request) ? readScenario((n) => request.header(n)) : NONE;
      seen.set(request, sc);
    }
    return sc;
  };
  const upfront = (request: CoreRequest): void => {
    const sc = of(request);
    if (sc.status !== undefined) throw scenarioError(sc.status);
  };
  return {
    listModels: (next) => (input) => (upfront(input.request), next(input)),
    getModel: (next) => (input) => (upfront(input.request), next(input)),
    chat: (next) => (input) => (upfront(input.request), next(input)),
    events: (next) => (input) => {
      const { failAfter } = of(input.request);
      if (failAfter === undefined) return next(input);
      const { chunks } = input;
      return [
        ...chunks.slice(0, failAfter),
        streamError(s, 'upstream_error', `the stream failed after ${Math.min(failAfter, chunks.length)} chunks (x-mock-fail-after)`),
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
      if (sc.chunkDelayMs === 0 && sc.writeDelayMs === 0) return w;
      return { ...w, chunkDelayMs: Math.max(w.chunkDelayMs, sc.chunkDelayMs), writeDelayMs: Math.max(w.writeDelayMs, sc.writeDelayMs) };
    },
  };
}

const SCENARIO_HEADERS = ['x-mock-status', 'x-mock-fail-after', 'x-mock-framing', 'x-mock-chunk-delay-ms', 'x-mock-write-delay-ms'];
const hasScenarioHeader = (request: CoreRequest): boolean => SCENARIO_HEADERS.some((h) => request.header(h) !== undefined);

// Scenario headers: request headers the contract does not read, which select faults and framings so client
// authors can reproduce the nasty cases. Documented in mock/README.md.
import { MockHttpError } from './errors.ts';

export type Framing = 'crlf' | 'multiline' | 'comments' | 'bytewise' | 'no-final-blank' | 'no-space';
export const FRAMINGS: readonly Framing[] = ['crlf', 'multiline', 'comments', 'bytewise', 'no-final-blank', 'no-space'];

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

function intHeader(headers: Headers, name: string, min: number, max: number): number | undefined {
  const raw = headers.get(name);
  if (raw === null) return undefined;
  const v = raw.trim();
  if (!/^\d+$/.test(v) || Number(v) < min || Number(v) > max) {
    throw new MockHttpError(400, 'invalid_scenario_header', `${name} must be an integer from ${min} to ${max} (got "${raw}")`);
  }
  return Number(v);
}

export function readScenario(headers: Headers): Scenario {
  const framing = new Set<Framing>();
  const rawFraming = headers.get('x-mock-framing');
  if (rawFraming !== null) {
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
    chunkDelayMs: intHeader(headers, 'x-mock-chunk-delay-ms', 0, MAX_DELAY_MS) ?? 0,
    writeDelayMs: intHeader(headers, 'x-mock-write-delay-ms', 0, MAX_DELAY_MS) ?? 0,
    framing,
  };
  const status = intHeader(headers, 'x-mock-status', 400, 599);
  if (status !== undefined) scenario.status = status;
  const failAfter = intHeader(headers, 'x-mock-fail-after', 0, 1_000_000);
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

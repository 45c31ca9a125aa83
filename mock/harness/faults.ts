// Runtime faults: what a client must survive (a 429, a stream cut by an error event, odd framings, slow events, and
// the network's failures: a connection reset mid-stream, a stall with no bytes, a JSON body cut short), applied to
// requests that did not ask for them by header. A fault is never a defect: it breaks no requirement of the
// server's contract. Each fault resolves to the same scenario fields the x-mock-* headers give
// (mock/scenario.ts), so every fault has one implementation, the scenario layer's.
//
// Grammar (mock/README.md, "Runtime faults"):  FAULT := ACTION [":" PARAM {";" PARAM}] ["@" WHEN]
import { FRAMINGS, MAX_DELAY_MS, MAX_FAIL_AFTER, MAX_RETRY_AFTER_S, MAX_STALL_MS, type Framing, type Scenario } from '../scenario.ts';
import { fnv1a, prng } from '../engine/tokens.ts';

/** A fault spec that does not parse; the message names the spec and what is wrong. */
export class FaultSpecError extends Error {}

/** Which requests a fault may fire on: upfront statuses on every endpoint, stream faults on chat completions. */
export type FaultTarget = 'any' | 'chat';

/** When a fault fires among the requests it may fire on. */
export type FaultWhen = { kind: 'always' } | { kind: 'probability'; p: number } | { kind: 'ratio'; n: number; m: number };

export interface FaultSpec {
  /** the spec as written (trimmed) */
  spec: string;
  /** the scenario fields it gives when it fires */
  scenario: Partial<Scenario>;
  target: FaultTarget;
  when: FaultWhen;
}

const fail = (spec: string, why: string): never => {
  throw new FaultSpecError(`fault "${spec}": ${why}`);
};

function intIn(spec: string, what: string, raw: string, min: number, max: number): number {
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) fail(spec, `${what} must be an integer from ${min} to ${max} (got "${raw}")`);
  return Number(raw);
}

/** `50`, `50ms` or `2s`: milliseconds, at most `max` (MAX_DELAY_MS unless said). */
function duration(spec: string, what: string, raw: string, max = MAX_DELAY_MS, min = 0): number {
  const m = /^(\d+)(ms|s)?$/.exec(raw);
  if (!m) return fail(spec, `${what} must be a duration such as 50ms or 2s (got "${raw}")`);
  const ms = Number(m[1]) * (m[2] === 's' ? 1000 : 1);
  if (ms > max) fail(spec, `${what} must be at most ${max} ms (got "${raw}")`);
  if (ms < min) fail(spec, `${what} must be at least ${min} ms (got "${raw}")`);
  return ms;
}

function parseWhen(spec: string, raw: string | undefined): FaultWhen {
  if (raw === undefined) return { kind: 'always' };
  const ratio = /^(\d+)\/(\d+)$/.exec(raw);
  if (ratio) {
    const n = Number(ratio[1]);
    const m = Number(ratio[2]);
    if (n < 1 || m < n || m > 1_000_000) fail(spec, `@N/M needs 1 <= N <= M <= 1000000 (got "${raw}")`);
    return n === m ? { kind: 'always' } : { kind: 'ratio', n, m };
  }
  if (/^(\d+(\.\d+)?|\.\d+)$/.test(raw)) {
    const p = Number(raw);
    if (p <= 0 || p > 1) fail(spec, `@P must be a probability above 0 and at most 1 (got "${raw}")`);
    return p >= 1 ? { kind: 'always' } : { kind: 'probability', p };
  }
  return fail(spec, `@WHEN must be a probability (0.2) or a ratio N/M (1/5) (got "${raw}")`);
}

/** Parses one fault spec; throws FaultSpecError with a message naming the spec and the problem. */
export function parseFault(input: string, opts: { when?: boolean } = {}): FaultSpec {
  const spec = input.trim();
  if (spec === '') fail(input, 'empty');
  const at = spec.lastIndexOf('@');
  const body = at >= 0 ? spec.slice(0, at) : spec;
  const whenRaw = at >= 0 ? spec.slice(at + 1).trim() : undefined;
  if (whenRaw !== undefined && opts.when === false) fail(spec, '@WHEN is not allowed here (a scripted rule fires its fault whenever it matches)');
  const [action = '', ...paramParts] = body.split(':');
  const params = new Map<string, string>();
  for (const part of paramParts.join(':').split(';').filter((p) => p.trim() !== '')) {
    const [k, v] = part.split('=', 2).map((x) => x.trim());
    if (!k || v === undefined) fail(spec, `a parameter must be NAME=VALUE (got "${part}")`);
    params.set(k!, v!);
  }
  const eq = action.indexOf('=');
  const kind = (eq >= 0 ? action.slice(0, eq) : action).trim().toLowerCase();
  const value = eq >= 0 ? action.slice(eq + 1).trim() : undefined;
  const scenario: Partial<Scenario> = {};
  let target: FaultTarget = 'chat';
  const noParams = (): void => {
    if (params.size > 0) fail(spec, `${kind} takes no parameters (got "${[...params.keys()].join(', ')}")`);
  };
  const needValue = (example: string): string => value ?? fail(spec, `${kind} needs a value: ${kind}=${example}`);

  if (/^\d+$/.test(kind) || kind === 'status') {
    const raw = kind === 'status' ? needValue('503') : kind;
    if (kind !== 'status' && value !== undefined) fail(spec, `a status takes no "=" value; parameters go after ":" (429:retry-after=1)`);
    scenario.status = intIn(spec, 'the status', raw, 400, 599);
    scenario.statusBy = `fault ${spec}`;
    for (const k of params.keys()) if (k !== 'retry-after') fail(spec, `unknown parameter "${k}"; a status takes retry-after=SECONDS`);
    const retryAfter = params.get('retry-after');
    if (retryAfter !== undefined) scenario.retryAfter = intIn(spec, 'retry-after', retryAfter, 0, MAX_RETRY_AFTER_S);
    target = 'any';
  } else if (kind === 'fail-after') {
    noParams();
    scenario.failAfter = intIn(spec, 'fail-after', needValue('3'), 0, MAX_FAIL_AFTER);
    scenario.failAfterBy = `fault ${spec}`;
  } else if (kind === 'framing') {
    noParams();
    const framing = new Set<Framing>();
    for (const f of needValue('crlf,bytewise').split(',').map((x) => x.trim().toLowerCase()).filter(Boolean)) {
      if (f === 'lf') continue;
      if (!(FRAMINGS as readonly string[]).includes(f)) fail(spec, `unknown framing "${f}"; known: lf, ${FRAMINGS.join(', ')}`);
      framing.add(f as Framing);
    }
    scenario.framing = framing;
  } else if (kind === 'delay') {
    noParams();
    scenario.chunkDelayMs = duration(spec, 'delay', needValue('50ms'));
  } else if (kind === 'write-delay') {
    noParams();
    scenario.writeDelayMs = duration(spec, 'write-delay', needValue('5ms'));
  } else if (kind === 'malformed-json') {
    noParams();
    if (value !== undefined) fail(spec, 'malformed-json takes no value');
    scenario.malformedJson = true;
    target = 'any';
  } else if (kind === 'reset-after') {
    noParams();
    scenario.resetAfter = intIn(spec, 'reset-after', needValue('3'), 0, MAX_FAIL_AFTER);
  } else if (kind === 'stall') {
    noParams();
    // Without a duration: until the client goes away, at most MAX_STALL_MS.
    scenario.stallMs = value === undefined ? MAX_STALL_MS : duration(spec, 'stall', value, MAX_STALL_MS, 1);
    target = 'any';
  } else {
    fail(
      spec,
      `unknown fault "${kind}"; known: STATUS (400..599), status=STATUS, fail-after=N, framing=LIST, delay=DURATION, write-delay=DURATION, malformed-json, reset-after=N, stall[=DURATION]`,
    );
  }
  return { spec, scenario, target, when: parseWhen(spec, whenRaw) };
}

/** One active fault: its spec, its scope, and its own counters and random sequence (deterministic per seed). */
export class ActiveFault {
  /** requests it could fire on, and those it fired on */
  seen = 0;
  fired = 0;
  private readonly random: () => number;

  constructor(
    readonly id: string,
    readonly fault: FaultSpec,
    readonly testId: string | undefined,
    seed: number,
  ) {
    this.random = prng(fnv1a(`${seed}:${fault.spec}`));
  }

  /** Counts one request it may fire on, and says whether it fires. */
  next(): boolean {
    this.seen++;
    const w = this.fault.when;
    const fires = w.kind === 'always' || (w.kind === 'ratio' ? (this.seen - 1) % w.m < w.n : this.random() < w.p);
    if (fires) this.fired++;
    return fires;
  }

  toJSON(): Record<string, unknown> {
    return { id: this.id, spec: this.fault.spec, ...(this.testId !== undefined ? { test_id: this.testId } : {}), seen: this.seen, fired: this.fired };
  }
}

/**
 * The faults of one mock instance: server-wide ones (the --fault flags, or set at run time without a test id) and
 * test-scoped ones (set with a test id, firing only on requests that carry it). A request's faults are decided
 * once, when it arrives; those that fire are merged in order (server-wide, then its test's; a later field wins).
 */
export class FaultSet {
  private faults: ActiveFault[] = [];
  private nextId = 1;

  constructor(private readonly seed: number) {}

  add(specs: readonly FaultSpec[], testId?: string): ActiveFault[] {
    const added = specs.map((f) => new ActiveFault(`f${this.nextId++}`, f, testId, this.seed));
    this.faults.push(...added);
    return added;
  }

  /** Removes the faults of a test (or every fault, when no test id is given); returns how many. */
  clear(testId?: string): number {
    const before = this.faults.length;
    this.faults = testId === undefined ? [] : this.faults.filter((f) => f.testId !== testId);
    return before - this.faults.length;
  }

  remove(id: string): boolean {
    const before = this.faults.length;
    this.faults = this.faults.filter((f) => f.id !== id);
    return this.faults.length < before;
  }

  list(testId?: string): ActiveFault[] {
    return testId === undefined ? [...this.faults] : this.faults.filter((f) => f.testId === testId);
  }

  get size(): number {
    return this.faults.length;
  }

  /** The faults that fire on one request, server-wide first, then the request's test's. */
  decide(target: FaultTarget, testId: string | undefined): ActiveFault[] {
    if (this.faults.length === 0) return [];
    const fired: ActiveFault[] = [];
    const applies = (f: ActiveFault): boolean => f.fault.target === 'any' || target === 'chat';
    for (const f of this.faults) if (f.testId === undefined && applies(f) && f.next()) fired.push(f);
    if (testId !== undefined) for (const f of this.faults) if (f.testId === testId && applies(f) && f.next()) fired.push(f);
    return fired;
  }
}

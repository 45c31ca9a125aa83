// The one Checker: it only records. A test declares the requirement IDs it checks itself (in the suite, with
// `req(...)`: suites/lib/declare.ts); the checks that apply to every response of a kind (judge/checks/) are run
// through `apply` and record under their own IDs. Each record is pass, fail, warn (a failed SHOULD/MAY), skip (a precondition could not be met, with
// its root cause), error (the kit could not judge), or an observation (a gap of the spec: recorded, never
// judged). Nothing here stops a test, and nothing here knows the runner that drives it: the runner hands in the IDs
// a test declares and what skipping means to it. The suite's fixture teardown (suites/lib/test-fixtures.ts) turns
// the failed MUSTs into the test's failure, in one place, after every check has run.
import { getRequirement, isKnownRequirement, primaryOf, type Requirement } from '../spec/requirements/index.ts';
import { isNotApplicable, type Check, type Verdict } from './checks/check.ts';
import { CHECKED_IDS } from './checks/registry.ts';
import { noAnswer, noResponse, TargetResponse, type Exchange } from './exchange.ts';

export { noResponse } from './exchange.ts';

/** What a Checker reads of the client that sent the requests: the exchanges, and the scrubber of its secrets. */
export interface ExchangeLog {
  readonly exchanges: readonly Exchange[];
  scrub(text: string): string;
}

/**
 * What one check found. `error` is the kit's own inability to judge (a transport failure that did not
 * reproduce, a timeout of the kit's own making): never charged to the target as `fail`.
 */
export type CheckStatus = 'pass' | 'fail' | 'warn' | 'skip' | 'observed' | 'error';

/** Why a requirement could not be judged: the exchange it needed, and what went wrong there first. */
export interface RootCause {
  /** The requirement that failed on that exchange, when a deviation (not the kit) is the cause. */
  id?: string;
  /** Index into the test's exchanges. */
  exchange?: number;
  message: string;
}

export interface CheckRecord {
  id: string;
  status: CheckStatus;
  message?: string;
  /** For observations: what the target did. */
  observed?: unknown;
  /** Index into the test's exchanges of the request this check judged. */
  exchange?: number;
  /** For `skip` and `error`: the root cause, named once (the exchange and the requirement that failed on it). */
  cause?: RootCause;
  /**
   * Whose conduct the record judges, in traffic the kit did not send (the proxy): the client's request or the
   * server's answer. Absent in a suite run, where the kit is the client and only the target is judged.
   */
  party?: Party;
  /** How many judgements this record stands for (a traffic report folds the repeats of a long run); 1 when absent. */
  count?: number;
  /**
   * A `skip` that says the case the requirement is about did not come (no tool call came back, no search ran).
   * It is never a case: the requirement ends `skip` with this reason only when nothing judged it (report/results.ts).
   */
  notApplicable?: true;
  /**
   * Set when the check judged the answer's status alone (Checker.status): a finding about the status, whatever the
   * body that came with it (report/causes.ts never files it under "the error body is not a JSON error object").
   */
  statusOnly?: true;
}

export type Party = 'client' | 'server';

/**
 * What a finding names as the exchange it judged: the response, or its index among the test's exchanges; `null`
 * for a finding on no single exchange of the kit's (the target's URL, what a third-party client did, a comparison
 * where no one side deviates). Every finding names it: there is no default, since "the last exchange sent" is
 * whatever the test sent after (a control request, the second of two uploads).
 */
export type Judged = TargetResponse | number | null;

export const REQUIREMENT_ANNOTATION = 'requirement';
export const EVIDENCE_ATTACHMENT = 'chatconform-evidence';

/** Most problems quoted in one record's message. */
const QUOTE = 5;

export interface CheckerOptions {
  /**
   * The requirement IDs the test declares, read whenever a check is recorded (a runner may add some as the test
   * runs); default none. A check for an ID the test does not declare is the kit's bug and throws.
   */
  declared?: () => readonly string[];
  /**
   * The test's index: every requirement ID it may record (the IDs it declares and those of the judge entry points it
   * declares, judge/entry.ts). Given, a record of any other ID (a pass, a failure, a skip) is the kit's bug and throws:
   * a test records only what the suite's index says it can, so a partial run selects every test that can record an
   * ID. Not given (a Checker outside the suite): a check for an ID the test does not declare throws, unless a
   * registered check judges it on every answer of its kind.
   */
  index?: () => readonly string[];
  /**
   * What `skip` does to the runner: the suite skips the Playwright test, the property runner one generated case.
   * Default: the declared requirements without a record are marked skipped and `Skipped` is thrown.
   */
  onSkip?: (reason: string) => never;
  /**
   * Where `note` puts a remark that fits no requirement (a client convention, a variant not exercised): the suite
   * shows it as a warning annotation of the test. Default: dropped. Never a record, never a failure.
   */
  onNote?: (message: string) => void;
}

/** Thrown by `skip` when the runner gave no skip of its own. */
export class Skipped extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'Skipped';
  }
}

export class Checker {
  readonly records: CheckRecord[] = [];

  constructor(
    private readonly target: ExchangeLog,
    private readonly options: CheckerOptions = {},
  ) {}

  /** The requirement IDs the test declares. */
  get declaredIds(): readonly string[] {
    return this.options.declared?.() ?? [];
  }

  /**
   * A requirement a test checks directly must be declared by it (the catalog's coverage rests on that), unless a
   * registered check judges it on every response of its kind (judge/checks/registry.ts).
   */
  private declared(id: string): Requirement {
    if (this.options.index) this.indexed(id);
    else if (!CHECKED_IDS.has(id) && !this.declaredIds.includes(id)) {
      throw new Error(`check for ${id}, which this test does not declare with req(); declare every ID a test checks`);
    }
    return getRequirement(id);
  }

  /** Refuses an ID outside the test's index (when it has one): the kit's bug, never the target's. */
  private indexed(id: string): void {
    const index = this.options.index?.();
    if (!index || !isKnownRequirement(id)) return;
    const primary = primaryOf(id);
    if (index.some((i) => isKnownRequirement(i) && primaryOf(i) === primary)) return;
    throw new Error(`a record for ${primary}, which is outside this test's index (its req() IDs and the IDs of the judge functions it declares with judges()): declare it, or the judge function that records it`);
  }

  /** The index of a response's exchange among the test's exchanges. */
  exchangeIndex(res: TargetResponse): number | undefined {
    const i = this.target.exchanges.indexOf(res.exchange);
    return i >= 0 ? i : undefined;
  }

  /** Whether some record already judged this exchange (its status, say). */
  judgedExchange(exchange: number | undefined): boolean {
    return exchange !== undefined && this.records.some((r) => r.exchange === exchange && r.status !== 'skip' && r.status !== 'observed');
  }

  /** The first requirement that failed (or warned) on this exchange: the root cause of what it left unjudged. */
  firstFailureOn(exchange: number | undefined): string | undefined {
    if (exchange === undefined) return undefined;
    return this.records.find((r) => r.exchange === exchange && (r.status === 'fail' || r.status === 'warn'))?.id;
  }

  /** The exchange a finding judged: the one it names (a response, or its index); none for `null`. */
  private judgedIndex(on: Judged): number | undefined {
    // A JavaScript caller (or a cast) may still leave it out: that is the kit's bug, never "the last exchange".
    if (on === undefined) throw new Error('a finding names the exchange it judged (a response, its index, or null): none was given');
    if (on === null) return undefined;
    return typeof on === 'number' ? on : this.exchangeIndex(on);
  }

  private push(record: CheckRecord, exchange: number | undefined): void {
    this.indexed(record.id);
    if (exchange !== undefined && record.exchange === undefined) record.exchange = exchange;
    this.records.push(record);
  }

  /**
   * The exchange `on` names when it got no answer to judge (no response head, or the kit stopped waiting for the
   * body): the one place that decides it for every judgement, so no check can forget it.
   */
  private unanswered(on: Judged, exchange: number | undefined): Exchange | undefined {
    const x = on instanceof TargetResponse ? on.exchange : exchange !== undefined ? this.target.exchanges[exchange] : undefined;
    return x !== undefined && noAnswer(x) ? x : undefined;
  }

  /**
   * Records a judgement; a failed SHOULD/MAY is a warning. A rule the contract states twice is recorded under
   * its primary ID, so it is counted once. Returns `ok`. A judgement of an exchange that got no answer is the
   * kit's `error` with the transport's cause, never a pass or a failure (and returns false: nothing was shown),
   * unless the rule is about how the exchange ended (`outcome`).
   */
  private judge(stated: Requirement, ok: boolean, failure: string | (() => string), on: Judged, how: { statusOnly?: boolean; outcome?: boolean } = {}): boolean {
    const exchange = this.judgedIndex(on);
    const missing = how.outcome ? undefined : this.unanswered(on, exchange);
    if (missing) {
      this.noAnswerRecord(stated.id, missing, exchange);
      return false;
    }
    const statusOnly = how.statusOnly === true;
    const r = getRequirement(primaryOf(stated.id));
    const record: CheckRecord = { id: r.id, status: 'pass' };
    if (!ok) {
      record.status = r.level === 'MUST' && r.kind === 'requirement' ? 'fail' : 'warn';
      record.message = this.target.scrub(typeof failure === 'function' ? failure() : failure);
      if (statusOnly) record.statusOnly = true;
    }
    this.push(record, exchange);
    return ok;
  }

  /**
   * The core check: `ok` true passes; false fails a MUST or warns for SHOULD/MAY. The message says what was
   * received, in the spec's terms. `on`: the response judged (its exchange is the finding's evidence). Never
   * throws on what the target sent, never stops the test.
   */
  that(id: string, ok: boolean, failure: string | (() => string), on: Judged): boolean {
    return this.judge(this.declared(id), ok, failure, on);
  }

  /**
   * `that` for the few rules about how an exchange ended, answered or not: a body over the limit met by a closed
   * connection, a request left waiting for a body that never comes. The only judgement that may fall on an exchange
   * without an answer; every other one records `error` there.
   */
  outcome(id: string, ok: boolean, failure: string | (() => string), on: Judged): boolean {
    return this.judge(this.declared(id), ok, failure, on, { outcome: true });
  }

  /**
   * Runs every check of a kind on one subject (a response, a stream, an error body), on the exchange `on` names.
   * A check whose case did not come records that (`notApplicable`); one that finds nothing of its own to judge
   * records nothing; one that throws is the kit's error, recorded as such, and the others still run.
   */
  apply<S>(checks: readonly Check<S>[], subject: S, on: Judged): void {
    const exchange = this.judgedIndex(on);
    for (const c of checks) {
      let problems: Verdict;
      try {
        problems = c.assess(subject);
      } catch (err) {
        this.push({ id: c.id, status: 'error', message: this.target.scrub(`the check ${c.name} threw: ${err instanceof Error ? err.message : String(err)}`) }, exchange);
        continue;
      }
      if (problems === undefined) continue;
      if (isNotApplicable(problems)) {
        this.notApplicable([c.id], problems.notApplicable || 'no case to judge on this answer', exchange ?? null);
        continue;
      }
      const found = problems;
      this.judge(getRequirement(c.id), found.length === 0, () => quoteProblems(found), on);
    }
  }

  /**
   * The response has one of the expected statuses. With no HTTP response at all (refused, reset, timed out
   * before any byte) the kit could not judge: an `error` record, never a failure of the requirement.
   * `what` is the context, then the status it wants: `for temperature 0.5, status` with a number (the numbers are
   * appended), or with a predicate the status described (`for a POST without a body, a non-200 status`); a bare
   * `status` with a predicate reads "a status the requirement allows".
   */
  status(id: string, res: TargetResponse, expected: number | readonly number[] | ((s: number) => boolean), what = 'status'): boolean {
    const r = this.declared(id);
    if (noResponse(res)) {
      this.couldNotJudge(r.id, res);
      return false;
    }
    const ok = typeof expected === 'function' ? expected(res.status) : ([] as number[]).concat(expected).includes(res.status);
    return this.judge(r, ok, () => statusMessage(what, expected, res.describe()), res, { statusOnly: true });
  }

  /**
   * `error` for `id`: the exchange got no HTTP response, or the kit stopped waiting for its body, so nothing about
   * the target can be said from it.
   */
  couldNotJudge(id: string, res: TargetResponse): void {
    this.noAnswerRecord(id, res.exchange, this.exchangeIndex(res));
  }

  /** The `error` record of `id` on an exchange without an answer, once per requirement and exchange. */
  private noAnswerRecord(id: string, x: Exchange, exchange: number | undefined): void {
    const primary = primaryOf(id);
    if (exchange !== undefined && this.records.some((r) => r.id === primary && r.status === 'error' && r.exchange === exchange)) return;
    const what =
      x.status === 0
        ? 'no HTTP response to judge'
        : x.errorKind === 'timeout'
          ? `the kit stopped waiting before the answer (HTTP ${x.status}) was complete, so it is not judged`
          : `no answer to judge (HTTP ${x.status})`;
    const message = this.target.scrub(`${what} (${x.errorKind ?? 'transport'}: ${x.error ?? 'unknown'})`);
    this.push({ id: primary, status: 'error', message, cause: { message, ...(exchange !== undefined ? { exchange } : {}) } }, exchange);
  }

  /**
   * Records `skip` with its root cause (`on`: the exchange that did not give what they needed) for requirements that needed something this exchange did not give (a
   * completion to judge, a refusal to read). Requirements the test already judged are left as they are.
   */
  cannotJudge(ids: readonly string[], cause: { id?: string; message: string; on: Judged }): void {
    const message = this.target.scrub(cause.message);
    const exchange = this.judgedIndex(cause.on);
    const scrubbed: RootCause = { ...(cause.id ? { id: cause.id } : {}), message, ...(exchange !== undefined ? { exchange } : {}) };
    for (const id of new Set(ids)) {
      if (!isKnownRequirement(id)) continue;
      this.push({ id: primaryOf(id), status: 'skip', message, cause: scrubbed }, exchange);
    }
  }

  /**
   * The case these requirements are about did not come on `on` (no tool call came back, no search ran): a `skip`
   * with that reason, marked `notApplicable`, recorded once per requirement and reason in a test. It is no case:
   * a requirement judged elsewhere keeps its verdict; one judged nowhere ends `skip` with this reason, never `pass`.
   */
  notApplicable(ids: readonly string[], reason: string, on: Judged): void {
    const message = this.target.scrub(reason);
    const exchange = this.judgedIndex(on);
    for (const id of new Set(ids.filter(isKnownRequirement).map(primaryOf))) {
      if (this.records.some((r) => r.notApplicable && r.id === id && r.message === message)) continue;
      const cause: RootCause = { message, ...(exchange !== undefined ? { exchange } : {}) };
      this.push({ id, status: 'skip', message, cause, notApplicable: true }, exchange);
    }
  }

  /** Record what the target does where the spec is silent (a gap), on `on`. Never fails. */
  observe(id: string, observed: unknown, message: string | undefined, on: Judged): void {
    const r = this.declared(id);
    if (r.kind !== 'observation') throw new Error(`observe(): ${id} is a requirement, not an observation; use that()`);
    const record: CheckRecord = { id, status: 'observed', observed: this.scrubValue(observed) };
    if (message) record.message = this.target.scrub(message);
    this.push(record, this.judgedIndex(on));
  }

  /** Skip the rest of the test with a stated reason; its unchecked requirements are reported as skipped.
   *  Write `return check.skip(…)` so TypeScript narrows after it. */
  skip(reason: string): never {
    if (this.options.onSkip) return this.options.onSkip(reason);
    this.markSkipped(reason);
    throw new Skipped(reason);
  }

  /**
   * Skip the rest of the test because a finding under `causeId` (judged where its rule is: a probe that could not
   * classify, a forced call not made) left it nothing to judge: every declared requirement without a record is a
   * skip with that finding as its cause, never a silent skip.
   */
  skipFor(causeId: string, reason: string): never {
    const message = this.target.scrub(reason);
    const recorded = new Set(this.records.map((r) => r.id));
    for (const id of new Set(this.declaredIds.map(primaryOf))) {
      if (!recorded.has(id)) this.records.push({ id, status: 'skip', message, cause: { id: causeId, message } });
    }
    if (this.options.onSkip) return this.options.onSkip(message);
    throw new Skipped(message);
  }

  /** A remark for the reader that judges nothing (a client-note convention that fits no requirement). */
  note(message: string): void {
    this.options.onNote?.(this.target.scrub(message));
  }

  /** Record skip records for every declared requirement that has no record yet. */
  markSkipped(reason: string): void {
    const checked = new Set(this.records.map((r) => r.id));
    for (const id of this.declaredIds) {
      if (!checked.has(id)) this.records.push({ id, status: 'skip', message: reason });
    }
  }

  /**
   * At the end of a test: every declared requirement it left without a record is a skip whose root cause is the
   * first deviation the test met (the requirement and exchange), or, when there was none, the test's own reason
   * (`error` when the kit itself stopped: a timeout, an exception outside the checks).
   */
  markUnjudged(reason: string, status: 'skip' | 'error' = 'skip'): void {
    const first = this.records.find((r) => r.status === 'fail' || r.status === 'error') ?? this.records.find((r) => r.status === 'warn');
    const recorded = new Set(this.records.map((r) => r.id));
    for (const id of this.declaredIds) {
      if (recorded.has(primaryOf(id))) continue;
      const cause: RootCause = first ? { ...(first.status === 'error' ? {} : { id: first.id }), ...(first.exchange !== undefined ? { exchange: first.exchange } : {}), message: unjudgedAfter(first, this.target) } : { message: reason };
      this.records.push({ id: primaryOf(id), status: first ? 'skip' : status, message: cause.message, cause });
    }
  }

  /** The failed MUST records: the test fails exactly when there is one (the fixture teardown decides). */
  get failures(): CheckRecord[] {
    return this.records.filter((r) => r.status === 'fail');
  }

  private scrubValue(v: unknown): unknown {
    if (v === undefined) return undefined;
    try {
      return JSON.parse(this.target.scrub(JSON.stringify(v)));
    } catch {
      return this.target.scrub(String(v));
    }
  }
}

/**
 * Why a declared requirement went unjudged after `first`: the answer it needed never came (refused, no response),
 * or, a cascade the checks should not allow, the test stopped after a check failed on an answer it got.
 */
function unjudgedAfter(first: CheckRecord, target: ExchangeLog): string {
  const what = `${first.id} ${first.status === 'error' ? 'could not be judged' : 'failed'}: ${(first.message ?? '').split('\n')[0]!.slice(0, 200)}`;
  const status = first.exchange !== undefined ? target.exchanges[first.exchange]?.status : undefined;
  return status === 200 ? `not judged: the test stopped after ${what}` : `not judged: the answer it needed never came (${what})`;
}

/**
 * "[context, ]expected <the status wanted>; received <what came>": the wanted status is the tail of `what` (from its
 * last segment that starts with "a", "an" or is "status"); what precedes it is the context, kept in front so the
 * message reads as one sentence ("for temperature 0.5, expected status 200; received HTTP 400: ...").
 */
export function statusMessage(what: string, expected: number | readonly number[] | ((s: number) => boolean), received: string): string {
  const text = what.trim() || 'status';
  const segments = text.split(/(?<=[,:]) +/);
  let at = segments.length - 1;
  const namesStatus = (segment: string) => /^(?:an? |status\b)/i.test(segment);
  while (at > 0 && !namesStatus(segments[at]!)) at--;
  // A `what` that names no status at all is all context.
  const found = namesStatus(segments[at]!);
  const context = found ? segments.slice(0, at).join(' ') : `${text}:`;
  const tail = found ? segments.slice(at).join(' ') : 'status';
  const bare = /^status$/i.test(tail);
  const wanted =
    typeof expected === 'function'
      ? bare ? 'a status the requirement allows' : tail
      : bare ? `status ${([] as number[]).concat(expected).join(' or ')}` : `${tail} (${([] as number[]).concat(expected).join(' or ')})`;
  return `${context ? `${context} ` : ''}expected ${wanted}; received ${received}`;
}

function quoteProblems(problems: readonly string[]): string {
  const distinct = [...new Set(problems)];
  return distinct.slice(0, QUOTE).join('\n') + (distinct.length > QUOTE ? `\n… and ${distinct.length - QUOTE} more` : '');
}

/** The failed MUSTs of a test as one readable failure message. */
export function failureSummary(records: readonly CheckRecord[]): string {
  return records
    .filter((r) => r.status === 'fail')
    .map((r) => {
      const req = getRequirement(r.id);
      return `${r.id} (MUST, §${req.section}) ${req.statement}\n  ${(r.message ?? '').split('\n').join('\n  ')}`;
    })
    .join('\n');
}

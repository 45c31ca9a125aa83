// The property runner: fast-check on top of the suite. A property states one law over generated inputs. Each
// generated case sends its requests through the target client and is judged by the suite's own checks
// (judgeStream, judgeRefusal, …) into a Checker of its own, which only records (it never fails the test); the
// runner then turns the whole run into the test's check records:
// - a pass for every requirement the passing cases exercised;
// - a failed MUST shrinks to the minimal failing input, reported with the checks it failed, the curl that
//   replays its request, and the seed, fast-check path and command that replay the run;
// - a failed SHOULD/MAY is a warning (it does not stop the run), reported once per requirement with its first
//   example; observations (gaps) are recorded once per ID with the distinct values seen.
// The seed is CONFORMANCE_SEED (printed by the global setup, and here with every property), the number of runs
// CONFORMANCE_FUZZ_RUNS (profile budget.fuzzRuns, default 25). Every request counts against the profile's
// budget; against a real deployment shrinking is capped, and a property that runs out of budget skips with
// that reason.
import fc from 'fast-check';
import { test, type TestInfo } from '@playwright/test';
import { Checker, type CheckRecord } from '../../../judge/checker.ts';
import { declaredRequirements, indexedRequirements } from '../declare.ts';
import type { RunConfig } from '../../../run/config.ts';
import { BudgetExhausted } from '../../../run/ledger.ts';
import type { Target } from '../../../run/target.ts';

/** Thrown by a case that cannot be judged (e.g. the target was rate limited); the case counts as neither pass nor fail. */
export class CaseSkipped extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'CaseSkipped';
  }
}

/** The checker of one generated case: the test's own kind of Checker, whose `skip()` skips the case, not the test. */
export type CaseChecker = Checker;

function caseChecker(info: TestInfo, via: Target): CaseChecker {
  return new Checker(via, {
    declared: () => declaredRequirements(info),
    index: () => indexedRequirements(info),
    onSkip: (reason) => {
      throw new CaseSkipped(reason);
    },
  });
}

export interface PropertySpec<T> {
  /** The law, in the spec's words: what holds for every generated input. */
  law: string;
  arbitrary: fc.Arbitrary<T>;
  /** Judge one generated input: send its requests through the target, judge with `cc`. */
  run: (input: T, cc: CaseChecker) => void | Promise<void>;
  /** A readable rendering of an input for reports (default: fc.stringify). */
  describe?: (input: T) => string;
  /** Runs; default CONFORMANCE_FUZZ_RUNS. */
  runs?: number;
  /** The cases send no request: shrinking is free, runs are cheap. */
  offline?: boolean;
}

export interface PropertyContext {
  check: Checker;
  target: Target;
  config: RunConfig;
}

/** Cases shrinking may send against a real deployment (each one is a paid request). */
const LIVE_SHRINK_CASES = 8;
/** Cases shrinking may try against the embedded mock or offline. */
const LOCAL_SHRINK_CASES = 400;
/** Distinct observed values kept per observation. */
const MAX_OBSERVED = 20;
/** Longest rendering of an input in a report. */
const MAX_INPUT_CHARS = 2_000;

interface CaseOutcome<T> {
  input: T;
  records: CheckRecord[];
  /** Index of the case's last exchange, if it sent any. */
  exchange?: number;
  error?: unknown;
}

const clip = (s: string, n = MAX_INPUT_CHARS) => (s.length > n ? `${s.slice(0, n)}… (${s.length - n} more characters)` : s);

/**
 * The exchange's curl, written so that redaction leaves it replayable: the masking of bearer credentials would
 * also mask the `$CONFORMANCE_API_KEY` reference the curl names instead of the key; outside the quotes it is
 * not a bearer value to the mask, and the shell still expands it.
 */
function replayable(curl: string): string {
  return curl.replace(/"Authorization: Bearer \$(\w+)"/, '"Authorization: Bearer "$$$1');
}

/** Run a property and record its outcome on the test's checker. */
export async function checkProperty<T>(ctx: PropertyContext, spec: PropertySpec<T>): Promise<void> {
  const { check, target, config } = ctx;
  const info = test.info();
  const runs = spec.runs ?? config.fuzzRuns;
  const seed = config.seed | 0;
  const shrinkLimit = spec.offline || config.embeddedMock ? LOCAL_SHRINK_CASES : LIVE_SHRINK_CASES;
  const describe = (input: T) => clip(spec.describe ? spec.describe(input) : fc.stringify(input));
  const started = Date.now();

  const passed: CaseOutcome<T>[] = [];
  const skipped: string[] = [];
  let failure: CaseOutcome<T> | undefined;
  let shrinkCases = 0;
  let casesRun = 0;
  let outOfBudget: string | undefined;

  const property = fc.asyncProperty(spec.arbitrary, async (input) => {
    if (outOfBudget) return true;
    // Shrinking past the limit: the minimal input so far stands (a candidate not tried counts as passing).
    if (failure && ++shrinkCases > shrinkLimit) return true;
    casesRun++;
    const cc = caseChecker(info, target);
    const lastExchange = () => (target.exchanges.length > 0 ? target.exchanges.length - 1 : undefined);
    try {
      await spec.run(input, cc);
    } catch (err) {
      if (err instanceof BudgetExhausted) {
        outOfBudget = err.message;
        casesRun--;
        return true;
      }
      if (err instanceof CaseSkipped) {
        skipped.push(err.message);
        // What the case observed still counts: the gaps are recorded whatever the case's fate.
        passed.push({ input, records: cc.records.filter((r) => r.status === 'observed'), exchange: lastExchange() });
        return true;
      }
      failure = { input, records: [...cc.records], exchange: lastExchange(), error: err };
      throw err;
    }
    if (cc.failures.length > 0) {
      failure = { input, records: [...cc.records], exchange: lastExchange() };
      return false;
    }
    passed.push({ input, records: [...cc.records], exchange: lastExchange() });
    return true;
  });

  const plugins: fc.Plugin<unknown>[] = [];
  // Stay inside the test's timeout: a slow target ends the run early (reported), never the test by timeout.
  if (info.timeout > 0) plugins.push(fc.interruptAfterTimeLimit(Math.max(5_000, info.timeout * 0.8 - (Date.now() - started))));
  const details = await fc.check(property, { seed, numRuns: runs, plugins });

  // The kit's own command, which works where the user is (an install or a clone), not a path into the suite's files.
  const rerun =
    `npx chatconform run --seed ${config.seed} --fuzz-runs ${runs} --grep ${shellQuote(info.title.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))}` +
    (config.embeddedMock ? '' : ' (with the same --base-url and --profile)');
  const summary =
    `seed ${config.seed}, ${outOfBudget && !details.failed ? casesRun : details.numRuns} of ${runs} run(s)` +
    (details.failed && details.counterexamplePath ? `, shrunk ${details.numShrinks} time(s), fast-check path ${JSON.stringify(details.counterexamplePath)}` : '') +
    (skipped.length ? `, ${skipped.length} case(s) not judged` : '') +
    (details.interrupted ? ', stopped at the time limit' : '') +
    (outOfBudget ? `, stopped: ${outOfBudget}` : '') +
    `, ${((Date.now() - started) / 1000).toFixed(1)} s`;
  info.annotations.push({ type: 'property', description: `${spec.law}: ${summary}` });
  console.log(`[property] ${info.title}: ${details.failed ? 'FALSIFIED' : outOfBudget ? 'not finished' : 'held'} (${summary})`);

  // The minimal failing case's other checks (passes, warnings, observations) count like any other case's.
  if (failure) passed.push({ ...failure, records: failure.records.filter((r) => r.status !== 'fail') });
  recordPassedCases(check, passed, describe, target);

  if (details.failed) {
    if (!failure) throw new Error(`property "${spec.law}" failed without a failing case (${summary}): ${fc.defaultReportMessage(details)}`);
    const lines = [
      `Property falsified: ${spec.law}`,
      `  ${summary}`,
      `  minimal input: ${describe(failure.input)}`,
      ...(failure.exchange !== undefined ? [`  replay the request: ${replayable(target.exchanges[failure.exchange]!.curl)}`] : []),
      `  replay the run: ${rerun}`,
    ];
    if (failure.error !== undefined) {
      const e = failure.error;
      console.log(lines.join('\n'));
      throw new Error(`${lines.join('\n')}\n  the case threw: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
    }
    // Each requirement's finding on the exchange its first failing record judged (the case may send several).
    const byId = new Map<string, { messages: string[]; exchange: number | undefined }>();
    for (const r of failure.records) {
      if (r.status !== 'fail') continue;
      const e = byId.get(r.id) ?? { messages: [], exchange: r.exchange };
      e.messages.push(r.message ?? '');
      byId.set(r.id, e);
    }
    const report = lines.join('\n');
    console.log(`${report}\n  failed: ${[...byId.keys()].join(', ')}`);
    for (const [id, e] of byId) check.that(id, false, `${[...new Set(e.messages)].join('\n')}\n${report}`, e.exchange ?? null);
    // A falsified law stops the run: what no case before it exercised was not reached by any input, not cut short
    // by the failure (each case's other checks all ran).
    check.markSkipped(`not exercised by the ${casesRun} generated case(s) run before the law was falsified (seed ${config.seed})`);
    return;
  }
  if (outOfBudget) return check.skip(`the profile's budget ran out after ${casesRun} generated case(s) of ${runs}: ${outOfBudget}`);
  if (passed.length === 0 || passed.every((p) => p.records.every((r) => r.status === 'observed'))) {
    return check.skip(skipped.length ? `no generated case could be judged: ${skipped[0]}` : 'no generated case could be judged');
  }
  // Requirements declared but exercised by no generated case are reported as skipped, never silently passed.
  check.markSkipped(`not exercised by the ${details.numRuns} generated case(s) of seed ${config.seed}`);
}

/** One record per requirement over all passing cases: pass; warn with the first example; observations merged. */
function recordPassedCases<T>(check: Checker, cases: CaseOutcome<T>[], describe: (input: T) => string, target: Target): void {
  const order: string[] = [];
  const byId = new Map<string, { pass: number; warns: { record: CheckRecord; c: CaseOutcome<T> }[]; observed: unknown[]; message?: string }>();
  for (const c of cases) {
    for (const r of c.records) {
      let e = byId.get(r.id);
      if (!e) {
        e = { pass: 0, warns: [], observed: [] };
        byId.set(r.id, e);
        order.push(r.id);
      }
      if (r.status === 'pass') e.pass++;
      else if (r.status === 'warn') e.warns.push({ record: r, c });
      else if (r.status === 'observed') {
        e.observed.push(r.observed);
        e.message ??= r.message;
      }
    }
  }
  for (const id of order) {
    const e = byId.get(id)!;
    if (e.observed.length > 0) {
      const distinct = [...new Map(e.observed.map((v) => [JSON.stringify(v), v])).values()];
      // Merged over many generated cases: no single exchange.
      check.observe(id, distinct.slice(0, MAX_OBSERVED), `${e.message ?? 'observed'} (${distinct.length} distinct over ${e.observed.length} case(s))`, null);
    }
    if (e.warns.length > 0) {
      const first = e.warns[0]!;
      const messages = [...new Set(e.warns.map((w) => w.record.message ?? ''))];
      const curl = first.record.exchange !== undefined ? `\n  replay the request: ${replayable(target.exchanges[first.record.exchange]!.curl)}` : '';
      check.that(id, false, `${e.warns.length} generated case(s) out of ${e.warns.length + e.pass}: ${messages.slice(0, 3).join('\n')}\n  first example: ${describe(first.c.input)}${curl}`, first.record.exchange ?? null);
    } else if (e.pass > 0) {
      // One pass standing for every generated case that held: no single exchange.
      check.that(id, true, '', null);
    }
  }
}

/** Make a check record point at the exchange of the case it judged (not at the run's last request). */
function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

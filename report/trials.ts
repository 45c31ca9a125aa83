// Repeated trials (issue 34): the model-dependent tests (tagged where declared: run/trials.ts MODEL_DEPENDENT_TAG) run k times, each trial a
// fresh request; each model-dependent requirement is then judged on its pass rate over the trials, and any other
// requirement those tests check (framing, schema, [DONE], envelopes: the protocol) keeps the ordinary fold, where
// one broken answer fails it whatever the rate. Pure functions of plain data, as results.ts.
import type { RequirementResult, TestOutcome } from './results.ts';

export interface FailingTrial {
  /** The trial (Playwright's repeat index, from 0). */
  trial: number;
  test: string;
  /** Its first failure on the requirement, or why it did not count as a pass. */
  reason: string;
}

export interface Trials {
  runs: number;
  passed: number;
  /** passed / runs. */
  rate: number;
  /** The rate at or above which the requirement passes. */
  minPassRate: number;
  failing?: FailingTrial[];
}

/** Most failing trials listed per requirement. */
export const MAX_FAILING_TRIALS = 10;

/** The records of one trial that are a case of the requirement: judged (pass, fail, warn), not "no case came". */
function caseRecordsOf(t: TestOutcome, id: string) {
  return (t.evidence?.checks ?? []).filter((r) => r.id === id && (r.status === 'pass' || r.status === 'fail' || r.status === 'warn') && !r.notApplicable);
}

/** Why one trial of a test does not pass the requirement, or undefined when it does (a trial with a case). */
function trialFailure(t: TestOutcome, id: string): string | undefined {
  const failed = caseRecordsOf(t, id).find((r) => r.status === 'fail' || r.status === 'warn');
  return failed ? (failed.message ?? 'a check failed') : undefined;
}

/**
 * Folds the trials: for each result whose ID is model-dependent and that tests of the trials (outcomes carrying
 * `trial`) declared or judged, `trials` counts the trials that produced a case of it and those that passed; its
 * status is pass when the rate reaches `minPassRate`, else fail (a MUST) or warn. Trials that did not run (skipped,
 * not run) or produced no case are not counted. A result no trial produced a case of is left as it is.
 */
export function foldTrials(results: readonly RequirementResult[], outcomes: readonly TestOutcome[], modelDependent: ReadonlySet<string>, minPassRate: number): RequirementResult[] {
  // A trial the run stopped, skipped or never started is no trial.
  const trialOutcomes = outcomes.filter((t) => t.trial !== undefined && (t.status === 'judged' || (t.status === 'unfinished' && t.unfinished !== 'stopped')));
  return results.map((r) => {
    if (!modelDependent.has(r.id)) return r;
    // A rate counts only the trials that produced a case: a trial where what the case needs never came (no call
    // came back, no search ran, the test stopped before it) is not judged, neither a pass nor a failure.
    const mine = trialOutcomes.filter((t) => (t.declared.includes(r.id) || (t.evidence?.checks ?? []).some((c) => c.id === r.id)) && caseRecordsOf(t, r.id).length > 0);
    if (mine.length === 0) return r;
    const failing: FailingTrial[] = [];
    for (const t of mine) {
      const why = trialFailure(t, r.id);
      if (why !== undefined) failing.push({ trial: t.trial!, test: t.title, reason: why });
    }
    const runs = mine.length;
    const passed = runs - failing.length;
    const rate = passed / runs;
    const trials: Trials = { runs, passed, rate, minPassRate, ...(failing.length > 0 ? { failing: failing.slice(0, MAX_FAILING_TRIALS) } : {}) };
    const ok = rate >= minPassRate;
    // A failure outside the trials (a test not repeated that checks it too) still stands.
    const outside = outcomes.some((t) => t.trial === undefined && (t.evidence?.checks ?? []).some((c) => c.id === r.id && c.status === 'fail'));
    if (outside) return { ...r, trials };
    const status = ok ? 'pass' : r.level === 'MUST' && r.kind === 'requirement' ? 'fail' : 'warn';
    const pct = (x: number) => `${Math.round(x * 100)}%`;
    const reason = `${passed} of ${runs} trials passed (${pct(rate)}; ${ok ? 'at least' : 'below'} the minimum pass rate ${pct(minPassRate)})${!ok && failing[0] ? `: ${failing[0].reason}` : ''}`;
    return { ...r, status, reason, trials };
  });
}

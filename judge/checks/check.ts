// A check is one small function for one requirement ID, in the manner of Schemathesis checks: it takes what it
// judges (a decoded exchange: a completion, a stream, an error body, a catalog) and returns its findings.
//   []         the requirement holds on this subject: a pass;
//   [..]       the problems found, each a sentence in the spec's terms: a failure (a warning for SHOULD/MAY);
//   notApplicable()  the case the rule is about did not come (no tool call came back, no search ran): the check
//              states that condition (`when`), and the Checker records that it did not hold, so a requirement
//              whose case never came ends `skip` with that reason, never `pass` (issue 29, item 5);
//   undefined  nothing of its own to judge, for a reason another requirement judges (a field of the wrong type
//              is the schema's finding): no record.
// Checks never throw on target data and never stop one another: `Checker.apply` runs them all.
import { isKnownRequirement } from '../../spec/requirements/index.ts';

/** The case a check judges did not come on this subject: why, in the words a report shows. */
export interface NotApplicable {
  readonly notApplicable: string;
}

/** What `run` tells its readers: the findings, or undefined for no record (a case that did not come reads so). */
export type Findings = readonly string[] | undefined;

/** What a check's function returns: its findings, or that its case did not come. */
export type Verdict = Findings | NotApplicable;

export interface CheckOptions {
  /** The condition under which the check judges ("a tool call came back"): the reason of `notApplicable()`. */
  when?: string;
}

export interface Check<S> {
  /** The requirement the check judges. */
  readonly id: string;
  /** The function's name, for the catalog and for the kit's own errors. */
  readonly name: string;
  /** The condition under which it judges, when it has one. */
  readonly when?: string;
  /** The check's verdict on a subject: what `Checker.apply` records. */
  readonly assess: (subject: S) => Verdict;
  /** Its findings alone (a case that did not come is undefined), for readers that record no skips. */
  readonly run: (subject: S) => Findings;
}

/**
 * The case did not come. Without a reason, the check's own `when` gives it ("judged only when a tool call came
 * back; none did here"); a reason names a narrower one.
 */
export function notApplicable(reason = ''): NotApplicable {
  return { notApplicable: reason };
}

export function isNotApplicable(f: Verdict): f is NotApplicable {
  return typeof f === 'object' && f !== null && !Array.isArray(f) && 'notApplicable' in f;
}

/** The reason a report gives for a condition that never held. */
export function conditionReason(when: string): string {
  return `no case: judged only when ${when}, and that never happened here`;
}

/**
 * Declares a check: `export const idNotEmpty = check('RESP-002', function idNotEmpty(c: Completion) {...})`; one with
 * a condition states it: `check('RESP-016', fn, { when: 'a tool call came back' })`.
 */
export function check<S>(id: string, fn: (subject: S) => Verdict, options: CheckOptions = {}): Check<S> {
  if (!isKnownRequirement(id)) throw new Error(`check(): unknown requirement ID ${id}`);
  const { when } = options;
  const assess = (subject: S): Verdict => {
    const v = fn(subject);
    return isNotApplicable(v) && v.notApplicable === '' && when !== undefined ? notApplicable(conditionReason(when)) : v;
  };
  const run = (subject: S): Findings => {
    const v = fn(subject);
    return isNotApplicable(v) ? undefined : v;
  };
  return { id, name: fn.name || id, ...(when !== undefined ? { when } : {}), assess, run };
}

export type Json = Record<string, unknown>;
export const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A finding list from one condition: [] when it holds, [problem] when it does not. */
export function holds(ok: boolean, problem: () => string): string[] {
  return ok ? [] : [problem()];
}

/** JSON.stringify cut to `n` characters, for quoting target values in findings; an absent value reads "(absent)". */
export function quote(value: unknown, n = 120): string {
  if (value === undefined) return '(absent)';
  const s = typeof value === 'string' ? value : JSON.stringify(value) ?? String(value);
  const q = s.length > n ? `${s.slice(0, n)}…` : s;
  return typeof value === 'string' ? JSON.stringify(q) : q;
}

export function parsesAsJson(s: string): boolean {
  try {
    JSON.parse(s);
    return true;
  } catch {
    return false;
  }
}

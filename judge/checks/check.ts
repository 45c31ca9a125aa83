// A check is one small function for one requirement ID, in the manner of Schemathesis checks: it takes what it
// judges (a decoded exchange: a completion, a stream, an error body, a catalog) and returns its findings.
//   undefined  the subject gives it nothing to judge (no tool calls to check the ids of): no record;
//   []         the requirement holds on this subject: a pass;
//   [..]       the problems found, each a sentence in the spec's terms: a failure (a warning for SHOULD/MAY).
// Checks never throw on target data and never stop one another: `Checker.apply` runs them all.
import { isKnownRequirement } from '../../spec/requirements/index.ts';

export type Findings = readonly string[] | undefined;

export interface Check<S> {
  /** The requirement the check judges. */
  readonly id: string;
  /** The function's name, for the catalog and for the kit's own errors. */
  readonly name: string;
  readonly run: (subject: S) => Findings;
}

/** Declares a check: `export const idNotEmpty = check('RESP-002', function idNotEmpty(c: Completion) {...})`. */
export function check<S>(id: string, run: (subject: S) => Findings): Check<S> {
  if (!isKnownRequirement(id)) throw new Error(`check(): unknown requirement ID ${id}`);
  return { id, name: run.name || id, run };
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

// The reference column (issue 34): the same tests, with the same seed and selection, run against a reference (the
// upstream a gateway forwards to, or the provider a migration leaves); each requirement of the target is paired
// with the reference's status for it, and the pair classified: whose failure is it? Pure functions of two reports'
// requirement records (hand-made ones exercise exactly what a run uses).
import { sideOf, type CasePairing, type SideCases } from './pairing.ts';
import type { EvidenceItem, RequirementResult, RequirementStatus } from './results.ts';

/**
 * `same`: neither side fails; `target-only`: the target fails, the reference passes (the target adds it);
 * `both`: both fail (inherited from the reference); `reference-only`: the reference fails, the target passes (the
 * target fixes it); `unjudged`: one side could not judge it (skip, error, untested), so no blame can be given.
 */
export type Classification = 'same' | 'target-only' | 'both' | 'reference-only' | 'unjudged';

export interface Differential {
  /** The reference's status for the requirement. */
  reference: RequirementStatus;
  classification: Classification;
  /** The reference's reason (its first failure, or why it could not judge). */
  referenceReason?: string;
  /** The reference's evidence for it, the items of the target's own failing tests first (paired by test), at most MAX_PAIRED. */
  referenceEvidence?: EvidenceItem[];
  /** Cases judged on both sides: the classification is decided over these alone (absent when a side's report carries no pairing). */
  paired?: number;
  /** Why it reads `unjudged` although both sides judged it: the failing cases of one side the other never judged. */
  reason?: string;
}

/** What the report's `run.reference` block says about the reference run. */
export interface ReferenceRun {
  url: string;
  verdict: string;
  mustFailed: string[];
  requests?: number;
  cost?: number;
  /** Where the reference's own reports were written. */
  reportDir?: string;
  counts: Record<Classification, number>;
}

/** Most reference evidence items kept beside a requirement's own. */
export const MAX_PAIRED = 3;

const FAILING: ReadonlySet<RequirementStatus> = new Set(['fail', 'warn', 'expected-fail']);
const PASSING: ReadonlySet<RequirementStatus> = new Set(['pass', 'observed']);

export function classify(target: RequirementStatus, reference: RequirementStatus): Classification {
  const judged = (s: RequirementStatus) => FAILING.has(s) || PASSING.has(s);
  if (!judged(target) || !judged(reference)) return 'unjudged';
  const t = FAILING.has(target);
  const r = FAILING.has(reference);
  return t && r ? 'both' : t ? 'target-only' : r ? 'reference-only' : 'same';
}

/** The reference's evidence items, those of the tests that hold the target's own evidence first (same test, same request order). */
function paired(target: RequirementResult, reference: RequirementResult): EvidenceItem[] {
  const tests = new Set(target.evidence.map((e) => e.test));
  const first = reference.evidence.filter((e) => tests.has(e.test));
  const rest = reference.evidence.filter((e) => !tests.has(e.test));
  return [...first, ...rest].slice(0, MAX_PAIRED);
}

/** Most case titles named in a reason. */
const MAX_NAMED = 3;
const named = (keys: readonly string[]) => `${keys.slice(0, MAX_NAMED).map((k) => `"${k}"`).join(', ')}${keys.length > MAX_NAMED ? ` and ${keys.length - MAX_NAMED} more` : ''}`;
const cases = (n: number) => `${n} case${n === 1 ? '' : 's'}`;

/**
 * The classification over the cases judged on both sides. A side fails on a case when its status is a failure and
 * the case has a fail or warn record (a requirement that passes its trials fails no case). Blame is given only on
 * paired cases: the target adds a failure on a case the reference judged and passed, inherits one both fail, fixes
 * one the reference fails and the target judged and passed; a failure on a case the other side never judged is no
 * evidence either way, and when it is the only failure the requirement reads `unjudged`, with that reason.
 */
export function classifyPaired(target: RequirementStatus, reference: RequirementStatus, t: SideCases, r: SideCases): Pick<Differential, 'classification' | 'paired' | 'reason'> {
  const status = classify(target, reference);
  if (status === 'unjudged') return { classification: status };
  const both = [...t.judged].filter((k) => r.judged.has(k));
  if (both.length === 0) return { classification: 'unjudged', paired: 0, reason: 'no case was judged on both sides' };
  const tFails = FAILING.has(target) ? t.failed : new Set<string>();
  const rFails = FAILING.has(reference) ? r.failed : new Set<string>();
  const tf = both.some((k) => tFails.has(k));
  const rf = both.some((k) => rFails.has(k));
  const classification: Classification = tf && rf ? 'both' : tf ? 'target-only' : rf ? 'reference-only' : 'same';
  if (classification !== 'same') return { classification, paired: both.length };
  const rOff = [...rFails].filter((k) => !t.judged.has(k));
  const tOff = [...tFails].filter((k) => !r.judged.has(k));
  if (rOff.length === 0 && tOff.length === 0) return { classification, paired: both.length };
  const why = [
    ...(rOff.length > 0 ? [`the reference fails on ${cases(rOff.length)} the target did not judge (${named(rOff)})`] : []),
    ...(tOff.length > 0 ? [`the target fails on ${cases(tOff.length)} the reference did not judge (${named(tOff)})`] : []),
  ];
  return { classification: 'unjudged', paired: both.length, reason: `${why.join('; ')}; the ${cases(both.length)} judged on both sides agree` };
}

/**
 * The target's results, each with its `differential` against the reference's record of the same requirement: over
 * the cases judged on both sides when both runs carry their pairing (pairing.ts), else on the two statuses alone
 * (a reference report written before reports carried it).
 */
export function withDifferential(results: readonly RequirementResult[], reference: readonly RequirementResult[], pairing?: { target: CasePairing; reference?: CasePairing }): RequirementResult[] {
  const byId = new Map(reference.map((r) => [r.id, r]));
  return results.map((r) => {
    const ref = byId.get(r.id);
    const status: RequirementStatus = ref?.status ?? 'untested';
    const d: Differential =
      pairing?.reference !== undefined
        ? { reference: status, ...classifyPaired(r.status, status, sideOf(pairing.target, r.id), sideOf(pairing.reference, r.id)) }
        : { reference: status, classification: classify(r.status, status) };
    if (ref?.reason) d.referenceReason = ref.reason;
    if (ref && ref.evidence.length > 0) d.referenceEvidence = paired(r, ref);
    return { ...r, differential: d };
  });
}

export function classificationCounts(results: readonly RequirementResult[]): Record<Classification, number> {
  const counts: Record<Classification, number> = { same: 0, 'target-only': 0, both: 0, 'reference-only': 0, unjudged: 0 };
  for (const r of results) if (r.differential) counts[r.differential.classification]++;
  return counts;
}

/**
 * The MUST failures that fail the run under `--fail-on target-only`: all but those the reference fails too (a
 * failure the reference could not judge still counts: nothing shows it is inherited).
 */
export function targetOnlyFailures(mustFailed: readonly string[], results: readonly RequirementResult[]): string[] {
  const byId = new Map(results.map((r) => [r.id, r]));
  return mustFailed.filter((id) => byId.get(id)?.differential?.classification !== 'both');
}

// The reference column and the trial rates as the writers show them (terminal, JUnit, HTML): one wording for all.
import type { Classification, ReferenceRun } from './differential.ts';
import type { RequirementResult } from './results.ts';
import type { Trials } from './trials.ts';

export const CLASSIFICATION_TEXT: Record<Classification, string> = {
  same: 'same as the reference',
  'target-only': 'target only: the reference passes',
  both: 'both: inherited from the reference',
  'reference-only': 'reference only: the target fixes it',
  unjudged: 'one side could not judge it',
};

const pct = (x: number) => `${Math.round(x * 100)}%`;

/** "7/10 trials (70%, minimum 100%)". */
export function trialsText(t: Trials): string {
  return `${t.passed}/${t.runs} trials (${pct(t.rate)}, minimum ${pct(t.minPassRate)})`;
}

/** "reference fail · both: inherited from the reference". */
export function referenceText(r: RequirementResult): string | undefined {
  const d = r.differential;
  return d ? `reference ${d.reference} · ${CLASSIFICATION_TEXT[d.classification]}${d.reason ? `: ${d.reason}` : ''}` : undefined;
}

/** A requirement's JUnit properties for the reference and the trials (none without them). */
export function columnProperties(r: RequirementResult): [string, string][] {
  const out: [string, string][] = [];
  if (r.differential) out.push(['reference', r.differential.reference], ['classification', r.differential.classification]);
  if (r.trials) out.push(['trials', `${r.trials.passed}/${r.trials.runs}`], ['passRate', String(r.trials.rate)], ['minPassRate', String(r.trials.minPassRate)]);
  return out;
}

/** The run-level line of the reference: "reference URL (verdict fail): 1 target-only, 2 both, 0 reference-only". */
export function referenceRunText(ref: ReferenceRun): string {
  return `${ref.url} (verdict ${ref.verdict}${ref.requests !== undefined ? `, ${ref.requests} requests` : ''}): ${ref.counts['target-only']} target-only, ${ref.counts.both} both, ${ref.counts['reference-only']} reference-only, ${ref.counts.same} same, ${ref.counts.unjudged} unjudged`;
}

/** "on the kit's reading of 4.3 Gaps: “Exact shape of …”": a failure that rests on the kit's reading of a gap. */
export function readingText(reading: NonNullable<RequirementResult['reading']>): string {
  return `on the kit's reading of ${reading.section !== undefined ? `${reading.section} Gaps` : 'a gap the contract lists'}: “${reading.gap}”`;
}

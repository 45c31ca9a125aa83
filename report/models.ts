// The per-model matrix's rows (conformance.json `models[]`): each chosen model's own verdict, coverage and counts,
// from the outcomes of its project alone. The run's requirement records stay one per requirement (a requirement
// fails when it fails on any model); these rows say on which. Pure functions of plain data.
import { CORE_REQUIREMENTS } from '../spec/requirements/index.ts';
import { coverageOf, type Coverage } from './coverage.ts';
import { aggregate, caseCounts, countStatuses, mustFailures, STATUSES, type CaseCounts, type RequirementStatus, type StatusCounts, type TestOutcome } from './results.ts';

/** How a test of a model's project says the run could not use the model ("model skipped: <id>: <why>"). */
export const MODEL_SKIP_PREFIX = 'model skipped: ';

/** pass: no MUST failed and something was judged; skipped: the run could not use the model (reason says why). */
export type ModelVerdict = 'pass' | 'fail' | 'incomplete' | 'skipped';

export interface ModelResult {
  id: string;
  verdict: ModelVerdict;
  /** Why the model was skipped, or why nothing was judged. */
  reason?: string;
  coverage: Coverage;
  counts: StatusCounts;
  /** Its cases by how each ended. */
  tests: CaseCounts;
  /** Requests its tests sent (its own ledger). */
  requests?: number;
  /** The MUST requirements it fails. */
  mustFailed: string[];
  /** Every requirement it fails or warns on (any level), worst first. */
  failed: string[];
  /** The worst status per section (full section number, "2.9") its tests judged or skipped. */
  sections: { section: string; status: RequirementStatus }[];
}

export interface ModelOutcomes {
  id: string;
  outcomes: readonly TestOutcome[];
  requests?: number;
  /** Set when the run could not use the model (its tests skipped with this reason). */
  skipReason?: string;
}

/** One model's row. */
export function modelResultOf(m: ModelOutcomes): ModelResult {
  const results = aggregate(m.outcomes);
  const declared = new Set(m.outcomes.flatMap((t) => t.declared));
  const coverage = coverageOf(results, CORE_REQUIREMENTS.filter((id) => declared.has(id)));
  const tests = caseCounts(m.outcomes);
  const mustFailed = mustFailures(results).map((r) => r.id);
  const failed = [...results.filter((r) => r.status === 'fail'), ...results.filter((r) => r.status === 'warn')].map((r) => r.id);
  const worst = new Map<string, RequirementStatus>();
  for (const r of results) {
    if (r.status === 'untested') continue;
    const was = worst.get(r.section);
    if (was === undefined || STATUSES.indexOf(r.status) < STATUSES.indexOf(was)) worst.set(r.section, r.status);
  }
  const verdict: ModelVerdict = mustFailed.length > 0 ? 'fail' : coverage.mustJudged > 0 ? 'pass' : m.skipReason !== undefined ? 'skipped' : 'incomplete';
  const out: ModelResult = {
    id: m.id,
    verdict,
    coverage,
    counts: countStatuses(results),
    tests,
    ...(m.requests !== undefined ? { requests: m.requests } : {}),
    mustFailed,
    failed,
    sections: [...worst].map(([section, status]) => ({ section, status })),
  };
  if (verdict === 'skipped') out.reason = m.skipReason!;
  else if (verdict === 'incomplete') out.reason = 'no MUST requirement was judged on this model';
  return out;
}

/** How many models pass, of how many, and how many fail: the line the verdict and the terminal print. */
export function modelsSentence(models: readonly ModelResult[], maxFailing = 0): string {
  const n = (v: ModelVerdict) => models.filter((m) => m.verdict === v).length;
  const parts = [`${n('pass')} of ${models.length} models pass`];
  if (n('fail') > 0) parts.push(`${n('fail')} fail${maxFailing > 0 ? ` (${n('fail') <= maxFailing ? 'within' : 'more than'} the ${maxFailing} allowed)` : ''}`);
  if (n('skipped') > 0) parts.push(`${n('skipped')} skipped`);
  if (n('incomplete') > 0) parts.push(`${n('incomplete')} incomplete`);
  return parts.join(', ');
}

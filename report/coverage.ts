// A pass needs evidence. Coverage is the share of the MUST requirements a run declared that it could judge
// (pass or fail); a run below half of them, or one that never judged a core requirement (the model list, a
// completion, a stream), proves too little for a `pass` and is `incomplete`.
import { CORE_REQUIREMENTS } from '../spec/requirements/index.ts';
import type { RequirementResult } from './results.ts';

/** Below this share of judged MUSTs a run cannot pass. */
export const MIN_COVERAGE = 0.5;

export interface Coverage {
  /** MUST requirements judged: status pass or fail. */
  mustJudged: number;
  /** MUST requirements some test of the run declared (every status but untested). */
  mustDeclared: number;
  /** mustJudged / mustDeclared as a percentage, rounded down to one decimal; 0 when nothing was declared. */
  percent: number;
  /** Core requirements (CORE_REQUIREMENTS) the run did not judge. */
  coreNotJudged: string[];
}

// An expected failure was judged: it failed, and the baseline excuses it.
const judged = (r: Pick<RequirementResult, 'status'>) => r.status === 'pass' || r.status === 'fail' || r.status === 'expected-fail';

export function coverageOf(results: readonly RequirementResult[], core: readonly string[] = CORE_REQUIREMENTS): Coverage {
  const musts = results.filter((r) => r.kind === 'requirement' && r.level === 'MUST' && r.status !== 'untested');
  const mustJudged = musts.filter(judged).length;
  const byId = new Map(results.map((r) => [r.id, r]));
  return {
    mustJudged,
    mustDeclared: musts.length,
    percent: musts.length === 0 ? 0 : Math.floor((1000 * mustJudged) / musts.length) / 10,
    coreNotJudged: core.filter((id) => {
      const r = byId.get(id);
      return !r || !judged(r);
    }),
  };
}

/** Too little was judged for a pass. */
export function insufficient(c: Coverage): boolean {
  return c.mustDeclared === 0 || c.mustJudged / c.mustDeclared < MIN_COVERAGE || c.coreNotJudged.length > 0;
}

export function coverageSentence(c: Coverage): string {
  // Nothing in scope (a run that stopped before any test): no "0 of 0".
  if (c.mustDeclared === 0) return 'no MUST requirement judged';
  return `${c.mustJudged} of ${c.mustDeclared} MUST requirements judged (${c.percent} %)`;
}

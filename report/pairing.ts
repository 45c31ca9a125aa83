// What the reference column pairs on: the cases, not the requirement statuses. A requirement's differential is
// decided over the cases judged on both sides (the same test title, for the same model), so a target that passes a
// rule on 50 non-streamed cases is not credited with fixing the 10 streamed cases its reference fails and it never
// judged. Each report carries its own pairing (`pairing`: the run's case keys once, and per requirement the indices
// of the cases that judged it and of those that failed it), so a reference read back from its conformance.json (a
// merge, CONFORMANCE_REFERENCE_REPORT) pairs as well as one folded in the same process. `requirements[].tests` is
// bounded; this is not, but it is indices.
import type { RequirementResult, TestOutcome } from './results.ts';

/** A run's cases as pairing keys, and per requirement the cases that judged it and those that failed it. */
export interface CasePairing {
  /** One key per distinct case: its title, prefixed with `[model] ` in a per-model matrix (trials of a test share it). */
  cases: string[];
  /** Per requirement ID: indices into `cases` of the cases with a judged record (pass, fail, warn, observed), and of those with a fail or warn record. */
  requirements: Record<string, { judged: number[]; failed: number[] }>;
}

/** A case's pairing key: the same test on both sides, for the same model. */
export function caseKey(t: Pick<TestOutcome, 'title' | 'model'>): string {
  return t.model !== undefined ? `[${t.model}] ${t.title}` : t.title;
}

const JUDGED = new Set(['pass', 'fail', 'warn', 'observed']);
const FAILED = new Set(['fail', 'warn']);

/** The pairing of a run's cases for the requirements it reports (`results`: their IDs). */
export function pairingOf(outcomes: readonly TestOutcome[], results: readonly Pick<RequirementResult, 'id'>[]): CasePairing {
  const ids = new Set(results.map((r) => r.id));
  const index = new Map<string, number>();
  const judged = new Map<string, Set<number>>();
  const failed = new Map<string, Set<number>>();
  const add = (m: Map<string, Set<number>>, id: string, i: number) => {
    const s = m.get(id);
    if (s) s.add(i);
    else m.set(id, new Set([i]));
  };
  for (const t of outcomes) {
    for (const r of t.evidence?.checks ?? []) {
      if (!ids.has(r.id) || !JUDGED.has(r.status)) continue;
      const key = caseKey(t);
      let i = index.get(key);
      if (i === undefined) index.set(key, (i = index.size));
      add(judged, r.id, i);
      if (FAILED.has(r.status)) add(failed, r.id, i);
    }
  }
  const requirements: CasePairing['requirements'] = {};
  for (const [id, s] of judged) requirements[id] = { judged: [...s], failed: [...(failed.get(id) ?? [])] };
  return { cases: [...index.keys()], requirements };
}

/** One side's cases of one requirement, as keys. */
export interface SideCases {
  judged: ReadonlySet<string>;
  failed: ReadonlySet<string>;
}

/** A requirement's cases on one side (empty sets when nothing judged it). */
export function sideOf(p: CasePairing, id: string): SideCases {
  const r = p.requirements[id];
  const keys = (xs: readonly number[] | undefined) => new Set((xs ?? []).map((i) => p.cases[i]!).filter((k) => k !== undefined));
  return { judged: keys(r?.judged), failed: keys(r?.failed) };
}

// Two runs side by side: what regressed and what improved, per requirement ID.
//
// Judged statuses rank fail < warn < pass. A move down that scale regresses; a move up improves. A requirement
// that passed or warned and is no longer checked (skip, untested, gone from the catalog) regresses too: the
// new run can no longer claim it. One that was not checked and now fails regresses (a new failure); one
// that was not checked and now passes or warns improves. A failure that is no longer checked is listed,
// neither better nor worse. Observations are never judged: a change of what was observed is listed as such.
import type { ConformanceReport } from './json.ts';
import { oneLine, type RequirementResult, type RequirementStatus } from './results.ts';

export type ChangeKind = 'regressed' | 'improved' | 'unchecked' | 'observation' | 'added' | 'removed';

export interface Change {
  id: string;
  kind: ChangeKind;
  level: string;
  section: string;
  from: RequirementStatus | 'absent';
  to: RequirementStatus | 'absent';
  /** The new run's reason (or the old one's when the ID is gone). */
  reason?: string;
}

export interface Comparison {
  old: { verdict: string; startedAt: string; target?: string };
  new: { verdict: string; startedAt: string; target?: string };
  regressed: Change[];
  improved: Change[];
  /** Failures no longer checked; observations whose values changed; IDs added to or removed from the catalog (no verdict). */
  other: Change[];
}

// An expected failure is still a failure: a baseline changes the exit code, not what the target did.
const RANK: Partial<Record<RequirementStatus, number>> = { fail: 0, 'expected-fail': 0, warn: 1, pass: 2 };
const judged = (s: RequirementStatus | 'absent') => s !== 'absent' && RANK[s] !== undefined;

function observedOf(r: RequirementResult): string {
  return JSON.stringify(r.evidence.filter((e) => e.status === 'observed').map((e) => [e.message ?? '', e.observed ?? null]));
}

function classify(before: RequirementResult | undefined, after: RequirementResult | undefined): ChangeKind | undefined {
  const from = before?.status ?? 'absent';
  const to = after?.status ?? 'absent';
  const kind = (after ?? before)!.kind;
  if (kind === 'observation' || before?.kind === 'observation') {
    if (before && after && from === 'observed' && to === 'observed') return observedOf(before) === observedOf(after) ? undefined : 'observation';
    return from === to ? undefined : 'observation';
  }
  if (from === to) return undefined;
  if (judged(from) && judged(to)) {
    const [a, b] = [RANK[from as RequirementStatus]!, RANK[to as RequirementStatus]!];
    return b === a ? undefined : b < a ? 'regressed' : 'improved';
  }
  if (judged(from)) return RANK[from as RequirementStatus] === 0 ? 'unchecked' : 'regressed'; // pass/warn → no longer checked
  if (judged(to)) return RANK[to as RequirementStatus] === 0 ? 'regressed' : 'improved'; // newly checked
  if (from === 'absent') return 'added';
  if (to === 'absent') return 'removed';
  return undefined; // skip ↔ untested: neither run judged it
}

export function compareReports(before: ConformanceReport, after: ConformanceReport): Comparison {
  const oldById = new Map(before.requirements.map((r) => [r.id, r]));
  const newById = new Map(after.requirements.map((r) => [r.id, r]));
  const ids = [...new Set([...newById.keys(), ...oldById.keys()])];
  const out: Comparison = {
    old: { verdict: before.verdict.result, startedAt: before.run.startedAt, ...(before.target.url ? { target: before.target.url } : {}) },
    new: { verdict: after.verdict.result, startedAt: after.run.startedAt, ...(after.target.url ? { target: after.target.url } : {}) },
    regressed: [],
    improved: [],
    other: [],
  };
  for (const id of ids) {
    const a = oldById.get(id);
    const b = newById.get(id);
    const kind = classify(a, b);
    if (!kind) continue;
    const ref = (b ?? a)!;
    const change: Change = { id, kind, level: ref.level, section: ref.section, from: a?.status ?? 'absent', to: b?.status ?? 'absent' };
    const reason = b ? b.reason : a?.reason;
    if (reason) change.reason = oneLine(reason, 160);
    if (kind === 'regressed') out.regressed.push(change);
    else if (kind === 'improved') out.improved.push(change);
    else out.other.push(change);
  }
  // MUST first within each list.
  const weight = (c: Change) => (c.level === 'MUST' ? 0 : c.level === 'SHOULD' ? 1 : 2);
  out.regressed.sort((x, y) => weight(x) - weight(y));
  out.improved.sort((x, y) => weight(x) - weight(y));
  return out;
}

const OTHER_LABEL: Record<ChangeKind, string> = {
  regressed: 'regressed',
  improved: 'improved',
  unchecked: 'failure no longer checked',
  observation: 'observation changed',
  added: 'new in the catalog',
  removed: 'gone from the catalog',
};

export function formatComparison(c: Comparison): string {
  const line = (x: Change, withLabel = false) =>
    `  ${x.id.padEnd(11)}${x.level.padEnd(7)}§${x.section.padEnd(6)}${`${x.from} → ${x.to}`.padEnd(22)}${withLabel ? `[${OTHER_LABEL[x.kind]}] ` : ''}${x.reason ?? ''}`.trimEnd();
  const out = [
    `old: ${c.old.verdict} (${c.old.startedAt}${c.old.target ? `, ${c.old.target}` : ''})`,
    `new: ${c.new.verdict} (${c.new.startedAt}${c.new.target ? `, ${c.new.target}` : ''})`,
    '',
    `Regressed (${c.regressed.length}):`,
    ...(c.regressed.length > 0 ? c.regressed.map((x) => line(x)) : ['  none']),
    '',
    `Improved (${c.improved.length}):`,
    ...(c.improved.length > 0 ? c.improved.map((x) => line(x)) : ['  none']),
  ];
  if (c.other.length > 0) out.push('', `Other changes (${c.other.length}):`, ...c.other.map((x) => line(x, true)));
  out.push('');
  return out.join('\n');
}

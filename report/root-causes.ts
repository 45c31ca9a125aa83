// Root causes, not cascades: one deviation (a missing route, a plain-text error body, a field null in every chunk)
// fails many requirements in many tests and leaves others unjudged. Every fail/warn record of the run is grouped by
// the deviation it is a consequence of (causes.ts); each group is one card, naming the deviation, with every
// requirement it breaks, the tests it touched, one exchange with its curl, the requirements it left unjudged, and a
// rank by impact: what a certifier must read first. A common cause (most requests of a route answered the same
// way) comes first.
import type { CheckRecord } from '../judge/checker.ts';
import { primaryOf, requirements as catalog, type Requirement } from '../spec/requirements/index.ts';
import { causeContext, causeOfFinding, ruleDeviation, ruleOfKey, type CauseKind } from './causes.ts';
import { entriesOf, evidenceItem, location, oneLine, targetRequirements, whereOf, type CaseWhere, type Entry, type ReportExchange, type TestOutcome } from './results.ts';

/** Where a requirement sits for a certifier: the service's core, its guard rails, or an optional extension. */
export type ImpactTier = 'core' | 'auth-errors-limits' | 'extension';

/** A case a cause touched: its title and where it is (a test's file and line, an exchange, a scenario). */
export interface RootCauseTest extends CaseWhere {
  title: string;
}

export interface RootCause {
  /** 1 = the most important. */
  rank: number;
  id: string;
  section: string;
  level: Requirement['level'];
  status: 'fail' | 'warn';
  tier: ImpactTier;
  /** The first message of the group, as one line. */
  message: string;
  /** The message with numbers and indices normalised: what the group shares. */
  pattern: string;
  /** Records of the group across the run. */
  occurrences: number;
  tests: RootCauseTest[];
  /** One exchange it happened on, with the curl that replays it. */
  exchange?: ReportExchange;
  /** Requirements left unjudged (skip or error) because of it, as their records' cause says. */
  blocked: string[];
  /** What the findings share (machine-readable): a missing route, a common answer, a repeated failure answer, the error body, a rule stated as several requirements, or a requirement. */
  cause: string;
  kind: CauseKind;
  /** The deviation, in one sentence. */
  deviation: string;
  /** Every requirement it breaks (failed or warned), `id` first. */
  requirements: string[];
}

/** Sections in order of impact within each tier (4.3 and 2.9 are the completion itself). */
const CORE_SECTIONS = ['4.3', '2.9', '2.11', '2.10', '4.1', '4.2', '6', '2.1', '2.2', '1', '2', '3', '4', '9'];
const GUARD_SECTIONS = ['5', '7', '8'];
const EXTENSION_SECTIONS = ['2.3', '2.4', '2.7', '2.8', '2.6', '2.5'];
/** The optional features, wherever the spec states their rules (SEARCH-041 is in 4.3, SEARCH-045 in 7). */
const EXTENSION_AREAS: Record<string, string> = { TOOL: '2.3', SEARCH: '2.7', ROUTE: '2.8', RSN: '2.6', IMG: '2.5' };
const LEVEL_ORDER: Record<string, number> = { MUST: 0, SHOULD: 1, MAY: 2, none: 3 };

export function impactOf(r: Pick<Requirement, 'id' | 'section'>): { tier: ImpactTier; order: number } {
  const area = EXTENSION_AREAS[r.id.split('-')[0]!];
  const section = area ?? r.section;
  const top = section.split('.')[0]!;
  let at = EXTENSION_SECTIONS.indexOf(section);
  if (at >= 0) return { tier: 'extension', order: at };
  at = GUARD_SECTIONS.indexOf(top);
  if (at >= 0) return { tier: 'auth-errors-limits', order: at };
  at = CORE_SECTIONS.indexOf(section);
  return { tier: 'core', order: at >= 0 ? at : CORE_SECTIONS.indexOf(top) };
}

const TIERS: readonly ImpactTier[] = ['core', 'auth-errors-limits', 'extension'];

/**
 * A message as its group key: one line, numbers and indices as N ("/choices/3/delta" and "/choices/0/delta" are
 * one cause), long generated identifiers as ID; requirement IDs and names like v1 kept.
 */
export function normaliseMessage(message: string): string {
  return oneLine(message, 400)
    .replace(/\b(?=[A-Za-z0-9_-]*\d)(?=[A-Za-z0-9_-]*[A-Za-z])[A-Za-z0-9_-]{16,}\b/g, 'ID')
    // Digits glued to a letter name something (v1, utf8, CAT-027 keeps its own pattern); the others count.
    .replace(/[A-Z]+-\d{3}\b|(?<![A-Za-z])\d+(?:\.\d+)?/g, (x) => (/^[A-Z]/.test(x) ? x : 'N'));
}

interface Group {
  entries: Entry[];
  blocked: Set<string>;
  kind: CauseKind;
  deviation: string;
}

const finding = (r: CheckRecord) => r.status === 'fail' || r.status === 'warn';
const KIND_ORDER: Record<CauseKind, number> = { 'common-answer': 0, 'missing-route': 1, 'same-answer': 1, 'error-body': 1, rule: 1, requirement: 1 };

/** The order of impact of one requirement: level, tier, section. */
const impactKey = (r: Requirement) => {
  const impact = impactOf(r);
  return [LEVEL_ORDER[r.level] ?? 3, TIERS.indexOf(impact.tier), impact.order];
};
const compareKeys = (a: number[], b: number[]) => {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return 0;
};

/**
 * The distinct root causes of the run's failures and warnings, ranked by impact: of the records `judged` names (the
 * same scope as aggregate's: a client run judges consumer rules the target's scope leaves out), by default the target's.
 */
export function rootCauses(outcomes: readonly TestOutcome[], requirements: readonly Requirement[] = catalog, judged?: readonly Requirement[]): RootCause[] {
  return rootCauseCards(outcomes, requirements, judged).causes;
}

/**
 * The root causes, and for each unjudged record whose cause names a failure, the card that failure is on: what the
 * record's reason names (the card's lead and deviation, never a requirement another card holds).
 */
export function rootCauseCards(outcomes: readonly TestOutcome[], requirements: readonly Requirement[] = catalog, judged?: readonly Requirement[]): { causes: RootCause[]; cardOf: Map<CheckRecord, RootCause> } {
  const scope = judged ?? targetRequirements(requirements);
  const known = new Map(scope.map((r) => [r.id, r]));
  const all = outcomes.flatMap((t) => entriesOf(t, known));
  const ctx = causeContext(outcomes);
  const groups = new Map<string, Group>();
  const keyOfEntry = new Map<Entry, string>();
  for (const e of all) {
    if (!finding(e.record)) continue;
    const cause = causeOfFinding(e, ctx, primaryOf(e.record.id));
    const g = groups.get(cause.key) ?? { entries: [], blocked: new Set<string>(), kind: cause.kind, deviation: cause.deviation };
    g.entries.push(e);
    groups.set(cause.key, g);
    keyOfEntry.set(e, cause.key);
  }
  // Link each unjudged record to the failure its cause names: the same test's record on the same exchange first, else
  // the run's first finding of it (indexed: a --models run has thousands of each).
  const findingsOf = new Map<TestOutcome, Entry[]>();
  const firstOf = new Map<string, Entry>();
  for (const e of keyOfEntry.keys()) {
    const list = findingsOf.get(e.test);
    if (list) list.push(e);
    else findingsOf.set(e.test, [e]);
    if (!firstOf.has(e.record.id)) firstOf.set(e.record.id, e);
  }
  // A requirement the run judged elsewhere (the catalog checks skipped on the anonymous list read, judged on the
  // credentialed one) was not left unjudged: the card counts only what it really left without a judgement.
  const judgedAnywhere = new Set(all.filter((e) => e.record.status !== 'skip' && e.record.status !== 'error').map((e) => e.record.id));
  const keyOfRecord = new Map<CheckRecord, string>();
  for (const e of all) {
    const cause = e.record.cause;
    if ((e.record.status !== 'skip' && e.record.status !== 'error') || !cause?.id) continue;
    const same = findingsOf.get(e.test)?.find((x) => x.record.id === cause.id && (cause.exchange === undefined || x.record.exchange === cause.exchange)) ?? firstOf.get(cause.id);
    if (!same) continue;
    const key = keyOfEntry.get(same)!;
    keyOfRecord.set(e.record, key);
    if (!judgedAnywhere.has(e.record.id)) groups.get(key)!.blocked.add(e.record.id);
  }
  const causes = [...groups.entries()].map(([key, g]) => {
    // The requirements it breaks, the most important first; the card is led by the first.
    const ids = [...new Set(g.entries.map((e) => e.record.id))].sort((a, b) => compareKeys(impactKey(known.get(a)!), impactKey(known.get(b)!)) || a.localeCompare(b));
    const r = known.get(ids[0]!)!;
    const first = g.entries.find((e) => e.record.id === r.id)!;
    const tests = new Map<string, RootCauseTest>();
    for (const e of g.entries) tests.set(`${location(e.test)}:${e.test.title}`, { title: e.test.title, ...whereOf(e.test) });
    const withExchange = [first, ...g.entries].find((e) => evidenceItem(e).exchange !== undefined);
    // A failed SHOULD or observation only warns (as in the requirement's own status).
    const fails = (e: Entry) => e.record.status === 'fail' && known.get(e.record.id)!.level === 'MUST' && known.get(e.record.id)!.kind === 'requirement';
    const cause: RootCause = {
      rank: 0,
      id: r.id,
      section: r.section,
      level: r.level,
      status: g.entries.some(fails) ? 'fail' : 'warn',
      tier: impactOf(r).tier,
      message: oneLine(first.record.message ?? `the test ${first.record.status === 'fail' ? 'failed' : 'warned'}`),
      pattern: normaliseMessage(first.record.message ?? ''),
      occurrences: g.entries.length,
      tests: [...tests.values()],
      blocked: [...g.blocked].filter((id) => !ids.includes(id)).sort(),
      cause: key,
      kind: g.kind,
      // A rule card names every behaviour it holds, the most important requirement's first.
      deviation: g.kind === 'rule' ? ruleDeviation(ruleOfKey(key) ?? g.deviation, ids.map((id) => ({ id, message: g.entries.find((e) => e.record.id === id)!.record.message }))) : g.deviation,
      requirements: ids,
    };
    const exchange = withExchange ? evidenceItem(withExchange).exchange : undefined;
    if (exchange) cause.exchange = exchange;
    return cause;
  });
// A failed MUST decides the verdict, so every MUST cause comes before any SHOULD one; within a level, the core
  // before auth, errors and limits before the extensions; then the widest first.
  // A common cause (most requests answered the same way) is named before everything it explains.
  const sortKey = (c: RootCause) => {
    const impact = impactOf(c);
    return [KIND_ORDER[c.kind], LEVEL_ORDER[c.level] ?? 3, TIERS.indexOf(impact.tier), impact.order, -c.requirements.length, -c.tests.length, -c.blocked.length, -c.occurrences];
  };
  causes.sort((a, b) => {
    const ka = sortKey(a);
    const kb = sortKey(b);
    for (let i = 0; i < ka.length; i++) if (ka[i] !== kb[i]) return ka[i]! - kb[i]!;
    return a.id.localeCompare(b.id) || a.cause.localeCompare(b.cause);
  });
  causes.forEach((c, i) => (c.rank = i + 1));
  const byKey = new Map(causes.map((c) => [c.cause, c]));
  const cardOf = new Map<CheckRecord, RootCause>();
  for (const [record, key] of keyOfRecord) cardOf.set(record, byKey.get(key)!);
  return { causes, cardOf };
}

/**
 * What an unjudged record names as its cause, from the card its failure is on: the requirement when the card is
 * that requirement's own, else the card's deviation and its lead (a 401 to the anonymous list read on the card of the
 * list's common answer names that card, not AUTH-005).
 */
export function causeNamed(record: CheckRecord, card: RootCause | undefined): string | undefined {
  const id = record.cause?.id;
  if (!id || !card) return undefined;
  if (card.kind === 'requirement' && card.id === id) return `${id} failed`;
  // The card first: a reason's causes are cut at 200 characters, the deviation after it may be.
  return `the card of ${card.id}: ${oneLine(card.deviation, 200)}`;
}

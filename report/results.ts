// The result matrix: every test's evidence (check records and exchanges) folded into one status per
// requirement ID of the catalog. A status only escalates across records: fail > warn > pass > error > observed >
// skip; an ID that no test of the run declares is `untested`. A declared ID that a test never recorded is never
// charged to the target: it is `error` when the kit could not judge (the test timed out or threw outside its
// checks), else `skip`. The catalog's `mock-only` records judge the kit, not the target: they are left out of a
// target's results. Pure functions of plain data (no Playwright types), so hand-made outcomes exercise exactly
// the code a run uses.
import type { CheckRecord } from '../judge/checker.ts';
import type { Exchange } from '../judge/exchange.ts';
import { compareSections, readingOf, requirements as catalog, type Requirement } from '../spec/requirements/index.ts';
import type { Differential } from './differential.ts';
import type { Trials } from './trials.ts';

/** `expected-fail`: failed (or warned), and listed in the run's baseline of expected failures (baseline.ts). */
export type RequirementStatus = 'pass' | 'fail' | 'warn' | 'error' | 'expected-fail' | 'skip' | 'observed' | 'untested';
/** Display order: the worst first. */
export const STATUSES: readonly RequirementStatus[] = ['fail', 'warn', 'error', 'expected-fail', 'pass', 'observed', 'skip', 'untested'];
/** Escalation order of the statuses a record can carry (higher wins). */
const PRECEDENCE: Record<CheckRecord['status'], number> = { skip: 0, observed: 1, error: 2, pass: 3, warn: 4, fail: 5 };

/** The catalog records a target's run judges: all but the `mock-only` ones, which are about the kit itself. */
export function targetRequirements(list: readonly Requirement[] = catalog): Requirement[] {
  // A rule the contract states twice is judged and counted once, under its primary record (`sameAs`).
  return list.filter((r) => r.check !== 'mock-only' && r.sameAs === undefined);
}

/** The IDs a rule is also stated as (records whose `sameAs` names it). */
function aliasesOf(id: string, list: readonly Requirement[]): string[] {
  return list.filter((r) => r.sameAs === id).map((r) => r.id);
}

/**
 * How the engine ended one case (a test of the suite, an exchange the proxy judged, a scenario of a client run), in
 * the kit's words: `judged`, it ran to its end (what its checks found, failures included, is in its records);
 * `unfinished`, the kit could not finish it (`unfinished` says why); `skipped`, its precondition could not be met;
 * `not-run`, it never started.
 */
export type CaseStatus = 'judged' | 'unfinished' | 'skipped' | 'not-run';
/** Why the kit could not finish a case: it timed out, the kit threw outside its checks, the run stopped while it ran. */
export type UnfinishedReason = 'timeout' | 'kit-error' | 'stopped';
/** What a run's cases are: the suite's tests, the exchanges the proxy saw, the scenarios a client ran. */
export type CaseKind = 'test' | 'exchange' | 'scenario';
/** The statuses in the order the report counts them. */
export const CASE_STATUSES: readonly CaseStatus[] = ['judged', 'unfinished', 'skipped', 'not-run'];

/** The run's cases by how each ended (CaseStatus). */
export interface CaseCounts {
  total: number;
  judged: number;
  unfinished: number;
  skipped: number;
  notRun: number;
}

/** Counts the cases by status. */
export function caseCounts(outcomes: readonly Pick<TestOutcome, 'status'>[]): CaseCounts {
  const out: CaseCounts = { total: 0, judged: 0, unfinished: 0, skipped: 0, notRun: 0 };
  for (const t of outcomes) {
    out.total++;
    out[t.status === 'not-run' ? 'notRun' : t.status]++;
  }
  return out;
}

/** Where a case is: a test's file and line, an exchange's sequence number, a scenario's id (only the one that applies). */
export interface CaseWhere {
  /** A test: its file, relative to the repository root, and line. */
  file?: string;
  line?: number;
  /** An exchange the proxy judged: its sequence number. */
  exchange?: number;
  /** A scenario of a client run: its id. */
  scenario?: string;
}

/** One case as the fold sees it: what it declared, how it ended, what it recorded. */
export interface TestOutcome extends CaseWhere {
  /** Describe titles and the test title, joined with " › " (an exchange's or a scenario's title). */
  title: string;
  status: CaseStatus;
  /** Set when the case is unfinished. */
  unfinished?: UnfinishedReason;
  /** The case's first error: its first failure, or why it is unfinished. */
  error?: string;
  /** Every error of the case (the first included), to tell a failed check from an exception of the kit. */
  errors?: string[];
  /** The reason a skipped test gave. */
  skipReason?: string;
  /** Requirement IDs the test declared with req(). */
  declared: string[];
  /** The `chatconform-evidence` attachment; absent when the test never reached its teardown. */
  evidence?: { checks: CheckRecord[]; exchanges: Exchange[] };
  durationMs: number;
  /** With --trials, for a repeated (model-dependent) test: which trial this is (from 0). */
  trial?: number;
  /** In a per-model matrix: the model a model-dependent test judged. */
  model?: string;
}

export interface TestRef extends CaseWhere {
  title: string;
  status: CaseStatus;
  /** Its first failure, or why it is unfinished. */
  error?: string;
}

/** One piece of evidence: what a check found, and the exchange it judged. */
export interface EvidenceItem {
  status: CheckRecord['status'];
  /** Title of the test that recorded it. */
  test: string;
  /** file:line of that test. */
  location: string;
  message?: string;
  /** For observations: what the target did. */
  observed?: unknown;
  /** True when the record was derived from how the test ended (a crash, a timeout), not from a check. */
  fromTestError?: boolean;
  /** In a traffic report (the proxy): whether the client's request or the server's answer is judged. */
  party?: CheckRecord['party'];
  exchange?: ReportExchange;
}

export interface ReportExchange {
  method: string;
  url: string;
  status: number;
  requestHeaders: Record<string, string>;
  requestBody?: string;
  responseHeaders: Record<string, string>;
  responseBody: string;
  /** Set when no HTTP response arrived. */
  error?: string;
  errorKind?: Exchange['errorKind'];
  /** What happened on the way that is not the target's answer (e.g. a retry on a fresh connection). */
  transportEvents?: NonNullable<Exchange['transportEvents']>;
  durationMs: number;
  curl: string;
}

export interface RecordCounts {
  pass: number;
  fail: number;
  warn: number;
  skip: number;
  observed: number;
  error: number;
}

export interface RequirementResult {
  id: string;
  section: string;
  level: Requirement['level'];
  kind: Requirement['kind'];
  check: Requirement['check'];
  statement: string;
  status: RequirementStatus;
  /** Why: the first failure or warning, the observation's label, the skip or error causes, why it is untested,
   *  or for a pass, how many of its cases could not be judged. */
  reason?: string;
  /** Every distinct reason it was skipped (status skip). */
  skipReasons?: string[];
  /**
   * The cases that declared or judged it, at most MAX_TESTS: the failed ones first, then in run order (a --models run
   * has thousands; `testsOmitted` counts the rest, `byModel` sums them per model).
   */
  tests: TestRef[];
  /** Cases left out of `tests` past MAX_TESTS. */
  testsOmitted: number;
  /** In a per-model matrix: per model, how many of its cases declared or judged it, and how many of those failed. */
  byModel?: Record<string, ModelTally>;
  /** How many records of each status the tests made for it. */
  records: RecordCounts;
  /** Cases judged (pass, fail or warn records) and cases that could not be judged (skip or error records). */
  cases: { judged: number; unjudged: number };
  /** Failures and warnings (requirements) or observed values (observations), at most MAX_EVIDENCE. */
  evidence: EvidenceItem[];
  /** Evidence items left out past MAX_EVIDENCE. */
  evidenceOmitted: number;
  /** The reason the run's baseline gives, when it lists this requirement as an expected failure. */
  baselineReason?: string;
  /**
   * Set on a failure (or warning) of a record that rests on the kit's reading of a gap of the contract (the
   * catalog's `reading`): the gap, verbatim, and the section whose Gaps list holds it when the catalog names it.
   */
  reading?: { gap: string; section?: string };
  /** With --reference: the reference's status for it and whose failure it is (differential.ts). */
  differential?: Differential;
  /** With --trials, for a model-dependent requirement: trials run and passed, and the rate (trials.ts). */
  trials?: Trials;
}

export type StatusCounts = Record<RequirementStatus, number> & { total: number };

export interface SectionCounts extends StatusCounts {
  section: string;
  title?: string;
}

/** Most evidence items kept per requirement (each carries up to two 16 KiB bodies). */
export const MAX_EVIDENCE = 10;
/** Most cases listed per requirement (`tests`); the rest are counted. */
export const MAX_TESTS = 20;

/** One model's cases of a requirement: how many declared or judged it, and how many of those failed (failedCase). */
export interface ModelTally {
  tests: number;
  failed: number;
}

/** A requirement's cases as they come: the first failed and the first other ones (each at most MAX_TESTS), and counts. */
class CaseList {
  private readonly failed: TestRef[] = [];
  private readonly other: TestRef[] = [];
  private total = 0;
  private byModel: Record<string, ModelTally> | undefined;

  add(t: TestOutcome): void {
    const bad = failedCase(t);
    this.total++;
    if (t.model !== undefined) {
      this.byModel ??= {};
      const m = (this.byModel[t.model] ??= { tests: 0, failed: 0 });
      m.tests++;
      if (bad) m.failed++;
    }
    const into = bad ? this.failed : this.other;
    if (into.length >= MAX_TESTS) return;
    const ref: TestRef = { title: t.title, ...whereOf(t), status: t.status };
    if (t.error && bad) ref.error = firstLine(t.error);
    into.push(ref);
  }

  /** The fields of a result: the list, what it left out, the per-model counts. */
  done(): Pick<RequirementResult, 'tests' | 'testsOmitted' | 'byModel'> {
    const tests = [...this.failed, ...this.other].slice(0, MAX_TESTS);
    return { tests, testsOmitted: this.total - tests.length, ...(this.byModel ? { byModel: this.byModel } : {}) };
  }
}

export interface Entry {
  record: CheckRecord;
  test: TestOutcome;
  fromTestError?: boolean;
}

/**
 * A failed requirement check reads "CAT-027 (MUST, §2.10) …" (see judge/checker.ts); anything else that
 * failed a test (a TypeError, a BudgetExhausted, an assertion outside the checks) is the kit's own exception.
 */
const CHECK_FAILURE = /^(?:\w*Error:\s*)?[A-Z]+-\d{3}\b/;

/** Whether an error that ended a test is a failed check (a finding), not an exception of the kit. */
export function isCheckFailure(error: string): boolean {
  return CHECK_FAILURE.test(firstLine(error));
}

/** A case that found a failure (a fail record) or that the kit could not finish: the failed cases of a report. */
export function failedCase(t: TestOutcome): boolean {
  return (t.status === 'unfinished' && t.unfinished !== 'stopped') || (t.evidence?.checks ?? []).some((r) => r.status === 'fail');
}

/** Where a case is, in one string: `file:line` for a test, `exchange #N`, `scenario ID`. */
export function location(t: CaseWhere & { title?: string }): string {
  if (t.file !== undefined) return `${t.file}:${t.line ?? 0}`;
  if (t.exchange !== undefined) return `exchange #${t.exchange}`;
  if (t.scenario !== undefined) return `scenario ${t.scenario}`;
  return t.title ?? '';
}

/** The case's location fields alone (a ref carries only those its case has). */
export function whereOf(t: CaseWhere): CaseWhere {
  return {
    ...(t.file !== undefined ? { file: t.file, line: t.line ?? 0 } : {}),
    ...(t.exchange !== undefined ? { exchange: t.exchange } : {}),
    ...(t.scenario !== undefined ? { scenario: t.scenario } : {}),
  };
}

export function firstLine(text: string): string {
  return text.split('\n').find((l) => l.trim() !== '')?.trim() ?? '';
}

/**
 * A message as one line: its first line, and when that only introduces what follows ("GET /v1/models:"),
 * the next line too. Cut at `max` characters.
 */
export function oneLine(text: string, max = 240): string {
  const lines = text.split('\n').map((l) => l.trim()).filter((l) => l !== '');
  let out = lines[0] ?? '';
  if (out.endsWith(':') && lines[1]) out = `${out} ${lines[1]}`;
  if (lines.length > 2 || (lines.length === 2 && !out.includes(lines[1]!))) out += ' …';
  return out.length <= max ? out : `${out.slice(0, max - 1)}…`;
}

/** Why the kit could not judge a case's unrecorded IDs, or undefined when the case ran to its end or was stopped. */
function kitFailure(t: TestOutcome): string | undefined {
  if (t.status !== 'unfinished' || t.unfinished === 'stopped') return undefined;
  if (t.unfinished === 'timeout') return `the kit could not judge: the test timed out${t.error ? ` (${firstLine(t.error)})` : ''}`;
  const errors = t.errors ?? (t.error !== undefined ? [t.error] : []);
  const thrown = errors.find((e) => !isCheckFailure(e)) ?? errors[0];
  return thrown !== undefined ? `the kit could not judge: the test threw: ${firstLine(thrown)}` : 'the kit could not judge: the test failed without a recorded check';
}

/** The records a test contributes, including those derived from how it ended for IDs it never recorded. */
export function entriesOf(t: TestOutcome, known: ReadonlyMap<string, Requirement>): Entry[] {
  const records = (t.evidence?.checks ?? []).filter((r) => known.has(r.id));
  const out: Entry[] = records.map((record) => ({ record, test: t }));
  const recorded = new Set(records.map((r) => r.id));
  const kit = kitFailure(t);
  for (const id of new Set(t.declared)) {
    if (!known.has(id) || recorded.has(id)) continue;
    // Never `fail`: an ID no check judged has no evidence against the target.
    let record: CheckRecord;
    if (kit !== undefined) record = { id, status: 'error', message: kit };
    else if (t.status === 'skipped') record = { id, status: 'skip', message: t.skipReason ?? 'the test was skipped' };
    else if (t.status === 'unfinished') record = { id, status: 'skip', message: 'not run to its end: the run was stopped' };
    else if (t.status === 'not-run') record = { id, status: 'skip', message: 'not run' };
    else record = { id, status: 'skip', message: 'not checked in this run' };
    out.push({ record, test: t, ...(kit !== undefined ? { fromTestError: true } : {}) });
  }
  return out;
}

export function toExchange(e: Exchange): ReportExchange {
  const x: ReportExchange = {
    method: e.method,
    url: e.url,
    status: e.status,
    requestHeaders: { ...e.requestHeaders },
    responseHeaders: { ...e.responseHeaders },
    responseBody: e.responseBody,
    durationMs: e.durationMs,
    curl: e.curl,
  };
  if (e.requestBody !== undefined) x.requestBody = e.requestBody;
  if (e.error) x.error = e.error;
  if (e.errorKind) x.errorKind = e.errorKind;
  if (e.transportEvents && e.transportEvents.length > 0) x.transportEvents = e.transportEvents.map((ev) => ({ kind: ev.kind, message: ev.message }));
  return x;
}

export function evidenceItem(entry: Entry): EvidenceItem {
  const { record, test } = entry;
  const item: EvidenceItem = { status: record.status, test: test.title, location: location(test) };
  if (record.message !== undefined) item.message = record.message;
  // A field without a value is omitted, never null: an observed null is said in the message.
  if (record.observed === null) item.message = `${record.message ? `${record.message}: ` : ''}observed null`;
  else if (record.observed !== undefined) item.observed = record.observed;
  if (entry.fromTestError) item.fromTestError = true;
  if (record.party) item.party = record.party;
  const exchange = record.exchange !== undefined ? test.evidence?.exchanges[record.exchange] : undefined;
  if (exchange) item.exchange = toExchange(exchange);
  return item;
}

export function unique(values: (string | undefined)[]): string[] {
  return [...new Set(values.filter((v): v is string => typeof v === 'string' && v !== ''))];
}

function statusOf(r: Requirement, entries: Entry[]): RequirementStatus {
  if (entries.length === 0) return 'untested';
  if (r.kind === 'observation' && entries.some((e) => e.record.status === 'observed')) return 'observed';
  let best: CheckRecord['status'] = 'skip';
  for (const e of entries) if (PRECEDENCE[e.record.status] > PRECEDENCE[best]) best = e.record.status;
  // Observations are never judged, and only a MUST can fail.
  if (best === 'fail' && (r.kind === 'observation' || r.level !== 'MUST')) return 'warn';
  return best;
}

/**
 * A requirement's records without those saying its case never came (`notApplicable`: no tool call came back, no
 * search ran) when anything judged it: they are no case, so they neither thin a pass nor add causes. With no
 * judgement at all, they stay: the requirement ends `skip` with that reason, never `pass`, and never `untested`
 * (a test reached it; `untested` is for what no test reached).
 */
export function caseRecords(list: Entry[]): Entry[] {
  const judged = list.some((e) => e.record.status !== 'skip');
  return judged ? list.filter((e) => !e.record.notApplicable) : list;
}

/** Most distinct causes spelled out in a reason. */
const MAX_CAUSES = 5;

/**
 * What kept a record from being judged: its message, and the failure on its exchange, as the card that failure is on
 * names it (`named`, from the root causes: a failure on another requirement's card is named by that card), else the
 * requirement that failed.
 */
export function causeOf(record: CheckRecord, named?: string): string {
  const message = record.cause?.message ?? record.message ?? (record.status === 'error' ? 'the kit could not judge' : 'skipped');
  const id = record.cause?.id;
  if (!id) return message;
  // Both halves cut so the card survives a reason's 200 characters (the card holds the whole deviation).
  if (named !== undefined && named !== `${id} failed`) return `${oneLine(message, 100)} (root cause: ${oneLine(named, 90)})`;
  return !message.includes(id) ? `${message} (root cause: ${id} failed)` : message;
}

/** How the fold names an unjudged record's cause (the card its failure is on); none: by the requirement that failed. */
export type CauseNamer = (record: CheckRecord) => string | undefined;

function listCauses(causes: string[]): string {
  const shown = causes.slice(0, MAX_CAUSES).map((c) => oneLine(c, 200));
  return causes.length > MAX_CAUSES ? `${shown.join('; ')}; and ${causes.length - MAX_CAUSES} more` : shown.join('; ');
}

/** Folds the outcomes of a run into one result per catalog record the target is judged on (or those `judged` names), sorted by section then catalog order. */
export function aggregate(outcomes: readonly TestOutcome[], requirements: readonly Requirement[] = catalog, judged?: readonly Requirement[], nameCause?: CauseNamer): RequirementResult[] {
  // `judged`: the records a run other than a target's judges (a client run judges the consumer's rules).
  const scope = judged ?? targetRequirements(requirements);
  const known = new Map(scope.map((r) => [r.id, r]));
  const entries = new Map<string, Entry[]>(scope.map((r) => [r.id, []]));
  const tests = new Map<string, CaseList>(scope.map((r) => [r.id, new CaseList()]));
  const sameAs = new Map(requirements.filter((r) => r.sameAs !== undefined).map((r) => [r.id, r.sameAs!]));
  for (const t of outcomes) {
    for (const e of entriesOf(t, known)) entries.get(e.record.id)!.push(e);
    // The tests of a requirement: those that declare it (or a restatement of it) and those whose checks judged it.
    const primary = (id: string) => sameAs.get(id) ?? id;
    for (const id of new Set([...t.declared.map(primary), ...(t.evidence?.checks ?? []).map((r) => r.id)])) tests.get(id)?.add(t);
  }
  const order = new Map(scope.map((r, i) => [r.id, i]));
  const sorted = [...scope].sort((a, b) => compareSections(a.section, b.section) || order.get(a.id)! - order.get(b.id)!);
  return sorted.map((r) => {
    const list = caseRecords(entries.get(r.id)!);
    const status = statusOf(r, list);
    const records: RecordCounts = { pass: 0, fail: 0, warn: 0, skip: 0, observed: 0, error: 0 };
    for (const e of list) records[e.record.status] += e.record.count ?? 1;
    const cases = { judged: records.pass + records.fail + records.warn, unjudged: records.skip + records.error };
    const result: RequirementResult = {
      id: r.id,
      section: r.section,
      level: r.level,
      kind: r.kind,
      check: r.check,
      statement: aliasesOf(r.id, requirements).length > 0 ? `${r.statement} (Also stated as ${aliasesOf(r.id, requirements).join(', ')}.)` : r.statement,
      status,
      ...tests.get(r.id)!.done(),
      records,
      cases,
      evidence: [],
      evidenceOmitted: 0,
    };
    const unjudged = list.filter((e) => e.record.status === 'skip' || e.record.status === 'error');
    // A skip on the requirement's own terms (a cause naming no failed requirement: what it needed was read and held
    // no case, "no entry carries X")
    // says why on every target; the skips another requirement's failure caused elsewhere are then left out of the
    // reason (the root cause that failure belongs to lists them as blocked), so the reason never depends on them.
    const ownSkips = unjudged.filter((e) => e.record.status === 'skip' && e.record.cause !== undefined && !e.record.cause.id);
    const skips = unjudged.filter((e) => e.record.status === 'skip' && (ownSkips.length === 0 || !e.record.cause?.id));
    // Errors first: they say what the kit could not do; skips say what the target or profile did not offer.
    const causes = unique([...unjudged.filter((e) => e.record.status === 'error'), ...skips].map((e) => causeOf(e.record, nameCause?.(e.record))));
    const notJudged = cases.unjudged > 0 ? `${cases.unjudged} could not be judged: ${listCauses(causes)}` : '';
    let evidence: Entry[] = [];
    if (status === 'fail' || status === 'warn') {
      // A failure on the kit's reading of a gap says so wherever it is shown.
      const reading = readingOf(r.id);
      if (reading) result.reading = reading;
      // Failures first, then warnings; a demoted failure (SHOULD, observation) counts as a warning.
      evidence = [...list.filter((e) => e.record.status === 'fail'), ...list.filter((e) => e.record.status === 'warn')];
      result.reason = evidence[0]?.record.message ?? `the test ${status === 'fail' ? 'failed' : 'warned'}`;
    } else if (status === 'pass') {
      // One pass beside many unjudged cases is a thin pass: say so.
      if (cases.unjudged > 0) result.reason = `passed on ${records.pass} of ${records.pass + cases.unjudged} cases; ${notJudged}`;
    } else if (status === 'observed') {
      evidence = list.filter((e) => e.record.status === 'observed');
      const labels = unique(evidence.map((e) => e.record.message));
      if (labels.length > 0) result.reason = labels.join('; ');
    } else if (status === 'error') {
      evidence = list.filter((e) => e.record.status === 'error');
      result.reason = causes.length > 0 ? listCauses(causes) : 'the kit could not judge';
    } else if (status === 'skip') {
      result.skipReasons = causes.length > 0 ? causes : ['skipped'];
      result.reason = result.skipReasons.join('; ');
    } else if (status === 'untested') {
      result.reason = 'no test of this run declares it';
    }
    result.evidence = evidence.slice(0, MAX_EVIDENCE).map(evidenceItem);
    result.evidenceOmitted = Math.max(0, evidence.length - MAX_EVIDENCE);
    return result;
  });
}

export function emptyCounts(): StatusCounts {
  return { pass: 0, fail: 0, warn: 0, error: 0, 'expected-fail': 0, skip: 0, observed: 0, untested: 0, total: 0 };
}

export function countStatuses(results: readonly Pick<RequirementResult, 'status'>[]): StatusCounts {
  const c = emptyCounts();
  for (const r of results) {
    c[r.status]++;
    c.total++;
  }
  return c;
}

export function topSectionOf(section: string): string {
  return section.split('.')[0]!;
}

/** Counts per top-level section ("2") and per full section ("2.10"), in spec order. */
export function sectionCounts(results: readonly RequirementResult[], titles: ReadonlyMap<string, string> = new Map()): { sections: SectionCounts[]; subsections: SectionCounts[] } {
  const group = (key: (r: RequirementResult) => string): SectionCounts[] => {
    const map = new Map<string, RequirementResult[]>();
    for (const r of results) map.set(key(r), [...(map.get(key(r)) ?? []), r]);
    return [...map.keys()].sort(compareSections).map((section) => {
      const counts: SectionCounts = { section, ...countStatuses(map.get(section)!) };
      const title = titles.get(section);
      if (title) counts.title = title;
      return counts;
    });
  };
  return { sections: group((r) => topSectionOf(r.section)), subsections: group((r) => r.section) };
}

/** The MUST requirements that failed: the run's verdict and its exit code depend on these alone. */
export function mustFailures(results: readonly RequirementResult[]): RequirementResult[] {
  return results.filter((r) => r.level === 'MUST' && r.status === 'fail');
}

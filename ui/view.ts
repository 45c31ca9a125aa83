// What the page is sent, shaped from the report's own data (conformance.json's records, the catalog): a row per
// requirement, a card per root cause, a requirement's evidence with its contract text, a run of the history. The
// page imports these types only; every value is plain JSON, and the page puts every string in as text.
import { CONTRACT, isKnownRequirement, getRequirement } from '../spec/requirements/index.ts';
import type { ConformanceReport, ScenarioRow } from '../report/json.ts';
import type { Comparison } from '../report/compare.ts';
import { location, type EvidenceItem, type RequirementResult } from '../report/results.ts';
import type { RootCause } from '../report/root-causes.ts';

/** `pending`: declared by a test of the run that has not ended yet. */
export type RowStatus = RequirementResult['status'] | 'pending';

export interface Row {
  id: string;
  section: string;
  level: string;
  status: RowStatus;
  reason?: string;
}

export interface CauseCard {
  rank: number;
  id: string;
  level: string;
  status: string;
  deviation: string;
  message: string;
  requirements: string[];
  blocked: string[];
  occurrences: number;
  tests: number;
}

/** A requirement opened: the contract's words and the run's evidence. */
export interface EvidenceView {
  id: string;
  section: string;
  sectionTitle?: string;
  level: string;
  kind: string;
  check: string;
  statement: string;
  quote: string;
  status: RowStatus;
  reason?: string;
  cases?: { judged: number; unjudged: number };
  tests: { title: string; location: string; status: string }[];
  evidence: EvidenceItem[];
  evidenceOmitted: number;
  /** The root causes that name it. */
  causes: CauseCard[];
}

/** A finished run, as its report says. */
export interface ReportView {
  key: string;
  verdict: string;
  summary: string;
  exitCode: number;
  subject: string;
  startedAt: string;
  durationMs: number;
  selection?: string;
  tests: ConformanceReport['run']['tests'];
  mustFailed: string[];
  rows: Row[];
  causes: CauseCard[];
  scenarios?: ScenarioRow[];
  /** The failed requirements (fail, or error), for "rerun the failed ones". */
  failed: string[];
}

/** One run of the report folder. */
export interface HistoryEntry {
  key: string;
  startedAt: string;
  verdict: string;
  subject: string;
  selection?: string;
  client: boolean;
  mustFailed: number;
  tests: number;
}

export type CompareView = Comparison;

export function rowOf(r: RequirementResult, pending = false): Row {
  // A requirement whose tests have not ended yet is waiting, not untested: the fold's reason would say no test declares it.
  if (pending && r.status === 'untested') return { id: r.id, section: r.section, level: r.level, status: 'pending' };
  return { id: r.id, section: r.section, level: r.level, status: r.status, ...(r.reason !== undefined ? { reason: r.reason } : {}) };
}

export function causeCard(c: RootCause): CauseCard {
  return { rank: c.rank, id: c.id, level: c.level, status: c.status, deviation: c.deviation, message: c.message, requirements: c.requirements, blocked: c.blocked, occurrences: c.occurrences, tests: c.tests.length };
}

/** A requirement's evidence: the run's result (undefined: not in the run) and the catalog's record. */
export function evidenceView(id: string, result: RequirementResult | undefined, causes: readonly RootCause[], pending = false): EvidenceView | undefined {
  const record = isKnownRequirement(id) ? getRequirement(id) : undefined;
  if (!record && !result) return undefined;
  const section = result?.section ?? record!.section;
  const title = CONTRACT.sections[section];
  return {
    id,
    section,
    ...(title !== undefined ? { sectionTitle: title } : {}),
    level: result?.level ?? record!.level,
    kind: result?.kind ?? record!.kind,
    check: result?.check ?? record!.check,
    statement: result?.statement ?? record!.statement,
    quote: record?.quote ?? '',
    status: result ? rowOf(result, pending).status : 'untested',
    ...(result?.reason !== undefined ? { reason: result.reason } : {}),
    ...(result ? { cases: result.cases } : {}),
    tests: (result?.tests ?? []).map((t) => ({ title: t.title, location: location(t), status: t.status })),
    evidence: result?.evidence ?? [],
    evidenceOmitted: result?.evidenceOmitted ?? 0,
    causes: causes.filter((c) => c.requirements.includes(id) || c.blocked.includes(id)).map(causeCard),
  };
}

const FAILED = new Set(['fail', 'error']);

export function reportView(key: string, report: ConformanceReport): ReportView {
  const subject = report.subject ? `client: ${report.subject.command}` : `${report.target.url ?? 'no target'}${report.target.embeddedMock ? ' (embedded reference mock)' : ''}`;
  return {
    key,
    verdict: report.verdict.result,
    summary: report.verdict.summary,
    exitCode: report.verdict.exitCode,
    subject,
    startedAt: report.run.startedAt,
    durationMs: report.run.durationMs,
    ...(report.verdict.selection !== undefined ? { selection: report.verdict.selection } : {}),
    tests: report.run.tests,
    mustFailed: report.verdict.mustFailed,
    // A run's table: what it judged, not the catalog's every record it never touched.
    rows: report.requirements.filter((r) => r.status !== 'untested').map((r) => rowOf(r)),
    causes: report.rootCauses.map(causeCard),
    ...(report.scenarios ? { scenarios: report.scenarios } : {}),
    failed: report.requirements.filter((r) => FAILED.has(r.status)).map((r) => r.id),
  };
}

export function historyEntry(key: string, report: ConformanceReport): HistoryEntry {
  const view = reportView(key, report);
  return {
    key,
    startedAt: view.startedAt,
    verdict: view.verdict,
    subject: view.subject,
    ...(view.selection !== undefined ? { selection: view.selection } : {}),
    client: report.subject !== undefined,
    mustFailed: view.mustFailed.length,
    tests: report.run.tests.total,
  };
}

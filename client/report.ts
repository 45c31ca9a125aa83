// The reports of a client run, from the same builder and writers as a server run (report/): each scenario is one
// case whose evidence is the client's requests (the mock's journal) and whose records judge the consumer's rules.
// conformance.json gains what a server run lacks: `subject` (the client's command) and `scenarios`, one row per
// scenario; the HTML page gains their table (the exchange, the client's report, the expected one).
import type { Exchange } from '../judge/exchange.ts';
import { curlOf } from '../judge/evidence.ts';
import { MOCK_KEYS, type JournalEntry } from '../mock/index.ts';
import type { Baseline } from '../report/baseline.ts';
import { foldReport } from '../report/fold.ts';
import type { ConformanceReport, ReportSubject, ScenarioRow, ScenarioStatus } from '../report/json.ts';
import { firstLine, type TestOutcome } from '../report/results.ts';
import { kitInfo, type RunInfo } from '../report/run-info.ts';
import { writeReports } from '../report/write.ts';
import { redact, redactDeep } from '../spec/redact.ts';
import { CONTRACT, requirements } from '../spec/requirements/index.ts';
import type { ScenarioResult } from './engine.ts';

export type { ScenarioRow, ScenarioStatus };

export type ClientConformanceReport = ConformanceReport & { subject: ReportSubject; scenarios: ScenarioRow[] };

/** Every key the scenarios' mocks accept: masked wherever one would show. */
const SECRETS: readonly string[] = Object.values(MOCK_KEYS);
/** A journal body shown in a report: the start of it. */
const BODY_SHOWN = 4000;

export function scenarioStatus(r: ScenarioResult): ScenarioStatus {
  const s = new Set(r.records.map((x) => x.status));
  return s.has('fail') ? 'fail' : s.has('error') ? 'error' : s.has('warn') ? 'warn' : s.size > 0 && [...s].every((x) => x === 'skip') ? 'skip' : 'pass';
}

function exchangeOf(e: JournalEntry, origin: string): Exchange {
  const scrub = (t: string): string => redact(t, SECRETS);
  const url = `${origin}${e.path}${e.query ? `?${e.query}` : ''}`;
  const body = e.body === undefined ? undefined : Buffer.from(e.body);
  return {
    method: e.method,
    path: e.path,
    url,
    requestHeaders: e.headers,
    ...(e.body !== undefined ? { requestBody: scrub(e.body) } : {}),
    requestBytes: e.body_bytes,
    status: e.status,
    responseHeaders: {},
    // The journal keeps the answer's status and outcome, not its body.
    responseBody: `(${e.outcome}${e.error_code ? `: ${e.error_code}` : ''})`,
    responseBytes: 0,
    durationMs: 0,
    curl: curlOf({ method: e.method, url, headers: e.headers, ...(body ? { body } : {}), keyVar: 'OPENAI_API_KEY', scrub }),
  };
}

/** A scenario as the fold's case: named by its id, judged to its end (what the client did is in its records). */
function outcomeOf(r: ScenarioResult): TestOutcome {
  const status = scenarioStatus(r);
  const origin = new URL(r.baseUrl).origin;
  const firstBad = r.records.find((x) => x.status === 'fail' || x.status === 'error');
  return {
    title: `client › ${r.scenario.id}: ${r.scenario.title}`,
    scenario: r.scenario.id,
    status: status === 'skip' ? 'skipped' : 'judged',
    ...(firstBad?.message ? { error: firstBad.message, errors: [firstBad.message] } : {}),
    ...(status === 'skip' ? { skipReason: r.records[0]?.cause?.message ?? 'skipped' } : {}),
    declared: [...r.scenario.requirements],
    evidence: { checks: r.records, exchanges: r.journal.map((e) => exchangeOf(e, origin)) },
    durationMs: r.run.durationMs,
  };
}

function rowOf(r: ScenarioResult): ScenarioRow {
  const status = scenarioStatus(r);
  const reason = r.records.find((x) => x.status !== 'pass')?.message ?? r.records.find((x) => x.status === 'skip')?.cause?.message;
  return {
    id: r.scenario.id,
    title: r.scenario.title,
    requirements: [...r.scenario.requirements],
    status,
    ...(reason !== undefined && status !== 'pass' ? { reason } : {}),
    expected: r.scenario.expected,
    instruction: { ...r.scenario.instruction },
    ...(r.report ? { report: r.report as Record<string, unknown> } : {}),
    ...(r.problem ? { problem: r.problem } : {}),
    exchanges: r.journal.map((e) => ({
      method: e.method,
      path: e.path,
      status: e.status,
      outcome: e.outcome,
      ...(e.error_code ? { error_code: e.error_code } : {}),
      ...(e.body !== undefined ? { body: e.body.length > BODY_SHOWN ? `${e.body.slice(0, BODY_SHOWN)}... (${e.body_bytes} bytes)` : e.body } : {}),
    })),
    durationMs: r.run.durationMs,
  };
}

export interface ClientReportInput {
  results: readonly ScenarioResult[];
  /** The client's command line as given. */
  command: string;
  startedAt: Date;
  durationMs: number;
  seed: number;
  reportDir: string;
  /** Set when some scenarios were chosen (--scenario, --requirement). */
  selection?: string;
  baseline?: Baseline;
  /** Problems outside the scenarios (the run could not be done as asked). */
  errors?: string[];
}

export function buildClientReport(input: ClientReportInput): ClientConformanceReport {
  const ids = new Set(input.results.flatMap((r) => r.scenario.requirements));
  const judged = requirements.filter((r) => ids.has(r.id));
  const info: RunInfo = {
    kit: kitInfo(),
    spec: { file: CONTRACT.file, sha256: CONTRACT.sha256, catalogRecords: judged.length, requirements: judged.filter((r) => r.kind === 'requirement').length, observations: judged.filter((r) => r.kind === 'observation').length, kitOnly: 0 },
    target: { embeddedMock: true },
    seed: input.seed,
    reportDir: input.reportDir,
    secrets: [...SECRETS],
    sectionTitles: new Map(Object.entries(CONTRACT.sections)),
    problems: [],
  };
  const outcomes = input.results.map(outcomeOf);
  const errors = [...(input.errors ?? [])];
  // A client that never gave a report in any scenario was not judged at all: the run could not be done.
  if (input.results.length > 0 && input.results.every((r) => r.report === undefined)) errors.push(`the client gave no report in any of the ${input.results.length} scenarios: ${firstLine(input.results[0]!.problem ?? '')}`);
  // The one fold, with the client run's own plan: its scope is the consumer's rules its scenarios judge (results and
  // root causes alike), its cases are scenarios, and it owes a judgement of none of the server's core requirements.
  const report = foldReport(
    outcomes,
    { info, startedAt: input.startedAt, durationMs: input.durationMs, stopReason: 'completed', errors },
    {
      judged,
      scope: [...ids],
      caseKind: 'scenario',
      ...(input.baseline ? { baseline: input.baseline } : {}),
      ...(input.selection !== undefined ? { selection: input.selection } : {}),
    },
  );
  return {
    ...report,
    subject: { kind: 'client', command: redact(input.command, SECRETS) },
    scenarios: redactDeep(input.results.map(rowOf), SECRETS),
  };
}

/** Writes the four reports (report/write.ts): the page shows the subject and the scenario table from the report itself. */
export function writeClientReports(report: ClientConformanceReport, dir: string): string[] {
  return writeReports(report, dir, SECRETS);
}

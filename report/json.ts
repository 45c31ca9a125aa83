// conformance.json: the certifier's deliverable, the source every other output is written from. It leads with
// the verdict, the coverage behind it and the distinct root causes ranked by impact.
// Its JSON Schema is spec/schemas/conformance-report.schema.json; a report that does not validate is never
// written as conformance.json (it is a bug of the kit, and the run fails loudly).
import { readingExcluded, type FailOn } from '../run/gate-readings.ts';
import { formatIssues, validate, type ValidationIssue } from '../spec/validator.ts';
import { CORE_REQUIREMENTS, type Requirement } from '../spec/requirements/index.ts';
import { coverageOf, coverageSentence, insufficient, type Coverage } from './coverage.ts';
import { targetProblemIn } from '../run/setup-messages.ts';
import { rootCauses, type RootCause } from './root-causes.ts';
import { transportSentence, transportSummary, type TransportSummary } from './transport-events.ts';
import {
  countStatuses,
  firstLine,
  mustFailures,
  sectionCounts,
  type RequirementResult,
  type SectionCounts,
  caseCounts,
  failedCase,
  whereOf,
  type CaseCounts,
  type CaseKind,
  type CaseWhere,
  type StatusCounts,
  type TestOutcome,
  type UnfinishedReason,
} from './results.ts';
import { redactDeep } from '../spec/redact.ts';
import { plural } from './plural.ts';
import type { RunInfo } from './run-info.ts';
import { staleLines, type BaselineOutcome } from './baseline.ts';
import { targetOnlyFailures, type ReferenceRun } from './differential.ts';
import type { TrialSettings } from '../run/trials.ts';
import type { RerunOf } from '../run/rerun.ts';
import { modelsSentence, type ModelResult } from './models.ts';
import { pairingOf, type CasePairing } from './pairing.ts';

export const REPORT_SCHEMA_ID = 'https://chatconform.dev/schemas/conformance-report.schema.json';
/**
 * 2: the report speaks the kit's words only: `run.stopReason` (required; `out-of-time`), the cases' statuses
 * (`judged`, `unfinished`, `skipped`, `not-run`) and what the cases are (`run.caseKind`); no `run.playwrightStatus`,
 * no `verdict.exitStatus`; `requirements[].tests` bounded (`testsOmitted`, `byModel`). Version 1 (the 0.2 kit's) is
 * still read: report/load.ts upgrades it (report/upgrade.ts).
 */
export const REPORT_VERSION = 2;

/**
 * Why the engine that ran the cases stopped, in its own words (suites/reporter.ts reads Playwright's status):
 * `completed`, every case it was given ran to its end; `interrupted` (a signal, the user); `out-of-time` (the run's
 * global timeout); `failed-to-run`, errors outside the cases (a global setup, a file that did not load, a worker
 * that died) kept some or all of them from running. The proxy's traffic is `completed`: its report counts the
 * exchanges it judged.
 */
export type StopReason = 'completed' | 'interrupted' | 'out-of-time' | 'failed-to-run';

/** What fails the run: a MUST failure (default), or also a SHOULD/MAY warning, or (with a reference) only a MUST failure the reference does not share. */
export type { FailOn } from '../run/gate-readings.ts';
/** `partial`: a run of some of the tests (a selection); it never shows as a full pass. */
export type Verdict = 'pass' | 'fail' | 'incomplete' | 'partial';

/** What one shard's own discovery found (each shard reads the catalog itself). */
export interface ShardDiscovery {
  /** SHA-256 of the whole discovery (catalog, search and access probes): shards that saw the same catalog agree. */
  sha256: string;
  models: string[];
  catalogError?: string;
}

/** A shard's report (`--shard i/n`): which shard, what it discovered, and the run's own selection besides the shard. */
export interface ShardInfo {
  index: number;
  total: number;
  discovery: ShardDiscovery;
  selection?: string;
  scope?: string[];
  /** The shard's blob report (beside its conformance.json): the merge replays only the blob whose digest this is. */
  blob?: { file: string; sha256: string };
}

/** A merged report (`chatconform report merge`): the shards it joined, the ones missing, whether their catalogs differed. */
export interface MergeInfo {
  total: number;
  shards: { index: number; startedAt: string; durationMs: number; discovery: ShardDiscovery }[];
  missing: number[];
  catalogsDiffer: boolean;
}

/** A case that found a failure or that the kit could not finish. */
export interface FailedTest extends CaseWhere {
  title: string;
  status: 'judged' | 'unfinished';
  unfinished?: UnfinishedReason;
  /** In a per-model matrix: the model it judged. */
  model?: string;
  error: string;
  /** The IDs this test's failure is charged to (its fail records); empty when none (the kit's own exception). */
  failed: string[];
}

/** The subject of a client run: the command judged. */
export interface ReportSubject {
  kind: 'client';
  command: string;
}

export type ScenarioStatus = 'pass' | 'fail' | 'warn' | 'error' | 'skip';

/** One scenario of a client run. */
export interface ScenarioRow {
  id: string;
  title: string;
  requirements: string[];
  status: ScenarioStatus;
  reason?: string;
  expected: string;
  /** What the client was asked to do (docs/client-conformance.md, "Protocol"). */
  instruction: Record<string, unknown>;
  report?: Record<string, unknown>;
  problem?: string;
  exchanges: { method: string; path: string; status: number; outcome: string; error_code?: string; body?: string }[];
  durationMs: number;
}

/** Who the report judges, in one line: the client's command, else the target's URL. */
export function subjectLine(report: Pick<ConformanceReport, 'subject' | 'target'>): string {
  if (report.subject) return `client: ${report.subject.command} (against the embedded reference mock)`;
  return `${report.target.url ?? 'no target'}${report.target.embeddedMock ? ' (embedded reference mock)' : ''}`;
}

export interface ConformanceReport {
  $schema: string;
  reportVersion: number;
  kit: RunInfo['kit'];
  spec: RunInfo['spec'];
  target: RunInfo['target'];
  run: {
    startedAt: string;
    durationMs: number;
    seed?: number;
    fuzzRuns?: number;
    requests?: number;
    cost?: number;
    costedResponses?: number;
    /** Why the engine stopped. */
    stopReason: StopReason;
    /** What the cases are: the suite's tests, the exchanges the proxy saw, a client's scenarios. */
    caseKind: CaseKind;
    /** With --reference: the reference run the requirements are paired with. */
    reference?: ReferenceRun;
    /** With --trials: the repeats of each model-dependent test and the minimum pass rate. */
    trials?: TrialSettings;
    /** A rerun (--last-failed, --rerun FILE): the run it reran and the tests it took from that run's report. */
    rerunOf?: RerunOf;
    /** With --models and --max-failing-models N: how many models may fail before the run does. */
    maxFailingModels?: number;
    /** The cases by how each ended. */
    tests: CaseCounts;
    /** Set on one shard's report: it is partial until merged. */
    shard?: ShardInfo;
    /** Set on a report merged from shards. */
    merge?: MergeInfo;
  };
  verdict: {
    result: Verdict;
    /**
     * The process's exit code, `npm run conformance` (the reporter sets it) and `chatconform run` alike: 0 nothing
     * failed the gate; 1 a MUST failed outside the baseline (or a stale entry, or a warning with fail-on warn); 3 the
     * run could not complete (a configuration or runtime error: the target never answered, a bad profile, the kit
     * crashed, interrupted or out of time) without any such failure.
     */
    exitCode: 0 | 1 | 3;
    summary: string;
    /** IDs of the MUST requirements that failed. */
    mustFailed: string[];
    /** Requirements (not observations) that passed, out of all requirements the target is judged on. */
    requirementsPassed: number;
    requirementsTotal: number;
    /** What fails the run (CONFORMANCE_FAIL_ON); omitted for the default, must. */
    failOn?: FailOn;
    /**
     * The MUST failures the gate did not count (under --fail-on target-only those the reference shares; under
     * --max-failing-models those of the tolerated models); omitted when the gate counted every one.
     */
    notGated?: string[];
    /** The run's expected failures and what became of each entry; omitted without a baseline. */
    baseline?: BaselineOutcome;
    /** What a partial run selected (verdict partial unless a MUST failed or too little was judged). */
    selection?: string;
  };
  /** Judged MUSTs out of the MUSTs the run declared; a pass needs at least half, and every core one. */
  coverage: Coverage;
  /** The distinct failures and warnings, ranked by impact. */
  rootCauses: RootCause[];
  /** Exchanges that failed at the transport level or met transport events. */
  transport: TransportSummary;
  counts: StatusCounts;
  sections: SectionCounts[];
  subsections: SectionCounts[];
  requirements: RequirementResult[];
  /** Cases that found a failure or that the kit could not finish, with the IDs their failure was charged to. */
  failedTests: FailedTest[];
  /** Errors outside any test (global setup, a spec file that does not load, a reporter problem). */
  errors: string[];
  /** The per-model matrix (--models): one row per chosen model; omitted without a matrix. */
  models?: ModelResult[];
  /** What was judged, when it is not a server at `target` (`chatconform client`: the client's command; the target is then the embedded mock). */
  subject?: ReportSubject;
  /** `chatconform client`: one row per scenario (what the client sent, what it reported, what was expected). */
  scenarios?: ScenarioRow[];
  /** What a reference column pairs on: the run's case keys, and per requirement the cases that judged and failed it (pairing.ts). */
  pairing?: CasePairing;
}

export interface ReportInput {
  info: RunInfo;
  results: RequirementResult[];
  outcomes: readonly TestOutcome[];
  startedAt: Date;
  durationMs: number;
  /** Why the engine stopped. */
  stopReason: StopReason;
  /** What the cases are (default: the suite's tests). */
  caseKind?: CaseKind;
  /** The root causes of the outcomes, when the fold already ranked them (it names unjudged records' causes by their cards). */
  rootCauses?: RootCause[];
  /** The catalog the results were aggregated from, and the records they judge (aggregate's; default the target's). */
  catalog?: readonly Requirement[];
  judged?: readonly Requirement[];
  errors: string[];
  /** The baseline applied to `results` (baseline.ts). */
  baseline?: BaselineOutcome;
  failOn?: FailOn;
  /** Set for a partial run: what it selected. */
  selection?: string;
  /** For a selection of requirements: the IDs it takes (then only its core requirements are owed a judgement). */
  scope?: readonly string[];
  shard?: ShardInfo;
  merge?: MergeInfo;
  reference?: ReferenceRun;
  trials?: TrialSettings;
  /** The per-model matrix: its rows, the MUSTs the model-independent tests failed, and how many models may fail. */
  matrix?: { models: ModelResult[]; independentMustFailed: readonly string[]; maxFailingModels: number };
}

/**
 * The one exit-code rule (README, "Exit codes"): 1 when the gate fails (a MUST outside the baseline, a stale entry,
 * a warning with fail-on warn), else 3 when the run could not judge (`unjudged`: the target never answered, an error
 * outside the tests) or did not finish (interrupted, out of time), else 0.
 */
export function exitCodeOf(stopReason: StopReason, mustFailedCount: number, unjudged: boolean, more: GateInput = {}): 0 | 1 | 3 {
  if (gateFails(mustFailedCount, more)) return 1;
  return unjudged || stopReason === 'interrupted' || stopReason === 'out-of-time' ? 3 : 0;
}

export interface GateInput {
  stale?: number;
  warnings?: number;
  failOn?: FailOn;
}

/** What the target's results alone do to the gate: a MUST failure, a stale baseline entry, a warning with fail-on warn. */
function gateFails(mustFailedCount: number, more: GateInput): boolean {
  return mustFailedCount > 0 || (more.stale ?? 0) > 0 || (more.failOn === 'warn' && (more.warnings ?? 0) > 0);
}

/** The IDs a failed test's failure is charged to: its fail records only (an unrecorded ID is never charged). */
function chargedIds(t: TestOutcome, byId: ReadonlyMap<string, RequirementResult>): string[] {
  const checks = t.evidence?.checks ?? [];
  return [...new Set(checks.filter((c) => c.status === 'fail' && byId.get(c.id)?.status === 'fail').map((c) => c.id))];
}

/** The verdict in one clause, the start of its summary: what failed, or why there is no pass. */
export function headlineOf(v: { result: Verdict; mustFailed: readonly string[]; stopReason: StopReason; errors: readonly string[] }): string {
  // A target the run could not reach (or judge: not this API, its key refused) is named first, in the words of the one check that found it.
  const unreached = v.errors.map(targetProblemIn).find((e) => e !== undefined);
  if (unreached !== undefined && v.result !== 'fail') return unreached.replace(/ \([^()]*:\d+\)$/, '');
  const why =
    v.stopReason === 'interrupted' ? 'the run was interrupted' : v.stopReason === 'out-of-time' ? 'the run hit its global timeout' : v.errors.length > 0 ? `${plural(v.errors.length, 'error')} outside the tests` : undefined;
  const unfinished = why === undefined ? '' : `the run did not complete: ${why}`;
  if (v.result === 'fail') return `${plural(v.mustFailed.length, 'MUST requirement')} failed${unfinished ? `; ${unfinished}` : ''}`;
  if (unfinished) return unfinished;
  if (v.result === 'partial') return 'no MUST requirement failed in a partial run, which is no certification of the whole contract';
  return v.result === 'incomplete' ? 'no MUST requirement failed, but too little was judged for a pass' : 'no MUST requirement failed';
}

/** The headline of a written report. */
export function headline(report: ConformanceReport): string {
  return headlineOf({ result: report.verdict.result, mustFailed: report.verdict.mustFailed, stopReason: report.run.stopReason, errors: report.errors });
}

/** Builds the report (every string redacted with the run's secrets). */
export function buildReport(input: ReportInput): ConformanceReport {
  const { info, results, outcomes, stopReason, errors, baseline } = input;
  const failOn = input.failOn ?? 'must';
  const failed = mustFailures(results).map((r) => r.id);
  // A matrix whose failing models are within --max-failing-models: only the model-independent MUSTs gate the run.
  const m = input.matrix;
  const tolerated = m !== undefined && m.maxFailingModels > 0 && m.models.filter((x) => x.verdict === 'fail').length <= m.maxFailingModels;
  const modelGated = tolerated ? failed.filter((id) => m.independentMustFailed.includes(id)) : failed;
  const unfinished = stopReason !== 'completed' || errors.length > 0;
  const warnings = results.filter((r) => r.status === 'warn').length;
  const gate: GateInput = { stale: baseline?.stale.length ?? 0, warnings, failOn };
  // No target: the run's requests got no HTTP response at all (refused, reset, timed out, not HTTP), so no MUST
  // could be judged: a runtime error, not a verdict, whichever command ran the suite.
  const sent = outcomes.flatMap((t) => t.evidence?.exchanges ?? []);
  const noTarget = sent.length > 0 && sent.every((x) => x.status === 0);
  // --fail-on target-only: a MUST failure the reference shares (classification both) does not gate.
  const gated = (failOn === 'target-only' ? targetOnlyFailures(modelGated, results) : modelGated).filter((id) => !readingExcluded(id, failOn));
  const notGated = failed.filter((id) => !gated.includes(id));
  const exitCode = exitCodeOf(stopReason, gated.length, errors.length > 0 || noTarget, gate);
  const reqs = results.filter((r) => r.kind === 'requirement');
  const passed = reqs.filter((r) => r.status === 'pass').length;
  // A selection of requirements answers for the core requirements it selected; a run narrowed by file or title
  // filters owes all of them (nothing says which it meant to leave out).
  // A rerun answers for the requirements it reran, as a selection of them would.
  const scope = input.scope ?? info.rerunOf?.requirements;
  const coverage = scope === undefined ? coverageOf(results) : coverageOf(results, CORE_REQUIREMENTS.filter((id) => scope.includes(id)));
  const transport = transportSummary(outcomes);
  // A failed MUST is evidence whatever else happened; a pass needs enough evidence behind it.
  // A shard (or a merge short of shards) judges only its part: its coverage is low by design, and it is partial;
  // so is a rerun's, of the few tests where something failed.
  const piece = input.shard !== undefined || (input.merge?.missing.length ?? 0) > 0 || info.rerunOf !== undefined;
  const result: Verdict = failed.length > 0 ? 'fail' : unfinished || (insufficient(coverage) && !piece) ? 'incomplete' : input.selection !== undefined || info.rerunOf !== undefined ? 'partial' : 'pass';
  const parts = [headlineOf({ result, mustFailed: failed, stopReason, errors })];
  if (input.selection !== undefined) parts.push(`partial run: ${input.selection}`);
  if (info.rerunOf) parts.push(rerunSentence(info.rerunOf));
  if (input.merge) parts.push(mergeSentence(input.merge));
  if (m) parts.push(modelsSentence(m.models, m.maxFailingModels));
  if (baseline && baseline.expected.length > 0) parts.push(`${plural(baseline.expected.length, 'expected failure')} of the baseline (${baseline.expected.map((e) => e.id).join(', ')})`);
  if (baseline) parts.push(...staleLines(baseline));
  if (failOn === 'warn' && warnings > 0) parts.push(`${plural(warnings, 'warning')}, which fail the run (fail on warn)`);
  parts.push(coverageSentence(coverage));
  if (coverage.coreNotJudged.length > 0) parts.push(`core requirements not judged: ${coverage.coreNotJudged.join(', ')}`);
  parts.push(`${passed} of ${reqs.length} requirements pass`);
  if (noTarget) parts.push(`no target: none of the ${sent.length} requests got an HTTP response`);
  const transportNote = transportSentence(transport);
  if (transportNote) parts.push(transportNote);
  const summary = parts.join('; ');

  const byId = new Map(results.map((r) => [r.id, r]));
  const failedTests: FailedTest[] = outcomes.filter(failedCase).map((t) => ({
    title: t.title,
    ...whereOf(t),
    status: t.status === 'unfinished' ? 'unfinished' : 'judged',
    ...(t.status === 'unfinished' && t.unfinished ? { unfinished: t.unfinished } : {}),
    ...(t.model !== undefined ? { model: t.model } : {}),
    error: t.error ? firstLine(t.error) : t.unfinished === 'timeout' ? 'the test timed out' : 'the test failed',
    failed: chargedIds(t, byId),
  }));

  const report: ConformanceReport = {
    $schema: REPORT_SCHEMA_ID,
    reportVersion: REPORT_VERSION,
    kit: info.kit,
    spec: info.spec,
    target: info.target,
    run: {
      startedAt: input.startedAt.toISOString(),
      durationMs: Math.max(0, Math.round(input.durationMs)),
      ...(info.seed !== undefined ? { seed: info.seed } : {}),
      ...(info.fuzzRuns !== undefined ? { fuzzRuns: info.fuzzRuns } : {}),
      ...(info.ledger ? { requests: info.ledger.requests, cost: info.ledger.cost, costedResponses: info.ledger.costedResponses } : {}),
      stopReason,
      caseKind: input.caseKind ?? 'test',
      ...(input.reference ? { reference: input.reference } : {}),
      ...(input.trials ? { trials: input.trials } : {}),
      ...(info.rerunOf ? { rerunOf: info.rerunOf } : {}),
      ...(m && m.maxFailingModels > 0 ? { maxFailingModels: m.maxFailingModels } : {}),
      tests: caseCounts(outcomes),
      ...(input.shard ? { shard: input.shard } : {}),
      ...(input.merge ? { merge: input.merge } : {}),
    },
    verdict: {
      result,
      exitCode,
      summary,
      mustFailed: failed,
      requirementsPassed: passed,
      requirementsTotal: reqs.length,
      ...(failOn !== 'must' ? { failOn } : {}),
      ...(notGated.length > 0 ? { notGated } : {}),
      ...(baseline ? { baseline } : {}),
      ...(input.selection !== undefined ? { selection: input.selection } : {}),
    },
    coverage,
    // The root causes of the records the results judge: a client run's consumer rules, the proxy's client rules too.
    rootCauses: input.rootCauses ?? rootCauses(outcomes, input.catalog, input.judged),
    transport,
    counts: countStatuses(results),
    ...sectionCounts(results, info.sectionTitles),
    requirements: results,
    failedTests,
    errors,
    ...(m ? { models: m.models } : {}),
    pairing: pairingOf(outcomes, results),
  };
  return redactDeep(report, info.secrets);
}

/** What a rerun's report says of the run it reran. */
export function rerunSentence(r: RerunOf): string {
  return `a rerun of the ${plural(r.tests.length, 'test')} where ${r.requirements.join(', ')} failed or could not be judged in the run of ${r.startedAt}${r.seed !== undefined ? ` (seed ${r.seed})` : ''}, whose report ${r.report} is kept`;
}

/** What a merged report says of its shards: how many, and whether they saw the same catalog. */
function mergeSentence(m: MergeInfo): string {
  const joined = `merged from ${m.shards.length} of ${m.total} shards`;
  if (!m.catalogsDiffer) return joined;
  const seen = m.shards.map((s) => `shard ${s.index}/${m.total}: ${s.discovery.catalogError ? `no catalog (${s.discovery.catalogError})` : `${s.discovery.models.length} models, discovery ${s.discovery.sha256.slice(0, 12)}`}`);
  return `${joined}; the shards saw different catalogs (${seen.join('; ')})`;
}

export function validateReport(report: unknown): ValidationIssue[] {
  return validate('conformance-report', report).errors;
}

export function formatReportIssues(issues: ValidationIssue[]): string {
  return formatIssues(issues);
}

export function serializeReport(report: ConformanceReport): string {
  return `${JSON.stringify(report, null, 2)}\n`;
}

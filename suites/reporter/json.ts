// conformance.json: the certifier's deliverable, the source every other output is written from.
// Its JSON Schema is spec/schemas/conformance-report.schema.json; a report that does not validate is never
// written as conformance.json (it is a bug of the kit, and the run fails loudly).
import { formatIssues, validate, type ValidationIssue } from '../../spec/validator.ts';
import {
  countStatuses,
  firstLine,
  mustFailures,
  sectionCounts,
  type RequirementResult,
  type SectionCounts,
  type StatusCounts,
  type TestOutcome,
  type TestStatus,
} from './results.ts';
import { redactDeep } from './redaction.ts';
import type { RunInfo } from './run-info.ts';

export const REPORT_SCHEMA_ID = 'https://chatconform.dev/schemas/conformance-report.schema.json';
export const REPORT_VERSION = 1;

export type RunStatus = 'passed' | 'failed' | 'timedout' | 'interrupted';
export type Verdict = 'pass' | 'fail' | 'incomplete';

export interface FailedTest {
  title: string;
  file: string;
  line: number;
  status: TestStatus;
  error: string;
  /** The IDs this test's failure is charged to (fail records, or its unrecorded MUSTs); empty when none. */
  failed: string[];
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
    /** How Playwright saw the run before the reporter decided the exit status. */
    playwrightStatus: RunStatus;
    tests: Record<TestStatus, number> & { total: number };
  };
  verdict: {
    result: Verdict;
    /** The process exit status the reporter asked for ("passed" is exit code 0). */
    exitStatus: RunStatus;
    summary: string;
    /** IDs of the MUST requirements that failed. */
    mustFailed: string[];
    /** Requirements (not observations) that passed, out of all requirements of the catalog. */
    requirementsPassed: number;
    requirementsTotal: number;
  };
  counts: StatusCounts;
  sections: SectionCounts[];
  subsections: SectionCounts[];
  requirements: RequirementResult[];
  /** Tests that failed or timed out, with the IDs their failure was charged to. */
  failedTests: FailedTest[];
  /** Errors outside any test (global setup, a spec file that does not load, a reporter problem). */
  errors: string[];
}

export interface ReportInput {
  info: RunInfo;
  results: RequirementResult[];
  outcomes: readonly TestOutcome[];
  startedAt: Date;
  durationMs: number;
  playwrightStatus: RunStatus;
  errors: string[];
}

/** The run status the reporter returns: a MUST failure alone decides, unless the run could not complete. */
export function decideExitStatus(playwrightStatus: RunStatus, mustFailedCount: number, incomplete: boolean): RunStatus {
  if (playwrightStatus === 'interrupted' || playwrightStatus === 'timedout') return playwrightStatus;
  if (incomplete) return 'failed';
  return mustFailedCount > 0 ? 'failed' : 'passed';
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** The IDs a failed test's failure is charged to: its fail records, else its unrecorded MUST requirements. */
function chargedIds(t: TestOutcome, byId: ReadonlyMap<string, RequirementResult>): string[] {
  const checks = t.evidence?.checks ?? [];
  const failed = [...new Set(checks.filter((c) => c.status === 'fail').map((c) => c.id))];
  if (failed.length > 0) return failed;
  const recorded = new Set(checks.map((c) => c.id));
  return [...new Set(t.declared)].filter((id) => {
    const r = byId.get(id);
    return r !== undefined && !recorded.has(id) && r.kind === 'requirement' && r.level === 'MUST';
  });
}

/** Builds the report (every string redacted with the run's secrets). */
export function buildReport(input: ReportInput): ConformanceReport {
  const { info, results, outcomes, playwrightStatus, errors } = input;
  const failed = mustFailures(results).map((r) => r.id);
  const incomplete = playwrightStatus === 'interrupted' || playwrightStatus === 'timedout' || errors.length > 0;
  const exitStatus = decideExitStatus(playwrightStatus, failed.length, errors.length > 0);
  const reqs = results.filter((r) => r.kind === 'requirement');
  const passed = reqs.filter((r) => r.status === 'pass').length;
  const result: Verdict = incomplete ? 'incomplete' : failed.length > 0 ? 'fail' : 'pass';
  const why =
    playwrightStatus === 'interrupted' ? 'the run was interrupted' : playwrightStatus === 'timedout' ? 'the run hit its global timeout' : plural(errors.length, 'error') + ' outside the tests';
  const summary =
    result === 'pass'
      ? `no MUST requirement failed; ${passed} of ${reqs.length} requirements pass`
      : result === 'fail'
        ? `${plural(failed.length, 'MUST requirement')} failed; ${passed} of ${reqs.length} requirements pass`
        : `the run did not complete: ${why}${failed.length > 0 ? `; ${plural(failed.length, 'MUST requirement')} failed so far` : ''}`;

  const tests: ConformanceReport['run']['tests'] = { total: 0, passed: 0, failed: 0, timedOut: 0, skipped: 0, interrupted: 0, notRun: 0 };
  for (const t of outcomes) {
    tests[t.status]++;
    tests.total++;
  }
  const byId = new Map(results.map((r) => [r.id, r]));
  const failedTests: FailedTest[] = outcomes
    .filter((t) => t.status === 'failed' || t.status === 'timedOut')
    .map((t) => ({
      title: t.title,
      file: t.file,
      line: t.line,
      status: t.status,
      error: t.error ? firstLine(t.error) : `the test ${t.status === 'timedOut' ? 'timed out' : 'failed'}`,
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
      playwrightStatus,
      tests,
    },
    verdict: { result, exitStatus, summary, mustFailed: failed, requirementsPassed: passed, requirementsTotal: reqs.length },
    counts: countStatuses(results),
    ...sectionCounts(results, info.sectionTitles),
    requirements: results,
    failedTests,
    errors,
  };
  return redactDeep(report, info.secrets);
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

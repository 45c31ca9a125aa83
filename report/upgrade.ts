// A report of version 1 (the 0.2 kit's) in the current version's shape, so that every reader (compare, merge,
// summary, gating, --last-failed) reads both: version 1 spoke Playwright's words, version 2 the kit's.
//
//   run.playwrightStatus, verdict.exitStatus      dropped (run.stopReason and verdict.exitCode say it)
//   run.stopReason "timedout" (or absent)         "out-of-time" (absent: read from playwrightStatus)
//   run.caseKind                                  test; exchange for the proxy's reports (file "proxy"); scenario for a client's
//   test statuses passed, failed, timedOut,       judged; judged when its error is a failed check, else unfinished
//   skipped, interrupted, notRun                  (kit-error); unfinished (timeout); skipped; unfinished (stopped); not-run
//   run.tests, models[].tests                     counted by those statuses (a version-1 count of "failed" cannot tell a
//                                                 judged case from an unfinished one: failedTests can, and is used)
//   file "proxy" line N / "client/scenarios.ts"   exchange N / scenario ID
//   requirements[].testsOmitted                   0 (version 1 listed every test)
//
// `reportVersion` stays the file's (1): a reader can tell an upgraded report from one written in version 2.
import { isCheckFailure, type CaseCounts, type CaseStatus, type CaseWhere, type UnfinishedReason } from './results.ts';
import type { ConformanceReport, StopReason } from './json.ts';

/** A version-1 test status (Playwright's, and notRun). */
type V1Status = 'passed' | 'failed' | 'timedOut' | 'skipped' | 'interrupted' | 'notRun';

interface V1Ref {
  title: string;
  file: string;
  line: number;
  status?: V1Status;
  error?: string;
  failed?: string[];
}

type V1Counts = Record<V1Status, number> & { total: number };

/** What version 1 has that version 2 has not, or has in other words. */
interface V1Report {
  reportVersion: 1;
  subject?: { kind: string };
  run: { playwrightStatus?: 'passed' | 'failed' | 'timedout' | 'interrupted'; stopReason?: string; tests: V1Counts; [k: string]: unknown };
  verdict: { exitStatus?: string; [k: string]: unknown };
  requirements: { tests: V1Ref[]; [k: string]: unknown }[];
  rootCauses?: { tests: V1Ref[]; [k: string]: unknown }[];
  failedTests: (V1Ref & { status: V1Status; failed: string[] })[];
  models?: { tests: V1Counts; [k: string]: unknown }[];
  [k: string]: unknown;
}

/** A version-1 case's status in the kit's words. */
function statusOf(ref: Pick<V1Ref, 'status' | 'error' | 'failed'>): { status: CaseStatus; unfinished?: UnfinishedReason } {
  switch (ref.status) {
    case 'passed':
      return { status: 'judged' };
    case 'failed':
      // A failure charged to a requirement, or whose error is a failed check, is a judged case that found it.
      return (ref.failed?.length ?? 0) > 0 || (ref.error !== undefined && isCheckFailure(ref.error)) ? { status: 'judged' } : { status: 'unfinished', unfinished: 'kit-error' };
    case 'timedOut':
      return { status: 'unfinished', unfinished: 'timeout' };
    case 'interrupted':
      return { status: 'unfinished', unfinished: 'stopped' };
    case 'skipped':
      return { status: 'skipped' };
    default:
      return { status: 'not-run' };
  }
}

/** Where a version-1 case is: the proxy's and the client's cases had made-up files and lines. */
function whereOf(ref: Pick<V1Ref, 'file' | 'line' | 'title'>): CaseWhere {
  if (ref.file === 'proxy') return { exchange: ref.line };
  const scenario = ref.file === 'client/scenarios.ts' ? /^client › ([^:]+):/.exec(ref.title)?.[1] : undefined;
  if (scenario !== undefined) return { scenario };
  return { file: ref.file, line: ref.line };
}

function counts(v1: V1Counts, uncharged: number): CaseCounts {
  return {
    total: v1.total,
    judged: v1.passed + v1.failed - uncharged,
    unfinished: v1.timedOut + v1.interrupted + uncharged,
    skipped: v1.skipped,
    notRun: v1.notRun,
  };
}

function stopReasonOf(run: V1Report['run']): StopReason {
  const stop = run.stopReason ?? run.playwrightStatus;
  if (stop === 'timedout') return 'out-of-time';
  return stop === 'interrupted' || stop === 'failed-to-run' ? stop : 'completed';
}

/** A version-1 report (valid against conformance-report-v1.schema.json) in the current shape. */
export function upgradeV1(old: unknown): ConformanceReport {
  const r = old as V1Report;
  const { playwrightStatus: _p, stopReason: _s, tests, ...run } = r.run;
  const { exitStatus: _e, ...verdict } = r.verdict;
  const uncharged = r.failedTests.filter((t) => t.status === 'failed' && t.failed.length === 0 && !(t.error !== undefined && isCheckFailure(t.error))).length;
  const caseKind = r.subject?.kind === 'client' ? 'scenario' : r.failedTests.some((t) => t.file === 'proxy') || r.requirements.some((q) => q.tests.some((t) => t.file === 'proxy')) ? 'exchange' : 'test';
  const ref = (t: V1Ref) => ({ title: t.title, ...whereOf(t), ...(t.status !== undefined ? { status: statusOf(t).status } : {}), ...(t.error !== undefined ? { error: t.error } : {}) });
  return {
    ...r,
    run: { ...run, stopReason: stopReasonOf(r.run), caseKind, tests: counts(tests, uncharged) },
    verdict,
    requirements: r.requirements.map((q) => ({ ...q, tests: q.tests.map(ref), testsOmitted: 0 })),
    ...(r.rootCauses ? { rootCauses: r.rootCauses.map((c) => ({ ...c, tests: c.tests.map((t) => ({ title: t.title, ...whereOf(t) })) })) } : {}),
    failedTests: r.failedTests.map((t) => {
      const ended = statusOf(t);
      return { title: t.title, ...whereOf(t), status: ended.status === 'unfinished' ? 'unfinished' : 'judged', ...(ended.unfinished ? { unfinished: ended.unfinished } : {}), error: t.error ?? '', failed: t.failed };
    }),
    ...(r.models ? { models: r.models.map((m) => ({ ...m, tests: counts(m.tests, 0) })) } : {}),
  } as unknown as ConformanceReport;
}

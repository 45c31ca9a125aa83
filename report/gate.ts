// What the gate did, in the words every writer shows (terminal headline, HTML banner, badge, CI summary): the verdict
// says what the target did; the gate (--fail-on, --max-failing-models, the baseline) decides the exit code. When the
// two disagree (a FAIL verdict that exits 0, a PASS that exits 1), the word is the gate's and the reason follows, so a
// headline never says FAIL over a green build or PASS over a red one.
import type { ConformanceReport } from './json.ts';
import type { RootCause } from './root-causes.ts';
import { plural } from './plural.ts';

export type GateWord = 'PASS' | 'FAIL' | 'INCOMPLETE' | 'PARTIAL';

export interface GateResult {
  /** The word to show: the verdict's, or the gate's where they disagree. */
  word: GateWord;
  /** Why the gate's word differs from the verdict's, e.g. "gate: target-only; 3 inherited failures not gated". */
  why?: string;
  /** The word a colour is chosen for: fail, pass, or the verdict's own result. */
  tone: 'pass' | 'fail' | 'incomplete' | 'partial' | 'gated-pass';
}

const VERDICT_WORD: Record<ConformanceReport['verdict']['result'], GateWord> = { pass: 'PASS', fail: 'FAIL', incomplete: 'INCOMPLETE', partial: 'PARTIAL' };

/** The MUST failures the gate did not count (shared with the reference, of tolerated models). */
function notGated(report: ConformanceReport): string[] {
  const v = report.verdict;
  if (v.notGated) return v.notGated;
  // A report written before notGated: under target-only, the failures the reference shares.
  if (v.failOn !== 'target-only') return [];
  const byId = new Map(report.requirements.map((r) => [r.id, r]));
  return v.mustFailed.filter((id) => byId.get(id)?.differential?.classification === 'both');
}

export function gateResult(report: ConformanceReport): GateResult {
  const v = report.verdict;
  const word = VERDICT_WORD[v.result];
  if (v.result === 'fail' && v.exitCode === 0) {
    const skipped = notGated(report);
    const why =
      v.failOn === 'target-only'
        ? `gate: target-only; ${plural(skipped.length, 'inherited failure')} not gated`
        : report.run.maxFailingModels !== undefined
          ? `gate: --max-failing-models ${report.run.maxFailingModels}; ${plural(skipped.length, 'failure')} of tolerated models not gated`
          : `gate: ${plural(skipped.length, 'failure')} not gated`;
    return { word: 'PASS', why, tone: 'gated-pass' };
  }
  if (v.exitCode === 1 && v.result !== 'fail') {
    const stale = v.baseline?.stale.length ?? 0;
    const warnings = report.requirements.filter((r) => r.status === 'warn').length;
    const reasons = [
      ...(stale > 0 ? [`${plural(stale, 'stale baseline entry', 'stale baseline entries')}`] : []),
      ...(v.failOn === 'warn' && warnings > 0 ? [`gate: warn; ${plural(warnings, 'warning')} fail the run`] : []),
    ];
    return { word: 'FAIL', why: reasons.join('; ') || 'gate failed', tone: 'fail' };
  }
  return { word, tone: v.result };
}

/** The word with its reason: "PASS (gate: target-only; 3 inherited failures not gated)". */
export function gateText(g: GateResult): string {
  return g.why ? `${g.word} (${g.why})` : g.word;
}

/**
 * Whose failure a root cause is, where the run can tell: with a reference, "target-only" (the reference passes) or
 * "inherited" (the reference fails it too); with a baseline, "expected (baseline)". Undefined when it cannot tell.
 */
export function causeOrigin(report: ConformanceReport, rc: Pick<RootCause, 'id' | 'requirements'>): 'target-only' | 'inherited' | 'expected (baseline)' | undefined {
  if (report.verdict.baseline?.expected.some((e) => e.id === rc.id)) return 'expected (baseline)';
  if (!report.run.reference) return undefined;
  const byId = new Map(report.requirements.map((r) => [r.id, r]));
  const ids = rc.requirements && rc.requirements.length > 0 ? rc.requirements : [rc.id];
  const classes = ids.map((id) => byId.get(id)?.differential?.classification).filter((c) => c !== undefined);
  if (classes.length === 0) return undefined;
  // One requirement of the cause the reference passes makes it the target's own.
  if (classes.includes('target-only')) return 'target-only';
  return classes.every((c) => c === 'both') ? 'inherited' : undefined;
}

/**
 * Whose failures they are in a traffic report (chatconform proxy), where each finding names its party: a request the
 * client got wrong is not the server's fault, and the summary must not read as if the server (the report's target)
 * failed. Undefined when no failure names a client.
 */
export function blameLine(report: ConformanceReport): string | undefined {
  let client = 0;
  let server = 0;
  for (const r of report.requirements) {
    if (r.status !== 'fail') continue;
    const parties = new Set(r.evidence.filter((e) => e.status === 'fail').map((e) => e.party));
    if (parties.has('server') || parties.has(undefined)) server++;
    else if (parties.has('client')) client++;
  }
  if (client === 0) return undefined;
  if (server === 0) return `the client's requests broke ${plural(client, 'requirement')}; the server's answers broke none: the server is not at fault`;
  return `${plural(client, 'requirement')} broken by the client's requests, ${server} by the server's answers`;
}

/** A failed requirement that only the client's requests broke (a traffic report). */
export function clientOnly(r: ConformanceReport['requirements'][number]): boolean {
  const fails = r.evidence.filter((e) => e.status === 'fail');
  return r.status === 'fail' && fails.length > 0 && fails.every((e) => e.party === 'client');
}

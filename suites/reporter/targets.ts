// The reporter's side of a run of many targets (run/targets.ts): the tests are grouped by target (the target each
// is declared for, its annotation), and each target gets its own four reports in
// `<report dir>/targets/<name>/`, folded exactly as a run of that target alone would be. The run's exit code is the
// worst of its targets'.
import type { Suite, TestCase } from '@playwright/test/reporter';
import type { StopReason } from '../../report/json.ts';
import { foldReport, referencePlan, targetPlan, type ReferenceInput, type VerdictPlan } from '../../report/fold.ts';
import { referenceReportDir } from '../../run/reference.ts';
import type { TestOutcome } from '../../report/results.ts';
import { collectRunInfo } from '../../report/run-info.ts';
import { writeReports } from '../../report/write.ts';
import { runConfig } from '../../run/config.ts';
import { runTargets, TARGET_ANNOTATION, targetConfig, targetIndexOfAnnotations, type RunTarget } from '../../run/targets.ts';
import { TRIALS_PROJECT } from '../../run/trials.ts';

export interface TargetsRun {
  startedAt: Date;
  durationMs: number;
  stopReason: StopReason;
  errors: string[];
  /** The run's plan (report/fold.ts): every target is folded with it, as that target run alone would be. */
  plan: VerdictPlan;
}

/** One line per target: its name, verdict and exit code, and where its reports are. */
export interface TargetLine {
  name: string;
  exitCode: number;
  line: string;
}

/** Which target (its annotation) and which trial (with --trials, the repetition) a test case ran for. */
export function slotOf(test: TestCase): { target: number; trial: number } {
  const trial = test.parent.project()?.name === TRIALS_PROJECT ? test.repeatEachIndex : 0;
  const targets = runTargets();
  return { target: targets ? targetIndexOfAnnotations(test.annotations, targets) : 0, trial };
}

/** Each target's cases, in one pass over the run's tests. */
export function testsByTarget(root: Suite | undefined, count: number): TestCase[][] {
  const by = Array.from({ length: count }, () => [] as TestCase[]);
  for (const t of root?.allTests() ?? []) by[slotOf(t).target]?.push(t);
  return by;
}

/** The target's describe block (the one directly around a test of a run of many targets), left out of its titles. */
export function isTargetBlock(test: TestCase, s: Suite | undefined): boolean {
  const name = test.annotations.find((a) => a.type === TARGET_ANNOTATION)?.description;
  return name !== undefined && s?.type === 'describe' && s.title === name && s === test.parent;
}

/** Writes every target's reports; returns a line per target. */
export function writeTargetReports(root: Suite | undefined, outcomeOf: (t: TestCase) => TestOutcome, targets: readonly RunTarget[], run: TargetsRun): TargetLine[] {
  const byTarget = testsByTarget(root, targets.length).map((tests) => tests.map(outcomeOf));
  const base = runConfig();
  return targets.map((target, i) => {
    const config = targetConfig(base, target, i);
    const info = collectRunInfo(config);
    const outcomes = byTarget[i]!;
    // Folded as a run of that target alone would be, with the same plan (report/fold.ts).
    const report = foldReport(outcomes, { info, startedAt: run.startedAt, durationMs: run.durationMs, stopReason: run.stopReason, errors: run.errors }, targetPlan(run.plan, target.files));
    writeReports(report, info.reportDir, info.secrets);
    return { name: target.name, exitCode: report.verdict.exitCode, line: `${target.name}: ${report.verdict.result} (exit ${report.verdict.exitCode}), ${outcomes.length} tests: ${info.reportDir}` };
  });
}

/**
 * `chatconform run --reference`, in one run: the reference's cases folded as a run of the reference alone (its
 * own key, profile, budget; the same seed, selection and trials), its reports in `<report dir>/reference/`, and
 * what the target's fold pairs with.
 */
export function writeReferenceReports(cases: readonly TestCase[], outcomeOf: (t: TestCase) => TestOutcome, target: RunTarget, index: number, run: TargetsRun): ReferenceInput {
  const base = runConfig();
  const config = targetConfig(base, target, index);
  const reportDir = referenceReportDir(base.reportDir);
  const info = { ...collectRunInfo(config), reportDir };
  const report = foldReport(cases.map(outcomeOf), { info, startedAt: run.startedAt, durationMs: run.durationMs, stopReason: run.stopReason, errors: run.errors }, referencePlan(run.plan));
  writeReports(report, reportDir, info.secrets);
  return { report, url: config.baseUrl, reportDir };
}

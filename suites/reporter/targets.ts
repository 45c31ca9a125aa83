// The reporter's side of a run of many targets (run/targets.ts): the tests are grouped by target (the repetition
// index), the tests a target does not run are dropped, and each target gets its own four reports in
// `<report dir>/targets/<name>/`, folded exactly as a run of that target alone would be. The run's exit code is the
// worst of its targets'.
import path from 'node:path';
import type { Suite, TestCase } from '@playwright/test/reporter';
import type { RunStatus, StopReason } from '../../report/json.ts';
import { foldReport, type ReferenceInput } from '../../report/fold.ts';
import { referenceReportDir } from '../../run/reference.ts';
import type { TestOutcome } from '../../report/results.ts';
import { collectRunInfo } from '../../report/run-info.ts';
import { writeReports } from '../../report/write.ts';
import { runConfig } from '../../run/config.ts';
import { OUTSIDE_TARGET_ANNOTATION, runTargets, targetConfig, targetSlot, type RunTarget } from '../../run/targets.ts';
import { TRIALS_PROJECT, trialsOf } from '../../run/trials.ts';

export interface TargetsRun {
  startedAt: Date;
  durationMs: number;
  playwrightStatus: RunStatus;
  stopReason: StopReason;
  errors: string[];
}

/** One line per target: its name, verdict and exit code, and where its reports are. */
export interface TargetLine {
  name: string;
  exitCode: number;
  line: string;
}

/** Which target (and trial) a test case ran for. */
export function slotOf(test: TestCase): { target: number; trial: number } {
  const trials = test.parent.project()?.name === TRIALS_PROJECT;
  // A run of one target (and a merge of shards, whose replay knows no trials setting): a repetition is a trial.
  if (!runTargets()) return { target: 0, trial: trials ? test.repeatEachIndex : 0 };
  return targetSlot(test.repeatEachIndex, trials ? trialsOf()?.k : undefined);
}

/** Each target's cases, in one pass over the run's tests: its repetitions, less those of files it does not run. */
export function testsByTarget(root: Suite | undefined, count: number): TestCase[][] {
  const by = Array.from({ length: count }, () => [] as TestCase[]);
  for (const t of root?.allTests() ?? []) if (!outsideTarget(t)) by[slotOf(t).target]?.push(t);
  return by;
}

function outsideTarget(test: TestCase): boolean {
  return [...test.annotations, ...(test.results.at(-1)?.annotations ?? [])].some((a) => a.type === OUTSIDE_TARGET_ANNOTATION);
}

/** Writes every target's reports; returns a line per target. */
export function writeTargetReports(root: Suite | undefined, outcomeOf: (t: TestCase) => TestOutcome, targets: readonly RunTarget[], run: TargetsRun): TargetLine[] {
  const byTarget = testsByTarget(root, targets.length).map((tests) => tests.map(outcomeOf));
  const base = runConfig();
  return targets.map((target, i) => {
    const config = targetConfig(base, target, i);
    const info = collectRunInfo(config);
    const outcomes = byTarget[i]!;
    // Folded as a run of that target alone would be (report/fold.ts).
    const report = foldReport(outcomes, {
      info,
      ...(target.files ? { selection: `the spec files ${target.files.map((f) => path.basename(f)).join(', ')}` } : {}),
      startedAt: run.startedAt,
      durationMs: run.durationMs,
      playwrightStatus: run.playwrightStatus,
      stopReason: run.stopReason,
      errors: run.errors,
    });
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
  const trials = trialsOf();
  const report = foldReport(
    cases.map(outcomeOf),
    { info, startedAt: run.startedAt, durationMs: run.durationMs, playwrightStatus: run.playwrightStatus, stopReason: run.stopReason, errors: run.errors },
    trials ? { trials } : {},
  );
  writeReports(report, reportDir, info.secrets);
  return { report, url: config.baseUrl, reportDir };
}

// The reporter's side of a run of many targets (run/targets.ts): the tests are grouped by target (the target of the
// slot each ran in, run/slots.ts), and each target gets its own four reports in `<report dir>/targets/<name>/`,
// folded exactly as a run of that target alone would be, with the run's plan. The run's exit code is the worst of its
// targets'.
import { cpSync, existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { Suite, TestCase } from '@playwright/test/reporter';
import type { ShardInfo, StopReason } from '../../report/json.ts';
import { foldReport, referencePlan, targetPlan, type ReferenceInput, type VerdictPlan } from '../../report/fold.ts';
import { BLOB_DIR } from '../../report/merge.ts';
import { referenceReportDir } from '../../run/reference.ts';
import type { TestOutcome } from '../../report/results.ts';
import { collectRunInfo } from '../../report/run-info.ts';
import { writeReports } from '../../report/write.ts';
import { runConfig } from '../../run/config.ts';
import { shardOf } from '../../run/shard.ts';
import { slotOfAnnotations } from '../../run/slots.ts';
import { runTargets, targetConfig, type RunTarget } from '../../run/targets.ts';
import { modelsOfRun } from './models.ts';

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

/** Which target (its index among the run's; 0 in a run of one) and which trial (in a run of trials) a case ran in. */
export function slotOf(test: TestCase): { target: number; trial?: number } {
  const slot = slotOfAnnotations(test.annotations);
  const targets = runTargets();
  return { target: targets ? targets.findIndex((t) => t.name === slot.target) : 0, ...(slot.trial !== undefined ? { trial: slot.trial } : {}) };
}

/** Each target's cases, in one pass over the run's tests. */
export function testsByTarget(root: Suite | undefined, count: number): TestCase[][] {
  const by = Array.from({ length: count }, () => [] as TestCase[]);
  for (const t of root?.allTests() ?? []) by[slotOf(t).target]?.push(t);
  return by;
}

/**
 * The cases of the target named `name` among replayed ones (`chatconform report merge` of a run of several targets),
 * or all of them when none ran in a target's slot (a run of one target).
 */
export function casesOfTarget(tests: readonly TestCase[], name: string): TestCase[] {
  const slotted = tests.filter((t) => slotOfAnnotations(t.annotations).target !== undefined);
  return slotted.length === 0 ? [...tests] : slotted.filter((t) => slotOfAnnotations(t.annotations).target === name);
}

/** The run's matrix as one target's fold reads it: its requests are counted in its own scratch folder. */
function modelsOf(runDir: string): Pick<VerdictPlan, 'models'> {
  const models = modelsOfRun(runDir);
  return models ? { models } : {};
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
    const plan = { ...targetPlan(run.plan, target.files), ...modelsOf(config.runDir) };
    const report = foldReport(outcomes, { info, startedAt: run.startedAt, durationMs: run.durationMs, stopReason: run.stopReason, errors: run.errors }, plan);
    writeReports(report, info.reportDir, info.secrets);
    return { name: target.name, exitCode: report.verdict.exitCode, line: `${target.name}: ${report.verdict.result} (exit ${report.verdict.exitCode}), ${outcomes.length} tests: ${info.reportDir}` };
  });
}

/**
 * `chatconform run --reference`, in one run: the reference's cases folded as a run of the reference alone (its
 * own key, profile, budget; the same seed, selection, trials and models), its reports in `<report dir>/reference/`,
 * and what the target's fold pairs with. `facts` gives the run's selection or shard as the reports in `dir` say
 * it; a shard's reference report names the shard's blob, copied beside it, so `report merge` merges the reference's
 * shards as it merges the target's.
 */
export function writeReferenceReports(
  cases: readonly TestCase[],
  outcomeOf: (t: TestCase) => TestOutcome,
  target: RunTarget,
  index: number,
  run: TargetsRun,
  facts: (dir: string) => { selection?: string; scope?: string[]; shard?: ShardInfo } = () => ({}),
): ReferenceInput {
  const base = runConfig();
  const config = targetConfig(base, target, index);
  const reportDir = referenceReportDir(base.reportDir);
  const info = { ...collectRunInfo(config), reportDir };
  if (shardOf()) copyBlob(path.join(base.reportDir, BLOB_DIR), path.join(reportDir, BLOB_DIR));
  const { shard, ...selected } = facts(reportDir);
  const plan = { ...referencePlan(run.plan), ...selected, ...modelsOf(config.runDir) };
  const report = foldReport(cases.map(outcomeOf), { info, startedAt: run.startedAt, durationMs: run.durationMs, stopReason: run.stopReason, errors: run.errors, ...(shard ? { shard } : {}) }, plan);
  writeReports(report, reportDir, info.secrets);
  return { report, url: config.baseUrl, reportDir };
}

/** The shard's blob report (written before this reporter ends), in place of any earlier one. */
function copyBlob(from: string, to: string): void {
  rmSync(to, { recursive: true, force: true });
  if (existsSync(from)) cpSync(from, to, { recursive: true });
}

// The conformance reporter. Playwright hands it every test's result; it reads each test's requirement IDs
// (the `requirement` annotations) and its evidence (the `chatconform-evidence` attachment), folds them into
// one status per requirement ID, and writes conformance.json (validated against its schema), junit.xml,
// conformance.html and badge.svg to CONFORMANCE_REPORT_DIR; every file is checked for the run's secrets on the
// way out. The verdict (pass, fail, incomplete) says how much evidence stands behind it.
//
// The exit code is the contract, one rule for `npm run conformance` and `chatconform run` (README, exit codes):
// the process exits with the report's `verdict.exitCode`: 1 when a MUST requirement failed (outside the baseline),
// 0 when nothing failed and the run could judge (an incomplete verdict with some evidence included), 3 when it
// could not (the target never answered, an error outside the tests, interrupted, out of time, no report written).
// `onEnd` returns "passed" exactly for exit 0; Playwright maps that status to 0 or 1 only, so the reporter also
// sets the process's exit code itself (exitWith).
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { FullConfig, FullResult, Reporter, Suite, TestCase, TestError } from '@playwright/test/reporter';
import { EVIDENCE_ATTACHMENT, REQUIREMENT_ANNOTATION, failureSummary, type CheckRecord } from '../judge/checker.ts';
import { gateOf, reportDirOf, repoRoot } from '../run/config.ts';
import { applyBaseline, loadBaseline, type BaselineOutcome } from '../report/baseline.ts';
import { describeSelection, runnerFilters, selectedIds, selectionOf } from '../run/selection.ts';
import { publishToCi } from '../report/ci-summary.ts';
import type { Exchange } from '../judge/exchange.ts';
import { buildReport, type ReportInput, type RunStatus, type ShardInfo } from '../report/json.ts';
import { MERGE_CONTEXT_ENV, type MergeContext } from '../report/merge.ts';
import { CONTRACT } from '../spec/requirements/index.ts';
import { loadDiscovery } from './lib/discovery.ts';
import { ENV } from '../run/config.ts';
import { redact } from '../spec/redact.ts';
import { writeReports } from '../report/write.ts';
import { aggregate, type TestOutcome, type TestStatus } from '../report/results.ts';
import { collectRunInfo, type RunInfo } from '../report/run-info.ts';
import { paintFor, renderSummary } from '../report/terminal.ts';
import { pairWithReference, referenceSecrets } from '../report/reference-run.ts';
import { foldTrials } from '../report/trials.ts';
import { MODEL_DEPENDENT_REQUIREMENTS, TRIALS_PROJECT, trialsOf } from '../run/trials.ts';
import { matrixOf, modelOfTest } from './reporter/models.ts';
import { writeTargetReports } from './reporter/targets.ts';
import { targetsOf, type RunTarget } from '../run/targets.ts';

const ANSI = /\u001b\[[0-9;]*[A-Za-z]/g;

function clean(text: string): string {
  return text.replace(ANSI, '');
}

function titleOf(test: TestCase): string {
  const titles = [test.title];
  for (let s: Suite | undefined = test.parent; s && s.type === 'describe'; s = s.parent) titles.unshift(s.title);
  return titles.join(' › ');
}

function errorText(e: TestError | undefined): string | undefined {
  if (!e) return undefined;
  const text = e.message ?? e.value ?? e.stack;
  return text === undefined ? undefined : clean(text);
}

function readEvidence(test: TestCase): TestOutcome['evidence'] {
  const last = test.results.at(-1);
  const attachment = last?.attachments.find((a) => a.name === EVIDENCE_ATTACHMENT);
  if (!attachment) return undefined;
  try {
    const text = attachment.body ? attachment.body.toString('utf8') : attachment.path ? readFileSync(attachment.path, 'utf8') : undefined;
    if (text === undefined) return undefined;
    const data = JSON.parse(text) as { checks?: CheckRecord[]; exchanges?: Exchange[] };
    return { checks: Array.isArray(data.checks) ? data.checks : [], exchanges: Array.isArray(data.exchanges) ? data.exchanges : [] };
  } catch {
    return undefined;
  }
}

/** One test as the aggregation sees it. */
export function outcomeOf(test: TestCase): TestOutcome {
  const last = test.results.at(-1);
  const annotations = [...test.annotations, ...(last?.annotations ?? [])];
  const declared = [...new Set(annotations.filter((a) => a.type === REQUIREMENT_ANNOTATION && a.description).map((a) => a.description!))];
  const evidence = readEvidence(test);
  const played: TestStatus = last ? last.status : 'notRun';
  // A finding is data: the Playwright test passed, and the case failed in the engine's terms when a MUST failed.
  const findings = played === 'passed' && evidence ? failureSummary(evidence.checks) : '';
  const status: TestStatus = findings ? 'failed' : played;
  const model = modelOfTest(test);
  const outcome: TestOutcome = {
    title: model === undefined ? titleOf(test) : `${model} › ${titleOf(test)}`,
    file: path.relative(repoRoot, test.location.file) || test.location.file,
    line: test.location.line,
    status,
    declared,
    durationMs: last?.duration ?? 0,
  };
  const error = findings ? `Error: ${findings}` : errorText(last?.error ?? last?.errors[0]);
  if (findings) {
    outcome.error = error;
    outcome.errors = [error!];
  } else if (error && (status === 'failed' || status === 'timedOut')) {
    outcome.error = error;
    // All of them: a failed check and an exception of the kit can end the same test (results.ts tells them apart).
    const errors = (last?.errors ?? []).map(errorText).filter((e): e is string => e !== undefined);
    outcome.errors = errors.length > 0 ? errors : [error];
  }
  const skip = annotations.find((a) => (a.type === 'skip' || a.type === 'fixme') && a.description);
  if (skip?.description) outcome.skipReason = skip.description;
  if (evidence) outcome.evidence = evidence;
  // --trials: a repeated test's trial index, so the reporter folds its trials per requirement.
  if (test.parent.project()?.name === TRIALS_PROJECT) outcome.trial = test.repeatEachIndex;
  return outcome;
}

/**
 * Whether this run is partial, and what it selected: a selection (CONFORMANCE_REQUIREMENTS, …), or tests left out
 * by Playwright's own filters on the runner's command line (file arguments, --grep, --shard, …).
 */
function partialRun(argv: readonly string[] = process.argv): { selection?: string; scope?: string[] } {
  const sel = selectionOf();
  if (sel) return { selection: describeSelection(sel), scope: selectedIds(sel) };
  const filters = runnerFilters(argv);
  return filters ? { selection: `tests left out by the runner's filters (${filters})` } : {};
}

/**
 * A shard's part of the report: which shard (the reason it is partial), its own discovery (every shard reads the
 * catalog itself, and the merge says when they saw different ones), and the run's selection besides the shard.
 */
function shardRun(shard: { current: number; total: number }): Pick<ReportInput, 'selection' | 'scope' | 'shard'> {
  // The shard is not one of the run's filters: the merge compares the rest, which every shard shares.
  const own = partialRun(process.argv.filter((a, i, all) => !a.startsWith('--shard') && all[i - 1] !== '--shard'));
  const runDir = process.env[ENV.runDir];
  const found = runDir ? loadDiscovery(runDir) : { catalogError: 'discovery did not run (no global setup?)', models: [], searchProbes: [] };
  const info: ShardInfo = {
    index: shard.current,
    total: shard.total,
    discovery: {
      sha256: createHash('sha256').update(JSON.stringify(found)).digest('hex'),
      models: found.models.map((m) => m.id),
      ...(found.catalogError ? { catalogError: found.catalogError } : {}),
    },
    ...own,
  };
  const part = `shard ${shard.current}/${shard.total} of the suite (chatconform report merge joins the ${shard.total} shards)`;
  return { ...own, selection: own.selection ? `${part}; ${own.selection}` : part, shard: info };
}

/** In `playwright merge-reports` (chatconform report merge): the run's facts the shards' reports gave. */
function mergeContext(): MergeContext | undefined {
  const file = process.env[MERGE_CONTEXT_ENV];
  return file ? (JSON.parse(readFileSync(file, 'utf8')) as MergeContext) : undefined;
}

/** The merged report's run info: from the shards' reports, never from this process's environment. */
function mergedInfo(ctx: MergeContext): RunInfo {
  return {
    kit: ctx.kit,
    spec: ctx.spec,
    target: ctx.target,
    ...(ctx.seed !== undefined ? { seed: ctx.seed } : {}),
    ...(ctx.fuzzRuns !== undefined ? { fuzzRuns: ctx.fuzzRuns } : {}),
    ...(ctx.ledger ? { ledger: ctx.ledger } : {}),
    reportDir: reportDirOf(),
    // The shards' reports are redacted already; the merge job's own key, if it has one, is masked too.
    secrets: [process.env[ENV.apiKey] ?? ''].filter((s) => s.length >= 4),
    sectionTitles: new Map(Object.entries(CONTRACT.sections)),
    problems: [],
  };
}

/**
 * Makes `code` the process's exit code. Playwright ends its run with process.exit(0, 1 or 130) after the reporters;
 * Node runs the 'exit' listeners inside process.exit and then exits with process.exitCode as they left it, so a
 * listener is the one place a reporter's code survives.
 */
function exitWith(code: number): void {
  process.once('exit', () => {
    process.exitCode = code;
  });
}

export default class ConformanceReporter implements Reporter {
  private root: Suite | undefined;
  private readonly errors: string[] = [];
  private readonly constructedAt = new Date();
  private shard: FullConfig['shard'] = null;

  onBegin(config: FullConfig, suite: Suite): void {
    this.root = suite;
    this.shard = config.shard;
  }

  onError(error: TestError): void {
    const text = errorText(error) ?? 'unknown error';
    const where = error.location ? ` (${path.relative(repoRoot, error.location.file)}:${error.location.line})` : '';
    this.errors.push(`${text.split('\n').slice(0, 3).join('\n')}${where}`);
  }

  async onEnd(result: FullResult): Promise<{ status: FullResult['status'] }> {
    const playwrightStatus = result.status as RunStatus;
    let info: RunInfo | undefined;
    try {
      const merging = mergeContext();
      if (merging) return this.writeMerged(merging);
      const targets = targetsOf();
      if (targets) return this.writeTargets(targets, result);
      info = collectRunInfo();
      // Read once: the matrix groups the same outcomes by model.
      const byTest = new Map((this.root?.allTests() ?? []).map((t) => [t, outcomeOf(t)]));
      const outcomes = [...byTest.values()];
      if (!this.root && this.errors.length === 0) this.errors.push('the run ended before any test was loaded');
      const gate = gateOf();
      let results = aggregate(outcomes);
      const trials = trialsOf();
      if (trials) results = foldTrials(results, outcomes, MODEL_DEPENDENT_REQUIREMENTS, trials.minPassRate);
      let baseline: BaselineOutcome | undefined;
      if (gate.expectedFailures) ({ results, outcome: baseline } = applyBaseline(results, loadBaseline(gate.expectedFailures)));
      let reference;
      ({ results, reference } = pairWithReference(results));
      info.secrets = [...info.secrets, ...referenceSecrets()];
      const matrix = matrixOf(this.root, (t) => byTest.get(t) ?? outcomeOf(t));
      const report = buildReport({
        ...(reference ? { reference } : {}),
        ...(trials ? { trials } : {}),
        info,
        results,
        ...(matrix ? { matrix } : {}),
        ...(this.shard ? shardRun(this.shard) : partialRun()),
        ...(baseline ? { baseline } : {}),
        failOn: gate.failOn,
        outcomes,
        startedAt: result.startTime ?? this.constructedAt,
        durationMs: result.duration,
        playwrightStatus,
        errors: this.errors,
      });
      const files = writeReports(report, info.reportDir, info.secrets);
      // The report is redacted already; the CI outputs are written from it alone.
      publishToCi(report);
      for (const p of info.problems) process.stderr.write(`chatconform: note: ${redact(p, info.secrets)}\n`);
      process.stdout.write(renderSummary(report, files, paintFor(process.stdout)));
      exitWith(report.verdict.exitCode);
      return { status: report.verdict.exitStatus };
    } catch (err) {
      const message = err instanceof Error ? (err.stack ?? err.message) : String(err);
      const line = '='.repeat(100);
      process.stderr.write(`\n${line}\nchatconform: THE CONFORMANCE REPORT COULD NOT BE WRITTEN; the run fails.\n${info ? redact(message, info.secrets) : message}\n${line}\n`);
      // No report: the kit could not judge (as `chatconform run` says when it finds none).
      exitWith(3);
      return { status: playwrightStatus === 'interrupted' || playwrightStatus === 'timedout' ? playwrightStatus : 'failed' };
    }
  }

  /** A run of many targets: a report per target, the worst exit code for the run. */
  private writeTargets(targets: readonly RunTarget[], result: FullResult): { status: FullResult['status'] } {
    const lines = writeTargetReports(this.root, outcomeOf, targets, {
      startedAt: result.startTime ?? this.constructedAt,
      durationMs: result.duration,
      playwrightStatus: result.status as RunStatus,
      errors: this.errors,
    });
    process.stdout.write(`${lines.map((l) => l.line).join('\n')}\n`);
    const code = Math.max(0, ...lines.map((l) => l.exitCode));
    exitWith(code);
    return { status: code === 0 ? 'passed' : 'failed' };
  }

  /** `chatconform report merge`: the replayed tests of every shard, judged as one run, written as the four reports. */
  private writeMerged(ctx: MergeContext): { status: FullResult['status'] } {
    const info = mergedInfo(ctx);
    const outcomes = (this.root?.allTests() ?? []).map(outcomeOf);
    let results = aggregate(outcomes);
    let baseline: BaselineOutcome | undefined;
    if (ctx.baseline) ({ results, outcome: baseline } = applyBaseline(results, ctx.baseline));
    const report = buildReport({
      info,
      results,
      ...(ctx.selection !== undefined ? { selection: ctx.selection } : {}),
      ...(ctx.scope ? { scope: ctx.scope } : {}),
      ...(baseline ? { baseline } : {}),
      failOn: ctx.failOn,
      outcomes,
      startedAt: new Date(ctx.startedAt),
      durationMs: ctx.durationMs,
      playwrightStatus: ctx.playwrightStatus,
      // The shards' own errors (their reports name them); the replay's onError events repeat the same ones.
      errors: ctx.errors,
      merge: ctx.merge,
    });
    const files = writeReports(report, info.reportDir, info.secrets);
    publishToCi(report);
    process.stdout.write(renderSummary(report, files, paintFor(process.stdout)));
    exitWith(report.verdict.exitCode);
    return { status: report.verdict.exitStatus };
  }

  printsToStdio(): boolean {
    return true;
  }
}

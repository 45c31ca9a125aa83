// The conformance reporter. Playwright hands it every test's result; it reads each test's requirement IDs
// (the `requirement` annotations) and its evidence (the `chatconform-evidence` attachment), folds them with the
// run's facts and features into one status per requirement ID (report/fold.ts, the fold a merge and the proxy use
// too), and writes conformance.json (validated against its schema), junit.xml,
// conformance.html and badge.svg to CONFORMANCE_REPORT_DIR; every file is checked for the run's secrets on the
// way out. The verdict (pass, fail, incomplete) says how much evidence stands behind it.
//
// The report speaks the kit's words: each test's Playwright status is read here once, as the case's status
// (judged, unfinished, skipped, not-run), and the run's as its stop reason; nothing of Playwright's reaches the fold.
//
// The exit code is the contract, one rule for `npm run conformance` and `chatconform run` (README, exit codes):
// the process exits with the report's `verdict.exitCode`: 1 when a MUST requirement failed (outside the baseline),
// 0 when nothing failed and the run could judge (an incomplete verdict with some evidence included), 3 when it
// could not (the target never answered, an error outside the tests, interrupted, out of time, no report written).
// `onEnd` returns "passed" exactly for exit 0; Playwright maps that status to 0 or 1 only, so the reporter also
// sets the process's exit code itself (exitWith).
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { FullConfig, FullResult, Reporter, Suite, TestCase, TestError, TestResult } from '@playwright/test/reporter';
import { REQUIREMENT_ANNOTATION, failureSummary } from '../judge/checker.ts';
import { defaultReportDir, gateOf, repoRoot } from '../run/config.ts';
import { currentPlan } from '../run/plan.ts';
import { loadBaseline } from '../report/baseline.ts';
import { describeSelection, runnerFilters, selectedIds, selectionOf } from '../run/selection.ts';
import { publishToCi } from '../report/ci-summary.ts';
import type { ConformanceReport, ShardInfo, StopReason } from '../report/json.ts';
import { foldReport, type RecordedCase, type RunFacts, type VerdictPlan } from '../report/fold.ts';
import { compactEvidence, StringPool } from '../report/compact.ts';
import { loadReport } from '../report/load.ts';
import { BLOB_DIR, MERGE_CONTEXT_ENV, MergeRefused, type MergeContext } from '../report/merge.ts';
import { CONTRACT } from '../spec/requirements/index.ts';
import { loadDiscovery } from './lib/discovery.ts';
import { ENV } from '../run/config.ts';
import { redact } from '../spec/redact.ts';
import { writeReports } from '../report/write.ts';
import { isCheckFailure, type CaseStatus, type TestOutcome, type UnfinishedReason } from '../report/results.ts';
import { collectRunInfo, type RunInfo } from '../report/run-info.ts';
import { paintFor, renderSummary } from '../report/terminal.ts';
import { referenceOf, referenceSecrets } from '../report/reference-run.ts';
import { MODEL_DEPENDENT_TAG, trialsOf } from '../run/trials.ts';
import { modelOfTest, modelsOfRun, titlesOf } from './reporter/models.ts';
import { casesOfTarget, slotOf, testsByTarget, writeReferenceReports, writeTargetReports } from './reporter/targets.ts';
import { evidenceOf } from './reporter/evidence.ts';
import { referencePair, runTargets, type RunTarget } from '../run/targets.ts';

const ANSI = /\u001b\[[0-9;]*[A-Za-z]/g;

function clean(text: string): string {
  return text.replace(ANSI, '');
}

function titleOf(test: TestCase): string {
  return titlesOf(test).join(' › ');
}

function errorText(e: TestError | undefined): string | undefined {
  if (!e) return undefined;
  const text = e.message ?? e.value ?? e.stack;
  return text === undefined ? undefined : clean(text);
}

/**
 * How a test ended, in the kit's words: a test that ran to its end, or whose only errors are failed checks, was
 * judged; one that timed out, threw outside its checks, or was cut by the run's stop is unfinished.
 */
function caseStatusOf(result: TestResult | undefined, errors: readonly string[]): { status: CaseStatus; unfinished?: UnfinishedReason } {
  switch (result?.status) {
    case undefined:
      return { status: 'not-run' };
    case 'passed':
      return { status: 'judged' };
    case 'skipped':
      return { status: 'skipped' };
    case 'timedOut':
      return { status: 'unfinished', unfinished: 'timeout' };
    case 'interrupted':
      return { status: 'unfinished', unfinished: 'stopped' };
    case 'failed':
      return errors.length > 0 && errors.every(isCheckFailure) ? { status: 'judged' } : { status: 'unfinished', unfinished: 'kit-error' };
  }
}

/** The strings the run's cases repeat, one copy each (report/compact.ts): the reporter runs once per process. */
const pool = new StringPool();

/** One test as the fold sees it: its case, with the exchanges the fold will not read again reduced (report/compact.ts). */
export function outcomeOf(test: TestCase): TestOutcome {
  const last = test.results.at(-1);
  const annotations = [...test.annotations, ...(last?.annotations ?? [])];
  const declared = [...new Set(annotations.filter((a) => a.type === REQUIREMENT_ANNOTATION && a.description).map((a) => pool.of(a.description!)))];
  const evidence = evidenceOf(last);
  const thrown = (last?.errors ?? []).map(errorText).filter((e): e is string => e !== undefined);
  const first = errorText(last?.error ?? last?.errors[0]);
  const errors = thrown.length > 0 ? thrown : first !== undefined ? [first] : [];
  const ended = caseStatusOf(last, errors);
  // A finding is data: a test that ran to its end failed in the kit's terms when a MUST check failed; so did one that
  // skipped the rest of its steps after a failed check (the list it needed was broken).
  const findings = (last?.status === 'passed' || last?.status === 'skipped') && evidence ? failureSummary(evidence.checks) : '';
  const model = modelOfTest(test);
  const outcome: TestOutcome = {
    title: model === undefined ? titleOf(test) : `${model} › ${titleOf(test)}`,
    file: pool.of(path.relative(repoRoot, test.location.file) || test.location.file),
    line: test.location.line,
    ...ended,
    declared,
    durationMs: last?.duration ?? 0,
    ...(model !== undefined ? { model } : {}),
  };
  if (findings) {
    outcome.error = `Error: ${findings}`;
    outcome.errors = [outcome.error];
  } else if (errors.length > 0 && (last?.status === 'failed' || last?.status === 'timedOut')) {
    // All of them: a failed check and an exception of the kit can end the same test (results.ts tells them apart).
    outcome.error = errors[0];
    outcome.errors = errors;
  }
  const skip = annotations.find((a) => (a.type === 'skip' || a.type === 'fixme') && a.description);
  if (skip?.description) outcome.skipReason = pool.of(skip.description);
  if (evidence) outcome.evidence = compactEvidence(evidence, pool);
  // --trials: a repeated (model-dependent) test's trial, its slot's, so the reporter folds its trials per requirement.
  const trial = slotOf(test).trial;
  if (trial !== undefined && test.tags.includes(MODEL_DEPENDENT_TAG)) outcome.trial = trial;
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
function shardRun(shard: { current: number; total: number }, reportDir: string): { selection?: string; scope?: string[]; shard: ShardInfo } {
  // The shard is not one of the run's filters: the merge compares the rest, which every shard shares.
  const own = partialRun(process.argv.filter((a, i, all) => !a.startsWith('--shard') && all[i - 1] !== '--shard'));
  const runDir = currentPlan()?.runDir;
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
  // The blob reporter comes before this one in the config, so its zip is whole by now: its digest ties the two.
  const blob = blobOf(path.join(reportDir, BLOB_DIR));
  if (blob) info.blob = blob;
  const part = `shard ${shard.current}/${shard.total} of the suite (chatconform report merge joins the ${shard.total} shards)`;
  return { ...own, selection: own.selection ? `${part}; ${own.selection}` : part, shard: info };
}

/** The shard's blob report and its digest; undefined when the blob reporter wrote none (the merge then refuses it). */
function blobOf(dir: string): ShardInfo['blob'] {
  const zips = existsSync(dir) ? readdirSync(dir).filter((n) => n.endsWith('.zip')) : [];
  if (zips.length !== 1) return undefined;
  return { file: zips[0]!, sha256: createHash('sha256').update(readFileSync(path.join(dir, zips[0]!))).digest('hex') };
}

/**
 * Why Playwright stopped, in the report's words: an interrupted or timed-out run says so; errors outside the tests
 * (a global setup, a file that did not load, a worker that died) kept tests from running; else every test ran.
 */
export function stopReasonOf(status: FullResult['status'], errors: readonly string[]): StopReason {
  if (status === 'interrupted') return 'interrupted';
  if (status === 'timedout') return 'out-of-time';
  return errors.length > 0 ? 'failed-to-run' : 'completed';
}

/** What the reporter tells Playwright (which maps it to 0 or 1; exitWith sets the kit's code): "passed" exactly for exit 0. */
function playwrightStatusOf(report: Pick<ConformanceReport, 'verdict' | 'run'>): FullResult['status'] {
  if (report.verdict.exitCode === 0) return 'passed';
  return report.run.stopReason === 'interrupted' ? 'interrupted' : report.run.stopReason === 'out-of-time' ? 'timedout' : 'failed';
}

/**
 * The parts of this run's plan that decide the verdict (report/fold.ts VerdictPlan): the gate, the baseline, the
 * trials, the matrix, and what a partial run selected. The reference is paired apart (it is a run of its own).
 */
function verdictPlanOf(selected: Pick<VerdictPlan, 'selection' | 'scope'>): VerdictPlan {
  const gate = gateOf();
  const trials = trialsOf();
  const models = modelsOfRun();
  return {
    ...selected,
    failOn: gate.failOn,
    ...(gate.expectedFailures ? { baseline: loadBaseline(gate.expectedFailures) } : {}),
    ...(trials ? { trials } : {}),
    ...(models ? { models } : {}),
  };
}

/**
 * The replayed cases are the shards' own: their count, per status, is the sum of the shards' reports' (a blob whose
 * digest matched cannot differ, unless the replay lost or added cases).
 */
function checkReplayed(ctx: MergeContext, cases: readonly RecordedCase[]): void {
  const replayed: Record<string, number> = {};
  for (const c of cases) replayed[c.status === 'not-run' ? 'notRun' : c.status] = (replayed[c.status === 'not-run' ? 'notRun' : c.status] ?? 0) + 1;
  replayed.total = cases.length;
  // A version-1 shard's report counts Playwright's statuses, which map to the kit's in total only.
  const counted = ctx.countsPerStatus ? Object.entries(ctx.tests) : [['total', ctx.tests.total] as const];
  for (const [status, n] of counted) {
    if ((replayed[status] ?? 0) !== n) throw new MergeRefused(`the shards' blob reports replay ${replayed[status] ?? 0} ${status} test(s), their reports count ${n}: the blobs are not the reports' own`);
  }
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
    reportDir: ctx.reportDir ?? defaultReportDir(),
    // The shards' reports are redacted already; the merge job's own key, if it has one, is masked too.
    secrets: [process.env[ENV.apiKey] ?? ''].filter((s) => s.length >= 4),
    sectionTitles: new Map(Object.entries(CONTRACT.sections)),
    problems: [],
  };
}

/**
 * An interrupted run still writes the reports of what it judged, marked interrupted. Playwright stops gracefully on
 * SIGINT only (its reporters' onEnd then runs, with the status "interrupted"); a SIGTERM (a CI job cancelled, a
 * container stopped, `chatconform run` passing one on) would end the runner at once, with no report. So a SIGTERM
 * is turned into Playwright's SIGINT, and either signal is said once on stderr.
 */
function stopOnSignals(): void {
  let said = false;
  const say = (signal: NodeJS.Signals) => {
    if (said) return;
    said = true;
    process.stderr.write(`\nchatconform: ${signal}: the run stops; the reports of what it judged are written, marked interrupted\n`);
  };
  process.on('SIGINT', () => say('SIGINT'));
  process.on('SIGTERM', () => {
    say('SIGTERM');
    process.kill(process.pid, 'SIGINT');
  });
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
  /** Each test's case as it ended: read once, its exchanges reduced (the runner keeps no test's whole evidence). */
  private readonly ended = new Map<TestCase, RecordedCase>();
  private readonly constructedAt = new Date();
  private shard: FullConfig['shard'] = null;

  onBegin(config: FullConfig, suite: Suite): void {
    this.root = suite;
    this.shard = config.shard;
    if (!process.env[MERGE_CONTEXT_ENV]) stopOnSignals();
  }

  onTestEnd(test: TestCase): void {
    this.ended.set(test, outcomeOf(test));
  }

  /** A test's case: as it ended, or (a test that never ended) as it stands. */
  private readonly caseOf = (test: TestCase): RecordedCase => this.ended.get(test) ?? outcomeOf(test);

  onError(error: TestError): void {
    const text = errorText(error) ?? 'unknown error';
    const where = error.location ? ` (${path.relative(repoRoot, error.location.file)}:${error.location.line})` : '';
    this.errors.push(`${text.split('\n').slice(0, 3).join('\n')}${where}`);
  }

  async onEnd(result: FullResult): Promise<{ status: FullResult['status'] }> {
    let info: RunInfo | undefined;
    try {
      const merging = mergeContext();
      if (merging) return this.writeMerged(merging);
      const targets = runTargets();
      // `chatconform run --reference`: the run's own target beside its reference, in one run; else many targets.
      const pair = targets ? referencePair(targets) : undefined;
      if (targets && !pair) return this.writeTargets(targets, result);
      info = collectRunInfo();
      const byTarget = pair ? testsByTarget(this.root, targets!.length) : undefined;
      const tests = pair ? byTarget![pair.self]! : (this.root?.allTests() ?? []);
      const cases = tests.map(this.caseOf);
      if (!this.root && this.errors.length === 0) this.errors.push('the run ended before any test was loaded');
      const { shard, ...selected } = this.shard ? shardRun(this.shard, info.reportDir) : { ...partialRun(), shard: undefined };
      const plan = verdictPlanOf(selected);
      const run = { startedAt: result.startTime ?? this.constructedAt, durationMs: result.duration, stopReason: stopReasonOf(result.status, this.errors), errors: this.errors, plan };
      const reference = pair
        ? writeReferenceReports(byTarget![pair.reference]!, this.caseOf, targets![pair.reference]!, pair.reference, run, (dir) => (this.shard ? shardRun(this.shard, dir) : partialRun()))
        : referenceOf();
      info.secrets = [...info.secrets, ...referenceSecrets()];
      const report = foldReport(cases, { info, startedAt: run.startedAt, durationMs: run.durationMs, stopReason: run.stopReason, errors: run.errors, ...(shard ? { shard } : {}) }, { ...plan, ...(reference ? { reference } : {}) });
      let files: string[];
      try {
        files = writeReports(report, info.reportDir, info.secrets);
      } catch (err) {
        // The run is over and judged: its verdict is printed even when its reports cannot be written (exit 3).
        process.stdout.write(renderSummary(report, [], paintFor(process.stdout)));
        process.stderr.write(`chatconform: error: the reports could not be written to ${info.reportDir}: ${redact((err as Error).message.split('\n')[0]!, info.secrets)}\n`);
        exitWith(3);
        return { status: 'failed' };
      }
      // The report is redacted already; the CI outputs are written from it alone.
      publishToCi(report);
      for (const p of info.problems) process.stderr.write(`chatconform: note: ${redact(p, info.secrets)}\n`);
      process.stdout.write(renderSummary(report, files, paintFor(process.stdout)));
      exitWith(report.verdict.exitCode);
      return { status: playwrightStatusOf(report) };
    } catch (err) {
      const refusals = process.env[MERGE_CONTEXT_ENV] ? mergeContext()?.refusalFile : undefined;
      if (err instanceof MergeRefused && refusals) {
        // A merge whose replayed cases are not the ones its reports describe: `report merge` says so in one line.
        writeFileSync(refusals, err.message);
        exitWith(3);
        return { status: 'failed' };
      }
      const message = err instanceof Error ? (err.stack ?? err.message) : String(err);
      const line = '='.repeat(100);
      process.stderr.write(`\n${line}\nchatconform: THE CONFORMANCE REPORT COULD NOT BE WRITTEN; the run fails.\n${info ? redact(message, info.secrets) : message}\n${line}\n`);
      // No report: the kit could not judge (as `chatconform run` says when it finds none).
      exitWith(3);
      return { status: result.status === 'interrupted' || result.status === 'timedout' ? result.status : 'failed' };
    }
  }

  /** A run of many targets: a report per target, the worst exit code for the run. */
  private writeTargets(targets: readonly RunTarget[], result: FullResult): { status: FullResult['status'] } {
    const lines = writeTargetReports(this.root, this.caseOf, targets, {
      startedAt: result.startTime ?? this.constructedAt,
      durationMs: result.duration,
      stopReason: stopReasonOf(result.status, this.errors),
      errors: this.errors,
      // The run's plan: each target is folded with it, as that target run alone with the same flags would be.
      plan: verdictPlanOf(partialRun()),
    });
    process.stdout.write(`${lines.map((l) => l.line).join('\n')}\n`);
    const code = Math.max(0, ...lines.map((l) => l.exitCode));
    exitWith(code);
    return { status: code === 0 ? 'passed' : 'failed' };
  }

  /**
   * `chatconform report merge`: the replayed cases of every shard, folded as one run by the same fold, with the
   * features the shards' reports kept (report/merge.ts), written as the four reports.
   */
  private writeMerged(ctx: MergeContext): { status: FullResult['status'] } {
    const info = mergedInfo(ctx);
    const all = this.root?.allTests() ?? [];
    // A run of several targets (the target beside its reference) replays every target's cases: this merge folds one's.
    const cases = (ctx.slotTarget !== undefined ? casesOfTarget(all, ctx.slotTarget) : all).map(this.caseOf);
    checkReplayed(ctx, cases);
    const { reference, ...kept } = ctx.features;
    const paired = reference && ctx.referenceReport ? { report: loadReport(ctx.referenceReport), url: reference.url, reportDir: path.dirname(ctx.referenceReport) } : undefined;
    const report = foldReport(
      cases,
      {
        info,
        startedAt: new Date(ctx.startedAt),
        durationMs: ctx.durationMs,
        stopReason: ctx.stopReason,
        // The shards' own errors (their reports name them); the replay's onError events repeat the same ones.
        errors: ctx.errors,
        merge: ctx.merge,
      },
      // The plan the shards' reports kept: the same gate, selection, baseline, trials, matrix and reference.
      {
        failOn: ctx.failOn,
        ...(ctx.selection !== undefined ? { selection: ctx.selection } : {}),
        ...(ctx.scope ? { scope: ctx.scope } : {}),
        ...kept,
        ...(paired ? { reference: paired } : {}),
      },
    );
    const files = writeReports(report, info.reportDir, info.secrets);
    publishToCi(report);
    process.stdout.write(renderSummary(report, files, paintFor(process.stdout)));
    exitWith(report.verdict.exitCode);
    return { status: playwrightStatusOf(report) };
  }

  printsToStdio(): boolean {
    return true;
  }
}

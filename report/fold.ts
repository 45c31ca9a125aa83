// The one fold: the cases a run recorded (each test's outcome with its evidence) and the run's facts, into the
// report. A run (suites/reporter.ts onEnd), a merge of shards (writeMerged: the shards' cases replayed from their
// blob reports) and the proxy (its judged exchanges) all call foldReport, so a feature folded in one is folded in all.
//
// Each run feature is a named step (trials, baseline, reference, models). A step folds its settings into the
// results, and says what a merge must keep of it: `kept` reads it back from a shard's conformance.json, `join`
// makes the merged run's setting from the shards'. A step whose setting a merge loses would make a merged report
// differ from the unsharded run's; report/merge.ts keeps every step listed here.
import type { Requirement } from '../spec/requirements/index.ts';
import { MODEL_DEPENDENT_REQUIREMENTS, type TrialSettings } from '../run/trials.ts';
import { applyBaseline, type Baseline } from './baseline.ts';
import { classificationCounts, withDifferential, type ReferenceRun } from './differential.ts';
import { buildReport, type ConformanceReport, type FailOn, type MergeInfo, type ReportInput, type RunStatus, type ShardInfo, type StopReason } from './json.ts';
import { MODEL_SKIP_PREFIX, modelResultOf, type ModelResult } from './models.ts';
import { aggregate, mustFailures, type RequirementResult, type TestOutcome } from './results.ts';
import type { RunInfo } from './run-info.ts';
import { foldTrials } from './trials.ts';

/** One recorded case: a test's outcome, and the model whose project ran it (a per-model matrix). */
export type RecordedCase = TestOutcome & { model?: string };

/** What the report says of the run beside its cases. */
export interface RunFacts {
  info: RunInfo;
  startedAt: Date;
  durationMs: number;
  /** Playwright's status, when Playwright ran the cases. */
  playwrightStatus?: RunStatus;
  stopReason: StopReason;
  /** Errors outside the cases. */
  errors: string[];
  failOn?: FailOn;
  selection?: string;
  scope?: readonly string[];
  shard?: ShardInfo;
  merge?: MergeInfo;
  /** The catalog the cases are judged against (default: the kit's; the proxy judges client rules too). */
  catalog?: readonly Requirement[];
}

/** The reference run the results are paired with: its report, where it answered, where its reports are. */
export interface ReferenceInput {
  report: ConformanceReport;
  url: string;
  reportDir?: string;
}

/** The per-model matrix: the chosen models, the requests each one's tests sent, how many may fail. */
export interface ModelsInput {
  ids: string[];
  requests: Record<string, number>;
  maxFailingModels: number;
}

/** The run's features; a feature left out is not folded. */
export interface Features {
  trials?: TrialSettings;
  baseline?: Baseline;
  reference?: ReferenceInput;
  models?: ModelsInput;
}

/** What a merge keeps of the features: the same, with the reference named by its URL (its shards merge on their own). */
export interface KeptFeatures {
  trials?: TrialSettings;
  baseline?: Baseline;
  reference?: { url: string };
  models?: ModelsInput;
}

/** The fold so far: the requirement results and what the steps add to the report. */
interface Folded {
  results: RequirementResult[];
  input: Pick<ReportInput, 'trials' | 'baseline' | 'reference' | 'matrix'>;
}

/** A feature's step of the fold, and what a merge must keep of it. */
export interface FoldStep<S, K> {
  name: keyof Features & keyof KeptFeatures;
  fold(f: Folded, settings: S, cases: readonly RecordedCase[]): Folded;
  /** The setting a shard's conformance.json records; undefined when its run did not use the feature. */
  kept(report: ConformanceReport): K | undefined;
  /** What must be equal across the shards of one run (a merge of shards that differ in it is refused). */
  same(kept: K): unknown;
  /** The merged run's setting from the shards'. */
  join(kept: readonly K[]): K;
}

/** --trials: a model-dependent requirement is judged on its pass rate over the trials (report/trials.ts). */
export const trialsStep: FoldStep<TrialSettings, TrialSettings> = {
  name: 'trials',
  fold: (f, trials, cases) => ({ results: foldTrials(f.results, cases, MODEL_DEPENDENT_REQUIREMENTS, trials.minPassRate), input: { ...f.input, trials } }),
  kept: (r) => r.run.trials,
  same: (t) => t,
  join: (ts) => ts[0]!,
};

/** Expected failures: a listed failure is excused, a listed pass is stale (report/baseline.ts). */
export const baselineStep: FoldStep<Baseline, Baseline> = {
  name: 'baseline',
  fold: (f, baseline) => {
    const { results, outcome } = applyBaseline(f.results, baseline);
    return { results, input: { ...f.input, baseline: outcome } };
  },
  // Every entry of the baseline is in one of the three lists of a shard's outcome.
  kept: (r) => {
    const b = r.verdict.baseline;
    return b ? { file: b.file, entries: [...b.expected, ...b.stale, ...b.unjudged] } : undefined;
  },
  same: (b) => b.file,
  join: (bs) => ({ file: bs[0]!.file, entries: [...new Map(bs.flatMap((b) => b.entries).map((e) => [e.id, e])).values()] }),
};

/** --reference: each requirement paired with the reference run's record of it (report/differential.ts). */
export const referenceStep: FoldStep<ReferenceInput, { url: string }> = {
  name: 'reference',
  fold: (f, ref) => {
    const results = withDifferential(f.results, ref.report.requirements);
    const reference: ReferenceRun = {
      url: ref.url,
      verdict: ref.report.verdict.result,
      mustFailed: ref.report.verdict.mustFailed,
      ...(ref.report.run.requests !== undefined ? { requests: ref.report.run.requests } : {}),
      ...(ref.report.run.cost !== undefined ? { cost: ref.report.run.cost } : {}),
      ...(ref.reportDir !== undefined ? { reportDir: ref.reportDir } : {}),
      counts: classificationCounts(results),
    };
    return { results, input: { ...f.input, reference } };
  },
  // The reference's own shards (each shard's reference/ folder) are merged as a run of their own, then paired.
  kept: (r) => (r.run.reference ? { url: r.run.reference.url } : undefined),
  same: (k) => k.url,
  join: (ks) => ks[0]!,
};

/** --models: a row per chosen model from the cases of its own project; the model-independent cases gate apart. */
export const modelsStep: FoldStep<ModelsInput, ModelsInput> = {
  name: 'models',
  fold: (f, m, cases) => {
    const models: ModelResult[] = m.ids.map((id) => {
      const outcomes = cases.filter((c) => c.model === id);
      // A model the run could not use: its tests skipped with one reason naming it (a test that needs no model of
      // the catalog, one judging the request it sends, may still pass beside them; the row says skipped, with why,
      // when no MUST requirement was judged on the model).
      const prefix = `${MODEL_SKIP_PREFIX}${id}: `;
      const reasons = new Set(outcomes.filter((t) => t.status === 'skipped' && t.skipReason?.startsWith(prefix)).map((t) => t.skipReason!.slice(prefix.length)));
      const skipReason = reasons.size === 1 ? [...reasons][0]! : undefined;
      return modelResultOf({ id, outcomes, requests: m.requests[id] ?? 0, ...(skipReason !== undefined ? { skipReason } : {}) });
    });
    const shared = cases.filter((c) => c.model === undefined);
    const matrix = { models, independentMustFailed: mustFailures(aggregate(shared)).map((r) => r.id), maxFailingModels: m.maxFailingModels };
    return { results: f.results, input: { ...f.input, matrix } };
  },
  kept: (r) =>
    r.models
      ? { ids: r.models.map((x) => x.id), requests: Object.fromEntries(r.models.map((x) => [x.id, x.requests ?? 0])), maxFailingModels: r.run.maxFailingModels ?? 0 }
      : undefined,
  same: (m) => m.maxFailingModels,
  // Every shard lays out every model's project; each shard's requests are its own, so they add up.
  join: (ms) => {
    const requests: Record<string, number> = {};
    for (const m of ms) for (const [id, n] of Object.entries(m.requests)) requests[id] = (requests[id] ?? 0) + n;
    return { ids: [...new Set(ms.flatMap((m) => m.ids))], requests, maxFailingModels: ms[0]!.maxFailingModels };
  },
};

/**
 * The steps in the order they fold: trials decide a requirement over its trials before the baseline excuses it;
 * the reference pairs the excused status (expected-fail counts as failing); the matrix reads the cases alone.
 */
export const FOLD_STEPS = [trialsStep, baselineStep, referenceStep, modelsStep] as const;

/** The cases and the run's facts, folded by every feature the run used, as the report (every string redacted). */
export function foldReport(cases: readonly RecordedCase[], facts: RunFacts, features: Features = {}): ConformanceReport {
  let f: Folded = { results: aggregate(cases, facts.catalog), input: {} };
  if (features.trials) f = trialsStep.fold(f, features.trials, cases);
  if (features.baseline) f = baselineStep.fold(f, features.baseline, cases);
  if (features.reference) f = referenceStep.fold(f, features.reference, cases);
  if (features.models) f = modelsStep.fold(f, features.models, cases);
  return buildReport({
    info: facts.info,
    results: f.results,
    outcomes: cases,
    startedAt: facts.startedAt,
    durationMs: facts.durationMs,
    ...(facts.playwrightStatus !== undefined ? { playwrightStatus: facts.playwrightStatus } : {}),
    stopReason: facts.stopReason,
    errors: facts.errors,
    ...(facts.failOn !== undefined ? { failOn: facts.failOn } : {}),
    ...(facts.selection !== undefined ? { selection: facts.selection } : {}),
    ...(facts.scope !== undefined ? { scope: facts.scope } : {}),
    ...(facts.shard ? { shard: facts.shard } : {}),
    ...(facts.merge ? { merge: facts.merge } : {}),
    ...f.input,
  });
}

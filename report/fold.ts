// The one fold: the cases a run recorded (each case's outcome with its evidence), the run's facts, and the parts of
// the run's plan that decide the verdict (VerdictPlan: the gate, the baseline, the trials, the reference, the
// selection and its scope, the records judged), into the report. Every writer calls foldReport with the plan: a run
// (suites/reporter.ts onEnd), each target of a targets file and the reference (suites/reporter/targets.ts), a merge
// of shards (writeMerged: the shards' cases replayed from their blob reports), the proxy (its judged exchanges) and
// a client run (its scenarios). So the same cases under the same plan get the same verdict, whichever path folded
// them, and a feature folded in one is folded in all.
//
// Each run feature is a named step (trials, baseline, reference, models). A step folds its settings into the
// results, and says what a merge must keep of it: `kept` reads it back from a shard's conformance.json, `join`
// makes the merged run's setting from the shards'. A step whose setting a merge loses would make a merged report
// differ from the unsharded run's; report/merge.ts keeps every step listed here.
import { requirements as kitCatalog, type Requirement } from '../spec/requirements/index.ts';
import { MODEL_DEPENDENT_REQUIREMENTS, type TrialSettings } from '../run/trials.ts';
import { applyBaseline, type Baseline } from './baseline.ts';
import { classificationCounts, withDifferential, type ReferenceRun } from './differential.ts';
import { buildReport, type ConformanceReport, type FailOn, type MergeInfo, type ReportInput, type ShardInfo, type StopReason } from './json.ts';
import { pairingOf } from './pairing.ts';
import { causeNamed, rootCauseCards } from './root-causes.ts';
import { MODEL_SKIP_PREFIX, modelResultOf, type ModelResult } from './models.ts';
import { aggregate, mustFailures, targetRequirements, type CaseKind, type RequirementResult, type TestOutcome } from './results.ts';
import type { RunInfo } from './run-info.ts';
import { foldTrials } from './trials.ts';

/** One recorded case: its outcome (with the model it judged, in a per-model matrix). */
export type RecordedCase = TestOutcome;

/** What the report says of the run beside its cases: what happened, not what decides the verdict. */
export interface RunFacts {
  info: RunInfo;
  startedAt: Date;
  durationMs: number;
  stopReason: StopReason;
  /** Errors outside the cases. */
  errors: string[];
  shard?: ShardInfo;
  merge?: MergeInfo;
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

/**
 * The parts of the run's plan that decide the verdict. Every writer hands the fold its plan; a part left out is not
 * folded. Two folds of the same cases under the same plan give the same verdict and exit code.
 */
export interface VerdictPlan {
  /** What fails the run (--fail-on); default must. */
  failOn?: FailOn;
  /** Expected failures (--expected-failures). */
  baseline?: Baseline;
  trials?: TrialSettings;
  reference?: ReferenceInput;
  models?: ModelsInput;
  /** A partial run: what it selected (a selection, the runner's filters, a target's files, a shard, traffic). */
  selection?: string;
  /** For a selection of requirements: the IDs it takes (then only its core requirements are owed a judgement). */
  scope?: readonly string[];
  /** The catalog the cases are judged against (default: the kit's; the proxy judges client rules too). */
  catalog?: readonly Requirement[];
  /** The records the run judges (default: the catalog's target records; a client run judges the consumer's rules). */
  judged?: readonly Requirement[];
  /** What the cases are (default: the suite's tests). */
  caseKind?: CaseKind;
}

/** The run's features: the plan's parts that are fold steps. */
export type Features = Pick<VerdictPlan, 'trials' | 'baseline' | 'reference' | 'models'>;

/**
 * The plan one target of a targets file is folded with: the run's, as `chatconform run` would give that target run
 * alone with the same flags (gate, baseline, trials, selection); a target that runs some files only is a partial run
 * of those files, as a run given them would be.
 */
export function targetPlan(run: VerdictPlan, files?: readonly string[]): VerdictPlan {
  const { reference: _r, models: _m, ...plan } = run;
  if (!files) return plan;
  const own = `the spec files ${files.map((f) => f.split('/').at(-1)).join(', ')}`;
  return { ...plan, selection: plan.selection !== undefined ? `${plan.selection}; ${own}` : own };
}

/**
 * The plan the reference of a `--reference` run is folded with: the run's selection, scope and trials (the same
 * tests, judged alike); not the target's gate or baseline, which list what the target may fail.
 */
export function referencePlan(run: VerdictPlan): VerdictPlan {
  const { reference: _r, models: _m, baseline: _b, failOn: _f, ...plan } = run;
  return plan;
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
  // Paired case by case: the target's cases here, the reference's as its report records them (absent from a report
  // written before reports carried them: then on the statuses alone).
  fold: (f, ref, cases) => {
    const results = withDifferential(f.results, ref.report.requirements, { target: pairingOf(cases, f.results), ...(ref.report.pairing ? { reference: ref.report.pairing } : {}) });
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
    const byModel = new Map<string, RecordedCase[]>(m.ids.map((id) => [id, []]));
    for (const c of cases) if (c.model !== undefined) byModel.get(c.model)?.push(c);
    const models: ModelResult[] = m.ids.map((id) => {
      const outcomes = byModel.get(id)!;
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

/** The cases and the run's facts, folded under the run's plan, as the report (every string redacted). */
export function foldReport(cases: readonly RecordedCase[], facts: RunFacts, plan: VerdictPlan): ConformanceReport {
  const catalog = plan.catalog ?? kitCatalog;
  // One scope for the results and the root causes: the records this run judges.
  const judged = plan.judged ?? targetRequirements(catalog);
  // The cards first: an unjudged record's reason names the card its cause is on.
  const { causes, cardOf } = rootCauseCards(cases, catalog, judged);
  let f: Folded = { results: aggregate(cases, catalog, judged, (r) => causeNamed(r, cardOf.get(r))), input: {} };
  if (plan.trials) f = trialsStep.fold(f, plan.trials, cases);
  if (plan.baseline) f = baselineStep.fold(f, plan.baseline, cases);
  if (plan.reference) f = referenceStep.fold(f, plan.reference, cases);
  if (plan.models) f = modelsStep.fold(f, plan.models, cases);
  return buildReport({
    info: facts.info,
    results: f.results,
    outcomes: cases,
    startedAt: facts.startedAt,
    durationMs: facts.durationMs,
    stopReason: facts.stopReason,
    errors: facts.errors,
    catalog,
    judged,
    rootCauses: causes,
    ...(plan.caseKind ? { caseKind: plan.caseKind } : {}),
    ...(plan.failOn !== undefined ? { failOn: plan.failOn } : {}),
    ...(plan.selection !== undefined ? { selection: plan.selection } : {}),
    ...(plan.scope !== undefined ? { scope: plan.scope } : {}),
    ...(facts.shard ? { shard: facts.shard } : {}),
    ...(facts.merge ? { merge: facts.merge } : {}),
    ...f.input,
  });
}

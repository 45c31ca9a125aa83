// The reporter's side of the per-model matrix: which model a test judged (its annotation, given where the test is
// declared once per model), and the run's matrix settings (the chosen models, the requests each one's tests sent,
// how many may fail) for the fold's models step (report/fold.ts), which folds the recorded cases into
// conformance.json's `models[]`. A test of the matrix carries its model in the report's title ("acme/x › chat › …"),
// so the run's one record per requirement still says on which model each piece of evidence was found.
import type { Suite, TestCase } from '@playwright/test/reporter';
import { modelRequests } from '../../run/ledger.ts';
import { currentPlan } from '../../run/plan.ts';
import type { ModelsInput } from '../../report/fold.ts';
import { matrixModelsOf, modelOfAnnotations } from '../lib/discovery-matrix.ts';
import { isTargetBlock } from './targets.ts';

/** The model `test` judged, or undefined (a model-independent test, a run without a matrix). */
export function modelOfTest(test: TestCase): string | undefined {
  return modelOfAnnotations(test.annotations);
}

/**
 * The test's describe titles and its own, the model's (or the target's) describe block left out: the model leads the report's title
 * instead (`${model} › ${title}`), as it did when each model was a project of its own.
 */
export function titlesOf(test: TestCase): string[] {
  const titles = [test.title];
  const model = modelOfTest(test);
  let s: Suite | undefined = test.parent;
  // The model's block is the one directly around the test (suites/lib/test-fixtures.ts declares it so).
  if (model !== undefined && s?.type === 'describe' && s.title === model) s = s.parent;
  // So is a target's, in a run of many targets: each target's report speaks of its own tests.
  if (isTargetBlock(test, s)) s = s?.parent;
  for (; s && s.type === 'describe'; s = s.parent) titles.unshift(s.title);
  return titles;
}

/**
 * The run's matrix settings, or undefined when the run has no matrix. The chosen models are the runner's resolved
 * list (beside the run's plan): a shard whose tests are all model-independent has none of a model's tests, yet its
 * report must say the run had a matrix (the merge refuses shards that differ in it).
 */
export function modelsOfRun(env: NodeJS.ProcessEnv = process.env): ModelsInput | undefined {
  const plan = currentPlan(env);
  const ids = matrixModelsOf(plan);
  if (!plan || !ids || ids.length === 0) return undefined;
  const requests = modelRequests(plan.runDir);
  const n = plan.settings.maxFailingModels ?? 0;
  return { ids, requests: Object.fromEntries(ids.map((id) => [id, requests[id] ?? 0])), maxFailingModels: n > 0 ? n : 0 };
}

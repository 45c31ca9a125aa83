// The reporter's side of the per-model matrix: which model a test judged (its slot's, run/slots.ts), and the run's
// matrix settings (the chosen models, the requests each one's tests sent, how many may fail) for the fold's models
// step (report/fold.ts), which folds the recorded cases into conformance.json's `models[]`. A test of the matrix
// carries its model in the report's title ("acme/x › chat › …"), so the run's one record per requirement still says
// on which model each piece of evidence was found.
import type { Suite, TestCase } from '@playwright/test/reporter';
import { modelRequests } from '../../run/ledger.ts';
import { currentPlan } from '../../run/plan.ts';
import { slotOfAnnotations, slotTitle } from '../../run/slots.ts';
import type { ModelsInput } from '../../report/fold.ts';
import { matrixModelsOf } from '../lib/discovery-matrix.ts';

/** The model `test` judged, or undefined (a model-independent test, a run without a matrix). */
export function modelOfTest(test: TestCase): string | undefined {
  return slotOfAnnotations(test.annotations).model;
}

/**
 * The test's describe titles and its own, without its slot's block: the model leads the report's title instead
 * (`${model} › ${title}`), as it did when each model was a project of its own, and a target's report speaks of its
 * own tests, whatever their trial.
 */
export function titlesOf(test: TestCase): string[] {
  const titles = [test.title];
  const slot = slotOfAnnotations(test.annotations);
  const own = slotTitle({ ...slot, trial: slot.trial ?? 0 });
  for (let s: Suite | undefined = test.parent; s && s.type === 'describe'; s = s.parent) {
    // The slot's block is the outermost, directly in the file (suites/lib/slots.ts); an anonymous block has no title.
    if (s.title === '' || (s.parent?.type === 'file' && s.title === own)) continue;
    titles.unshift(s.title);
  }
  return titles;
}

/**
 * The run's matrix settings, or undefined when the run has no matrix. The chosen models are the runner's resolved
 * list (beside the run's plan): a shard whose tests are all model-independent has none of a model's tests, yet its
 * report must say the run had a matrix (the merge refuses shards that differ in it). The requests are those in the
 * scratch folder `runDir` (a target's own, in a run of several), the run's by default.
 */
export function modelsOfRun(runDir?: string, env: NodeJS.ProcessEnv = process.env): ModelsInput | undefined {
  const plan = currentPlan(env);
  const ids = matrixModelsOf(plan);
  if (!plan || !ids || ids.length === 0) return undefined;
  const requests = modelRequests(runDir ?? plan.runDir);
  const n = plan.settings.maxFailingModels ?? 0;
  return { ids, requests: Object.fromEntries(ids.map((id) => [id, requests[id] ?? 0])), maxFailingModels: n > 0 ? n : 0 };
}

// The reporter's side of the per-model matrix: which model's project ran a test, and the run's matrix settings
// (the chosen models, the requests each one's tests sent, how many may fail) for the fold's models step
// (report/fold.ts), which folds the recorded cases into conformance.json's `models[]`. A test of a model's project
// carries the model in its title ("acme/x › chat › …"), so the run's one record per requirement still says on which
// model each piece of evidence was found.
import { readFileSync } from 'node:fs';
import type { Suite, TestCase } from '@playwright/test/reporter';
import { ENV } from '../../run/config.ts';
import { modelRequests } from '../../run/ledger.ts';
import type { ModelsInput } from '../../report/fold.ts';
import { MATRIX_RESOLVED_ENV, projectModel } from '../lib/discovery-matrix.ts';

/** The model whose project ran `test`, or undefined (the model-independent project, a run without a matrix). */
export function modelOfTest(test: TestCase): string | undefined {
  return projectModel(test.parent.project());
}

/**
 * The run's matrix settings, or undefined when the run has no model projects. The chosen models are the runner's
 * resolved list: a shard whose tests are all model-independent has no model project left, yet its report must say
 * the run had a matrix (the merge refuses shards that differ in it).
 */
export function modelsOfRun(root: Suite | undefined, env: NodeJS.ProcessEnv = process.env): ModelsInput | undefined {
  const resolved = env[MATRIX_RESOLVED_ENV];
  const projects = (root?.suites ?? []).map((s) => projectModel(s.project())).filter((m): m is string => m !== undefined);
  const ids = [...new Set(resolved ? (JSON.parse(readFileSync(resolved, 'utf8')) as string[]) : projects)];
  if (ids.length === 0) return undefined;
  const requests = env[ENV.runDir] ? modelRequests(env[ENV.runDir]!) : {};
  const n = Number(env[ENV.maxFailingModels]);
  return { ids, requests: Object.fromEntries(ids.map((id) => [id, requests[id] ?? 0])), maxFailingModels: Number.isSafeInteger(n) && n > 0 ? n : 0 };
}

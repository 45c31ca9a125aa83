// The reporter's side of the per-model matrix: the outcomes grouped by project (one per model), folded into
// conformance.json's `models[]`. A test of a model's project carries the model in its title ("acme/x › chat › …"),
// so the run's one record per requirement still says on which model each piece of evidence was found.
import type { Suite, TestCase } from '@playwright/test/reporter';
import { ENV } from '../../run/config.ts';
import { modelRequests } from '../../run/ledger.ts';
import { modelResultOf, type ModelResult } from '../../report/models.ts';
import { aggregate, mustFailures, type TestOutcome } from '../../report/results.ts';
import { MODEL_SKIP_PREFIX, projectModel } from '../lib/discovery-matrix.ts';

/** The model whose project ran `test`, or undefined (the model-independent project, a run without a matrix). */
export function modelOfTest(test: TestCase): string | undefined {
  return projectModel(test.parent.project());
}

/** `matrix` of the report's input, or undefined when the run has no model projects. */
export function matrixOf(root: Suite | undefined, outcomeOf: (t: TestCase) => TestOutcome, env: NodeJS.ProcessEnv = process.env): { models: ModelResult[]; independentMustFailed: string[]; maxFailingModels: number } | undefined {
  const projects = (root?.suites ?? []).map((s) => ({ suite: s, model: projectModel(s.project()) }));
  if (!projects.some((p) => p.model !== undefined)) return undefined;
  const requests = env[ENV.runDir] ? modelRequests(env[ENV.runDir]!) : {};
  const models = projects
    .filter((p): p is { suite: Suite; model: string } => p.model !== undefined)
    .map(({ suite, model }) => {
      const outcomes = suite.allTests().map(outcomeOf);
      const prefix = `${MODEL_SKIP_PREFIX}${model}: `;
      const reasons = new Set(outcomes.map((t) => (t.status === 'skipped' && t.skipReason?.startsWith(prefix) ? t.skipReason.slice(prefix.length) : '')));
      const skipReason = outcomes.length > 0 && reasons.size === 1 && !reasons.has('') ? [...reasons][0]! : undefined;
      return modelResultOf({ id: model, outcomes, requests: requests[model] ?? 0, ...(skipReason !== undefined ? { skipReason } : {}) });
    });
  const shared = projects.filter((p) => p.model === undefined).flatMap((p) => p.suite.allTests().map(outcomeOf));
  const n = Number(env[ENV.maxFailingModels]);
  return { models, independentMustFailed: mustFailures(aggregate(shared)).map((r) => r.id), maxFailingModels: Number.isSafeInteger(n) && n > 0 ? n : 0 };
}

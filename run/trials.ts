// --trials k (issue 34): the model-dependent tests run k times, each trial a fresh request, each trial a slot of the
// run (run/slots.ts: the same project and workers); the rest of the suite runs once. A model-dependent test carries
// the tag MODEL_DEPENDENT_TAG, given where it is declared; the requirements those tests judge on sampling are folded
// by pass rate (report/trials.ts), every other requirement they check by the ordinary rule.
import { requirements } from '../spec/requirements/index.ts';
import { runSetting } from './plan.ts';
import { setting } from './settings.ts';

/** The variables of --trials and --min-pass-rate (the settings table's). */
export const TRIALS_ENV = { trials: setting('trials').env, minPassRate: setting('minPassRate').env } as const;

export { MODEL_DEPENDENT_TAG } from './slots.ts';

/**
 * The requirements judged on a sampled answer: a call that names a declared function, reasoning present, search
 * performed, the cap in force kept (REQ-008, REQ-010, REQ-011). With the default minimum pass rate (1) a single
 * failing trial still fails a MUST; a lower --min-pass-rate is the certifier's statement about sampling.
 */
export const MODEL_DEPENDENT_REQUIREMENTS: ReadonlySet<string> = new Set(['TOOL-006', 'RSN-003', 'SEARCH-002', 'SEARCH-003', 'REQ-008', 'REQ-010', 'REQ-011']);

export interface TrialSettings {
  k: number;
  minPassRate: number;
}

/** The run's trials (its plan's, else CONFORMANCE_TRIALS), or undefined for none; a bad value is a clear error. */
export function trialsOf(env: NodeJS.ProcessEnv = process.env): TrialSettings | undefined {
  const k = runSetting('trials', env);
  const minPassRate = runSetting('minPassRate', env);
  if (k === undefined) {
    if (minPassRate !== undefined) throw new Error(`${TRIALS_ENV.minPassRate} decides a requirement over its trials: set ${TRIALS_ENV.trials} too`);
    return undefined;
  }
  return { k, minPassRate: minPassRate ?? 1 };
}

/** Every model-dependent requirement is in the catalog (a renamed ID would silently fold nothing). */
export function unknownModelDependentIds(): string[] {
  return [...MODEL_DEPENDENT_REQUIREMENTS].filter((id) => !requirements.some((r) => r.id === id));
}

// The target's reporter and the reference run (issue 34): reads the reference's conformance.json
// (CONFORMANCE_REFERENCE_REPORT, written by the reference run `chatconform run --reference` starts first) and pairs
// the target's requirement records with it (differential.ts); the reference's key is masked in the target's reports.
import path from 'node:path';
import { profileSecrets } from '../run/config.ts';
import { loadProfile } from '../run/profile.ts';
import { REFERENCE_ENV } from '../run/reference.ts';
import { classificationCounts, withDifferential, type ReferenceRun } from './differential.ts';
import { loadReport } from './load.ts';
import type { RequirementResult } from './results.ts';

/** The results paired with the reference run's, and the `run.reference` block; the results as they are without one. */
export function pairWithReference(results: RequirementResult[], env: NodeJS.ProcessEnv = process.env): { results: RequirementResult[]; reference?: ReferenceRun } {
  const file = env[REFERENCE_ENV.report];
  if (!file) return { results };
  const ref = loadReport(file);
  const paired = withDifferential(results, ref.requirements);
  const reference: ReferenceRun = {
    url: env[REFERENCE_ENV.url] ?? ref.target.url ?? 'the embedded mock',
    verdict: ref.verdict.result,
    mustFailed: ref.verdict.mustFailed,
    ...(ref.run.requests !== undefined ? { requests: ref.run.requests } : {}),
    ...(ref.run.cost !== undefined ? { cost: ref.run.cost } : {}),
    reportDir: path.dirname(path.resolve(file)),
    counts: classificationCounts(paired),
  };
  return { results: paired, reference };
}

/** The reference's credentials: its key and its profile's keys, masked in every output of the target's run too. */
export function referenceSecrets(env: NodeJS.ProcessEnv = process.env): string[] {
  const out = [env[REFERENCE_ENV.apiKey] ?? ''];
  const profile = env[REFERENCE_ENV.profile];
  if (profile) {
    try {
      out.push(...profileSecrets(loadProfile(profile)));
    } catch {
      // A profile that does not load was refused before the run (cli/run.ts).
    }
  }
  return out.filter((s) => s.length >= 4);
}

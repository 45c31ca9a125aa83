// The target's reporter and the reference run (issue 34): reads the reference's conformance.json
// (CONFORMANCE_REFERENCE_REPORT, an earlier reference run's, resolved into the run's plan) for the
// fold's reference step (fold.ts), which pairs the target's requirement records with it (differential.ts); the
// reference's key is masked in the target's reports.
import path from 'node:path';
import { profileSecrets } from '../run/config.ts';
import { loadProfile } from '../run/profile.ts';
import { currentPlan, runSetting } from '../run/plan.ts';
import { REFERENCE_ENV } from '../run/reference.ts';
import type { ReferenceInput } from './fold.ts';
import { loadReport } from './load.ts';

/** The reference run the target's results are paired with (the fold's reference step), or undefined without one. */
export function referenceOf(env: NodeJS.ProcessEnv = process.env): ReferenceInput | undefined {
  const file = currentPlan(env)?.referenceReport;
  if (!file) return undefined;
  const report = loadReport(file);
  return { report, url: runSetting('reference', env) ?? report.target.url ?? 'the embedded mock', reportDir: path.dirname(path.resolve(file)) };
}

/** The reference's credentials: its key and its profile's keys, masked in every output of the target's run too. */
export function referenceSecrets(env: NodeJS.ProcessEnv = process.env): string[] {
  const out = [env[REFERENCE_ENV.apiKey] ?? ''];
  const profile = runSetting('referenceProfile', env);
  if (profile) {
    try {
      out.push(...profileSecrets(loadProfile(profile)));
    } catch {
      // A profile that does not load was refused before the run (cli/run.ts).
    }
  }
  return out.filter((s) => s.length >= 4);
}

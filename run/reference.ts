// --reference URL (issue 34): the same tests, with the same seed and selection, also run against a reference (the
// upstream a gateway forwards to, or the provider a migration leaves). The reference is a target of the run beside
// the run's own (run/targets.ts targetsOfPlan): the same runner and workers, its own key, its profile's budget and
// rate limits, its own scratch folder and its own reports in <report dir>/reference; the target's reporter pairs
// each requirement with the reference's record (report/differential.ts). docs/reference-and-trials.md says why the
// pairing is per requirement and per test rather than per request at the transport.
import path from 'node:path';

/** The reference's variables (its URL, profile and model are settings of run/settings.ts too). */
export const REFERENCE_ENV = {
  url: 'CONFORMANCE_REFERENCE_URL',
  apiKey: 'CONFORMANCE_REFERENCE_API_KEY',
  profile: 'CONFORMANCE_REFERENCE_PROFILE',
  model: 'CONFORMANCE_REFERENCE_MODEL',
  /** A reference run's conformance.json to pair the target's reporter with, set by hand (`chatconform run --reference` runs the reference itself). */
  report: 'CONFORMANCE_REFERENCE_REPORT',
} as const;

/** Where the reference's reports go: a folder of the target's report dir. */
export function referenceReportDir(reportDir: string): string {
  return path.join(reportDir, 'reference');
}

// --reference URL (issue 34): the same tests, with the same seed and selection, also run against a reference (the
// upstream a gateway forwards to, or the provider a migration leaves). `chatconform run` runs the reference first,
// as a run of its own (its key, its profile's budget and rate limits, its own ledger and reports in
// <report dir>/reference), then the target, whose reporter pairs each requirement with the reference's record
// (report/differential.ts) through CONFORMANCE_REFERENCE_REPORT. docs/reference-and-trials.md says why the pairing
// is per requirement and per test rather than per request at the transport.
import path from 'node:path';
import { ENV } from './config.ts';

export const REFERENCE_ENV = {
  url: 'CONFORMANCE_REFERENCE_URL',
  apiKey: 'CONFORMANCE_REFERENCE_API_KEY',
  profile: 'CONFORMANCE_REFERENCE_PROFILE',
  model: 'CONFORMANCE_REFERENCE_MODEL',
  /** The reference run's conformance.json the target's reporter pairs with (set by `chatconform run`; settable by hand). */
  report: 'CONFORMANCE_REFERENCE_REPORT',
} as const;

/** Where the reference run's reports go: a folder of the target's report dir. */
export function referenceReportDir(reportDir: string): string {
  return path.join(reportDir, 'reference');
}

/** Settings of the target that are the target's own: the reference run never inherits them. */
const targetOnly = () => [ENV.apiKey, ENV.profile, ENV.headers, ENV.maxRps, ENV.models, ENV.expectedFailures, ENV.signKey, ENV.runDir, ENV.embeddedMock];

/**
 * The reference run's environment: the target's (seed, selection, fuzz runs, trials, timeouts: the same tests),
 * with the reference as the target, its own key, profile and model, and its reports in `reportDir`.
 */
export function referenceEnv(env: NodeJS.ProcessEnv, reportDir: string): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = { ...env };
  for (const name of targetOnly()) delete out[name];
  for (const name of Object.values(REFERENCE_ENV)) delete out[name];
  out[ENV.baseUrl] = env[REFERENCE_ENV.url];
  if (env[REFERENCE_ENV.apiKey]) out[ENV.apiKey] = env[REFERENCE_ENV.apiKey];
  if (env[REFERENCE_ENV.profile]) out[ENV.profile] = env[REFERENCE_ENV.profile];
  if (env[REFERENCE_ENV.model]) out[ENV.models] = env[REFERENCE_ENV.model];
  out[ENV.reportDir] = reportDir;
  // The reference fails or passes on its own: only the target's verdict gates.
  if (out[ENV.failOn] === 'target-only') delete out[ENV.failOn];
  return out;
}

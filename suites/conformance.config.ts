// `npm run conformance`: the suite against CONFORMANCE_BASE_URL, or the embedded mock when it is unset.
import { defineConfig } from '@playwright/test';
import { selectionGrep, selectionOf } from './lib/discovery/selection.ts';
import { applyConfigFile } from './lib/discovery/config-file.ts';

// chatconform.config.json (or .yaml) in the working directory or a parent fills in what flags and the environment
// left unset; the workers inherit the result.
applyConfigFile();

export default defineConfig({
  testDir: '.',
  testMatch: '**/*.spec.ts',
  // The kit's checks of itself run in npm test (suites/kit.config.ts), never in a target's verdict.
  testIgnore: 'kit/**',
  outputDir: '../test-results/conformance',
  globalSetup: './global-setup.ts',
  fullyParallel: true,
  workers: Number(process.env.CONFORMANCE_WORKERS) || 2,
  // Bounded: a hanging target fails its tests in time, it never hangs the run.
  timeout: 60_000,
  retries: 0,
  reporter: [[process.env.CI ? 'line' : 'list'], ['./reporter/index.ts']],
  // A partial run (CONFORMANCE_REQUIREMENTS, _SECTIONS, _LEVELS, _EXCLUDE_REQUIREMENTS): the tests tagged with the
  // selected requirement IDs. The reporter reads the same variables and calls the verdict partial.
  ...selectionGrep(selectionOf()),
  // No browser, no Playwright request context: the suite's own transport (lib/transport/http.ts) sends everything,
  // with its user-agent. Nothing that could hold a credential is kept as an artefact.
  use: { trace: 'off', screenshot: 'off', video: 'off' },
});

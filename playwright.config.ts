// The project's own tests (npm test). The conformance suite has its own config: suites/conformance.config.ts.
import { defineConfig } from '@playwright/test';

export default defineConfig({
  outputDir: 'test-results/self',
  // The plain summary goes last: CI reads the final line.
  reporter: [['list'], ['./tests/support/plain-summary-reporter.ts']],
  forbidOnly: !!process.env.CI,
  timeout: 60_000,
  workers: 2,
  projects: [
    { name: 'unit', testDir: 'tests/unit' },
    { name: 'integration', testDir: 'tests/integration' },
  ],
});

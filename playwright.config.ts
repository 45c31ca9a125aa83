// The project's own tests (npm test). The conformance suite has its own config: suites/conformance.config.ts.
import { defineConfig } from '@playwright/test';

export default defineConfig({
  outputDir: 'test-results/self',
  reporter: process.env.CI ? [['list'], ['line']] : [['list']],
  forbidOnly: !!process.env.CI,
  timeout: 60_000,
  workers: 2,
  projects: [
    { name: 'unit', testDir: 'tests/unit' },
    { name: 'integration', testDir: 'tests/integration' },
  ],
});

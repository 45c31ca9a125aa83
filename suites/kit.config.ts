// The kit's own rules (the catalog's `mock-only` records: the reference SSE consumer, the kit's sources, its
// client's policies, what the mock exposes of routing), checked against the embedded mock by npm test
// (tests/integration/kit-self.spec.ts). They are never part of a target's verdict: `npm run conformance` does
// not run them.
import { defineConfig } from '@playwright/test';
import type { SuiteOptions } from './lib/test-fixtures.ts';
import conformance from './conformance.config.ts';

export default defineConfig<SuiteOptions>({
  ...conformance,
  testDir: './kit',
  testIgnore: [],
  outputDir: '../test-results/kit',
  reporter: [['list']],
  // The kit judging itself: a failed MUST is the kit's own failure (suites/lib/test-fixtures.ts).
  use: { ...conformance.use, findingsFailTests: true },
});

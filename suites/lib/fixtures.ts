// The suite's `test`: Playwright's, with the target client, the checker and what discovery learned.
// At the end of every test its check records and exchanges are attached as one evidence document, which
// the reporter turns into per-requirement results.
import { test as base } from '@playwright/test';
import { Checker, EVIDENCE_ATTACHMENT } from './check.ts';
import { runConfig, type RunConfig } from './config.ts';
import { loadDiscovery, type Discovery } from './discovery.ts';
import { Target } from './target.ts';

export interface Evidence {
  checks: Checker['records'];
  exchanges: Target['exchanges'];
}

export const test = base.extend<{ target: Target; check: Checker; discovery: Discovery; config: RunConfig }>({
  config: async ({}, use) => {
    await use(runConfig());
  },
  target: async ({ config }, use) => {
    await use(new Target(config));
  },
  check: async ({ target }, use, testInfo) => {
    const checker = new Checker(testInfo, target);
    await use(checker);
    // A test skipped part-way still reports which requirements it could not check, and why.
    if (testInfo.status === 'skipped') checker.markSkipped(testInfo.annotations.find((a) => a.type === 'skip')?.description ?? 'skipped');
    const evidence: Evidence = { checks: checker.records, exchanges: target.exchanges };
    await testInfo.attach(EVIDENCE_ATTACHMENT, { body: JSON.stringify(evidence), contentType: 'application/json' });
  },
  discovery: async ({ config }, use) => {
    await use(loadDiscovery(config.runDir));
  },
});

export { expect } from '@playwright/test';
export { req } from './check.ts';

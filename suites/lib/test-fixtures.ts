// The suite's `test`: Playwright's, with the target client, the checker and what discovery learned.
// At the end of every test its check records and exchanges are attached as one evidence document, which
// the reporter turns into per-requirement results; a failed MUST record fails the test there, and only there.
import { test as base } from '@playwright/test';
import { Checker, EVIDENCE_ATTACHMENT, failureSummary } from '../../judge/checker.ts';
import { declaredRequirements } from './declare.ts';
import { runConfig, type RunConfig } from '../../run/config.ts';
import { loadDiscovery, type Discovery } from './discovery.ts';
import { discoveryFor, modelSkipReason, projectModel } from './discovery-matrix.ts';
import { Target } from '../../run/target.ts';
import { playwrightHooks } from './runner-hooks.ts';

export interface Evidence {
  checks: Checker['records'];
  exchanges: Target['exchanges'];
}

export const test = base.extend<{ target: Target; check: Checker; discovery: Discovery; config: RunConfig }>({
  // In a per-model matrix the project's model is the run's for this test: its requests count in its own budget.
  config: async ({}, use, testInfo) => {
    const model = projectModel(testInfo.project);
    await use(model === undefined ? runConfig() : { ...runConfig(), matrixModel: model });
  },
  target: async ({ config }, use) => {
    await use(new Target(config, playwrightHooks));
  },
  check: async ({ target }, use, testInfo) => {
    const checker: Checker = new Checker(target, {
      declared: () => declaredRequirements(testInfo),
      onSkip: (reason) => {
        checker.markSkipped(reason);
        testInfo.skip(true, reason);
        throw new Error('unreachable: skip throws');
      },
      onNote: (message) => testInfo.annotations.push({ type: 'warning', description: message }),
    });
    await use(checker);
    // A test skipped part-way still reports which requirements it could not check, and why.
    if (testInfo.status === 'skipped') checker.markSkipped(testInfo.annotations.find((a) => a.type === 'skip')?.description ?? 'skipped');
    else if (testInfo.status === 'timedOut') checker.markUnjudged(`the kit could not judge it: the test timed out after ${testInfo.timeout} ms`, 'error');
    else if (testInfo.errors.length > 0) checker.markUnjudged(`the kit could not judge it: the test stopped on ${testInfo.errors[0]?.message?.split('\n')[0]?.slice(0, 200) ?? 'an error'}`, 'error');
    else checker.markUnjudged('not judged: the test found nothing to judge it on in this run');
    const evidence: Evidence = { checks: checker.records, exchanges: target.exchanges };
    await testInfo.attach(EVIDENCE_ATTACHMENT, { body: JSON.stringify(evidence), contentType: 'application/json' });
    // The one place findings become a Playwright failure: after every check of the test has run.
    // The message starts with the failed requirement ("CAT-027 (MUST, §2.10) …"): the reporter tells it from an exception.
    if (checker.failures.length > 0) throw new Error(failureSummary(checker.records));
  },
  discovery: async ({ config }, use, testInfo) => {
    const d = loadDiscovery(config.runDir);
    const model = config.matrixModel;
    if (model === undefined) return use(d);
    const skip = modelSkipReason(d, config.profile, model);
    if (skip !== undefined) testInfo.skip(true, skip);
    await use(discoveryFor(d, model));
  },
});

export { expect } from '@playwright/test';
export { req } from './declare.ts';

// The suite's `test`: Playwright's, with the target client, the checker and what discovery learned.
// At the end of every test its check records and exchanges are attached as one evidence document, which
// the reporter turns into per-requirement results. A finding is data, not an exception: a test fails in Playwright
// only where the kit itself could not do its work (an exception outside the checks, a timeout). A failed test ends
// its worker, so throwing per finding made a broken target cost a fresh worker per test.
import { rm, writeFile } from 'node:fs/promises';
import { test as base } from '@playwright/test';
import { Checker, EVIDENCE_ATTACHMENT, failureSummary } from '../../judge/checker.ts';
import { findingAnnotations } from './findings.ts';
import { declaredRequirements, indexedRequirements } from './declare.ts';
import { runConfig, type RunConfig } from '../../run/config.ts';
import { runTargets, targetConfig, type RunTarget } from '../../run/targets.ts';
import { PLAIN_SLOT, type Slot } from '../../run/slots.ts';
import { loadDiscovery, type Discovery } from './discovery.ts';
import { discoveryFor, modelSkipReason } from './discovery-matrix.ts';
import { Target } from '../../run/target.ts';
import { playwrightHooks } from './runner-hooks.ts';

/** The target of a slot of a run of several targets, and its index among them; undefined in a run of one target. */
function targetOfSlot(slot: Slot): { target: RunTarget; index: number } | undefined {
  const targets = runTargets();
  if (!targets) return undefined;
  const index = targets.findIndex((t) => t.name === slot.target);
  if (index < 0) throw new Error(`no target ${slot.target ?? '(none named)'} among the run's ${targets.length}`);
  return { target: targets[index]!, index };
}

/** Each target's configuration, made once per worker (its profile is read from disk). */
const targetConfigs = new Map<number, RunConfig>();
function configOfTarget(t: RunTarget, index: number): RunConfig {
  let c = targetConfigs.get(index);
  if (!c) targetConfigs.set(index, (c = targetConfig(runConfig(), t, index)));
  return c;
}

export interface Evidence {
  checks: Checker['records'];
  exchanges: Target['exchanges'];
}

/** The suite's options a Playwright config may set. */
export interface SuiteOptions {
  findingsFailTests: boolean;
}

/** Set by each spec file around its tests (suites/lib/slots.ts): the slot of the run they are declared in. */
export interface SlotOption {
  slot: Slot;
}

export const test = base.extend<{ target: Target; check: Checker; discovery: Discovery; config: RunConfig; runTarget: RunTarget | undefined } & SuiteOptions & SlotOption>({
  // The kit's checks of itself (suites/kit.config.ts) judge the kit, not a target: there a failed MUST is the kit's
  // own failure and fails its Playwright test.
  findingsFailTests: [false, { option: true }],
  // Test-scoped: the workers' fixtures stay the same for every slot, so one worker serves them all.
  slot: [PLAIN_SLOT, { option: true }],
  // A run of many targets declares every test once per target whose files hold it: its slot names its target.
  runTarget: [
    async ({ slot }, use) => {
      await use(targetOfSlot(slot)?.target);
    },
    { auto: true },
  ],
  // In a per-model matrix the slot's model is the run's for this test: its requests count in its own budget.
  config: async ({ slot }, use) => {
    const of = targetOfSlot(slot);
    const run = of ? configOfTarget(of.target, of.index) : runConfig();
    await use(slot.model === undefined ? run : { ...run, matrixModel: slot.model });
  },
  target: async ({ config }, use) => {
    await use(new Target(config, playwrightHooks));
  },
  check: async ({ target, findingsFailTests }, use, testInfo) => {
    const checker: Checker = new Checker(target, {
      declared: () => declaredRequirements(testInfo),
      // What the test may record: the suite's index of it (a partial run selects by the same).
      index: () => indexedRequirements(testInfo),
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
    // Attached as a file: the runner keeps its path, not its bytes, until the reporter reads it (a --models run
    // records some 16,000 tests).
    const file = testInfo.outputPath(`${EVIDENCE_ATTACHMENT}.json`);
    await writeFile(file, JSON.stringify(evidence));
    await testInfo.attach(EVIDENCE_ATTACHMENT, { path: file, contentType: 'application/json' });
    await rm(file, { force: true });
    // Whoever runs the suite with Playwright's own reporters still sees each finding (the verdict stays the reporter's).
    testInfo.annotations.push(...findingAnnotations(checker.records));
    if (findingsFailTests && checker.failures.length > 0) throw new Error(failureSummary(checker.records));
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
export { judges, req } from './declare.ts';

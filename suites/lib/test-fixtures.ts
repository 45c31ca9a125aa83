// The suite's `test`: Playwright's, with the target client, the checker and what discovery learned.
// At the end of every test its check records and exchanges are attached as one evidence document, which
// the reporter turns into per-requirement results. A finding is data, not an exception: a test fails in Playwright
// only where the kit itself could not do its work (an exception outside the checks, a timeout). A failed test ends
// its worker, so throwing per finding made a broken target cost a fresh worker per test.
import { rm, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { test as base, type TestInfo } from '@playwright/test';
import { Checker, EVIDENCE_ATTACHMENT, failureSummary } from '../../judge/checker.ts';
import { findingAnnotations } from './findings.ts';
import { declaredRequirements, indexedRequirements } from './declare.ts';
import { repoRoot, runConfig, type RunConfig } from '../../run/config.ts';
import { runTargets, TARGET_ANNOTATION, targetConfig, targetIndexOfAnnotations, targetRunsFile, type RunTarget } from '../../run/targets.ts';
import { loadDiscovery, type Discovery } from './discovery.ts';
import { discoveryFor, matrixModels, MODEL_ANNOTATION, modelOfAnnotations, modelSkipReason, runsPerModel } from './discovery-matrix.ts';
import { Target } from '../../run/target.ts';
import { playwrightHooks } from './runner-hooks.ts';

/** The target a test is declared for (its TARGET_ANNOTATION): its index in the run's targets. */
function targetIndexOf(testInfo: TestInfo): number {
  return targetIndexOfAnnotations(testInfo.annotations, runTargets() ?? []);
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

const suiteTest = base.extend<{ target: Target; check: Checker; discovery: Discovery; config: RunConfig; runTarget: RunTarget | undefined } & SuiteOptions>({
  // The kit's checks of itself (suites/kit.config.ts) judge the kit, not a target: there a failed MUST is the kit's
  // own failure and fails its Playwright test.
  findingsFailTests: [false, { option: true }],
  // A run of many targets declares every test once per target whose files hold it (see perSlot below): the test's
  // target annotation names its target.
  runTarget: [
    async ({}, use, testInfo) => {
      const targets = runTargets();
      const t = targets?.[targetIndexOf(testInfo)];
      if (targets && !t) throw new Error(`no target for the test ${testInfo.titlePath.join(' › ')} among the run's ${targets.length}`);
      await use(t);
    },
    { auto: true },
  ],
  // In a per-model matrix the test's model (its annotation) is the run's for this test: its requests count in its own budget.
  config: async ({ runTarget }, use, testInfo) => {
    const model = modelOfAnnotations(testInfo.annotations);
    const run = runTarget ? configOfTarget(runTarget, targetIndexOf(testInfo)) : runConfig();
    await use(model === undefined ? run : { ...run, matrixModel: model });
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

type SuiteTest = typeof suiteTest;
type Details = { tag?: string | string[]; annotation?: { type: string; description?: string } | { type: string; description?: string }[] };
type Location = { file: string; line: number; column: number };

const here = fileURLToPath(import.meta.url);

/** Where the spec file called `test(...)`: the first frame outside this module (source-mapped, as Playwright's own). */
function callerLocation(): Location {
  const holder: { stack?: string } = {};
  Error.captureStackTrace(holder);
  for (const frame of (holder.stack ?? '').split('\n').slice(1)) {
    const m = /(?:\(|at )((?:file:\/\/)?[^()\s][^()]*):(\d+):(\d+)\)?\s*$/.exec(frame);
    if (!m) continue;
    const file = m[1]!.startsWith('file://') ? fileURLToPath(m[1]!) : m[1]!;
    if (file !== here) return { file, line: Number(m[2]), column: Number(m[3]) };
  }
  throw new Error('a per-model test: its declaration has no location');
}

/** Playwright's declaration methods behind `test` and `test.describe`, given the location they record. */
interface Declarer {
  _createTest(type: 'default', location: Location, title: string, details: Details, body: unknown): void;
  _describe(type: 'default', location: Location, title: string, body: () => void): void;
}

/** One repetition of a test, declared in a describe block of its own: a model of the matrix, or a target of the run. */
interface Slot {
  /** The describe block's title (the model's id, the target's name). */
  title: string;
  annotation: { type: string; description: string };
  /** Whether a test of this file, with these tags, is declared in this slot (else once, outside any slot). */
  runs(file: string, tags: readonly string[]): boolean;
  /** A test of this file, with these tags, that runs in no slot is not declared at all (a target does not run its file). */
  exclusive: boolean;
}

/**
 * `test` of a run with slots (a per-model matrix, or many targets): a test is declared once per slot that runs it,
 * in a describe block named by the slot and annotated with it, at the spec file's own location; a test no slot takes
 * is declared once (the matrix's model-independent tests), or not at all (a file no target runs). Every declaration
 * is the same project's with the same fixtures, so one worker serves every slot: a project, or a repetition of
 * repeatEach, would each take workers of their own. Playwright's public `test()` takes its location from its
 * immediate caller: the declarations go through the methods it wraps, given the caller's location.
 */
function perSlot(t: SuiteTest, slots: readonly Slot[]): SuiteTest {
  const symbol = Object.getOwnPropertySymbols(t).find((s) => s.description === 'testType');
  const declarer = symbol ? ((t as unknown as Record<symbol, Partial<Declarer>>)[symbol]) : undefined;
  if (typeof declarer?._createTest !== 'function' || typeof declarer._describe !== 'function') throw new Error('this version of Playwright declares tests in a way the kit does not know (a run of several models or targets needs it)');
  const d = declarer as Declarer;
  return new Proxy(t, {
    apply(_target, _this, args: unknown[]) {
      const location = callerLocation();
      const [title, second, third] = args as [string, Details | unknown, unknown];
      const details: Details = typeof second === 'function' ? {} : ((second as Details | undefined) ?? {});
      const body = typeof second === 'function' ? second : third;
      const tags = [details.tag ?? []].flat();
      const mine = slots.filter((slot) => slot.runs(location.file, tags));
      if (mine.length === 0) {
        if (!slots.some((slot) => slot.exclusive)) d._createTest('default', location, title, details, body);
        return;
      }
      const annotations = [details.annotation ?? []].flat();
      for (const slot of mine) d._describe('default', location, slot.title, () => d._createTest('default', location, title, { ...details, annotation: [...annotations, slot.annotation] }, body));
    },
  });
}

const chosen = matrixModels();
const targets = runTargets();
const slots: Slot[] | undefined = chosen
  ? chosen.map((model) => ({ title: model, annotation: { type: MODEL_ANNOTATION, description: model }, runs: runsPerModel, exclusive: false }))
  : targets?.map((target) => ({ title: target.name, annotation: { type: TARGET_ANNOTATION, description: target.name }, runs: (file) => targetRunsFile(target, file, repoRoot), exclusive: true }));
export const test: SuiteTest = slots ? perSlot(suiteTest, slots) : suiteTest;

export { expect } from '@playwright/test';
export { judges, req } from './declare.ts';

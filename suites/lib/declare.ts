// How a Playwright test of the suite declares what it checks. The judge (the Checker) knows nothing of Playwright:
// these turn its plain inputs into annotations and tags.
import type { TestInfo } from '@playwright/test';
import { isKnownRequirement, primaryOf } from '../../spec/requirements/index.ts';
import { REQUIREMENT_ANNOTATION } from '../../judge/checker.ts';
import { JUDGE_ANNOTATION, type JudgeEntry } from '../../judge/entry.ts';
import { judgeIdsOf } from '../../judge/entry-points.ts';
import { MODEL_DEPENDENT_TAG } from '../../run/trials.ts';

/** What a test says about itself besides its IDs. */
export interface ReqOptions {
  /**
   * Its outcome depends on what the model samples (a tool call produced, reasoning returned, a search performed, a
   * cap kept by stopping): --trials repeats it, and a per-model matrix runs it once per model. The tag
   * `@model-dependent` is the one place this is said; nothing selects these tests by title.
   */
  modelDependent?: boolean;
}

/** The judge entry points a test calls (judge/entry.ts), as `req(...)` takes them: `req('TOOL-006', judges(judgeStream))`. */
export interface Judges {
  readonly judges: readonly JudgeEntry[];
}

/** Declares the judge entry points a test calls: the function objects, so a rename is a type error. */
export function judges(...entries: JudgeEntry[]): Judges {
  return { judges: entries };
}

const isJudges = (a: unknown): a is Judges => typeof a === 'object' && a !== null && Array.isArray((a as Judges).judges);

/**
 * Test details declaring the requirement IDs a test checks itself and the judge entry points it calls:
 * `test('…', req('CAT-001', judges(judgeModelList)), async …)`, or `req('TOOL-006', { modelDependent: true })`. Each ID
 * and each entry point is an annotation: the reporter folds results by the IDs, and the suite's index
 * (run/test-index/) reads both from a listing of the suite, so a partial run selects every test that can record an ID.
 */
export function req(...args: (string | ReqOptions | Judges)[]): { annotation: { type: string; description: string }[]; tag: string[] } {
  const ids = args.filter((a): a is string => typeof a === 'string');
  const entries = args.filter(isJudges).flatMap((j) => j.judges);
  const options = args.filter((a): a is ReqOptions => typeof a !== 'string' && !isJudges(a));
  for (const id of ids) if (!isKnownRequirement(id)) throw new Error(`req(): unknown requirement ID ${id}`);
  // A name the registry does not know is an entry point it does not list: the index could not read it.
  for (const e of entries) judgeIdsOf(e.name);
  const unique = [...new Set(ids)];
  const names = [...new Set(entries.map((e) => e.name))];
  return {
    annotation: [...unique.map((id) => ({ type: REQUIREMENT_ANNOTATION, description: id })), ...names.map((name) => ({ type: JUDGE_ANNOTATION, description: name }))],
    tag: options.some((o) => o.modelDependent) ? [MODEL_DEPENDENT_TAG] : [],
  };
}

/** The requirement IDs a test declares with `req()`. */
export function declaredRequirements(testInfo: Pick<TestInfo, 'annotations'>): string[] {
  return testInfo.annotations.filter((a) => a.type === REQUIREMENT_ANNOTATION && a.description).map((a) => a.description!);
}

/** The test's index: the IDs it declares and those of the judge entry points it declares (primary IDs). */
export function indexedRequirements(testInfo: Pick<TestInfo, 'annotations'>): string[] {
  const judged = testInfo.annotations.filter((a) => a.type === JUDGE_ANNOTATION && a.description).flatMap((a) => judgeIdsOf(a.description!));
  return [...new Set([...declaredRequirements(testInfo).map(primaryOf), ...judged])];
}

// How a Playwright test of the suite declares what it checks. The judge (the Checker) knows nothing of Playwright:
// these turn its plain inputs into annotations and tags.
import type { TestInfo } from '@playwright/test';
import { isKnownRequirement } from '../../spec/requirements/index.ts';
import { REQUIREMENT_ANNOTATION } from '../../judge/checker.ts';
import { tagOf } from '../../run/selection.ts';
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

/**
 * Test details declaring the requirement IDs a test checks: `test('…', req('CAT-001'), async …)`, or
 * `req('TOOL-006', { modelDependent: true })`. Each ID is an annotation (the reporter folds results by it) and a tag
 * (`@CAT-001`: a partial run selects tests by it).
 */
export function req(...args: (string | ReqOptions)[]): { annotation: { type: string; description: string }[]; tag: string[] } {
  const ids = args.filter((a): a is string => typeof a === 'string');
  const options = args.filter((a): a is ReqOptions => typeof a !== 'string');
  for (const id of ids) if (!isKnownRequirement(id)) throw new Error(`req(): unknown requirement ID ${id}`);
  const unique = [...new Set(ids)];
  const tags = [...unique.map(tagOf), ...(options.some((o) => o.modelDependent) ? [MODEL_DEPENDENT_TAG] : [])];
  return { annotation: unique.map((id) => ({ type: REQUIREMENT_ANNOTATION, description: id })), tag: tags };
}

/** The requirement IDs a test declares with `req()`. */
export function declaredRequirements(testInfo: Pick<TestInfo, 'annotations'>): string[] {
  return testInfo.annotations.filter((a) => a.type === REQUIREMENT_ANNOTATION && a.description).map((a) => a.description!);
}

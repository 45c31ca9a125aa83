// How a Playwright test of the suite declares what it checks. The judge (the Checker) knows nothing of Playwright:
// these turn its plain inputs into annotations and tags.
import type { TestInfo } from '@playwright/test';
import { isKnownRequirement } from '../../spec/requirements/index.ts';
import { REQUIREMENT_ANNOTATION } from '../../judge/checker.ts';
import { tagOf } from '../../run/selection.ts';

/**
 * Test details declaring the requirement IDs a test checks: `test('…', req('CAT-001'), async …)`. Each ID is an
 * annotation (the reporter folds results by it) and a tag (`@CAT-001`: a partial run selects tests by it).
 */
export function req(...ids: string[]): { annotation: { type: string; description: string }[]; tag: string[] } {
  for (const id of ids) if (!isKnownRequirement(id)) throw new Error(`req(): unknown requirement ID ${id}`);
  const unique = [...new Set(ids)];
  return { annotation: unique.map((id) => ({ type: REQUIREMENT_ANNOTATION, description: id })), tag: unique.map(tagOf) };
}

/** The requirement IDs a test declares with `req()`. */
export function declaredRequirements(testInfo: Pick<TestInfo, 'annotations'>): string[] {
  return testInfo.annotations.filter((a) => a.type === REQUIREMENT_ANNOTATION && a.description).map((a) => a.description!);
}

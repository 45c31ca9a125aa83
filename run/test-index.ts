// The suite's index: for every test of the conformance suite (its file and title path), the requirement IDs it can
// record: those it declares with req() and those of the judge entry points it declares with judges() (judge/entry.ts).
// Generated from a listing of the suite by scripts/test-index.ts into run/test-index/test-index.json, shipped with the
// package (the compiled kit never parses sources), and held fresh by npm test. A partial run (--requirement,
// --section, --level, --last-failed) runs every test whose index holds a chosen ID: a test can record an ID only if
// its index holds it (the Checker refuses any other), so a selection never misses a test that would judge it.
import { readFileSync } from 'node:fs';
import { isKnownRequirement, primaryOf } from '../spec/requirements/index.ts';

export interface IndexedTest {
  /** The spec file, relative to the suite's folder, with its extension as in the sources (`chat.spec.ts`). */
  file: string;
  /** Describe titles and the test's own title, outermost first. */
  titles: string[];
  /** The IDs it declares with req() (as written). */
  declared: string[];
  /** The judge entry points it declares, by name. */
  judges: string[];
  /** Every primary ID it can record: the declared ones and the entry points' IDs. */
  ids: string[];
}

export interface TestIndex {
  /** How the index was made, for a reader of the file. */
  note: string;
  tests: IndexedTest[];
}

/** Where the index lives, beside this module (in the repository and in the package's dist/). */
export const TEST_INDEX_FILE = new URL('./test-index/test-index.json', import.meta.url);

let cached: TestIndex | undefined;
/** The shipped index, read once. */
export function testIndex(): TestIndex {
  if (!cached) {
    const data = JSON.parse(readFileSync(TEST_INDEX_FILE, 'utf8')) as TestIndex;
    if (!Array.isArray(data.tests)) throw new Error(`the suite's index ${TEST_INDEX_FILE.pathname} holds no tests: run npm run requirements:md`);
    cached = data;
  }
  return cached;
}

/** The tests whose index holds one of `ids` (restatements count as their primary). */
export function testsRecording(ids: readonly string[], index: TestIndex = testIndex()): IndexedTest[] {
  const wanted = new Set(ids.filter(isKnownRequirement).map(primaryOf));
  return index.tests.filter((t) => t.ids.some((id) => wanted.has(id)));
}

/** The tests that declare one of `ids` with req() (what an exclusion leaves out). */
export function testsDeclaring(ids: readonly string[], index: TestIndex = testIndex()): IndexedTest[] {
  const wanted = new Set(ids.filter(isKnownRequirement).map(primaryOf));
  return index.tests.filter((t) => t.declared.some((id) => isKnownRequirement(id) && wanted.has(primaryOf(id))));
}

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * A pattern for Playwright's grep that matches one test: Playwright matches "project file describe… title tags" (each
 * part joined by a space; a describe's tags follow its title). The file, then the test's title path in order, then
 * its tags only; a run's slot blocks (a target's, a model's, a trial's describe block) may sit anywhere between the
 * file and the test's own title. A compiled kit's file ends in .js.
 */
export function grepOf(test: Pick<IndexedTest, 'file' | 'titles'>): RegExp {
  const file = escape(test.file.replace(/\.[jt]s$/, '')) + '\\.[jt]s';
  const between = '\\s(?:.*\\s)?';
  return new RegExp(`(?:^|\\s)${file}${between}${test.titles.map(escape).join(between)}(?:\\s@\\S+)*$`);
}

/** A key of a test that names it whatever runs it: its file and title path. */
export const testKey = (t: Pick<IndexedTest, 'file' | 'titles'>): string => `${t.file.replace(/\.[jt]s$/, '')} › ${t.titles.join(' › ')}`;

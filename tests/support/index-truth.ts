// The suite's index kept true against what a run did: every test that recorded a requirement (a pass, a failure, a
// warning, an observation, a skip) must be in that requirement's selection, the tests whose index holds it
// (run/test-index.ts). A test outside it would be left out of `run --requirement X` while the whole run judges X
// there: the subset's verdict would differ from the whole run's.
import { primaryOf, isKnownRequirement } from '../../spec/requirements/index.ts';
import { testIndex, testKey, type TestIndex } from '../../run/test-index.ts';

/**
 * What this reads of a conformance.json: each requirement and the tests that declared or recorded it (version 2 lists
 * at most 20 per requirement; the Checker refuses a record outside the index as it is made, so this is the second
 * look). A case without a file (a proxy's exchange, a client's scenario) is not a test of the suite.
 */
export interface RecordedBy {
  requirements: readonly { id: string; tests: readonly { title: string; file?: string }[] }[];
}

/**
 * The requirements a report shows recorded by a test whose index does not hold them, as "ID: file › title" lines;
 * and the tests of the report the index does not know at all. `file` in a report is relative to the kit's root.
 */
export function indexMisses(report: RecordedBy, index: TestIndex = testIndex()): { outside: string[]; unknownTests: string[] } {
  const byKey = new Map(index.tests.map((t) => [testKey(t), t]));
  const outside = new Set<string>();
  const unknownTests = new Set<string>();
  for (const r of report.requirements) {
    if (!isKnownRequirement(r.id)) continue;
    for (const t of r.tests) {
      if (t.file === undefined) continue;
      const file = t.file.replace(/^(?:.*\/)?suites\//, '');
      const key = testKey({ file, titles: t.title.split(' › ') });
      const entry = byKey.get(key);
      if (!entry) unknownTests.add(key);
      else if (!entry.ids.includes(primaryOf(r.id))) outside.add(`${r.id}: ${key}`);
    }
  }
  return { outside: [...outside].sort(), unknownTests: [...unknownTests].sort() };
}

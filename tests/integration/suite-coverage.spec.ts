// Every requirement of the catalog is judged: some conformance test can record it (the suite's index: the IDs a test
// declares with req() and those of the judge entry points it declares with judges()); the kit's own (`mock-only`) by a
// kit test (suites/kit/), never in a target's run. No test declares an ID the catalog does not know. The shipped index
// (run/test-index/) is the listing's, and a selection's grep takes exactly the tests the index names. Read from
// Playwright's own listing of the suite, not from the source text.
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { isKnownRequirement, primaryOf, requirements } from '../../spec/requirements/index.ts';
import { judgeIdsOf } from '../../judge/entry-points.ts';
import { selectedIds, selectedTests, selectionTakesTests, type Selection } from '../../run/selection.ts';
import { listSuite, type ListedTest } from '../../run/suite-listing.ts';
import { testIndex, testKey } from '../../run/test-index.ts';
import { indexOf, listForIndex, renderIndex } from '../../scripts/test-index.ts';
import { requirementLinks } from '../../scripts/requirement-links.ts';
import { repoRoot } from '../../run/config.ts';
import { KIT_CONFIG, PLAYWRIGHT_CLI } from './support/suite-runner.ts';

/** Every ID a listed test can record. */
const recordable = (t: ListedTest): string[] => [...t.ids.map(primaryOf), ...t.judges.flatMap(judgeIdsOf)];

/** The listing's environment: no run's settings but those given. */
function env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^(TEST_|PW_|PLAYWRIGHT_|CONFORMANCE_)/.test(k)) out[k] = v;
  return { ...out, ...extra };
}

const listConformance = (extra: Record<string, string>) => listSuite({ playwrightCli: PLAYWRIGHT_CLI, config: path.join(repoRoot, 'suites/conformance.config.ts') }, env(extra));
const keyOf = (t: ListedTest) => testKey({ file: t.file, titles: t.titles });

test('every requirement is judged: some conformance test can record it (the kit\'s own by a kit test); the shipped index is the listing\'s', () => {
  const suite = listForIndex();
  const kit = listSuite({ playwrightCli: PLAYWRIGHT_CLI, config: path.join(repoRoot, KIT_CONFIG) }, env());
  const unknown = [...suite, ...kit].flatMap((t) => t.ids).filter((id) => !isKnownRequirement(id));
  expect(unknown, 'tests declare IDs the catalog does not know').toEqual([]);
  const inSuite = new Set(suite.flatMap(recordable));
  const inKit = new Set(kit.flatMap(recordable));
  // A rule the contract states twice is judged under its primary ID (`sameAs`).
  const targetRules = requirements.filter((r) => r.check !== 'mock-only' && !r.sameAs);
  expect(targetRules.map((r) => r.id).filter((id) => !inSuite.has(id)), 'requirements no conformance test can record').toEqual([]);
  const kitRules = requirements.filter((r) => r.check === 'mock-only' && !r.sameAs);
  expect(kitRules.map((r) => r.id).filter((id) => !inKit.has(id)), "the kit's own requirements no kit test declares").toEqual([]);
  expect(kitRules.map((r) => r.id).filter((id) => new Set(suite.flatMap((t) => t.ids)).has(id)), "the kit's own requirements must stay out of a target's run").toEqual([]);
  // The index a partial run selects by is this listing's (npm run requirements:md regenerates it).
  expect(renderIndex(indexOf(suite)) === renderIndex(testIndex()), 'run/test-index/test-index.json is stale: run npm run requirements:md').toBe(true);
});

test('a selection takes exactly the tests its index names: Playwright runs them, and only them, under its grep', () => {
  const none: Selection = { requirements: [], sections: [], levels: [], exclude: [] };
  const cases: { sel: Selection; env: Record<string, string> }[] = [
    // Judged by every stream: the streamed tool calls of tools.spec.ts are in, though none declares it.
    { sel: { ...none, requirements: ['STREAM-004'] }, env: { CONFORMANCE_REQUIREMENTS: 'STREAM-004' } },
    { sel: { ...none, sections: ['2.7'], exclude: ['SEARCH-049'] }, env: { CONFORMANCE_SECTIONS: '2.7', CONFORMANCE_EXCLUDE_REQUIREMENTS: 'SEARCH-049' } },
  ];
  for (const c of cases) {
    const listed = listConformance(c.env).map(keyOf).sort();
    expect(listed, JSON.stringify(c.env)).toEqual(selectedTests(c.sel).map(testKey).sort());
    expect(listed.length).toBeGreaterThan(0);
  }
  expect(listConformance({ CONFORMANCE_REQUIREMENTS: 'STREAM-004' }).some((t) => t.file === 'tools.spec.ts')).toBe(true);
  // Every requirement of a target selects a test; the kit's own select none (chatconform run refuses them, no listing).
  for (const r of requirements.filter((q) => !q.sameAs)) {
    const sel = { ...none, requirements: [r.id] };
    expect(selectionTakesTests(sel), r.id).toBe(r.check !== 'mock-only');
    expect(selectedIds(sel)).toContain(r.id);
  }
});

test('the MUST requirements no defect mode breaks are listed (the defect matrix cannot show the suite catches them)', () => {
  const links = requirementLinks();
  const unbroken = requirements.filter((r) => r.kind === 'requirement' && r.level === 'MUST' && !r.sameAs && r.check !== 'mock-only' && links.get(r.id)!.defects.length === 0);
  const broken = requirements.filter((r) => links.get(r.id)!.defects.length > 0);
  console.log(`defect modes break ${broken.length} requirement(s); ${unbroken.length} MUST requirement(s) are broken by none: ${unbroken.map((r) => r.id).join(', ')}`);
  // Every defect mode names a requirement the catalog knows, so the list above is exact.
  expect(broken.length).toBeGreaterThan(0);
  for (const [id, l] of links) if (l.defects.length > 0) expect(isKnownRequirement(id), id).toBe(true);
});

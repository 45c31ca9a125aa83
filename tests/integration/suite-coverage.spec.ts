// Every requirement of the catalog is judged: by a check registered for every response of its kind
// (judge/checks/registry.ts) or by a conformance test that declares it; the kit's own (`mock-only`) by a kit
// test (suites/kit/), never in a target's run. No test declares an ID the catalog does not know. Read from Playwright's own listing of the suite, not from the source text.
import { expect, test } from '@playwright/test';
import { isKnownRequirement, requirements } from '../../spec/requirements/index.ts';
import { REQUIREMENT_ANNOTATION } from '../../judge/checker.ts';
import { CHECKED_IDS } from '../../judge/checks/registry.ts';
import { filesCheckingByKind, selectedIds, selectionTakesTests, type Selection } from '../../run/selection.ts';
import { requirementLinks } from '../../scripts/requirement-links.ts';
import { cleanup, CONFORMANCE_CONFIG, KIT_CONFIG, runSuite } from './support/suite-runner.ts';

interface ListedSuite {
  specs?: { title: string; file: string; line: number; tests: { annotations?: { type: string; description?: string }[] }[] }[];
  suites?: ListedSuite[];
}

async function listSuite(config = CONFORMANCE_CONFIG): Promise<Map<string, string[]>> {
  // The listing of a user's run against the embedded mock: none of the cheap target runs' settings.
  const run = await runSuite({ config, extraArgs: ['--list', '--reporter=json'], seed: null, fuzzRuns: null, workers: null, boundMs: 120_000, label: 'list', keepChars: 64 * 1024 * 1024 });
  cleanup(run);
  expect(run.code, run.stderr).toBe(0);
  const report = JSON.parse(run.stdout) as { suites: ListedSuite[]; errors: unknown[] };
  expect(report.errors, 'the suite lists without load errors').toEqual([]);
  const declared = new Map<string, string[]>();
  const walk = (s: ListedSuite) => {
    for (const spec of s.specs ?? []) {
      for (const t of spec.tests) {
        for (const a of t.annotations ?? []) {
          if (a.type !== REQUIREMENT_ANNOTATION || !a.description) continue;
          declared.set(a.description, [...(declared.get(a.description) ?? []), `${spec.file}:${spec.line} ${spec.title}`]);
        }
      }
    }
    for (const c of s.suites ?? []) walk(c);
  };
  report.suites.forEach(walk);
  return declared;
}

test('every requirement is judged: by a registered check, or declared by a conformance test (the kit\'s own by a kit test)', async () => {
  const [declared, kit] = await Promise.all([listSuite(), listSuite(KIT_CONFIG)]);
  const unknown = [...declared.keys(), ...kit.keys()].filter((id) => !isKnownRequirement(id));
  expect(unknown, 'tests declare IDs the catalog does not know').toEqual([]);
  // A rule the contract states twice is judged under its primary ID (`sameAs`).
  const targetRules = requirements.filter((r) => r.check !== 'mock-only' && !r.sameAs);
  const missing = targetRules.map((r) => r.id).filter((id) => !declared.has(id) && !CHECKED_IDS.has(id));
  expect(missing, 'requirements no check judges and no conformance test declares').toEqual([]);
  const kitRules = requirements.filter((r) => r.check === 'mock-only' && !r.sameAs);
  expect(kitRules.map((r) => r.id).filter((id) => !kit.has(id)), "the kit's own requirements no kit test declares").toEqual([]);
  expect(kitRules.map((r) => r.id).filter((id) => declared.has(id)), "the kit's own requirements must stay out of a target's run").toEqual([]);
});

test('a requirement, section or level selection takes a test exactly when the catalog says so (chatconform run checks it without listing the suite)', async () => {
  const declared = await listSuite();
  const none: Selection = { requirements: [], sections: [], levels: [], exclude: [] };
  const selections: Selection[] = [
    ...requirements.map((r) => ({ ...none, requirements: [r.id] })),
    ...[...new Set(requirements.map((r) => r.section))].map((s) => ({ ...none, sections: [s] })),
    ...(['MUST', 'SHOULD', 'MAY'] as const).map((l) => ({ ...none, levels: [l] })),
  ];
  let empty = 0;
  for (const sel of selections) {
    const ids = selectedIds(sel);
    // What the run's grep takes: a test tagged with a selected ID, or a file of a registered check's kind.
    const listed = ids.some((id) => declared.has(id)) || filesCheckingByKind(ids).length > 0;
    if (!listed) empty++;
    expect(selectionTakesTests(sel), JSON.stringify(sel)).toBe(listed);
  }
  // The kit's own requirements select nothing: the check above has both answers to compare.
  expect(empty).toBeGreaterThan(0);
  expect(selectionTakesTests({ ...none, requirements: ['STREAM-004'], exclude: ['STREAM-013'] })).toBeUndefined();
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

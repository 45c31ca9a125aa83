// Model-dependent tests are said so where they are declared (req(..., { modelDependent: true }): the tag
// @model-dependent), and --trials and the per-model matrix pick them by that tag, never by title: Playwright's own
// listing of the suite with the trials project (and with a matrix) holds exactly the tagged tests.
import { execFileSync } from 'node:child_process';
import { expect, test } from '@playwright/test';
import { CONFORMANCE_CONFIG, playwrightCli } from '../../cli/kit-files.ts';
import { matrixProjects, SHARED_PROJECT } from '../../suites/lib/discovery-matrix.ts';
import { MODEL_DEPENDENT_GREP, MODEL_DEPENDENT_REQUIREMENTS, MODEL_DEPENDENT_TAG, TRIALS_PROJECT, trialProjects } from '../../run/trials.ts';
import { req } from '../../suites/lib/declare.ts';

interface Spec {
  title: string;
  file: string;
  line: number;
  tags: string[];
  tests: { projectName: string; annotations?: { type: string; description?: string }[] }[];
}
interface Suite {
  title: string;
  specs?: Spec[];
  suites?: Suite[];
}

/** Every test of the suite as `playwright test --list` gives it under `env`: its location, full title, tags and projects. */
function listing(env: Record<string, string>): { key: string; tags: string[]; projects: string[]; ids: string[] }[] {
  const { CONFORMANCE_TRIALS: _t, CONFORMANCE_MODEL_MATRIX: _m, ...base } = process.env;
  const out = execFileSync(process.execPath, [playwrightCli(), 'test', '-c', CONFORMANCE_CONFIG, '--list', '--reporter=json'], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, env: { ...base, ...env, FORCE_COLOR: '0' } });
  const rows: { key: string; tags: string[]; projects: string[]; ids: string[] }[] = [];
  const walk = (s: Suite, titles: string[]) => {
    for (const spec of s.specs ?? []) {
      const ids = spec.tests.flatMap((t) => (t.annotations ?? []).filter((a) => a.type === 'requirement').map((a) => a.description ?? ''));
      rows.push({ key: `${spec.file}:${spec.line} ${[...titles, spec.title].join(' › ')}`, tags: spec.tags.map((t) => `@${t}`), projects: spec.tests.map((t) => t.projectName), ids });
    }
    for (const child of s.suites ?? []) walk(child, [...titles, child.title]);
  };
  for (const file of (JSON.parse(out) as { suites: Suite[] }).suites) walk(file, []);
  return rows;
}

test('--trials repeats exactly the tests tagged model-dependent, each of which checks a sampled requirement', () => {
  const rows = listing({ CONFORMANCE_TRIALS: '2' });
  const tagged = rows.filter((r) => r.tags.includes(MODEL_DEPENDENT_TAG));
  const repeated = rows.filter((r) => r.projects.includes(TRIALS_PROJECT));
  expect(tagged.length, 'the suite declares its model-dependent tests').toBeGreaterThanOrEqual(13);
  expect(repeated.map((r) => r.key).sort()).toEqual(tagged.map((r) => r.key).sort());
  // Twice each (repeatEach 2), and never also in the once-only project.
  for (const r of repeated) expect(r.projects, r.key).toEqual([TRIALS_PROJECT, TRIALS_PROJECT]);
  // A tag on a test that judges nothing on sampling would repeat it for nothing.
  for (const r of tagged) expect(r.ids.some((id) => MODEL_DEPENDENT_REQUIREMENTS.has(id)), r.key).toBe(true);
});

test('a per-model matrix runs every tagged test once per model, and the model-independent rest once', () => {
  const rows = listing({ CONFORMANCE_MODEL_MATRIX: 'acme/chat-small,tiny-thinker' });
  for (const r of rows.filter((x) => x.tags.includes(MODEL_DEPENDENT_TAG))) expect(r.projects.sort(), r.key).toEqual(['acme/chat-small', 'tiny-thinker']);
  expect(rows.some((r) => r.projects.includes(SHARED_PROJECT))).toBe(true);
});

test('selection is by tag: a renamed tagged test keeps its trials and its per-model runs; an untagged one with the old title gets neither', () => {
  const details = req('TOOL-006', { modelDependent: true });
  expect(details.tag).toEqual(['@TOOL-006', MODEL_DEPENDENT_TAG]);
  expect(req('TOOL-006').tag).toEqual(['@TOOL-006']);
  // What Playwright greps: "project file describe… title @tags".
  const renamed = ` trials tools.spec.ts tool_choice a title nobody wrote before ${details.tag.join(' ')}`;
  const oldTitleUntagged = ' trials tools.spec.ts tool_choice an object naming one declared function is accepted; which shapes the target takes is recorded @TOOL-003 @TOOL-006';
  const [once, repeated] = trialProjects({}, { CONFORMANCE_TRIALS: '3' }).projects!;
  expect(repeated!.grep!.test(renamed)).toBe(true);
  expect(once!.grepInvert!.test(renamed)).toBe(true);
  expect(repeated!.grep!.test(oldTitleUntagged)).toBe(false);
  expect(MODEL_DEPENDENT_GREP.test(`${oldTitleUntagged} @model-dependent-x`), 'a longer tag is another tag').toBe(false);
  // In a shared (model-independent) file, the tag still makes the test run per model, and never once-only.
  const [shared, model] = matrixProjects(['m'], '.ts');
  const inCatalog = ' m catalog.spec.ts GET /v1/models a renamed sampled test @CAT-001 @model-dependent';
  expect(model!.grep!.test(inCatalog)).toBe(true);
  expect(shared!.grepInvert!.test(inCatalog)).toBe(true);
  expect(model!.grep!.test(' m catalog.spec.ts GET /v1/models answers with the run credential @CAT-001')).toBe(false);
  expect(model!.grep!.test(' m chat.spec.ts a plain completion @CHAT-001')).toBe(true);
});

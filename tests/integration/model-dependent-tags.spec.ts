// Model-dependent tests are said so where they are declared (req(..., { modelDependent: true }): the tag
// @model-dependent), and --trials and the per-model matrix pick them by that tag, never by title: Playwright's own
// listing of the suite with the trials project (and with a matrix) holds exactly the tagged tests.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { repoRoot } from '../../run/config.ts';
import { expect, test } from '@playwright/test';
import { CONFORMANCE_CONFIG, playwrightCli } from '../../cli/kit-files.ts';
import { MODEL_ANNOTATION, MODEL_INDEPENDENT_SPECS, runsPerModel } from '../../suites/lib/discovery-matrix.ts';
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
function listing(env: Record<string, string>): { key: string; file: string; tags: string[]; projects: string[]; ids: string[]; models: string[] }[] {
  const { CONFORMANCE_TRIALS: _t, CONFORMANCE_MODEL_MATRIX: _m, ...base } = process.env;
  const out = execFileSync(process.execPath, [playwrightCli(), 'test', '-c', CONFORMANCE_CONFIG, '--list', '--reporter=json'], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, env: { ...base, ...env, FORCE_COLOR: '0' } });
  const rows: { key: string; file: string; tags: string[]; projects: string[]; ids: string[]; models: string[] }[] = [];
  const walk = (s: Suite, titles: string[]) => {
    for (const spec of s.specs ?? []) {
      const ids = spec.tests.flatMap((t) => (t.annotations ?? []).filter((a) => a.type === 'requirement').map((a) => a.description ?? ''));
      const models = spec.tests.flatMap((t) => (t.annotations ?? []).filter((a) => a.type === MODEL_ANNOTATION).map((a) => a.description ?? ''));
      // The model's describe block (directly around the test) left out: the key is the test's wherever it runs.
      const own = models.length > 0 && titles.at(-1) === models[0] ? titles.slice(0, -1) : titles;
      rows.push({ key: `${spec.file}:${spec.line} ${[...own, spec.title].join(' › ')}`, file: spec.file, tags: spec.tags.map((t) => `@${t}`), projects: spec.tests.map((t) => t.projectName), ids, models });
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

test('a per-model matrix declares every tagged test and every test of a model-dependent file once per model, the rest once, all in one project', () => {
  const plain = listing({});
  const rows = listing({ CONFORMANCE_MODEL_MATRIX: 'acme/chat-small,tiny-thinker' });
  const byKey = new Map<string, string[]>();
  for (const r of rows) byKey.set(r.key, [...(byKey.get(r.key) ?? []), ...r.models]);
  const shared = (file: string) => (MODEL_INDEPENDENT_SPECS as readonly string[]).includes(file.replace(/\.spec\.ts$/, ''));
  // The same tests as a run without the matrix, each at its own location in its spec file.
  expect([...byKey.keys()].sort()).toEqual(plain.map((r) => r.key).sort());
  for (const r of plain) {
    const perModel = r.tags.includes(MODEL_DEPENDENT_TAG) || !shared(r.file);
    expect(byKey.get(r.key)!.sort(), r.key).toEqual(perModel ? ['acme/chat-small', 'tiny-thinker'] : []);
  }
  // One project (no project per model): the same workers serve every model.
  expect(new Set(rows.flatMap((r) => r.projects))).toEqual(new Set(['']));
});

test('selection is by tag: a renamed tagged test keeps its trials and its per-model runs; an untagged one with the old title gets neither', () => {
  const details = req('TOOL-006', { modelDependent: true });
  expect(details.tag).toEqual([MODEL_DEPENDENT_TAG]);
  expect(req('TOOL-006').tag).toEqual([]);
  const matches = (patterns: readonly RegExp[], title: string) => patterns.some((p) => p.test(title));
  // What Playwright greps: "project file describe… title @tags".
  const renamed = ` trials tools.spec.ts tool_choice a title nobody wrote before ${details.tag.join(' ')}`;
  const oldTitleUntagged = ' trials tools.spec.ts tool_choice an object naming one declared function is accepted; which shapes the target takes is recorded @TOOL-003 @TOOL-006';
  const [once, repeated] = trialProjects({}, { CONFORMANCE_TRIALS: '3' }).projects!;
  expect(matches(repeated!.grep!, renamed)).toBe(true);
  expect(matches(once!.grepInvert!, renamed)).toBe(true);
  expect(matches(repeated!.grep!, oldTitleUntagged)).toBe(false);
  expect(MODEL_DEPENDENT_GREP.test(`${oldTitleUntagged} @model-dependent-x`), 'a longer tag is another tag').toBe(false);
  // In a shared (model-independent) file, the tag still makes the test run per model, and never once-only.
  const suites = path.resolve(repoRoot, 'suites');
  expect(runsPerModel(path.join(suites, 'catalog.spec.ts'), details.tag)).toBe(true);
  expect(runsPerModel(path.join(suites, 'catalog.spec.ts'), ['@CAT-001'])).toBe(false);
  expect(runsPerModel(path.join(suites, 'chat.spec.ts'), ['@CHAT-001'])).toBe(true);
  // A model-independent file is one of the suite's top folder: another folder's file of that name is not.
  expect(runsPerModel(path.join(suites, 'properties', 'errors.spec.ts'), [])).toBe(true);
});

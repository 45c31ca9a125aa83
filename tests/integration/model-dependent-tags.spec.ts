// Model-dependent tests are said so where they are declared (req(..., { modelDependent: true }): the tag
// @model-dependent), and --trials and the per-model matrix pick them by that tag, never by title: Playwright's own
// listing of the suite with trials (and with a matrix) repeats exactly the tagged tests, each in its slot's block.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { repoRoot } from '../../run/config.ts';
import { expect, test } from '@playwright/test';
import { CONFORMANCE_CONFIG, playwrightCli } from '../../cli/kit-files.ts';
import { isModelIndependentSpec, MODEL_INDEPENDENT_SPECS } from '../../suites/lib/discovery-matrix.ts';
import { MODEL_DEPENDENT_REQUIREMENTS, MODEL_DEPENDENT_TAG } from '../../run/trials.ts';
import { SLOT_GREP_INVERT, SLOT_TAG, slotOfAnnotations, slotsOfFile, slotTitle } from '../../run/slots.ts';
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
interface Row {
  /** `file:line describe › title`, without the slot's block: the test's wherever it runs. */
  key: string;
  file: string;
  tags: string[];
  projects: string[];
  ids: string[];
  model?: string;
  trial?: number;
}

const SLOT_TAGS: string[] = Object.values(SLOT_TAG);

/** Every test of the suite as `playwright test --list` gives it under `env`: its location, full title, tags, projects and slot. */
function listing(env: Record<string, string>): Row[] {
  const { CONFORMANCE_TRIALS: _t, CONFORMANCE_MODEL_MATRIX: _m, ...base } = process.env;
  const out = execFileSync(process.execPath, [playwrightCli(), 'test', '-c', CONFORMANCE_CONFIG, '--list', '--reporter=json'], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, env: { ...base, ...env, FORCE_COLOR: '0' } });
  const rows: Row[] = [];
  const walk = (s: Suite, titles: string[]) => {
    for (const spec of s.specs ?? []) {
      const annotations = spec.tests[0]?.annotations ?? [];
      const ids = spec.tests.flatMap((t) => (t.annotations ?? []).filter((a) => a.type === 'requirement').map((a) => a.description ?? ''));
      const slot = slotOfAnnotations(annotations);
      // The slot's block (the outermost) left out; an anonymous block has no title.
      const own = titles.filter((t, i) => t !== '' && !(i === 0 && t === slotTitle({ ...slot, trial: slot.trial ?? 0 })));
      rows.push({ key: `${spec.file}:${spec.line} ${[...own, spec.title].join(' › ')}`, file: spec.file, tags: spec.tags.map((t) => `@${t}`).filter((t) => !SLOT_TAGS.includes(t)), projects: spec.tests.map((t) => t.projectName), ids, ...slot });
    }
    for (const child of s.suites ?? []) walk(child, [...titles, child.title]);
  };
  for (const file of (JSON.parse(out) as { suites: Suite[] }).suites) walk(file, []);
  return rows;
}

test('--trials repeats exactly the tests tagged model-dependent, each of which checks a sampled requirement', () => {
  const rows = listing({ CONFORMANCE_TRIALS: '2' });
  const plain = listing({});
  const tagged = plain.filter((r) => r.tags.includes(MODEL_DEPENDENT_TAG));
  const repeated = rows.filter((r) => r.trial === 1);
  expect(tagged.length, 'the suite declares its model-dependent tests').toBeGreaterThanOrEqual(13);
  expect(repeated.map((r) => r.key).sort()).toEqual(tagged.map((r) => r.key).sort());
  // Twice each (trials 1 and 2), every other test once, at the same location as in a plain run: one project.
  expect(rows.filter((r) => r.trial === 0).map((r) => r.key).sort()).toEqual(plain.map((r) => r.key).sort());
  expect(rows.length).toBe(plain.length + tagged.length);
  expect(new Set(rows.flatMap((r) => r.projects))).toEqual(new Set(['']));
  // A tag on a test that judges nothing on sampling would repeat it for nothing.
  for (const r of tagged) expect(r.ids.some((id) => MODEL_DEPENDENT_REQUIREMENTS.has(id)), r.key).toBe(true);
});

test('a per-model matrix declares every tagged test and every test of a model-dependent file once per model, the rest once, all in one project', () => {
  const plain = listing({});
  const rows = listing({ CONFORMANCE_MODEL_MATRIX: 'acme/chat-small,tiny-thinker' });
  const byKey = new Map<string, string[]>();
  for (const r of rows) byKey.set(r.key, [...(byKey.get(r.key) ?? []), ...(r.model !== undefined ? [r.model] : [])]);
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
  // What Playwright greps in a later trial's block: "file slot @slot-tag describe… title @tags".
  const leftOut = (title: string) => SLOT_GREP_INVERT.some((re) => re.test(title));
  const laterTrial = `tools.spec.ts trial 3 ${SLOT_TAG['model-dependent']} tool_choice`;
  expect(leftOut(`${laterTrial} a title nobody wrote before ${details.tag.join(' ')}`)).toBe(false);
  expect(leftOut(`${laterTrial} an object naming one declared function is accepted; which shapes the target takes is recorded @TOOL-003 @TOOL-006`)).toBe(true);
  expect(leftOut(`${laterTrial} an object naming one declared function is accepted @TOOL-006 @model-dependent-x`), 'a longer tag is another tag').toBe(true);
  // In a shared (model-independent) file, the tag still makes the test run per model, and never in the once-only block.
  const suites = path.resolve(repoRoot, 'suites');
  expect(isModelIndependentSpec(path.join(suites, 'catalog.spec.ts'))).toBe(true);
  const holds = slotsOfFile({ models: ['m'] }, true).map((s) => s.holds);
  expect(holds).toEqual(['model-independent', 'model-dependent']);
  expect(leftOut(`catalog.spec.ts ${SLOT_TAG['model-independent']} GET /v1/models a sampled one ${details.tag.join(' ')}`)).toBe(true);
  expect(leftOut(`catalog.spec.ts m ${SLOT_TAG['model-dependent']} GET /v1/models a sampled one ${details.tag.join(' ')}`)).toBe(false);
  expect(isModelIndependentSpec(path.join(suites, 'chat.spec.ts'))).toBe(false);
  // A model-independent file is one of the suite's top folder: another folder's file of that name is not.
  expect(isModelIndependentSpec(path.join(suites, 'properties', 'errors.spec.ts'))).toBe(false);
});

// The run's case space (run/slots.ts): a slot is target x model x trial; which slots a spec file declares its tests
// in, the title and details of each slot's describe block, what each leaves out, and the slot a finished case ran in.
import { expect, test } from '@playwright/test';
import { SLOT_GREP_INVERT, SLOT_TAG, slotDetails, slotOfAnnotations, slotsOfFile, slotTitle, slotTitlesFor, type Slot, type SlotSpace } from '../../run/slots.ts';

const titles = (space: SlotSpace, modelIndependent: boolean) => slotsOfFile(space, modelIndependent).map((s) => `${slotTitle(s) || '(none)'} ${s.holds}`);

test('a run of one target, without a matrix or trials: one slot, whose block has no title, no annotation and no tag', () => {
  const slots = slotsOfFile({}, false);
  expect(slots).toEqual([{ trial: 0, holds: 'all' }]);
  expect(slotTitle(slots[0]!)).toBe('');
  expect(slotDetails(slots[0]!, {})).toEqual({ annotation: [], tag: [] });
  expect(titles({}, true)).toEqual(['(none) all']);
});

test('a model-independent file: once per target; a matrix repeats only its model-dependent tests, per model and trial', () => {
  const space: SlotSpace = { targets: ['reference', 'target'], models: ['acme/a', 'b'], trials: 2 };
  expect(titles(space, true)).toEqual([
    'reference model-independent',
    'reference · acme/a model-dependent',
    'reference · acme/a · trial 2 model-dependent',
    'reference · b model-dependent',
    'reference · b · trial 2 model-dependent',
    'target model-independent',
    'target · acme/a model-dependent',
    'target · acme/a · trial 2 model-dependent',
    'target · b model-dependent',
    'target · b · trial 2 model-dependent',
  ]);
  // Without a matrix, the file is whole in the first trial, its model-dependent tests repeated in the others.
  expect(titles({ trials: 3 }, true)).toEqual(['(none) all', 'trial 2 model-dependent', 'trial 3 model-dependent']);
});

test('any other file: once per target and model, its model-dependent tests once per trial too', () => {
  expect(titles({ models: ['acme/a', 'b'], trials: 2 }, false)).toEqual(['acme/a all', 'acme/a · trial 2 model-dependent', 'b all', 'b · trial 2 model-dependent']);
  expect(titles({ targets: ['x', 'y'] }, false)).toEqual(['x all', 'y all']);
  // A target that does not run the file is not among the space's targets: nothing is declared for it.
  expect(titles({ targets: [] }, false)).toEqual([]);
  // Every title of a file differs: Playwright refuses two tests of one full title.
  const all = slotsOfFile({ targets: ['x', 'y'], models: ['m', 'n'], trials: 3 }, true).map(slotTitle);
  expect(new Set(all).size).toBe(all.length);
});

test("a block's annotations name its slot (the trial from 1, as its title), and a case's slot is read back from them", () => {
  const space: SlotSpace = { targets: ['reference', 'target'], models: ['acme/a'], trials: 3 };
  for (const slot of slotsOfFile(space, false)) {
    const { annotation, tag } = slotDetails(slot, space);
    expect(slotOfAnnotations([{ type: 'requirement', description: 'TOOL-006' }, ...annotation])).toEqual({ target: slot.target, model: slot.model, trial: slot.trial });
    expect(tag).toEqual(slot.holds === 'all' ? [] : [SLOT_TAG[slot.holds]]);
  }
  const second: Slot = { target: 'target', model: 'acme/a', trial: 1, holds: 'model-dependent' };
  expect(slotDetails(second, space).annotation).toEqual([
    { type: 'target', description: 'target' },
    { type: 'model', description: 'acme/a' },
    { type: 'trial', description: '2' },
  ]);
  // No trials: no trial annotation, and no trial read back.
  expect(slotOfAnnotations(slotDetails({ model: 'm', trial: 0, holds: 'all' }, { models: ['m'] }).annotation)).toEqual({ model: 'm' });
});

test("each block leaves out the tests it does not hold, by its tag and the test's (what Playwright greps)", () => {
  const leftOut = (grepTitle: string) => SLOT_GREP_INVERT.some((re) => re.test(grepTitle));
  const repeats = SLOT_TAG['model-dependent'];
  const once = SLOT_TAG['model-independent'];
  expect(leftOut(`tools.spec.ts acme/a · trial 2 ${repeats} tools a call @TOOL-006 @model-dependent`)).toBe(false);
  expect(leftOut(`tools.spec.ts acme/a · trial 2 ${repeats} tools a refusal @TOOL-012`)).toBe(true);
  expect(leftOut(`catalog.spec.ts ${once} GET /v1/models lists @CAT-001`)).toBe(false);
  expect(leftOut(`catalog.spec.ts ${once} GET /v1/models a sampled one @CAT-001 @model-dependent`)).toBe(true);
  expect(leftOut('tools.spec.ts acme/a tools a refusal @TOOL-012')).toBe(false);
  // A title that merely mentions a tag's words is not the tag.
  expect(leftOut(`tools.spec.ts acme/a tools x${repeats} a refusal @TOOL-012`)).toBe(false);
});

test('the titles a rerun names a test under: one per target and trial, under its model', () => {
  expect(slotTitlesFor({}, undefined)).toEqual(['']);
  expect(slotTitlesFor({}, 'acme/a')).toEqual(['acme/a']);
  expect(slotTitlesFor({ targets: ['reference', 'target'], trials: 2 }, 'm')).toEqual(['reference · m', 'reference · m · trial 2', 'target · m', 'target · m · trial 2']);
});

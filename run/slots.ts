// The run's case space: a slot is one target x one model x one trial (the reference is a target). Each spec file
// declares its tests once per slot of the run that holds them, inside a `test.describe` block of its own titled and
// annotated with the slot, with the slot as a test-scoped option (suites/lib/slots.ts): every slot is the same
// project with the same worker fixtures, so the same workers serve them all. A run of one target, without a matrix
// or trials, has one slot whose block has no title: its tests' titles are those of the spec files alone.
//
// Pure functions of plain data: the suite's side (which files run in which slots) and the reporter's side (which
// slot a finished case ran in, from its annotations) both read the slot through this module.

/**
 * The tag of the tests whose outcome depends on sampling (a tool call produced, reasoning returned, a search
 * performed, a token cap honoured): each test says so where it is declared, `req(..., { modelDependent: true })`
 * (suites/lib/declare.ts), so a renamed test keeps its trials.
 */
export const MODEL_DEPENDENT_TAG = '@model-dependent';

/** Which of its file's tests a slot holds: every one, only the model-dependent ones, or only the others. */
export type SlotHolds = 'all' | 'model-dependent' | 'model-independent';

export interface Slot {
  /** The target's name in a run of several targets (a targets file, or the target beside its reference). */
  target?: string;
  /** The model of a per-model matrix (--models). */
  model?: string;
  /** The trial, from 0 (--trials k: 0..k-1; 0 without trials). */
  trial: number;
  holds: SlotHolds;
}

/** The one slot of a run of one target, without a matrix or trials. */
export const PLAIN_SLOT: Slot = { trial: 0, holds: 'all' };

/** What the run repeats its tests over. */
export interface SlotSpace {
  /** The names of the run's targets that run the file, in the run's order; undefined: a run of one target. */
  targets?: readonly string[];
  /** The matrix's chosen models; undefined: no matrix. */
  models?: readonly string[];
  /** --trials k; undefined: no trials. */
  trials?: number;
}

/** The annotation types naming a case's slot (the describe block's, which each of its tests carries). */
export const SLOT_ANNOTATION = { target: 'target', model: 'model', trial: 'trial' } as const;

/**
 * The tags of a block that holds only part of its file's tests. Playwright greps "project file describe… title
 * @tags" with the describe blocks' tags in it: the config's grepInvert (SLOT_GREP_INVERT) leaves the rest out.
 */
export const SLOT_TAG: Record<Exclude<SlotHolds, 'all'>, string> = {
  'model-dependent': '@slot-repeats-model-dependent',
  'model-independent': '@slot-once-model-independent',
};

const tagPattern = (tag: string) => `(?:^|\\s)${tag}(?![\\w-])`;

/**
 * Leaves out of each slot the tests it does not hold: a test not tagged model-dependent in a block that repeats only
 * those (a second trial, a model's block of a model-independent file), and a model-dependent one in the block that
 * holds a model-independent file's tests once.
 */
export const SLOT_GREP_INVERT: readonly RegExp[] = [
  new RegExp(`^(?=[\\s\\S]*${tagPattern(SLOT_TAG['model-dependent'])})(?![\\s\\S]*${tagPattern(MODEL_DEPENDENT_TAG)})`),
  new RegExp(`^(?=[\\s\\S]*${tagPattern(SLOT_TAG['model-independent'])})(?=[\\s\\S]*${tagPattern(MODEL_DEPENDENT_TAG)})`),
];

/**
 * The slots a spec file's tests are declared in. A model-independent file (the catalog, authentication, ...) once per
 * target, its model-dependent tests (if any) once per model and trial; any other file once per target and model,
 * its model-dependent tests once per trial as well.
 */
export function slotsOfFile(space: SlotSpace, modelIndependentFile: boolean): Slot[] {
  const trials = Math.max(1, space.trials ?? 1);
  const out: Slot[] = [];
  for (const name of space.targets ?? [undefined]) {
    const t = name === undefined ? {} : { target: name };
    if (space.models && modelIndependentFile) {
      out.push({ ...t, trial: 0, holds: 'model-independent' });
      for (const model of space.models) for (let trial = 0; trial < trials; trial++) out.push({ ...t, model, trial, holds: 'model-dependent' });
      continue;
    }
    for (const model of space.models ?? [undefined]) {
      const m = model === undefined ? {} : { model };
      out.push({ ...t, ...m, trial: 0, holds: 'all' });
      for (let trial = 1; trial < trials; trial++) out.push({ ...t, ...m, trial, holds: 'model-dependent' });
    }
  }
  return out;
}

/**
 * The title of a slot's describe block: its target, its model and (past the first) its trial, joined; empty for the
 * plain slot, so a run of one target lists its tests as the spec files title them.
 */
export function slotTitle(slot: Pick<Slot, 'target' | 'model' | 'trial'>): string {
  return [slot.target, slot.model, slot.trial > 0 ? `trial ${slot.trial + 1}` : undefined].filter((p) => p !== undefined).join(' · ');
}

/** The describe block's details: the slot in annotations (the trial counted from 1, as its title), and its tag. */
export function slotDetails(slot: Slot, space: SlotSpace): { annotation: { type: string; description: string }[]; tag: string[] } {
  const annotation = [
    ...(slot.target !== undefined ? [{ type: SLOT_ANNOTATION.target, description: slot.target }] : []),
    ...(slot.model !== undefined ? [{ type: SLOT_ANNOTATION.model, description: slot.model }] : []),
    ...(space.trials !== undefined ? [{ type: SLOT_ANNOTATION.trial, description: String(slot.trial + 1) }] : []),
  ];
  return { annotation, tag: slot.holds === 'all' ? [] : [SLOT_TAG[slot.holds]] };
}

/** The slot a case ran in, from its annotations; `trial` only in a run of trials. */
export function slotOfAnnotations(annotations: readonly { type: string; description?: string }[]): { target?: string; model?: string; trial?: number } {
  const of = (type: string) => annotations.find((a) => a.type === type)?.description;
  const target = of(SLOT_ANNOTATION.target);
  const model = of(SLOT_ANNOTATION.model);
  const trial = of(SLOT_ANNOTATION.trial);
  return { ...(target !== undefined ? { target } : {}), ...(model !== undefined ? { model } : {}), ...(trial !== undefined && /^\d+$/.test(trial) ? { trial: Number(trial) - 1 } : {}) };
}

/**
 * Every title a test may be declared under in a run of this space: one per target and trial, under the model it is
 * given (a rerun names the model a test failed under). A test list names them all; the slots that do not hold the
 * test leave it out anyway.
 */
export function slotTitlesFor(space: Pick<SlotSpace, 'targets' | 'trials'>, model: string | undefined): string[] {
  const titles: string[] = [];
  for (const target of space.targets ?? [undefined]) {
    for (let trial = 0; trial < Math.max(1, space.trials ?? 1); trial++) titles.push(slotTitle({ ...(target !== undefined ? { target } : {}), ...(model !== undefined ? { model } : {}), trial }));
  }
  return titles;
}

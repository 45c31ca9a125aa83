// The suite's side of the run's slots (run/slots.ts: target x model x trial): which slots a spec file declares its
// tests in, worked out from the run's plan (its targets, the matrix's chosen models, its trials) alike by the runner
// and by every worker, so both declare the same tests. Each spec file declares them itself, with Playwright's
// public API, so every test keeps its own file and line (compiled or not):
//
//   for (const slot of slotsOf(import.meta.url)) test.describe(slot.title, slot.details, () => { test.use({ slot });
//   …the file's tests…
//   });
//
// `slot` is a test-scoped option of the suite's fixtures (test-fixtures.ts): a test-scoped option does not change
// the workers' fixtures, so one worker serves every slot.
import { fileURLToPath } from 'node:url';
import { repoRoot } from '../../run/config.ts';
import { slotDetails, slotsOfFile, slotTitle, type Slot, type SlotSpace } from '../../run/slots.ts';
import { runTargets, targetRunsFile } from '../../run/targets.ts';
import { trialsOf } from '../../run/trials.ts';
import { isModelIndependentSpec, matrixModels } from './discovery-matrix.ts';

/** A slot as a spec file declares it: its describe block's title and details beside it. */
export interface DeclaredSlot extends Slot {
  title: string;
  details: ReturnType<typeof slotDetails>;
}

/** The run's slot space as one spec file sees it: the targets that run it, the chosen models, the trials. */
export function slotSpaceOf(file: string): SlotSpace {
  const targets = runTargets();
  const models = matrixModels();
  const trials = trialsOf();
  return {
    ...(targets ? { targets: targets.filter((t) => targetRunsFile(t, file, repoRoot)).map((t) => t.name) } : {}),
    ...(models ? { models } : {}),
    ...(trials ? { trials: trials.k } : {}),
  };
}

/** The slots the spec file at `fileUrl` (its `import.meta.url`) declares its tests in, in order. */
export function slotsOf(fileUrl: string): DeclaredSlot[] {
  const file = fileURLToPath(fileUrl);
  const space = slotSpaceOf(file);
  return slotsOfFile(space, isModelIndependentSpec(file)).map((slot) => ({ ...slot, title: slotTitle(slot), details: slotDetails(slot, space) }));
}

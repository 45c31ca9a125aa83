// The seeds of the project's own tests that draw random inputs (fast-check properties, a black-box run's seed).
// `npm test` uses fixed seeds, so a failure there is a change, never the luck of a draw. `npm run test:explore`
// (CHATCONFORM_EXPLORE=1) draws a random seed per test file and prints it: a counterexample found there is
// replayed with CHATCONFORM_TEST_SEED=<seed> (fast-check's own failure message names the seed too).
// Importing this module also fixes fast-check's global seed, for the properties that do not pass one.
import fc from 'fast-check';

export const EXPLORE = process.env.CHATCONFORM_EXPLORE === '1';

/** The seed a test draws from: `fixed` in npm test; CHATCONFORM_TEST_SEED when set; random (printed) when exploring. */
export function testSeed(fixed: number, what: string): number {
  const replay = process.env.CHATCONFORM_TEST_SEED;
  if (replay && /^\d+$/.test(replay)) return Number(replay);
  if (!EXPLORE) return fixed;
  const seed = Math.floor(Math.random() * 2 ** 31);
  console.log(`[explore] ${what}: seed ${seed} (replay: CHATCONFORM_TEST_SEED=${seed})`);
  return seed;
}

/** fast-check's global seed, for every property of the importing worker that does not name its own. */
export const PROPERTY_SEED = testSeed(20261125, 'fast-check global seed');
fc.configureGlobal({ ...fc.readConfigureGlobal(), seed: PROPERTY_SEED });

// The whole defect matrix, `npm run test:matrix` (the `matrix` project; .ci/run runs it): every defect, core and
// extended, with full cooperation and (the MUST ones) again as a black box, the clean mock, and the legal variants
// in one combined run (bisected into one run per variant if it fails; CHATCONFORM_MATRIX_VARIANTS=alone runs each
// variant alone; CHATCONFORM_MATRIX_ROWS=NAME,... runs only the rows named). About a hundred whole-suite runs: minutes, not for the contributor's path (npm test runs a sample,
// defect-matrix.spec.ts). Machinery: support/defect-matrix.ts. Each cooperative defect runs its requirement's own
// selection (`run --requirement R`): the MUST defects caught are the subset parity count. Then the proxy's parity:
// its verdict on the suite's traffic (support/proxy-parity.ts).
import { expect, test } from '@playwright/test';
import { DEFECTS, type DefectName, type DefectSpec } from '../../mock/defects.ts';
import { NOT_VISIBLE_FROM_TRAFFIC, parityDefects, runProxyParity } from './support/proxy-parity.ts';
import { ALL_VARIANT_NAMES, combinedVariantsJob, defectJob, runMatrix, selectedRows, timeoutFor, type Job } from './support/defect-matrix.ts';

test('defect matrix: every defect is caught with its requirement ID, every legal variant and the clean mock pass', async ({}, testInfo) => {
  const variantJobs: Job[] = process.env.CHATCONFORM_MATRIX_VARIANTS === 'alone'
    ? ALL_VARIANT_NAMES.map((v): Job => ({ kind: 'variants', label: `variant-${v}`, variants: [v] }))
    : [combinedVariantsJob()];
  const all: Job[] = [
    { kind: 'clean', label: 'clean' },
    ...variantJobs,
    ...DEFECTS.map((d) => defectJob(d)),
    // The black-box tier: the MUST defects again, with no profile (only a key).
    ...(DEFECTS as readonly DefectSpec[]).filter((d) => d.expect !== 'warn').map((d) => defectJob(d, true)),
  ];
  const jobs = selectedRows(all);
  test.setTimeout(timeoutFor(jobs.length));
  await runMatrix({ name: jobs === all ? `full: ${DEFECTS.length} defects` : `rows ${process.env.CHATCONFORM_MATRIX_ROWS}: ${jobs.length} of ${all.length} runs`, jobs }, testInfo);
});

/** The defects CHATCONFORM_MATRIX_ROWS names, or all. */
function rowsOf<T extends DefectSpec>(defects: readonly T[]): T[] {
  const names = process.env.CHATCONFORM_MATRIX_ROWS?.split(',').map((n) => n.trim()).filter(Boolean);
  return names ? defects.filter((d) => names.includes(d.name)) : [...defects];
}

test('proxy parity: the suite through chatconform proxy against every black-box defect (its requirement selection) and the clean mock (the whole suite); the proxy fails the defect\'s requirement wherever the exchange shows it, and never the clean mock', async ({}, testInfo) => {
  const defects = rowsOf(parityDefects());
  test.setTimeout(2 * 900_000 + defects.length * 60_000);
  const { rows, cleanFailures } = await runProxyParity(testInfo, defects);
  expect(cleanFailures, 'the proxy finds no fault in the clean mock\'s answers to the whole suite').toEqual([]);
  expect(rows.filter((r) => r.outcome === 'missed').map((r) => `${r.defect.name} (${r.defect.breaks}): the proxy says ${r.proxyStatus}`), 'defects the proxy misses though the exchange shows them').toEqual([]);
  // The list of what traffic cannot show is kept true: a defect on it that the proxy does see leaves it.
  expect(rows.filter((r) => r.outcome === 'seen' && NOT_VISIBLE_FROM_TRAFFIC[r.defect.name as DefectName] !== undefined).map((r) => r.defect.name), 'listed as not visible, yet seen').toEqual([]);
});

// The whole defect matrix, `npm run test:matrix` (the `matrix` project; .ci/run runs it): every defect, core and
// extended, with full cooperation and (the MUST ones) again as a black box, the clean mock, and the legal variants
// in one combined run (bisected into one run per variant if it fails; CHATCONFORM_MATRIX_VARIANTS=alone runs each
// variant alone; CHATCONFORM_MATRIX_ROWS=NAME,... runs only the rows named). About a hundred whole-suite runs: minutes, not for the contributor's path (npm test runs a sample,
// defect-matrix.spec.ts). Machinery: support/defect-matrix.ts.
import { test } from '@playwright/test';
import { DEFECTS, type DefectSpec } from '../../mock/defects.ts';
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

// The defect matrix's sample, in `npm test`: one defect per contract area (catalog, auth, request rules, response
// shape, tools, web search, routing, streaming, errors, limits), with full cooperation, plus one black-box run and
// one run of the whole suite with every legal variant at once. It proves the suite still provokes each kind of
// exchange and reports what it sees under the requirement broken; the whole matrix (every defect, cooperative and
// black-box, every variant, the clean mock) is `npm run test:matrix` (defect-matrix-full.spec.ts), run by .ci/run.
// The clean mock's whole-suite pass is proven here by conformance-run.spec.ts. Machinery: support/defect-matrix.ts.
import { test } from '@playwright/test';
import type { DefectName } from '../../mock/defects.ts';
import { combinedVariantsJob, defectJob, defectNamed, runMatrix, timeoutFor, type Job } from './support/defect-matrix.ts';

/** One per area, each the cheapest of its area to run (the fewest spec files that can show it). */
export const SAMPLE_DEFECTS: readonly DefectName[] = [
  'catalog-backend-field',
  'chat-without-credential',
  'effort-accepted',
  'message-null-fields',
  'tools-undeclared-500',
  'search-refusal-streamed',
  'routing-substitute-model',
  'stream-no-done',
  'unavailable-500',
  'oversized-accepted',
];
/** A defect of a black-box requirement, run again with no profile (only a key). */
export const SAMPLE_BLACK_BOX: DefectName = 'catalog-backend-field';

test('defect matrix (sample): a defect per area is caught with its requirement ID, black box too; the legal variants pass', async ({}, testInfo) => {
  const jobs: Job[] = [
    ...SAMPLE_DEFECTS.map((name) => defectJob(defectNamed(name))),
    defectJob(defectNamed(SAMPLE_BLACK_BOX), true),
    combinedVariantsJob(),
  ];
  test.setTimeout(timeoutFor(jobs.length));
  await runMatrix({ name: 'sample', jobs, note: 'npm test runs this sample; npm run test:matrix runs every defect and variant' }, testInfo);
});

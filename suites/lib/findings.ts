// Findings shown in Playwright's own terms. The suite records a finding as data (a check record in the test's
// evidence) and never fails the Playwright test on it; these annotations let Playwright's own reporters (HTML,
// list with annotations, JSON) still show each one, while the conformance reporter reads the evidence.
import { getRequirement } from '../../spec/requirements/index.ts';
import type { CheckRecord } from '../../judge/checker.ts';

/** The annotation type of a finding: a failed MUST ("fail") or a failed SHOULD/MAY ("warn"), said in its text. */
export const FINDING_ANNOTATION = 'finding';

/** One annotation per failed or warned requirement record, its message's first line after the requirement. */
export function findingAnnotations(records: readonly CheckRecord[]): { type: string; description: string }[] {
  return records
    .filter((r) => r.status === 'fail' || r.status === 'warn')
    .map((r) => {
      const req = getRequirement(r.id);
      const first = (r.message ?? '').split('\n')[0]!.slice(0, 300);
      return { type: FINDING_ANNOTATION, description: `${r.status} ${r.id} (${req.level}, §${req.section}) ${first}` };
    });
}

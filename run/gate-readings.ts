// Which failures the gate counts when a requirement rests on the kit's reading of a gap of the contract (a record
// with `reading: true`): the behaviour is judged and shown, but a MUST whose exact shape the contract leaves open is
// not the contract's own word, so the default gate leaves its failure out; `--fail-on strict` keeps it, and so does
// `warn` (which fails on anything short of a pass).
import { readingOf } from '../spec/index.ts';

/** What fails the run (CONFORMANCE_FAIL_ON, --fail-on). */
export type FailOn = 'must' | 'strict' | 'warn' | 'target-only';

/** The choices, in the order the help lists them. */
export const FAIL_ON_CHOICES: readonly FailOn[] = ['must', 'strict', 'warn', 'target-only'];

/** True when the gate leaves a failure of `id` out because it rests on the kit's reading of a gap. */
export function readingExcluded(id: string, failOn: FailOn): boolean {
  return (failOn === 'must' || failOn === 'target-only') && readingOf(id) !== undefined;
}

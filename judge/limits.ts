// The body limit of POST /v1/chat/completions (4.3 rule 1, section 8: 10 MB), judged on what a request's size asked
// of the answer: over the limit under both readings of "10 MB" it is refused; under it under both, it is never
// refused for its size.
import type { Checker } from './checker.ts';
import { entryPoint } from './entry.ts';
import type { TargetResponse } from './exchange.ts';
import { SILENT_RESET, uploadOutcome } from './comparisons.ts';

/** "10 MB" read as 10,000,000 bytes, and as 10 MiB. */
export const BODY_LIMIT_READINGS = { mb: 10_000_000, mib: 10 * 1024 * 1024 } as const;

/** A body of `bytes` is over the limit whichever reading a server takes. */
export const overBodyLimit = (bytes: number): boolean => bytes > BODY_LIMIT_READINGS.mib;
/** A body of `bytes` is under the limit whichever reading, and large enough that a smaller limit (1 MiB is a common default) would bite. */
export const underBodyLimitButLarge = (bytes: number): boolean => bytes > 1024 * 1024 && bytes < BODY_LIMIT_READINGS.mb;

/**
 * LIMIT-001: a body over the limit is refused: a non-200 status, or the connection closed on the upload (a proxy may
 * cut an oversized body short; the manner is LIMIT-007's). A reset with no 100 (Continue) and no status after
 * `Expect: 100-continue` is no refusal the server gave: it could refuse from the head alone, and said nothing. No
 * answer in time, or no connection, is the kit's: not judged.
 */
export const judgeOversizedRefused = entryPoint('LIMIT-001', function judgeOversizedRefused(check: Checker, res: TargetResponse, bytes: number, what: string): boolean {
  const o = uploadOutcome(res);
  if (o.kind === 'timeout' || o.kind === 'unreachable') {
    check.couldNotJudge('LIMIT-001', res);
    return false;
  }
  if (o.kind === 'silent') return check.outcome('LIMIT-001', false, () => `${what} of ${bytes} bytes, ${SILENT_RESET} (${o.error})`, res);
  const rejected = o.kind !== 'status' || o.status !== 200;
  return check.outcome('LIMIT-001', rejected, () => `${what} of ${bytes} bytes was not refused: ${res.describe()}`, res);
});

/**
 * LIMIT-003 on traffic: a body under the limit is never refused for its size (413 Content Too Large). Any other
 * answer says nothing of the limit: a 200 passes, another refusal is about something else and is not judged here.
 */
export const judgeSizeNotRefused = entryPoint('LIMIT-003', function judgeSizeNotRefused(check: Checker, res: TargetResponse, bytes: number): boolean | undefined {
  if (res.status !== 200 && res.status !== 413) return undefined;
  return check.that('LIMIT-003', res.status !== 413, () => `a request of ${bytes} bytes, under the 10 MB limit, was refused for its size: ${res.describe()}`, res);
});

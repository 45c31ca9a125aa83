// Fairness, not contract: a large chat body can be parsed and validated by another thread (the node:http server
// gives a worker, mock/transport/parse-thread.ts), so that a 10 MB body of 2,000,000 integers or 800,000 keys never
// holds the other clients for the hundreds of milliseconds its parse and validation take. The serving thread gets
// the verdict: it throws the refusal at once, or decodes the body it now knows to be valid, without the checks.
// The answer is exactly what parseChatRequest gives, whichever thread judged the body.
import { MockHttpError } from '../core/errors.ts';
import type { StageWrapper } from '../core/pipeline.ts';
import { decodeAcceptedChatRequest } from '../core/request.ts';

/** What parseChatRequest made of a body: accepted, or the refusal it threw. */
export type BodyVerdict = { accepted: true } | { accepted: false; status: number; code: string; message: string };

/** Checks a body elsewhere; undefined when it could not (the serving thread then parses it itself). */
export type BodyChecker = (bytes: Uint8Array) => Promise<BodyVerdict | undefined>;

/** Bodies at least this large are checked elsewhere; a smaller one parses in less time than the hand-off costs. */
export const CHECK_ELSEWHERE_FROM_BYTES = 256 * 1024;

/**
 * The layer (wrappers of `readBody` and `parse`, innermost) that has a large body checked by `check` once it is
 * read, and answers the contract's parse from the verdict. A mode that rewrites the bytes before the contract's
 * parse gets a fresh parse of its bytes: verdicts are keyed by the very bytes that were read.
 */
export function checkedBodies(check: BodyChecker): { readBody: StageWrapper<'readBody'>; parse: StageWrapper<'parse'> } {
  const verdicts = new WeakMap<Uint8Array, BodyVerdict>();
  return {
    readBody: (next) => async (input) => {
      const bytes = await next(input);
      if (bytes.byteLength >= CHECK_ELSEWHERE_FROM_BYTES) {
        const verdict = await check(bytes);
        if (verdict) verdicts.set(bytes, verdict);
      }
      return bytes;
    },
    parse: (next) => (input) => {
      const verdict = verdicts.get(input.bytes);
      if (verdict === undefined) return next(input);
      if (!verdict.accepted) throw new MockHttpError(verdict.status, verdict.code, verdict.message);
      return decodeAcceptedChatRequest(input.bytes);
    },
  };
}

// Fairness, not contract: a large chat body is parsed in one turn of the event loop and answered in the next, so
// the requests that arrive meanwhile (GET /v1/models) are not held behind two long synchronous passes in a row.
import type { StageWrapper } from '../core/pipeline.ts';

/** Bodies larger than this are parsed and answered in two turns of the event loop. */
export const YIELD_ABOVE_BYTES = 64 * 1024;

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** The layer (a wrapper of the `receive` stage) that ends the turn after a large body is parsed. */
export const fairTurns: { receive: StageWrapper<'receive'> } = {
  receive: (next) => async (input) => {
    const received = await next(input);
    if (received.size > YIELD_ABOVE_BYTES) await nextTurn();
    return received;
  },
};

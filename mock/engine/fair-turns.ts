// Fairness, not contract: a request body is parsed in a turn of the event loop of its own, and a large one answered
// in the next, so the requests that arrive meanwhile (GET /v1/models) are not held behind long synchronous passes in
// a row. Each body parse is short (a 255 KiB body, a few milliseconds), but three hundred of them that complete
// together used to run back to back in one turn and hold the serving thread for seconds: now they queue, one parse
// per turn, with the socket's other requests served between them. Large bodies (256 KiB and more) are also checked on
// another thread first (checked-bodies.ts); their decode takes its turn here too.
import type { StageWrapper } from '../core/pipeline.ts';

/** Bodies larger than this are parsed and answered in two turns of the event loop. */
export const YIELD_ABOVE_BYTES = 64 * 1024;

/** Bodies at least this large wait for a turn of their own before they are parsed; a smaller one parses in microseconds. */
export const OWN_TURN_FROM_BYTES = 16 * 1024;

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * One parse per turn of the event loop, first come first served: each waiter is let go in a check phase of its own,
 * so the poll phase between two of them serves whatever else arrived.
 */
class TurnQueue {
  private readonly waiting: Array<() => void> = [];
  private scheduled = false;

  take(): Promise<void> {
    return new Promise((resolve) => {
      this.waiting.push(resolve);
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.waiting.length === 0) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      // The waiter's parse runs in this turn's microtasks; the next waiter's turn is scheduled for the next check phase.
      this.waiting.shift()!();
      this.schedule();
    });
  }
}

/** The serving thread's queue (one per process: every instance it serves shares the thread). */
const turns = new TurnQueue();

/** The layer (wrappers of `readBody` and `receive`): a body's parse waits for its own turn; a large body's answer ends it. */
export const fairTurns: { readBody: StageWrapper<'readBody'>; receive: StageWrapper<'receive'> } = {
  readBody: (next) => async (input) => {
    const bytes = await next(input);
    // The contract's parse follows this stage at once (pipeline.ts, receive): it runs in the turn taken here.
    if (bytes.byteLength >= OWN_TURN_FROM_BYTES) await turns.take();
    return bytes;
  },
  receive: (next) => async (input) => {
    const received = await next(input);
    if (received.size > YIELD_ABOVE_BYTES) await nextTurn();
    return received;
  },
};

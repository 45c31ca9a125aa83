// Fairness and memory, not contract: the large chat bodies in flight at once. Each takes up to the body limit in
// memory, more once parsed, and a turn of the serving thread to decode; forty of them at once held 1.4 GB and kept
// GET /v1/models waiting 10 s. So a few are taken at a time, a few more wait their turn with their bytes left unread
// in the socket, and past that a body is refused at once with 503 and retry-after (mock/README.md, "Limits on
// hostile input").
import { MockHttpError } from '../core/errors.ts';

export interface LargeBodyBounds {
  /** large bodies read, checked and decoded at a time */
  concurrency: number;
  /** large bodies waiting for their turn; one more is refused with 503 */
  queue: number;
  /** the retry-after of that 503, in seconds */
  retryAfterS: number;
}

/** Two at a time: one parsed on the worker while the serving thread decodes the other. */
export const DEFAULT_LARGE_BODY_BOUNDS: LargeBodyBounds = { concurrency: 2, queue: 8, retryAfterS: 1 };

/** The code of the 503 past the bound (api_error, retry-after). */
export const LARGE_BODY_BUSY_CODE = 'large_bodies_busy';

/** Lets go of a large body's place; calling it again does nothing. */
export type Release = () => void;

export class LargeBodyGate {
  private active = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(readonly bounds: LargeBodyBounds = DEFAULT_LARGE_BODY_BOUNDS) {
    for (const [name, v] of Object.entries(bounds)) {
      if (!Number.isInteger(v) || v < (name === 'concurrency' ? 1 : 0)) throw new Error(`largeBodies.${name} must be an integer >= ${name === 'concurrency' ? 1 : 0} (got ${v})`);
    }
  }

  /** Large bodies taken now, and waiting. */
  get load(): { active: number; waiting: number } {
    return { active: this.active, waiting: this.waiting.length };
  }

  /**
   * A place for one large body: at once, or when the ones before it are done (first come, first served). Throws
   * 503 `large_bodies_busy` with retry-after, without waiting, when the queue is full.
   */
  admit(): Promise<Release> {
    if (this.active < this.bounds.concurrency) {
      this.active++;
      return Promise.resolve(this.release());
    }
    if (this.waiting.length >= this.bounds.queue) {
      const { concurrency, queue, retryAfterS } = this.bounds;
      throw new MockHttpError(
        503,
        LARGE_BODY_BUSY_CODE,
        `the mock is busy with large request bodies (${concurrency} being answered, ${queue} waiting, each of 256 KB or more); retry after ${retryAfterS} s`,
        { 'retry-after': String(retryAfterS) },
      );
    }
    // The place passes straight to the first waiting body: `active` stays as it is.
    return new Promise((resolve) => this.waiting.push(() => resolve(this.release())));
  }

  private release(): Release {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      const next = this.waiting.shift();
      if (next) next();
      else this.active--;
    };
  }
}

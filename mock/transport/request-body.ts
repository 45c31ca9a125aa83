// A request body as the core's BodySource, pulled from the socket only as the core reads it, and the clocks that
// cut a body that stalls or takes too long (mock/README.md, "Transport bounds").
import type http from 'node:http';
import { MockHttpError } from '../core/errors.ts';
import type { BodySource } from '../core/http.ts';

export interface BodyBounds {
  bodyIdleTimeoutMs: number;
  bodyTimeoutMs: number;
  clocks: BodyClocks;
}

/**
 * The clocks of the request bodies being read, checked together on one interval per server: two timers set and
 * cleared per request cost more than the rest of reading a small body. A bound of N ms is enforced within
 * N + N/4 ms (+1 s at most), as Node enforces the header bound.
 */
export class BodyClocks {
  private readonly bodies = new Set<RequestBody>();
  private timer: ReturnType<typeof setInterval> | undefined;
  constructor(private readonly everyMs: number) {}

  watch(body: RequestBody): void {
    this.bodies.add(body);
    if (this.timer === undefined) {
      this.timer = setInterval(() => this.check(), this.everyMs);
      this.timer.unref();
    }
  }

  unwatch(body: RequestBody): void {
    this.bodies.delete(body);
  }

  private check(): void {
    const now = performance.now();
    for (const body of this.bodies) body.checkClocks(now);
    if (this.bodies.size === 0) this.stop();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }
}

/** Most bytes of an unread request body the server discards after answering before it drops the connection. */
const DRAIN_LIMIT_BYTES = 64 * 1024 * 1024;

/**
 * One request's body as the core's BodySource: a chunk is taken from the socket only when the core asks for one
 * (the socket stays paused otherwise, so nothing is buffered past what the core has read), and the clocks that cut
 * a body that stalls or takes too long. Cancelling (the core stops past the body limit) pauses the socket without
 * destroying it, so the error response still goes out.
 */
export class RequestBody implements BodySource {
  private readonly queue: Buffer[] = [];
  private ended = false;
  private failure: Error | undefined;
  private waiter: { resolve: (v: Uint8Array | null) => void; reject: (e: Error) => void } | undefined;
  private done = false;
  /** whether the core has asked for the body */
  pulled = false;
  /** when the body started (its total clock) and since when it has sent nothing (its idle clock, while on); performance.now() */
  private readonly since = performance.now();
  private idleSince = 0;
  private idleOn = false;
  /** Set when a bound tripped: the connection closes after the answer. */
  cut: MockHttpError | undefined;
  /** Called when a bound trips (the transport then decides: answer 408, or close). */
  onCut: (err: MockHttpError) => void = () => {};

  constructor(
    private readonly req: http.IncomingMessage,
    private readonly bounds: BodyBounds,
    private readonly onFirstRead: () => void,
  ) {
    bounds.clocks.watch(this);
    req.pause();
    req.on('data', (chunk: Buffer) => {
      this.armIdle();
      if (this.done) return;
      this.queue.push(chunk);
      req.pause();
      this.wake();
    });
    req.once('end', () => {
      this.stopClocks();
      this.ended = true;
      this.wake();
    });
    req.once('close', () => this.stopClocks());
    req.once('error', (err) => this.fail(err));
    req.once('aborted', () => this.fail(new Error('client aborted the request')));
  }

  read(): Promise<Uint8Array | null> {
    if (!this.pulled) {
      this.pulled = true;
      this.onFirstRead();
    }
    if (this.failure) return Promise.reject(this.failure);
    const next = this.queue.shift();
    if (next) return Promise.resolve(next);
    // `complete`: the parser has seen the whole message, and nothing is left unread. (The 'end' event would
    // only come after another resume, a turn of the loop later.)
    if (this.ended || this.done || (this.req.complete && this.req.readableLength === 0)) return Promise.resolve(null);
    // The idle clock runs only while the core waits for bytes: a paused body is not the client's stall.
    this.armIdle();
    this.req.resume();
    return new Promise((resolve, reject) => {
      this.waiter = { resolve, reject };
    });
  }

  cancel(): void {
    this.done = true;
    this.queue.length = 0;
    this.idleOn = false;
    this.req.pause();
  }

  private wake(): void {
    const w = this.waiter;
    if (!w) return;
    if (this.failure) {
      this.waiter = undefined;
      w.reject(this.failure);
      return;
    }
    const next = this.queue.shift();
    if (next) {
      this.waiter = undefined;
      w.resolve(next);
    } else if (this.ended) {
      this.waiter = undefined;
      w.resolve(null);
    }
  }

  private fail(err: Error): void {
    if (this.done || this.ended || this.failure) return;
    this.failure = err;
    this.idleOn = false;
    this.wake();
  }

  /** After answering: throw away what is left of the body (bounded, and on the same clocks), or drop the connection. */
  discardRest(): void {
    const req = this.req;
    if (req.complete || req.destroyed) return;
    if (this.cut) {
      req.socket.destroy();
      return;
    }
    let seen = 0;
    this.done = true;
    this.queue.length = 0;
    req.removeAllListeners('data');
    req.on('data', (chunk: Buffer) => {
      this.armIdle();
      seen += chunk.byteLength;
      if (seen > DRAIN_LIMIT_BYTES) req.socket.destroy();
    });
    this.armIdle();
    req.resume();
  }

  private armIdle(): void {
    if (this.req.complete) return;
    this.idleOn = true;
    this.idleSince = performance.now();
    this.bounds.clocks.watch(this);
  }

  /** Called by the server's BodyClocks: cuts the body when one of its bounds has passed. */
  checkClocks(now: number): void {
    const { bodyTimeoutMs, bodyIdleTimeoutMs } = this.bounds;
    if (now - this.since >= bodyTimeoutMs) {
      this.trip(new MockHttpError(408, 'request_timeout', `the request body did not complete within ${bodyTimeoutMs} ms`));
    } else if (this.idleOn && now - this.idleSince >= bodyIdleTimeoutMs) {
      this.trip(new MockHttpError(408, 'request_timeout', `the request body sent nothing for ${bodyIdleTimeoutMs} ms`));
    }
  }

  private trip(err: MockHttpError): void {
    this.stopClocks();
    if (this.req.complete || this.cut) return;
    this.cut = err;
    // A core still reading the body gets the 408 as its read error and answers it with the envelope.
    this.fail(err);
    this.onCut(err);
  }

  private stopClocks(): void {
    this.idleOn = false;
    this.bounds.clocks.unwatch(this);
  }
}

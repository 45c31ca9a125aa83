// The node:http server's BodyChecker (mock/engine/checked-bodies.ts): one worker thread that parses and validates
// large chat bodies, one at a time, in the order they came. Started at the first large body; if it cannot start or
// dies, every body is parsed by the serving thread again, as without it.
import type { Worker } from 'node:worker_threads';
import type { BodyChecker, BodyVerdict } from '../engine/checked-bodies.ts';
import { startWorker } from './worker-thread.ts';

/** A body for the worker, and its answer (no verdict: the worker could not judge it). */
export interface ParseJob {
  id: number;
  bytes: Uint8Array;
}
export interface ParseAnswer {
  id: number;
  verdict?: BodyVerdict;
}

export class ParseThread {
  private worker: Worker | undefined;
  private failed = false;
  private nextId = 0;
  private readonly pending = new Map<number, (v: BodyVerdict | undefined) => void>();

  /** The checker to give the service. */
  readonly check: BodyChecker = (bytes) => {
    const worker = this.started();
    if (!worker) return Promise.resolve(undefined);
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      // Copied, not transferred: the serving thread keeps the bytes it decodes (a copy of 10 MB takes milliseconds).
      worker.postMessage({ id, bytes } satisfies ParseJob);
    });
  };

  private started(): Worker | undefined {
    if (this.worker || this.failed) return this.worker;
    try {
      const worker = startWorker(import.meta.url, 'parse-worker');
      // The server keeps the process alive; the worker never does.
      worker.unref();
      worker.on('message', (a: ParseAnswer) => {
        const resolve = this.pending.get(a.id);
        this.pending.delete(a.id);
        resolve?.(a.verdict);
      });
      worker.once('error', () => this.fail());
      worker.once('exit', () => this.fail());
      this.worker = worker;
    } catch {
      this.fail();
    }
    return this.worker;
  }

  /** No more worker: the bodies it had, and every later one, are parsed by the serving thread. Returns the worker to stop. */
  private drop(): Worker | undefined {
    this.failed = true;
    const worker = this.worker;
    this.worker = undefined;
    for (const resolve of this.pending.values()) resolve(undefined);
    this.pending.clear();
    return worker;
  }

  /** The worker failed or exited. */
  private fail(): void {
    void this.drop()?.terminate();
  }

  async close(): Promise<void> {
    await this.drop()?.terminate();
  }
}

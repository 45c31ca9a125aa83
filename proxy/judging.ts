// Where the proxy judges an exchange: the part that reads its bodies (content-encoding undone, the catalog learnt,
// the checks, the recording). Judging a large answer takes seconds of CPU (a 9 MB event stream: thousands of
// events, each parsed and checked), so the proxy does it in a worker thread (judge-worker.ts): its own event loop
// only forwards bytes, and no client waits behind another's answer being judged. Exchanges are judged one at a time,
// in the order they finished. If the worker cannot start or dies, judging goes on in the proxy's own thread.
import type { Worker } from 'node:worker_threads';
import type { Json } from '../judge/checks/check.ts';
import { isObject } from '../judge/checks/check.ts';
import { startWorker } from '../mock/transport/worker-thread.ts';
import { redact } from '../spec/redact.ts';
import type { CapturedExchange } from './forward.ts';
import { decodedBody, judgeExchange, routeOf, type JudgedExchange } from './judge-exchange.ts';
import { Recorder } from './recorder.ts';

export interface JudgeSetup {
  upstream: string;
  captureLimit: number;
  /** record every answered exchange here */
  recordDir?: string;
}

/** Judges exchanges in the calling thread, keeping what judging needs across them: the catalog, the recorder. */
export class LocalJudge {
  private readonly catalog = new Map<string, Json>();
  private secrets: readonly string[] = [];
  private readonly scrub = (text: string): string => redact(text, [...this.secrets]);
  private readonly recorder: Recorder | undefined;

  constructor(private readonly setup: JudgeSetup) {
    this.recorder = setup.recordDir ? new Recorder(setup.recordDir, this.scrub) : undefined;
  }

  /** The last list each credential was given (kept in memory only, never written): an entry read back is compared with it. */
  private readonly lists = new Map<string, Map<string, Json>>();

  entryOf = (id: string): Json | undefined => this.catalog.get(id);

  listedEntry = (id: string, authorization: string | undefined): Json | undefined => this.lists.get(authorization ?? '')?.get(id);

  /** The ids GET /v1/models/{id} served (200) to each credential (kept in memory only). */
  private readonly served = new Map<string, Set<string>>();

  servedEntries = (authorization: string | undefined): readonly string[] => [...(this.served.get(authorization ?? '') ?? [])];

  /** The entries of a model list the upstream answered, for the request checks (IMG-007) and the entries read back (CAT-037). */
  private learnCatalog(body: unknown, authorization: string | undefined): void {
    if (!isObject(body) || !Array.isArray(body.data)) return;
    const list = new Map<string, Json>();
    for (const e of body.data) {
      if (!isObject(e) || typeof e.id !== 'string') continue;
      this.catalog.set(e.id, e);
      list.set(e.id, e);
    }
    this.lists.set(authorization ?? '', list);
  }

  /** Judges one finished exchange and records it; `secrets`: every credential the traffic has shown so far. */
  judge(x: CapturedExchange, secrets: readonly string[]): JudgedExchange {
    this.secrets = secrets;
    const { captureLimit, upstream } = this.setup;
    const decoded = decodedBody(x.responseBody, x.responseHeaders['content-encoding'], captureLimit);
    if (decoded && x.status === 200 && routeOf(x.method, x.path)?.route === 'models') {
      try {
        this.learnCatalog(JSON.parse(decoded.toString('utf8')), x.requestHeaders.authorization);
      } catch {
        // Not a list: the checks say so.
      }
    }
    const judged = judgeExchange(x, decoded, { upstream, scrub: this.scrub, secrets: [...secrets], entryOf: this.entryOf, listedEntry: this.listedEntry, servedEntries: this.servedEntries, captureLimit });
    const route = routeOf(x.method, x.path);
    if (route?.route === 'model' && x.status === 200) {
      const key = x.requestHeaders.authorization ?? '';
      this.served.set(key, (this.served.get(key) ?? new Set()).add(route.id));
    }
    if (this.recorder && decoded) this.recorder.record(x, decoded, this.scrub);
    return judged;
  }
}

/** A job for the worker, and its answer. */
export interface JudgeJob {
  id: number;
  x: CapturedExchange;
  secrets: readonly string[];
}
export type JudgeAnswer = { id: number; judged: JudgedExchange } | { id: number; error: string };

/** Judges exchanges in a worker thread, one at a time, in order; in this thread if the worker fails. */
export class WorkerJudging {
  private worker: Worker | undefined;
  private local: LocalJudge | undefined;
  private fellBack = false;
  private nextId = 0;
  private readonly pending = new Map<number, { job: JudgeJob; resolve: (j: JudgedExchange) => void; reject: (e: Error) => void }>();

  constructor(
    private readonly setup: JudgeSetup,
    private readonly log: (line: string) => void,
  ) {
    try {
      const worker = startWorker(import.meta.url, 'judge-worker', setup);
      // The proxy's server keeps the process alive; the worker never does.
      worker.unref();
      worker.on('message', (a: JudgeAnswer) => this.answered(a));
      worker.once('error', (err) => this.fallBack(`the judging worker failed (${err.message})`));
      worker.once('exit', (code) => {
        if (this.worker === worker) this.fallBack(`the judging worker exited (${code})`);
      });
      this.worker = worker;
    } catch (err) {
      this.fallBack(`the judging worker could not start (${(err as Error).message})`);
    }
  }

  /** Judges one exchange: resolves once it is judged, after every exchange handed in before it. */
  judge(x: CapturedExchange, secrets: readonly string[]): Promise<JudgedExchange> {
    const job: JudgeJob = { id: this.nextId++, x, secrets };
    return new Promise((resolve, reject) => {
      this.pending.set(job.id, { job, resolve, reject });
      if (this.worker) this.worker.postMessage(job);
      else this.judgeHere(job.id);
    });
  }

  private answered(a: JudgeAnswer): void {
    const p = this.pending.get(a.id);
    if (!p) return;
    this.pending.delete(a.id);
    if ('judged' in a) p.resolve(a.judged);
    else p.reject(new Error(a.error));
  }

  /** Judges a job in this thread (the worker is gone), in a turn of its own so the caller's stack unwinds first. */
  private judgeHere(id: number): void {
    setImmediate(() => {
      const p = this.pending.get(id);
      if (!p) return;
      this.pending.delete(id);
      try {
        this.local ??= new LocalJudge(this.setup);
        p.resolve(this.local.judge(p.job.x, p.job.secrets));
      } catch (err) {
        p.reject(err as Error);
      }
    });
  }

  /** The worker is gone: the jobs it had, and every later one, are judged here. */
  private fallBack(why: string): void {
    if (this.fellBack) return;
    this.fellBack = true;
    this.log(`proxy: ${why}; judging goes on in the proxy's own thread`);
    const worker = this.worker;
    this.worker = undefined;
    void worker?.terminate();
    for (const id of [...this.pending.keys()].sort((a, b) => a - b)) this.judgeHere(id);
  }

  /** Stops the worker; judgements still pending are lost (call after every promise of judge() has settled). */
  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    await worker?.terminate();
  }
}

// The run's spending ledger, shared by every worker of one run through a file in the run folder:
// Playwright restarts workers after a failure, so an in-memory counter would forget what was spent.
// One line per request (reserved before it is sent) and one per reported cost. With a rate limit (--max-rps,
// the profile's budget.requestsPerMinute) it also hands out send times, spaced by the limit's interval across
// every worker of the run: the next free slot is kept in a file beside the ledger, taken under a lock.
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export interface LedgerTotals {
  requests: number;
  cost: number;
  /** Responses that reported usage.cost. */
  costedResponses: number;
}

const BUDGET_SKIP = Symbol('chatconform.budgetSkip');

export class BudgetExhausted extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BudgetExhausted';
  }

  /**
   * Inside a test the budget's refusal is delivered as Playwright's skip (so the test is skipped, never failed);
   * that skip still answers `instanceof BudgetExhausted`, so code that stops early on a spent budget (the
   * property runner) needs no second test for it.
   */
  static override [Symbol.hasInstance](value: unknown): boolean {
    return Function.prototype[Symbol.hasInstance].call(this, value) || (typeof value === 'object' && value !== null && BUDGET_SKIP in value);
  }
}

/** Tags the error Playwright's `skip` threw for a budget refusal (see BudgetExhausted); returns it. */
export function markBudgetSkip(skip: unknown, reason: string): unknown {
  if (typeof skip === 'object' && skip !== null) Object.defineProperty(skip, BUDGET_SKIP, { value: reason });
  return skip;
}

export interface LedgerLimits {
  maxRequests: number;
  maxCost: number;
  /** Least time between two requests of the run (all workers together); 0 or absent: no throttle. */
  minIntervalMs?: number;
  /** The per-model matrix: the model whose test sends, counted in a ledger of its own as well. */
  model?: string;
  /** Most requests that model may take; absent: only the run's budget bounds it. */
  maxRequestsPerModel?: number;
}

/** The per-model ledgers: one file per model of the matrix (its id encoded), one line per request. */
const MODEL_LEDGERS = 'ledger-models';

/** Requests each model of the matrix took, by model id. */
export function modelRequests(runDir: string): Record<string, number> {
  const dir = path.join(runDir, MODEL_LEDGERS);
  const out: Record<string, number> = {};
  if (!existsSync(dir)) return out;
  for (const name of readdirSync(dir)) out[decodeURIComponent(name.replace(/\.jsonl$/, ''))] = countRequests(path.join(dir, name));
  return out;
}

function countRequests(file: string): number {
  if (!existsSync(file)) return 0;
  let n = 0;
  for (const line of readFileSync(file, 'utf8').split('\n')) if (line === 'r') n++;
  return n;
}

/** A lock is held for a file read and write; one older than this was left by a worker that died holding it. */
const STALE_LOCK_MS = 2_000;
const LOCK_WAIT_MS = 10_000;

export class Ledger {
  constructor(
    private readonly file: string,
    private readonly limits: LedgerLimits,
  ) {}

  static in(runDir: string, limits: LedgerLimits): Ledger {
    return new Ledger(path.join(runDir, 'ledger.jsonl'), limits);
  }

  totals(): LedgerTotals {
    const t: LedgerTotals = { requests: 0, cost: 0, costedResponses: 0 };
    if (!existsSync(this.file)) return t;
    for (const line of readFileSync(this.file, 'utf8').split('\n')) {
      if (line === 'r') t.requests++;
      else if (line.startsWith('c ')) {
        const c = Number(line.slice(2));
        if (Number.isFinite(c)) {
          t.cost += c;
          t.costedResponses++;
        }
      }
    }
    return t;
  }

  /**
   * Reserve one request, or throw BudgetExhausted when the profile's budget is spent. Returns how long to wait
   * before sending it (0 without a rate limit).
   */
  reserve(now = Date.now()): number {
    const t = this.totals();
    if (t.requests >= this.limits.maxRequests) throw new BudgetExhausted(`request budget spent (${t.requests} of ${this.limits.maxRequests})`);
    if (t.cost >= this.limits.maxCost) throw new BudgetExhausted(`cost budget spent (${t.cost} of ${this.limits.maxCost})`);
    const model = this.limits.model;
    const modelFile = model === undefined ? undefined : path.join(path.dirname(this.file), MODEL_LEDGERS, `${encodeURIComponent(model)}.jsonl`);
    if (modelFile && this.limits.maxRequestsPerModel !== undefined) {
      const used = countRequests(modelFile);
      if (used >= this.limits.maxRequestsPerModel) throw new BudgetExhausted(`request budget of model ${model} spent (${used} of ${this.limits.maxRequestsPerModel})`);
    }
    // Appends of a few bytes are atomic on a local file system, so workers never interleave a line.
    appendFileSync(this.file, 'r\n');
    if (modelFile) {
      mkdirSync(path.dirname(modelFile), { recursive: true });
      appendFileSync(modelFile, 'r\n');
    }
    return this.limits.minIntervalMs ? this.nextSlot(now) - now : 0;
  }

  /** The run's next send time at or after `now`, spaced by the interval from the last one handed out (any worker's). */
  nextSlot(now: number): number {
    const interval = this.limits.minIntervalMs ?? 0;
    const slots = `${this.file}.slot`;
    return this.locked(() => {
      const last = existsSync(slots) ? Number(readFileSync(slots, 'utf8')) : Number.NEGATIVE_INFINITY;
      const slot = Math.max(now, (Number.isFinite(last) ? last : Number.NEGATIVE_INFINITY) + interval);
      writeFileSync(slots, String(slot));
      return slot;
    });
  }

  /** Runs `fn` holding the run's lock (a directory: mkdir is atomic across processes). */
  private locked<T>(fn: () => T): T {
    const lock = `${this.file}.lock`;
    const deadline = Date.now() + LOCK_WAIT_MS;
    for (;;) {
      try {
        mkdirSync(lock);
        break;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
        try {
          if (Date.now() - statSync(lock).mtimeMs > STALE_LOCK_MS) rmSync(lock, { recursive: true, force: true });
        } catch {
          // Released meanwhile.
        }
        if (Date.now() > deadline) throw new Error(`the run's rate-limit lock ${lock} was not free within ${LOCK_WAIT_MS} ms`);
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1);
      }
    }
    try {
      return fn();
    } finally {
      rmSync(lock, { recursive: true, force: true });
    }
  }

  recordCost(cost: number): void {
    if (Number.isFinite(cost) && cost >= 0) appendFileSync(this.file, `c ${cost}\n`);
  }
}

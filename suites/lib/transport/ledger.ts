// The run's spending ledger, shared by every worker of one run through a file in the run folder:
// Playwright restarts workers after a failure, so an in-memory counter would forget what was spent.
// One line per request (reserved before it is sent) and one per reported cost.
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
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

export class Ledger {
  constructor(
    private readonly file: string,
    private readonly limits: { maxRequests: number; maxCost: number },
  ) {}

  static in(runDir: string, limits: { maxRequests: number; maxCost: number }): Ledger {
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

  /** Reserve one request, or throw BudgetExhausted when the profile's budget is spent. */
  reserve(): void {
    const t = this.totals();
    if (t.requests >= this.limits.maxRequests) throw new BudgetExhausted(`request budget spent (${t.requests} of ${this.limits.maxRequests})`);
    if (t.cost >= this.limits.maxCost) throw new BudgetExhausted(`cost budget spent (${t.cost} of ${this.limits.maxCost})`);
    // Appends of a few bytes are atomic on a local file system, so workers never interleave a line.
    appendFileSync(this.file, 'r\n');
  }

  recordCost(cost: number): void {
    if (Number.isFinite(cost) && cost >= 0) appendFileSync(this.file, `c ${cost}\n`);
  }
}

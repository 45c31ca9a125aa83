// Checks against requirement IDs. A test declares the IDs it checks with `req(...)`; inside, each check
// names one of them and records pass, fail, warn (a failed SHOULD/MAY), skip or an observation (a gap of
// the spec: recorded, never judged). A failed MUST fails the test (soft, so the other checks still run).
import { expect, test, type TestInfo } from '@playwright/test';
import { getRequirement, isKnownRequirement, type Requirement } from '../../spec/requirements/index.ts';
import { formatIssues, validate, type SchemaName } from '../../spec/validator.ts';
import type { Target, TargetResponse } from './target.ts';

/**
 * What one check found. `error` is the kit's own inability to judge (a transport failure that did not
 * reproduce, a timeout of the kit's own making): never charged to the target as `fail`.
 */
export type CheckStatus = 'pass' | 'fail' | 'warn' | 'skip' | 'observed' | 'error';

/** Why a requirement could not be judged: the exchange it needed, and what went wrong there first. */
export interface RootCause {
  /** The requirement that failed on that exchange, when a deviation (not the kit) is the cause. */
  id?: string;
  /** Index into the test's exchanges. */
  exchange?: number;
  message: string;
}

export interface CheckRecord {
  id: string;
  status: CheckStatus;
  message?: string;
  /** For observations: what the target did. */
  observed?: unknown;
  /** Index into the test's exchanges of the request this check judged. */
  exchange?: number;
  /** For `skip` and `error`: the root cause, named once (the exchange and the requirement that failed on it). */
  cause?: RootCause;
}

export const REQUIREMENT_ANNOTATION = 'requirement';
export const EVIDENCE_ATTACHMENT = 'chatconform-evidence';

/** Test details declaring the requirement IDs a test checks: `test('…', req('CAT-001'), async …)`. */
export function req(...ids: string[]): { annotation: { type: string; description: string }[] } {
  for (const id of ids) if (!isKnownRequirement(id)) throw new Error(`req(): unknown requirement ID ${id}`);
  return { annotation: [...new Set(ids)].map((id) => ({ type: REQUIREMENT_ANNOTATION, description: id })) };
}

export function declaredRequirements(testInfo: Pick<TestInfo, 'annotations'>): string[] {
  return testInfo.annotations.filter((a) => a.type === REQUIREMENT_ANNOTATION && a.description).map((a) => a.description!);
}

export class Checker {
  readonly records: CheckRecord[] = [];

  constructor(
    private readonly testInfo: TestInfo,
    private readonly target: Target,
  ) {}

  private requirement(id: string): Requirement {
    if (!declaredRequirements(this.testInfo).includes(id)) {
      throw new Error(`check for ${id}, which this test does not declare with req(); declare every ID a test checks`);
    }
    return getRequirement(id);
  }

  private lastExchange(): number | undefined {
    return this.target.exchanges.length > 0 ? this.target.exchanges.length - 1 : undefined;
  }

  /**
   * The core check: `ok` true passes; false fails a MUST (the test fails) or warns for SHOULD/MAY.
   * The message says what was received, in the spec's terms.
   */
  that(id: string, ok: boolean, failure: string | (() => string)): boolean {
    const r = this.requirement(id);
    const record: CheckRecord = { id, status: 'pass' };
    const exchange = this.lastExchange();
    if (exchange !== undefined) record.exchange = exchange;
    if (!ok) {
      const message = this.target.scrub(typeof failure === 'function' ? failure() : failure);
      record.message = message;
      if (r.level === 'MUST') {
        record.status = 'fail';
        expect.soft(ok, `${id} (MUST, §${r.section}) ${r.statement}\n  ${message}`).toBe(true);
      } else {
        record.status = 'warn';
        this.testInfo.annotations.push({ type: 'warning', description: `${id} (${r.level}, §${r.section}): ${message}` });
      }
    }
    this.records.push(record);
    return ok;
  }

  /** The value validates against the schema; the failure lists each offending field by JSON pointer. */
  schema(id: string, name: SchemaName, data: unknown, what = name): boolean {
    const result = validate(name, data);
    return this.that(id, result.valid, () => `${what} does not match the ${name} schema:\n${formatIssues(result.errors)}`);
  }

  /** The response has one of the expected statuses. */
  status(id: string, res: TargetResponse, expected: number | readonly number[] | ((s: number) => boolean), what = 'status'): boolean {
    const ok = typeof expected === 'function' ? res.exchange.status !== 0 && expected(res.status) : ([] as number[]).concat(expected).includes(res.status);
    const wanted = typeof expected === 'function' ? 'a different status' : ([] as number[]).concat(expected).join(' or ');
    return this.that(id, ok, () => `expected ${what} ${wanted}; received ${res.describe()}`);
  }

  /** Record what the target does where the spec is silent (a gap). Never fails. */
  observe(id: string, observed: unknown, message?: string): void {
    const r = this.requirement(id);
    if (r.kind !== 'observation') throw new Error(`observe(): ${id} is a requirement, not an observation; use that()`);
    const record: CheckRecord = { id, status: 'observed', observed: this.scrubValue(observed) };
    if (message) record.message = this.target.scrub(message);
    const exchange = this.lastExchange();
    if (exchange !== undefined) record.exchange = exchange;
    this.records.push(record);
  }

  /** Skip the rest of the test with a stated reason; its unchecked requirements are reported as skipped.
   *  Write `return check.skip(…)` so TypeScript narrows after it. */
  skip(reason: string): never {
    this.markSkipped(reason);
    test.skip(true, reason);
    throw new Error('unreachable');
  }

  /** Record skip records for every declared requirement that has no record yet. */
  markSkipped(reason: string): void {
    const checked = new Set(this.records.map((r) => r.id));
    for (const id of declaredRequirements(this.testInfo)) {
      if (!checked.has(id)) this.records.push({ id, status: 'skip', message: reason });
    }
  }

  private scrubValue(v: unknown): unknown {
    if (v === undefined) return undefined;
    try {
      return JSON.parse(this.target.scrub(JSON.stringify(v)));
    } catch {
      return this.target.scrub(String(v));
    }
  }
}

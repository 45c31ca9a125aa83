// Ends a run of the project's tests with one plain line, `N passed, N failed, N skipped`, the closing line CI
// counts tests from (Playwright's own summary, "173 passed (9.8m)", is not read there). Listed last, so it prints
// last. .ci/run makes several runs (npm test, the slow tier, the matrix): with CHATCONFORM_COUNTS_FILE set, each
// run also appends its counts there as one JSON line, and tests/support/sum-test-counts.ts prints the one total
// line that closes .ci/run.
import { appendFileSync } from 'node:fs';
import type { FullResult, Reporter, TestCase, TestResult } from '@playwright/test/reporter';

export interface Counts {
  passed: number;
  failed: number;
  skipped: number;
}

/** The closing line: `412 passed, 0 failed` (`, 3 skipped` only when some were). */
export function plainLine(c: Counts): string {
  return `${c.passed} passed, ${c.failed} failed${c.skipped ? `, ${c.skipped} skipped` : ''}`;
}

export default class PlainSummaryReporter implements Reporter {
  private readonly outcomes = new Map<TestCase, ReturnType<TestCase['outcome']>>();

  onTestEnd(test: TestCase, _result: TestResult): void {
    // Keyed by test: a retried test counts once, by its final outcome.
    this.outcomes.set(test, test.outcome());
  }

  onEnd(result: FullResult): void {
    const counts: Counts = { passed: 0, failed: 0, skipped: 0 };
    for (const outcome of this.outcomes.values()) {
      if (outcome === 'expected' || outcome === 'flaky') counts.passed++;
      else if (outcome === 'skipped') counts.skipped++;
      else counts.failed++;
    }
    const file = process.env.CHATCONFORM_COUNTS_FILE;
    if (file) {
      // A run that failed outside any test (a file that does not load, a global timeout) still counts as failed.
      const label = process.env.CHATCONFORM_COUNTS_LABEL ?? 'playwright';
      appendFileSync(file, `${JSON.stringify({ label, ...counts, status: result.status })}\n`);
    }
    process.stdout.write(`${plainLine(counts)}\n`);
  }

  printsToStdio(): boolean {
    return true;
  }
}

// Ends `npm test` with one plain line, `N passed, N failed, N skipped`, the closing line CI counts tests from
// (Playwright's own summary, "173 passed (9.8m)", is not read there). Listed last, so it prints last.
import type { FullResult, Reporter, TestCase, TestResult } from '@playwright/test/reporter';

export default class PlainSummaryReporter implements Reporter {
  private readonly outcomes = new Map<TestCase, ReturnType<TestCase['outcome']>>();

  onTestEnd(test: TestCase, _result: TestResult): void {
    // Keyed by test: a retried test counts once, by its final outcome.
    this.outcomes.set(test, test.outcome());
  }

  onEnd(_result: FullResult): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const outcome of this.outcomes.values()) {
      if (outcome === 'expected' || outcome === 'flaky') passed++;
      else if (outcome === 'skipped') skipped++;
      else failed++;
    }
    process.stdout.write(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}\n`);
  }

  printsToStdio(): boolean {
    return true;
  }
}

// The target client's hooks into Playwright: the kit's own limits are never the target's failure. Inside a test
// each request extends the test's timeout by its own bound, and a request the budget refuses skips the test with
// the reason. Outside a test (the global setup, discovery) they do nothing.
import { test, type TestInfo } from '@playwright/test';
import { markBudgetSkip } from '../../run/ledger.ts';
import type { RunnerHooks } from '../../run/target.ts';

export const playwrightHooks: RunnerHooks = {
  extendTimeout(ms) {
    const info = currentTest();
    if (info && info.timeout > 0) info.setTimeout(info.timeout + ms);
  },
  refuse(reason) {
    const info = currentTest();
    if (!info) return;
    try {
      info.skip(true, reason);
    } catch (skip) {
      // Still recognisable as BudgetExhausted for the code that stops a run early on it (the property runner).
      throw markBudgetSkip(skip, reason);
    }
  },
};

function currentTest(): TestInfo | undefined {
  try {
    return test.info();
  } catch {
    // Not inside a test: the global setup, discovery, a script.
    return undefined;
  }
}

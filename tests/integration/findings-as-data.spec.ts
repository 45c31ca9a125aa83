// A finding is data: against a target that breaks a MUST on every answer, the suite's tests pass in Playwright's
// terms (the kit did its work), each carries its findings as annotations, one worker serves them all (a failed test
// would end its worker), and the conformance report still charges the requirement with the tests that found it.
import { expect, test } from '@playwright/test';
import { cleanup, runSuite } from './support/suite-runner.ts';
import { useMock } from './support/use-mock.ts';
import { jsonReportOf } from './support/playwright-json.ts';

const mock = useMock(test, { defect: 'created-milliseconds' });

interface JsonTest {
  annotations: { type: string; description?: string }[];
  results: { status: string; workerIndex: number }[];
}
interface JsonSuite {
  specs?: { title: string; tests: JsonTest[] }[];
  suites?: JsonSuite[];
}

test('findings never fail a Playwright test nor replace its worker; the report charges them all the same', async () => {
  test.setTimeout(240_000);
  const run = await runSuite({
    baseUrl: mock.url,
    files: ['suites/chat.spec.ts'],
    // Playwright's JSON reporter on stdout beside the conformance reporter (its reports go to the run's folder).
    extraArgs: ['--reporter=json,./suites/reporter.ts'],
    boundMs: 200_000,
    label: 'findings-as-data',
    keepChars: 64 * 1024 * 1024,
  });
  try {
    const out = run.stdout;
    const json = jsonReportOf(out) as { suites: JsonSuite[] };
    const tests: JsonTest[] = [];
    const walk = (s: JsonSuite) => {
      for (const spec of s.specs ?? []) tests.push(...spec.tests);
      (s.suites ?? []).forEach(walk);
    };
    json.suites.forEach(walk);
    const results = tests.map((t) => t.results.at(-1)!).filter(Boolean);
    expect(results.length).toBeGreaterThan(5);
    expect(results.filter((r) => r.status === 'failed' || r.status === 'timedOut').length, 'tests Playwright counts as failed').toBe(0);
    expect(new Set(results.map((r) => r.workerIndex)), 'one worker for the whole run (one worker asked for)').toEqual(new Set([0]));
    const findings = tests.flatMap((t) => t.annotations.filter((a) => a.type === 'finding').map((a) => a.description ?? ''));
    expect(findings.some((d) => d.startsWith('fail RESP-005 (MUST'))).toBe(true);

    const report = run.report!;
    expect(report.verdict.mustFailed).toContain('RESP-005');
    expect(run.code).toBe(1);
    // The engine's words: a test whose case failed a MUST is a failed test of the report, charged to it.
    expect(report.failedTests.some((t) => t.failed.includes('RESP-005'))).toBe(true);
  } finally {
    cleanup(run);
  }
});

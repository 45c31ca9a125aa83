// The kit's own rules (the catalog's `mock-only` records) are checked here, in npm test, against the embedded
// mock: suites/kit.config.ts runs suites/kit/. A target's verdict never holds them (the conformance config
// ignores suites/kit/), so a certifier's report carries no verdict about the kit itself.
import { expect, test } from '@playwright/test';
import { requirements } from '../../spec/requirements/index.ts';
import { cleanup, KIT_CONFIG, runSuite } from './support/suite-runner.ts';

const BOUND_MS = 240_000;

async function runKit(): Promise<{ code: number | null; out: string }> {
  // The kit's config as a user's run would have it: no seed, fuzz runs or workers of the cheap target runs.
  const run = await runSuite({ config: KIT_CONFIG, extraArgs: ['--reporter=json'], seed: null, fuzzRuns: null, workers: null, boundMs: BOUND_MS, label: 'kit-self', keepChars: 64 * 1024 * 1024 });
  cleanup(run);
  return { code: run.code, out: run.stdout };
}

interface JsonSuite {
  specs?: { title: string; tests: { annotations: { type: string; description?: string }[]; results: { status: string }[] }[] }[];
  suites?: JsonSuite[];
}

test('the kit checks itself: every mock-only requirement is judged by a passing kit test', async () => {
  test.setTimeout(BOUND_MS + 30_000);
  const { code, out } = await runKit();
  const report = JSON.parse(out.slice(out.indexOf('{'))) as { suites: JsonSuite[]; stats: { expected: number; unexpected: number; skipped: number } };
  const judged = new Map<string, string[]>();
  const walk = (s: JsonSuite) => {
    for (const spec of s.specs ?? []) {
      for (const t of spec.tests) {
        const status = t.results.at(-1)?.status ?? 'notRun';
        for (const a of t.annotations) if (a.type === 'requirement' && a.description) judged.set(a.description, [...(judged.get(a.description) ?? []), `${spec.title}: ${status}`]);
      }
    }
    for (const c of s.suites ?? []) walk(c);
  };
  report.suites.forEach(walk);
  console.log(`kit self-check: ${report.stats.expected} passed, ${report.stats.unexpected} failed, ${report.stats.skipped} skipped`);
  expect(report.stats.unexpected, 'kit tests that failed').toBe(0);
  expect(code).toBe(0);
  const kitOnly = requirements.filter((r) => r.check === 'mock-only' && r.kind === 'requirement').map((r) => r.id);
  const unjudged = kitOnly.filter((id) => !(judged.get(id) ?? []).some((s) => s.endsWith(': passed')));
  expect(unjudged, 'mock-only requirements no passing kit test judges').toEqual([]);
});

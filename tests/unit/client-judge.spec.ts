// The power of `chatconform client`'s judgement, in process: the flawed client of tests/fixtures/clients/flawed.mjs
// answers every scenario against its own mock (no process spawned), once clean and once per flaw. The clean client
// fails nothing; each flaw fails exactly the requirement it breaks, and every other requirement still passes or is
// skipped because the scenario it builds on failed.
import { expect, test } from '@playwright/test';
import { runClientScenarios, type ClientDriver, type ScenarioResult } from '../../client/engine.ts';
import { SCENARIOS } from '../../client/scenarios.ts';
import { answer } from '../fixtures/clients/flawed.mjs';

const inProcess =
  (flaw: string): ClientDriver =>
  async (env) => {
    const report = await answer(env, flaw);
    return { exitCode: 0, signal: null, timedOut: false, flooded: false, stdout: JSON.stringify(report), stderrTail: '', durationMs: 0 };
  };

const statuses = (results: readonly ScenarioResult[]): Record<string, string> => Object.fromEntries(results.flatMap((r) => r.records.map((x) => [x.id, x.status])));

/** Each flaw and the one requirement it must fail (issue 42, point 5). */
const FLAWS: Record<string, string> = {
  'ignore-stream-error': 'STREAM-018',
  'split-lf-only': 'STREAM-008',
  'done-as-json': 'STREAM-004',
  'chunk-decode': 'STREAM-014',
  'annotations-back': 'SEARCH-030',
  'hardcoded-model': 'CAT-040',
  'swap-model': 'ERR-009',
  'arguments-object': 'RESP-020',
  'id-concat': 'TOOL-011',
};

test.describe.configure({ timeout: 60_000 });

test('the clean client passes every requirement of every scenario', async () => {
  const results = await runClientScenarios({ driver: inProcess('none'), parallel: true });
  const all = statuses(results);
  expect(Object.keys(all).sort()).toEqual([...new Set(SCENARIOS.flatMap((s) => s.requirements))].sort());
  expect(Object.entries(all).filter(([, s]) => s !== 'pass'), JSON.stringify(results.flatMap((r) => r.records.filter((x) => x.status !== 'pass')))).toEqual([]);
});

for (const [flaw, id] of Object.entries(FLAWS)) {
  test(`the flaw ${flaw} fails ${id} and nothing else`, async () => {
    const results = await runClientScenarios({ driver: inProcess(flaw), parallel: true });
    const all = statuses(results);
    const failed = Object.entries(all).filter(([, s]) => s === 'fail').map(([k]) => k);
    expect(failed).toEqual([id]);
    // What is not failed passes, or was skipped because the scenario it builds on failed (done-as-json: every stream).
    for (const r of results)
      for (const x of r.records) {
        if (x.id === id) continue;
        if (x.status === 'skip') expect(x.cause?.id, `${x.id} skipped`).toBe(id);
        else expect(x.status, `${x.id}: ${x.message}`).toBe('pass');
      }
  });
}

test('a report of the wrong shape is failed for the scenario, never a crash of the kit', async () => {
  const driver: ClientDriver = async () => ({ exitCode: 0, signal: null, timedOut: false, flooded: false, stdout: '{"models": "all of them", "tool_calls": 3}', stderrTail: '', durationMs: 0 });
  const results = await runClientScenarios({ driver, scenarios: SCENARIOS.filter((s) => s.id === 'catalog-optional' || s.id === 'tool-loop'), parallel: true });
  expect(statuses(results)).toEqual({ 'CAT-003': 'fail', 'CAT-042': 'fail', 'RESP-020': 'fail', 'TOOL-011': 'fail' });
});

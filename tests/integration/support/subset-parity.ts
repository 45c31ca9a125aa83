// Subset parity (the matrix tier): for every MUST defect mode D breaking R, a run of R's selection (the tests the
// suite's index says can record R: run/selection.ts selectedTests, what `run --requirement R` runs) against the
// mock in mode D fails R, as the whole run does. One conformance run for all of them: each defect a target of its own
// mock (run/targets.ts), each target given exactly its requirement's selection through Playwright's --test-list (the
// run's own target blocks placed as a rerun places them: run/rerun.ts), so the runner, global setup and workers are
// paid once. `chatconform run --requirement` itself is proven by tests/integration/ci-gating.spec.ts.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestInfo } from '@playwright/test';
import { DEFECTS, type DefectName, type DefectSpec } from '../../../mock/defects.ts';
import { startMockServer } from '../../../mock/server.ts';
import { primaryOf } from '../../../spec/requirements/index.ts';
import { selectedTests, type Selection } from '../../../run/selection.ts';
import { testListForTargets, testListOf } from '../../../run/rerun.ts';
import { repoRoot } from '../../../run/config.ts';
import { FUZZ_RUNS, WORKERS } from './defect-matrix.ts';
import { cleanup, MOCK_PROFILE, runTargets, type SuiteRun } from './suite-runner.ts';

const SEED = 20261122;

export interface SubsetRow {
  defect: DefectSpec;
  /** Tests in the requirement's selection. */
  tests: number;
  /** The subset run's failed MUST IDs. */
  mustFailed: string[];
  failsR: boolean;
}

/** The MUST defect modes of the matrix. */
export function mustDefects(): DefectSpec[] {
  return (DEFECTS as readonly DefectSpec[]).filter((d) => d.expect !== 'warn');
}

const selectionOfId = (id: string): Selection => ({ requirements: [primaryOf(id)], sections: [], levels: [], exclude: [] });

/** The test list of one target: its requirement's selection, inside the target's block. */
function listFor(d: DefectSpec, target: string): string[] {
  const tests = selectedTests(selectionOfId(d.breaks)).map((t) => ({ file: `suites/${t.file}`, line: 0, title: t.titles.join(' › ') }));
  return testListForTargets(testListOf(tests, repoRoot, path.join(repoRoot, 'suites')), [target]).split('\n').filter((l) => l !== '' && !l.startsWith('#'));
}

export async function runSubsetParity(testInfo: TestInfo, defects: readonly DefectSpec[] = mustDefects()): Promise<{ rows: SubsetRow[]; table: string }> {
  const mocks = await Promise.all(defects.map((d) => startMockServer({ port: 0, defect: d.name as DefectName })));
  const dir = mkdtempSync(path.join(os.tmpdir(), 'chatconform-subset-'));
  const list = path.join(dir, 'tests.txt');
  const name = (d: DefectSpec) => `subset-${d.name}`;
  writeFileSync(list, `# each defect's target runs its requirement's selection\n${defects.flatMap((d) => listFor(d, name(d))).join('\n')}\n`);
  let run: SuiteRun & { reportOf: (name: string) => { verdict: { mustFailed: string[] } } | undefined };
  try {
    run = await runTargets(
      defects.map((d, i) => ({ name: name(d), baseUrl: mocks[i]!.url, profile: MOCK_PROFILE, seed: SEED })),
      { seed: SEED, fuzzRuns: FUZZ_RUNS, workers: WORKERS, boundMs: 900_000 + defects.length * 20_000, label: 'subset-parity', extraArgs: ['--test-list', list] },
    );
  } finally {
    await Promise.all(mocks.map((m) => m.close()));
    rmSync(dir, { recursive: true, force: true });
  }
  const rows = defects.map((d): SubsetRow => {
    const mustFailed = run.reportOf(name(d))?.verdict.mustFailed ?? [];
    return { defect: d, tests: selectedTests(selectionOfId(d.breaks)).length, mustFailed, failsR: mustFailed.includes(primaryOf(d.breaks)) };
  });
  const w = Math.max(...rows.map((r) => r.defect.name.length), 10);
  const lines = [`subset parity: run --requirement R (its selection) against mock --defect D, for every MUST defect mode (seed ${SEED})`, ''];
  for (const r of rows) lines.push(`  ${r.defect.name.padEnd(w)}  ${r.defect.breaks.padEnd(10)}  ${String(r.tests).padStart(3)} tests  ${r.failsR ? 'fails R' : `MISSED (failed: ${r.mustFailed.join(', ') || 'none'})`}`);
  lines.push('', `  ${rows.filter((r) => r.failsR).length} of ${rows.length} MUST defect modes: the requirement's own selection fails it`);
  const table = lines.join('\n');
  console.log(`\n${table}\n`);
  const file = testInfo.outputPath('subset-parity.txt');
  writeFileSync(file, `${table}\n`);
  await testInfo.attach('subset-parity', { path: file, contentType: 'text/plain' });
  if (rows.every((r) => r.failsR)) cleanup(run);
  return { rows, table };
}

// The defect matrix's machinery, shared by its two tiers: `npm test` runs a sample (defect-matrix.spec.ts),
// `npm run test:matrix` every defect and variant (defect-matrix-full.spec.ts).
//
// The suite's power, measured: the whole conformance suite is run against the reference mock in every defect
// mode of a plan (it must fail, and its failed MUST IDs must include the requirement the defect breaks), in the
// legal variants (it must pass: failing one is a false alarm) and clean (the control). Prints the score table.
//
// Every run's report is held to the suite's index (tests/support/index-truth.ts): a test that recorded an ID its
// index does not hold fails the job, so a partial run never leaves out a test the whole run judges an ID on.
//
// One run for the whole plan: every job is a target of one conformance run (run/targets.ts), each with its own mock
// in this process on a free port, its own seed, profile and scratch folder, and its own reports; the same two
// workers serve every target, so a job costs its tests, never a runner, a global setup or a worker. A cooperative
// defect target runs its requirement's selection, exactly what `run --requirement R` runs (the tests the suite's index
// says can record R), so every MUST defect caught is one whose subset run fails R (issue 47's subset parity); a
// black-box defect target runs the spec files holding those tests (a black box may see it under another ID); the
// clean and variant targets run the whole suite. Two tiers of cooperation: with full cooperation (the mock's own
// profile, a fixed seed), every defect must be caught under the requirement it breaks; as a black box (no profile,
// only a key), every defect of a black-box requirement must still be caught. A defect a black box cannot see (its
// provocation needs a profile) is not run as a black box: such a run could not fail; the table says why it is blind.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, type TestInfo } from '@playwright/test';
import { DEFECTS, type DefectName, type DefectSpec } from '../../../mock/defects.ts';
import { MOCK_KEYS } from '../../../mock/keys-and-models.ts';
import { startMockServer } from '../../../mock/server.ts';
import { getRequirement, primaryOf } from '../../../spec/requirements/index.ts';
import { requirementLinks, specFilesOf } from '../../../scripts/requirement-links.ts';
import { VARIANTS, type VariantName } from '../../../mock/variants.ts';
import { testSeed } from '../../support/seed.ts';
import { indexMisses } from '../../support/index-truth.ts';
import type { RunTarget } from '../../../run/targets.ts';
import { selectedTests } from '../../../run/selection.ts';
import { testIndex, type IndexedTest } from '../../../run/test-index.ts';
import { testListOf } from '../../../run/rerun.ts';
import { repoRoot } from '../../../run/config.ts';
import { cleanup, crashes, MOCK_PROFILE, runTargets, type SuiteRun } from './suite-runner.ts';

/** The run's workers (default 2: the machine has two cores). */
export const WORKERS = Math.max(1, Number(process.env.CHATCONFORM_MATRIX_WORKERS) || 2);
const SEED = 20261122;
/**
 * The black-box tier's seed: fixed (CHATCONFORM_MATRIX_SEED replays another); random under `npm run test:explore`
 * and printed with the table, so a miss can be replayed.
 */
export const BLACK_BOX_SEED = Number(process.env.CHATCONFORM_MATRIX_SEED) || testSeed(20261125, 'defect matrix, black-box tier');

const LINKS = requirementLinks();

/**
 * The spec files that can show a deviation from the requirement a defect breaks: those holding a test whose index
 * holds it (scripts/requirement-links.ts, as spec/REQUIREMENTS.md shows them).
 */
export function filesFor(d: DefectSpec): string[] {
  const files = specFilesOf(LINKS.get(d.breaks)!);
  if (files.length === 0) throw new Error(`no spec file can show ${d.name}: nothing declares ${d.breaks} or sends the answers its checks judge`);
  return files;
}

/** Why a black box cannot see a defect: provoking it needs what only a cooperating profile gives. */
export function blackBoxBlindSpot(d: DefectSpec): string | undefined {
  if (d.cooperation) return `provoking it needs ${d.cooperation}`;
  const r = getRequirement(d.breaks);
  return r.check === 'black-box' ? undefined : `${d.breaks} is checked only with cooperation (${r.check}): the profile's keys, models or scenario headers`;
}
export const FUZZ_RUNS = 3;
/**
 * The bound on one run of a plan's targets: for a hang, not a slow machine. A target is a few seconds of tests; the
 * bound gives each target of the plan half a minute on top of a quarter of an hour.
 */
const runBoundMs = (targets: number) => 900_000 + targets * 30_000;

export type Job =
  | { kind: 'clean'; label: string }
  | { kind: 'defect'; label: string; defect: DefectSpec; blackBox?: boolean }
  | { kind: 'variants'; label: string; variants: VariantName[] };

interface Outcome {
  job: Job;
  /** The job's target in its run; none for a black-box job that could not fail (blind), which is not run. */
  run?: SuiteRun;
  /** The run judged as the job requires (caught, warned, or passed). */
  ok: boolean;
  /** One line on what the run did. */
  result: string;
  /** MUST IDs the run failed. */
  mustFailed: string[];
}

const ALL_VARIANTS = VARIANTS.map((v) => v.name);

function judge(job: Job, run: SuiteRun): Outcome {
  const r = run.report;
  const mustFailed = r?.verdict.mustFailed ?? [];
  const base = { job, run, mustFailed };
  if (!r) {
    return { ...base, ok: false, result: run.killed ? `killed after ${(run.wallMs / 1000).toFixed(0)} s, no report` : `no conformance.json (exit ${run.code})` };
  }
  // Judge the target, never crash on it: a defect must be reported by checks, not by an exception in the suite.
  const crashed = crashes(r);
  if (crashed.length > 0 || r.errors.length > 0) {
    const what = [...crashed.map((c) => `${c.title}: ${c.error}`), ...r.errors].slice(0, 3).join(' | ');
    return { ...base, ok: false, result: `the suite crashed: ${what}` };
  }
  // The suite's index holds every test that recorded a requirement here: a partial run of it would run that test.
  const misses = indexMisses(r);
  if (misses.outside.length > 0 || misses.unknownTests.length > 0) {
    return { ...base, ok: false, result: `INDEX: tests recorded requirements outside their index: ${[...misses.outside, ...misses.unknownTests.map((t) => `${t} (not in the index)`)].slice(0, 5).join('; ')}` };
  }
  const verdict = `${r.verdict.result}, exit ${run.code}`;
  if (job.kind === 'defect') {
    const d = job.defect;
    if (d.expect === 'warn') {
      const status = r.requirements.find((q) => q.id === d.breaks)?.status;
      // A run of some files is `incomplete` (it judges no stream, say): a warning keeps it from failing all the same.
      const ok = r.verdict.result !== 'fail' && run.code === 0 && status === 'warn';
      return { ...base, ok, result: ok ? `warned ${d.breaks} (SHOULD), verdict ${r.verdict.result}` : `${d.breaks} ${status ?? 'absent'}; verdict ${verdict}` };
    }
    const caught = r.verdict.result === 'fail' && run.code !== 0 && mustFailed.includes(primaryOf(d.breaks));
    if (job.blackBox) {
      // A black box may see a defect under another requirement (a deactivated model listed fails CAT-033 when a
      // completion naming it is refused); what it must never do is pass a defect of a black-box requirement.
      const seen = r.verdict.result === 'fail' && run.code !== 0;
      const blind = blackBoxBlindSpot(d);
      const ok = seen || blind !== undefined;
      const result = caught ? 'caught' : seen ? `caught as ${mustFailed.join(', ')}` : blind ? `not visible: ${blind}` : `MISSED: verdict ${verdict}`;
      return { ...base, ok, result };
    }
    return { ...base, ok: caught, result: caught ? 'caught' : mustFailed.length === 0 ? `MISSED: verdict ${verdict}` : `MISSED ${d.breaks}: verdict ${verdict}` };
  }
  // The run's --test-list (the matrix's own filter, which lists every test of a legal target) makes each target's
  // report partial, as a run of that target alone under the list would be: a pass then reads "partial", with every
  // one of the suite's tests run and no MUST failed (a SHOULD warning, as usage-chunk-bare's CHAT-001, passes).
  const whole = r.run.tests.total === testIndex().tests.length;
  const passed = r.verdict.result === 'pass' || (r.verdict.result === 'partial' && whole && mustFailed.length === 0);
  const ok = passed && run.code === 0;
  return { ...base, ok, result: ok ? 'pass' : `FALSE ALARM: verdict ${verdict}` };
}

/** The target of a job: its mock's URL, seed, profile or key, and (a black-box defect) the files that can show it. */
function targetOf(job: Job, url: string): RunTarget {
  const blackBox = job.kind === 'defect' && job.blackBox === true;
  return {
    name: job.label,
    baseUrl: url,
    ...(blackBox ? { apiKey: MOCK_KEYS.full, seed: BLACK_BOX_SEED } : { profile: MOCK_PROFILE, seed: SEED }),
    ...(job.kind === 'defect' && job.blackBox ? { files: filesFor(job.defect) } : {}),
  };
}

/**
 * The tests a job's target runs. A cooperative MUST defect: its requirement's selection, exactly what `run --requirement
 * R` runs (run/selection.ts selectedTests, from the suite's index), so "caught" is the subset parity of issue 47: the
 * requirement's own selection fails it (a test outside the selection cannot record R: the Checker refuses it, so the
 * whole suite could not fail R anywhere else). A black-box defect, and a SHOULD one: every test of the files that can
 * show it (a black box may see it under another requirement). The clean mock and the variants: the whole suite.
 */
export function testsOfJob(job: Job): IndexedTest[] {
  if (job.kind !== 'defect') return testIndex().tests;
  // A SHOULD defect's run runs its files: the one test of LIMIT-007, every exchange reset by design, is a run whose
  // target never answered (exit 3), where the warning must show in a run that otherwise passes.
  if (!job.blackBox && job.defect.expect !== 'warn') return selectionOfRequirement(job.defect.breaks);
  const files = new Set(filesFor(job.defect));
  return testIndex().tests.filter((t) => files.has(`suites/${t.file}`));
}

/** Playwright's --test-list of a run of many targets: each target's tests inside its target's block (as a rerun lists them). */
export function targetsTestList(entries: readonly { target: string; tests: readonly IndexedTest[] }[]): string {
  const lines = entries.flatMap(({ target, tests }) => {
    const listed = tests.map((t) => ({ file: `suites/${t.file}`, line: 0, title: t.titles.join(' › ') }));
    // Each test under its target's slot block (run/slots.ts names a target's block by the target).
    return testListOf(listed, repoRoot, path.join(repoRoot, 'suites'), { targets: [target] }).split('\n').filter((l) => l !== '' && !l.startsWith('#'));
  });
  return `# each target's tests, in its target's block\n${lines.join('\n')}\n`;
}

/** The tests of a requirement's selection: what `run --requirement ID` runs. */
export const selectionOfRequirement = (id: string): IndexedTest[] => selectedTests({ requirements: [primaryOf(id)], sections: [], levels: [], exclude: [] });

/** Every job as a target of one conformance run; each job's outcome judged from its target's reports. */
async function runJobs(jobs: readonly Job[], label: string): Promise<{ outcomes: Outcome[]; run: SuiteRun }> {
  const mocks = await Promise.all(
    jobs.map((job) =>
      startMockServer({
        port: 0,
        ...(job.kind === 'defect' ? { defect: job.defect.name as DefectName } : {}),
        ...(job.kind === 'variants' ? { variant: job.variants } : {}),
      }),
    ),
  );
  const listDir = mkdtempSync(path.join(os.tmpdir(), 'chatconform-matrix-list-'));
  const list = path.join(listDir, 'tests.txt');
  writeFileSync(list, targetsTestList(jobs.map((job) => ({ target: job.label, tests: testsOfJob(job) }))));
  try {
    const run = await runTargets(
      jobs.map((job, i) => targetOf(job, mocks[i]!.url)),
      { seed: SEED, fuzzRuns: FUZZ_RUNS, workers: WORKERS, boundMs: runBoundMs(jobs.length), label, extraArgs: ['--test-list', list] },
    );
    const outcomes = jobs.map((job) => {
      const report = run.reportOf(job.label);
      const own: SuiteRun = { ...run, reportDir: run.reportDirOf(job.label), code: report ? report.verdict.exitCode : run.code };
      if (report) own.report = report;
      else delete own.report;
      return judge(job, own);
    });
    return { outcomes, run };
  } finally {
    await Promise.all(mocks.map((m) => m.close()));
    rmSync(listDir, { recursive: true, force: true });
  }
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(0)} s`;
/** The tests a job's target ran. */
const testsOf = (o: Outcome) => String(o.run?.report?.run.tests.total ?? '-');

function table(plan: MatrixPlan, outcomes: Outcome[], runs: readonly SuiteRun[], wallMs: number): string {
  const allDefects = outcomes.filter((o) => o.job.kind === 'defect') as (Outcome & { job: Extract<Job, { kind: 'defect' }> })[];
  const defects = allDefects.filter((o) => !o.job.blackBox);
  const blackBox = allDefects.filter((o) => o.job.blackBox);
  const musts = defects.filter((o) => o.job.defect.expect !== 'warn');
  const shoulds = defects.filter((o) => o.job.defect.expect === 'warn');
  const variantRuns = outcomes.filter((o) => o.job.kind === 'variants');
  const clean = outcomes.find((o) => o.job.kind === 'clean');
  // A variant passes when every run it was part of passed; a failed combined run is bisected, so each variant
  // also has a run of its own then.
  const variantVerdicts = ALL_VARIANTS.map((name) => {
    const runs = variantRuns.filter((o) => o.job.kind === 'variants' && o.job.variants.includes(name));
    const alone = runs.find((o) => o.job.kind === 'variants' && o.job.variants.length === 1);
    const passed = alone ? alone.ok : runs.length > 0 && runs.every((o) => o.ok);
    return { name, passed, runs: runs.length };
  });
  const w = Math.max(...DEFECTS.map((d) => d.name.length), 24);
  const lines: string[] = [];
  lines.push(`defect matrix: the whole suite against the mock (seed ${SEED}, ${FUZZ_RUNS} fuzz runs; every job a target of one run, ${WORKERS} workers; ${plan.name})`);
  lines.push('');
  lines.push(`  ${'defect'.padEnd(w)}  ${'breaks'.padEnd(10)}  ${'section'.padEnd(14)}  ${'result'.padEnd(10)}  ${'tests'.padStart(5)}  failed MUST IDs   (each run: the selection of the requirement it breaks)`);
  for (const o of defects) {
    const d = o.job.defect;
    lines.push(`  ${d.name.padEnd(w)}  ${d.breaks.padEnd(10)}  ${d.section.padEnd(14)}  ${(o.ok ? (d.expect === 'warn' ? 'warned' : 'caught') : 'MISSED').padEnd(10)}  ${testsOf(o).padStart(5)}  ${o.mustFailed.join(', ') || '-'}${o.ok ? '' : `   (${o.result})`}`);
  }
  lines.push('');
  lines.push(`black box (no profile, only a key, seed ${BLACK_BOX_SEED}): what a certifier without cooperation sees`);
  for (const o of blackBox) {
    const d = o.job.defect;
    lines.push(`  ${d.name.padEnd(w)}  ${d.breaks.padEnd(10)}  ${(o.ok ? (o.result.startsWith('not visible') ? 'blind' : 'caught') : 'MISSED').padEnd(10)}  ${testsOf(o).padStart(5)}  ${o.result}`);
  }
  lines.push('');
  for (const o of [...(clean ? [clean] : []), ...variantRuns]) {
    const label = o.job.kind === 'clean' ? 'clean mock' : `variants ${(o.job as Extract<Job, { kind: 'variants' }>).variants.join('+')}`;
    lines.push(`  ${label}: ${o.result} (${testsOf(o)} tests)${o.ok ? '' : `; failed MUST IDs: ${o.mustFailed.join(', ') || '-'}; log ${o.run?.logFile ?? '-'}`}`);
  }
  lines.push('');
  lines.push(`  defects caught: ${musts.filter((o) => o.ok).length}/${musts.length} (MUST), each by its requirement's own selection (run --requirement R: subset parity)   SHOULD defects warned: ${shoulds.filter((o) => o.ok).length}/${shoulds.length}`);
  const blind = blackBox.filter((o) => o.result.startsWith('not visible'));
  lines.push(`  black box: ${blackBox.filter((o) => o.ok && !o.result.startsWith('not visible')).length}/${blackBox.length} caught, ${blind.length} not visible without cooperation (${blind.map((o) => o.job.defect.name).join(', ') || 'none'}), ${blackBox.filter((o) => !o.ok).length} missed`);
  if (variantRuns.length === 0) lines.push(`  variants: not run   clean mock: ${clean ? (clean.ok ? 'pass' : 'FAIL') : 'not run'}`);
  else lines.push(`  variants passed: ${variantVerdicts.filter((v) => v.passed).length}/${variantVerdicts.length}${variantVerdicts.some((v) => !v.passed) ? ` (failing: ${variantVerdicts.filter((v) => !v.passed).map((v) => v.name).join(', ')})` : ''}   clean mock: ${clean ? (clean.ok ? 'pass' : 'FAIL') : 'not run'}`);
  const ran = outcomes.filter((o) => o.run).length;
  lines.push(`  ${ran} targets in ${runs.length} run(s) (${runs.map((r) => seconds(r.wallMs)).join(' + ')}), ${outcomes.length - ran} blind black-box job(s) not run; ${seconds(wallMs)} in all`);
  if (plan.note) lines.push(`  (${plan.note})`);
  return lines.join('\n');
}

/** What a tier runs: its name (in the table's heading), its jobs, and a closing note. */
export interface MatrixPlan {
  name: string;
  jobs: Job[];
  note?: string;
}

export const ALL_VARIANT_NAMES: readonly VariantName[] = ALL_VARIANTS;

/** A cooperative defect run (the mock's profile, the fixed seed); `blackBox`: no profile, only a key. */
export const defectJob = (d: DefectSpec, blackBox = false): Job =>
  blackBox ? { kind: 'defect', label: `blackbox-${d.name}`, defect: d, blackBox: true } : { kind: 'defect', label: `defect-${d.name}`, defect: d };

/** One run of the whole suite with every legal variant at once (bisected into single-variant runs if it fails). */
export const combinedVariantsJob = (): Job => ({ kind: 'variants', label: 'variants-all', variants: [...ALL_VARIANTS] });

export function defectNamed(name: DefectName): DefectSpec {
  const d = DEFECTS.find((x) => x.name === name);
  if (!d) throw new Error(`no defect named ${name}`);
  return d;
}

/**
 * Runs a plan's jobs, prints and attaches the table, and fails softly for every run not judged as its job requires.
 * The caller sets the test's timeout (timeoutFor).
 */
export async function runMatrix(plan: MatrixPlan, testInfo: TestInfo): Promise<void> {
  const started = Date.now();
  // A black-box job whose defect a black box cannot see could not fail: it is listed, not run.
  const blind = (j: Job) => (j.kind === 'defect' && j.blackBox ? blackBoxBlindSpot(j.defect) : undefined);
  const outcomes: Outcome[] = [];
  const runs: SuiteRun[] = [];
  const first = await runJobs(plan.jobs.filter((j) => blind(j) === undefined), 'matrix');
  runs.push(first.run);
  // A failed combined variant target is bisected: each of its variants alone, in a second run, so the table names the culprit.
  const failedCombined = first.outcomes.filter((o) => o.job.kind === 'variants' && o.job.variants.length > 1 && !o.ok);
  const singles = failedCombined.flatMap((o) => (o.job as Extract<Job, { kind: 'variants' }>).variants.map((v): Job => ({ kind: 'variants', label: `variant-${v}`, variants: [v] })));
  const second = singles.length > 0 ? await runJobs(singles, 'matrix-variants') : undefined;
  if (second) runs.push(second.run);
  for (const job of plan.jobs) {
    const why = blind(job);
    if (why !== undefined) outcomes.push({ job, ok: true, result: `not visible: ${why}`, mustFailed: [] });
    else outcomes.push(first.outcomes.find((o) => o.job === job)!);
  }
  outcomes.push(...(second?.outcomes ?? []));

  const report = table(plan, outcomes, runs, Date.now() - started);
  console.log(`\n${report}\n`);
  const file = testInfo.outputPath('defect-matrix.txt');
  writeFileSync(file, `${report}\n`);
  await testInfo.attach('defect-matrix', { path: file, contentType: 'text/plain' });

  for (const o of outcomes) {
    const what = o.job.kind === 'defect' ? `${o.job.blackBox ? 'black-box ' : ''}defect ${o.job.defect.name} (breaks ${o.job.defect.breaks})` : o.job.kind === 'clean' ? 'the clean mock' : `variants ${o.job.variants.join('+')}`;
    expect.soft(o.ok, `${what}: ${o.result}; failed MUST IDs ${o.mustFailed.join(', ') || 'none'}; run log ${o.run?.logFile}, report ${path.join(o.run?.reportDir ?? '-', 'conformance.json')}\n${o.ok ? '' : (o.run?.tail ?? '').slice(-1500)}`).toBe(true);
  }
  if (outcomes.every((o) => o.ok)) runs.forEach(cleanup);
}

/**
 * The rows CHATCONFORM_MATRIX_ROWS names (comma-separated defect names, `clean`, `variants`), cooperative and black
 * box: a contributor replays the rows a change touches without the hundred others. Unset: every job. A name that
 * matches no row is an error, so a typo never passes as an empty matrix.
 */
export function selectedRows(jobs: Job[], rows = process.env.CHATCONFORM_MATRIX_ROWS): Job[] {
  if (!rows) return jobs;
  const names = rows.split(',').map((n) => n.trim()).filter(Boolean);
  const rowOf = (j: Job) => (j.kind === 'defect' ? j.defect.name : j.kind);
  const unknown = names.filter((n) => !jobs.some((j) => rowOf(j) === n));
  if (unknown.length > 0) throw new Error(`CHATCONFORM_MATRIX_ROWS: no row named ${unknown.join(', ')} (rows: clean, variants, or a defect name of mock/defects.ts)`);
  return jobs.filter((j) => names.includes(rowOf(j)));
}

/** A bound on a whole plan, generous: its run may share two cores with other tests (the run is bounded anyway). */
export function timeoutFor(jobs: number): number {
  // The plan's run, and a second one for the bisected variants.
  return 2 * runBoundMs(jobs) + 60_000;
}

// The product's main job, as a user runs it: the whole suite against the embedded mock must pass with
// nothing skipped that the mock supports; against a separately started mock with the mock's profile it must
// give the same per-requirement results.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { CliProcesses } from './support/cli-process.ts';
import { cleanup, MOCK_PROFILE, runSuite } from './support/suite-runner.ts';
import type { ConformanceReport } from '../../report/json.ts';
import { indexMisses } from '../support/index-truth.ts';

const SEED = '20261122';

/**
 * Requirements the suite cannot judge against the mock, each with why. Anything else that is skipped is a
 * defect of the suite or the mock.
 */
const EXPECTED_SKIPS: Record<string, string> = {
  'CHAT-002': 'HTTPS is judged only on deployed targets; the local mock speaks plain HTTP on loopback',
  // Judged only where the run can ask for more than an entry publishes (its caps stay at or under the budget's 256,
  // and every mock entry publishes max_tokens of 512 or more): a capped request would pass it vacuously.
  'LIMIT-005': 'no entry publishes a max_tokens below the budget per-request cap',
  // Judged only with a prompt near an entry's context window, which the run never sends (its prompts are short).
  'LIMIT-006': 'the run sends no prompt near a context window',
};

function readReport(dir: string): ConformanceReport {
  return JSON.parse(readFileSync(path.join(dir, 'conformance.json'), 'utf8')) as ConformanceReport;
}

function statuses(report: ConformanceReport): Record<string, string> {
  return Object.fromEntries(report.requirements.map((r) => [r.id, r.status]));
}

async function runAgainst(target: { baseUrl?: string; profile?: string }, label: string): Promise<ConformanceReport> {
  // The kit's own fuzz runs: the whole suite as a user runs it, one worker each (two runs at once).
  const run = await runSuite({ ...target, seed: SEED, fuzzRuns: null, workers: 1, boundMs: 240_000, label });
  try {
    console.log(`conformance run against ${label}: exit ${run.code} in ${(run.wallMs / 1000).toFixed(1)} s`);
    expect(run.code, `the run against ${label} exits 0 (no MUST failed)\n${run.stdout.slice(-4000)}\n${run.stderr.slice(-2000)}`).toBe(0);
    return readReport(run.reportDir);
  } finally {
    cleanup(run);
  }
}

test('npm run conformance: the embedded run passes, and a separately started mock with its profile gives the same results', async () => {
  test.setTimeout(400_000);
  const cli = new CliProcesses();
  const mock = await cli.start(['mock', '--port', '0']);
  let embedded: ConformanceReport;
  let separate: ConformanceReport;
  try {
    // Both runs at once, one worker each: the same work as one run with two workers.
    [embedded, separate] = await Promise.all([
      runAgainst({}, 'the embedded mock'),
      runAgainst({ baseUrl: mock.url, profile: MOCK_PROFILE }, 'a separately started mock'),
    ]);
  } finally {
    cli.stopAll();
  }

  expect(embedded.target.embeddedMock).toBe(true);
  expect(embedded.verdict.result).toBe('pass');
  const bad = embedded.requirements.filter((r) => r.status === 'fail' || r.status === 'untested').map((r) => `${r.id} ${r.status}: ${r.reason ?? ''}`);
  expect(bad, 'no requirement fails or goes untested').toEqual([]);
  const warned = embedded.requirements.filter((r) => r.status === 'warn').map((r) => `${r.id}: ${r.reason ?? ''}`);
  expect(warned, 'the reference mock meets every SHOULD too').toEqual([]);
  const skipped = embedded.requirements.filter((r) => r.status === 'skip');
  const unexpected = skipped.filter((r) => !(r.id in EXPECTED_SKIPS)).map((r) => `${r.id}: ${r.reason ?? ''}`);
  expect(unexpected, 'nothing is skipped that the mock supports').toEqual([]);
  for (const r of skipped) expect(r.reason, `${r.id} states why it was skipped`).toBeTruthy();

  // The suite's index holds every test that recorded a requirement: a partial run of it would run that test.
  expect(indexMisses(embedded), 'every test that recorded a requirement is in its selection (run/test-index/)').toEqual({ outside: [], unknownTests: [] });

  expect(separate.target.embeddedMock).toBe(false);
  expect(statuses(separate), 'the same status for every requirement').toEqual(statuses(embedded));
});

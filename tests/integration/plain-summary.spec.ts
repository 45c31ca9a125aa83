// .ci/run makes several test runs and ends with one plain line CI counts: each run's plain-summary reporter
// appends its counts to CHATCONFORM_COUNTS_FILE, and tests/support/sum-test-counts.ts prints their total last.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import type { FullResult, TestCase, TestResult } from '@playwright/test/reporter';
import { repoRoot } from '../../run/config.ts';
import PlainSummaryReporter from '../support/plain-summary-reporter.ts';
import { sumCounts, type RunCounts } from '../support/sum-test-counts.ts';

const run = (label: string, passed: number, failed: number, skipped: number, status = failed ? 'failed' : 'passed'): RunCounts => ({ label, passed, failed, skipped, status });

test('the total sums every run; a missing run and a run failed outside its tests each count as a failure', () => {
  expect(sumCounts([run('npm test', 400, 0, 2), run('slow and matrix', 25, 0, 1)], ['npm test', 'slow and matrix'])).toMatchObject({ passed: 425, failed: 0, skipped: 3, problems: [] });
  expect(sumCounts([run('npm test', 400, 2, 0)], ['npm test', 'slow and matrix'])).toMatchObject({ passed: 400, failed: 3, problems: ['slow and matrix: no counts (the run did not get to its end)'] });
  expect(sumCounts([run('npm test', 10, 0, 0, 'timedout')], ['npm test']).failed).toBe(1);
});

test('the reporter appends its counts when CHATCONFORM_COUNTS_FILE is set, and still prints its own line', () => {
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'chatconform-counts-')), 'counts');
  const saved = { file: process.env.CHATCONFORM_COUNTS_FILE, label: process.env.CHATCONFORM_COUNTS_LABEL };
  const printed: string[] = [];
  const write = process.stdout.write;
  process.env.CHATCONFORM_COUNTS_FILE = file;
  process.env.CHATCONFORM_COUNTS_LABEL = 'npm test';
  try {
    const reporter = new PlainSummaryReporter();
    const outcomes = ['expected', 'expected', 'skipped', 'unexpected', 'flaky'] as const;
    outcomes.forEach((o) => reporter.onTestEnd({ outcome: () => o } as unknown as TestCase, {} as TestResult));
    process.stdout.write = ((s: string) => (printed.push(s), true)) as typeof process.stdout.write;
    reporter.onEnd({ status: 'failed' } as FullResult);
  } finally {
    process.stdout.write = write;
    for (const [k, v] of [['CHATCONFORM_COUNTS_FILE', saved.file], ['CHATCONFORM_COUNTS_LABEL', saved.label]] as const) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
  expect(printed).toEqual(['3 passed, 1 failed, 1 skipped\n']);
  expect(readFileSync(file, 'utf8')).toBe(`${JSON.stringify({ label: 'npm test', passed: 3, failed: 1, skipped: 1, status: 'failed' })}\n`);
});

test('sum-test-counts prints the plain total last and exits 1 when anything failed', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'chatconform-counts-'));
  const file = path.join(dir, 'counts');
  const sum = (...labels: string[]) => spawnSync(process.execPath, ['--import', 'tsx', 'tests/support/sum-test-counts.ts', file, ...labels], { cwd: repoRoot, encoding: 'utf8', timeout: 60_000 });
  writeFileSync(file, [run('npm test', 412, 0, 3), run('slow and matrix', 20, 0, 0)].map((r) => JSON.stringify(r)).join('\n') + '\n');
  const ok = sum('npm test', 'slow and matrix');
  expect(ok.stdout.trimEnd().split('\n').at(-1)).toBe('432 passed, 0 failed, 3 skipped');
  expect(ok.status).toBe(0);
  const missing = sum('npm test', 'slow and matrix', 'explore');
  expect(missing.stdout.trimEnd().split('\n').at(-1)).toBe('432 passed, 1 failed, 3 skipped');
  expect(missing.status).toBe(1);
});

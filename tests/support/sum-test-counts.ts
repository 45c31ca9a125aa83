// The closing line of .ci/run: the plain counts of every test run it made, summed into one line, printed last.
// Usage: tsx tests/support/sum-test-counts.ts <counts file> <label>...
// The counts file holds one JSON line per finished run (tests/support/plain-summary-reporter.ts writes them); each
// label named on the command line is a run .ci/run started. A run with no line (it never got to its end: npm test's
// typecheck failed, a config did not load) and a run that failed outside its tests each count as one failure, so
// the total never reads "0 failed" when a part failed. Exits 1 when anything failed.
import { existsSync, readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { plainLine, type Counts } from './plain-summary-reporter.ts';

export interface RunCounts extends Counts {
  label: string;
  /** Playwright's overall status of the run ('passed', 'failed', 'timedout', 'interrupted'). */
  status: string;
}

/** The total over every expected run, with a failure for each run that is missing or failed outside its tests. */
export function sumCounts(runs: readonly RunCounts[], expected: readonly string[]): Counts & { problems: string[] } {
  const total = { passed: 0, failed: 0, skipped: 0, problems: [] as string[] };
  for (const r of runs) {
    total.passed += r.passed;
    total.skipped += r.skipped;
    total.failed += r.failed;
    if (r.status !== 'passed' && r.failed === 0) {
      total.failed++;
      total.problems.push(`${r.label}: ${r.status} outside its tests`);
    }
  }
  for (const label of expected) {
    if (runs.some((r) => r.label === label)) continue;
    total.failed++;
    total.problems.push(`${label}: no counts (the run did not get to its end)`);
  }
  return total;
}

export function readCounts(file: string): RunCounts[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8').split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as RunCounts);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const [file, ...expected] = process.argv.slice(2);
  if (!file) {
    console.error('usage: tsx tests/support/sum-test-counts.ts <counts file> <label>...');
    process.exit(2);
  }
  const runs = readCounts(file);
  const total = sumCounts(runs, expected);
  for (const r of runs) console.log(`  ${r.label}: ${plainLine(r)} (${r.status})`);
  for (const p of total.problems) console.log(`  ${p}`);
  // The one plain line CI counts: printed last.
  console.log(plainLine(total));
  process.exit(total.failed > 0 ? 1 : 0);
}

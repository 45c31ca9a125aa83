// `npm run report -- --compare old.json new.json`: what regressed and what improved between two runs.
// `npm run report -- --baseline conformance.json`: a baseline of expected failures from a run (baseline.ts).
// Exit status: 0 nothing regressed (or the baseline was printed), 1 something regressed, 2 the command could not
// run (usage, a file that cannot be read or is not a conformance report).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { compareReports, formatComparison } from './compare.ts';
import { baselineFromResults } from './baseline.ts';
import { formatReportIssues, validateReport, type ConformanceReport } from './json.ts';

const USAGE = `usage: npm run report -- --compare <old conformance.json> <new conformance.json> [--json]
       npm run report -- --baseline <conformance.json>

  --compare A B   list the requirements that regressed and improved from run A to run B;
                  exit 1 when something regressed
  --json          print the comparison as JSON instead of text
  --baseline R    print a baseline of expected failures (YAML) from run R: every failed or warned
                  requirement, its first failure message as the reason (CONFORMANCE_EXPECTED_FAILURES reads it)
`;

export interface Io {
  out: (s: string) => void;
  err: (s: string) => void;
}

/** The files cannot be compared: unreadable, or not a conformance report. */
export class CompareUsageError extends Error {}

/** A conformance.json, validated against its schema; CompareUsageError when it cannot be read or is not one. */
export function loadReport(file: string): ConformanceReport {
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new CompareUsageError(`cannot read ${file}: ${(err as Error).message}`);
  }
  const issues = validateReport(data);
  if (issues.length > 0) {
    const first = formatReportIssues(issues.slice(0, 1)).split('\n')[0]!.trim();
    throw new CompareUsageError(`${file} is not a conformance report (spec/schemas/conformance-report.schema.json): ${first}${issues.length > 1 ? ` (and ${issues.length - 1} more)` : ''}`);
  }
  return data as ConformanceReport;
}

/** Compares two report files and prints the comparison; 1 when something regressed. Throws CompareUsageError. */
export function compareFiles(oldFile: string, newFile: string, opts: { json?: boolean }, io: Io): number {
  const comparison = compareReports(loadReport(oldFile), loadReport(newFile));
  if (opts.json) io.out(`${JSON.stringify(comparison, null, 2)}\n`);
  else io.out(`Comparing ${path.relative(process.cwd(), oldFile) || oldFile} → ${path.relative(process.cwd(), newFile) || newFile}\n${formatComparison(comparison)}`);
  return comparison.regressed.length > 0 ? 1 : 0;
}

export function main(argv: string[], io: Io = { out: (s) => process.stdout.write(s), err: (s) => process.stderr.write(s) }): number {
  try {
    if (argv.includes('--help') || argv.includes('-h')) {
      io.out(USAGE);
      return 0;
    }
    if (argv[0] === '--baseline') {
      if (argv.length !== 2) throw new CompareUsageError(`--baseline takes one report: ${argv.slice(1).join(' ') || '(none)'}`);
      const report = loadReport(argv[1]!);
      io.out(baselineFromResults(report.requirements, report.target.url));
      return 0;
    }
    const json = argv.includes('--json');
    const args = argv.filter((a) => a !== '--json');
    const at = args.indexOf('--compare');
    if (at < 0 || args.length !== 3 || at !== 0) throw new CompareUsageError(args.length === 0 ? 'nothing to do' : `unexpected arguments: ${args.join(' ')}`);
    return compareFiles(args[1]!, args[2]!, { json }, io);
  } catch (err) {
    if (err instanceof CompareUsageError) {
      io.err(`${err.message}\n\n${USAGE}`);
      return 2;
    }
    throw err;
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  process.exitCode = main(process.argv.slice(2));
}

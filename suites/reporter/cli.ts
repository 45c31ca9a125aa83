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

class UsageError extends Error {}

function load(file: string): ConformanceReport {
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new UsageError(`cannot read ${file}: ${(err as Error).message}`);
  }
  const issues = validateReport(data);
  if (issues.length > 0) throw new UsageError(`${file} is not a conformance report (spec/schemas/conformance-report.schema.json):\n${formatReportIssues(issues.slice(0, 20))}`);
  return data as ConformanceReport;
}

export function main(argv: string[], io: Io = { out: (s) => process.stdout.write(s), err: (s) => process.stderr.write(s) }): number {
  try {
    if (argv.includes('--help') || argv.includes('-h')) {
      io.out(USAGE);
      return 0;
    }
    if (argv[0] === '--baseline') {
      if (argv.length !== 2) throw new UsageError(`--baseline takes one report: ${argv.slice(1).join(' ') || '(none)'}`);
      const report = load(argv[1]!);
      io.out(baselineFromResults(report.requirements, report.target.url));
      return 0;
    }
    const json = argv.includes('--json');
    const args = argv.filter((a) => a !== '--json');
    const at = args.indexOf('--compare');
    if (at < 0 || args.length !== 3 || at !== 0) throw new UsageError(args.length === 0 ? 'nothing to do' : `unexpected arguments: ${args.join(' ')}`);
    const [oldFile, newFile] = [args[1]!, args[2]!];
    const comparison = compareReports(load(oldFile), load(newFile));
    if (json) io.out(`${JSON.stringify(comparison, null, 2)}\n`);
    else io.out(`Comparing ${path.relative(process.cwd(), oldFile) || oldFile} → ${path.relative(process.cwd(), newFile) || newFile}\n${formatComparison(comparison)}`);
    return comparison.regressed.length > 0 ? 1 : 0;
  } catch (err) {
    if (err instanceof UsageError) {
      io.err(`${err.message}\n\n${USAGE}`);
      return 2;
    }
    throw err;
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  process.exitCode = main(process.argv.slice(2));
}

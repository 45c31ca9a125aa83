// `chatconform report compare OLD NEW`: what regressed and what improved between two runs
// (report/compare.ts). Exit 1 when something regressed, 2 when the files cannot be compared.
// `chatconform report merge DIR...`: the shards of one run joined (cli/report-merge.ts).
import { Command } from 'commander';
import path from 'node:path';
import { compareReports, formatComparison } from '../report/compare.ts';
import { loadReport, ReportFileError } from '../report/load.ts';
import { renderSummary } from '../report/terminal.ts';
import type { Io } from './program.ts';
import { ConfigError, UsageError } from './usage.ts';
import { mergeCommand } from './report-merge.ts';

export function reportCommand(io: Io, done: (code: number) => void): Command {
  const report = new Command('report').description('work with conformance.json reports');
  report
    .command('compare')
    .description('list the requirements that regressed and improved from run OLD to run NEW (exit 1 on a regression)')
    .argument('<old>', 'the earlier conformance.json')
    .argument('<new>', 'the later conformance.json')
    .option('--json', 'print the comparison as JSON')
    .action((oldFile: string, newFile: string, opts: { json?: boolean }) => {
      done(usable(() => compareFiles(oldFile, newFile, opts, io)));
    });
  report
    .command('summary')
    .description('print the terminal summary of a run again, from its conformance.json (e.g. for a CI job summary)')
    .argument('<report>', 'a conformance.json')
    .action((file: string) => {
      io.out(`${renderSummary(usable(() => loadReport(file)), []).replace(/^\n/, '')}\n`);
    });
  report.addCommand(mergeCommand(done));
  return report;
}

/** A report file that cannot be used is the caller's to fix: a usage error. */
function usable<T>(read: () => T): T {
  try {
    return read();
  } catch (err) {
    if (err instanceof ReportFileError) throw new ConfigError(err.message);
    throw err;
  }
}

/** Compares two report files and prints the comparison; 1 when something regressed. */
function compareFiles(oldFile: string, newFile: string, opts: { json?: boolean }, io: Io): number {
  const comparison = compareReports(loadReport(oldFile), loadReport(newFile));
  if (opts.json) io.out(`${JSON.stringify(comparison, null, 2)}\n`);
  else io.out(`Comparing ${path.relative(process.cwd(), oldFile) || oldFile} → ${path.relative(process.cwd(), newFile) || newFile}\n${formatComparison(comparison)}`);
  return comparison.regressed.length > 0 ? 1 : 0;
}

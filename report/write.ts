// The four report files from one report: validated against its schema first (an invalid report is written aside as
// conformance.invalid.json and throws), each file checked for the run's known secrets on the way out.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { renderBadge } from './badge.ts';
import { renderHtml } from './html.ts';
import { formatReportIssues, serializeReport, validateReport, type ConformanceReport } from './json.ts';
import { renderJunit } from './junit.ts';
import { maskKnownSecrets } from './redaction.ts';
import { redact } from '../spec/redact.ts';

export const REPORT_FILES = ['conformance.json', 'junit.xml', 'conformance.html', 'badge.svg'] as const;

export interface WrittenReport {
  report: ConformanceReport;
  files: string[];
}

/** Says that a credential reached a writer unredacted (it was masked in the file). */
export type LeakAlarm = (file: string) => void;

const stderrAlarm: LeakAlarm = (name) => process.stderr.write(`chatconform: a credential reached the ${name} writer unredacted; masked it\n`);

/** Validates the report and writes the four files; throws (after writing conformance.invalid.json) when invalid. */
export function writeReports(report: ConformanceReport, dir: string, secrets: readonly string[], onLeak: LeakAlarm = stderrAlarm): string[] {
  mkdirSync(dir, { recursive: true });
  const issues = validateReport(report);
  if (issues.length > 0) {
    for (const f of REPORT_FILES) rmSync(path.join(dir, f), { force: true });
    writeFileSync(path.join(dir, 'conformance.invalid.json'), redact(serializeReport(report), secrets));
    throw new Error(`the conformance report does not match spec/schemas/conformance-report.schema.json (a bug of the kit):\n${formatReportIssues(issues)}`);
  }
  rmSync(path.join(dir, 'conformance.invalid.json'), { force: true });
  // One file at a time: a matrix run's report is large (a line per test and model), and holding the four texts at
  // once made writing them the run's peak of memory.
  const render: Record<(typeof REPORT_FILES)[number], () => string> = {
    'conformance.json': () => serializeReport(report),
    'junit.xml': () => renderJunit(report),
    'conformance.html': () => renderHtml(report),
    'badge.svg': () => renderBadge(report),
  };
  const written: string[] = [];
  for (const name of REPORT_FILES) {
    // The report is redacted already (as data); this pass guards the writers themselves, against known secrets only.
    const { text, leaked } = maskKnownSecrets(render[name](), secrets);
    if (leaked) onLeak(name);
    const file = path.join(dir, name);
    writeFileSync(file, text);
    written.push(file);
  }
  return written;
}

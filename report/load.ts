// Reading a conformance.json someone hands the kit (compare, merge, baseline, summary, --last-failed): validated
// against the schema of its version, or a ReportFileError that says why it cannot be used. A report of version 1
// (the 0.2 kit's) is read in the current shape (report/upgrade.ts), so every reader reads both.
import { readJsonFile, type ReadBounds } from '../spec/file-reader.ts';
import { validate } from '../spec/validator.ts';
import { formatReportIssues, REPORT_VERSION, validateReport, type ConformanceReport } from './json.ts';
import { upgradeV1 } from './upgrade.ts';

/** The file cannot be used as a report: unreadable, not JSON, or not a conformance report. */
export class ReportFileError extends Error {}

/** A conformance.json is read within this bound (a per-model matrix's report is tens of MB). */
const REPORT_FILE: ReadBounds = { maxBytes: 256 * 1024 * 1024, timeoutMs: 120_000 };

/** A conformance.json, validated against its version's schema, in the current shape; ReportFileError when it cannot be read or is not one. */
export function loadReport(file: string): ConformanceReport {
  let data: unknown;
  try {
    data = readJsonFile(file, 'the report', REPORT_FILE);
  } catch (err) {
    // The reader names the file; the refusal keeps its own words ("cannot read FILE: no such file").
    throw new ReportFileError(`cannot read ${file}: ${(err as Error).message.slice(`the report ${file}: `.length)}`);
  }
  const version = typeof data === 'object' && data !== null ? (data as { reportVersion?: unknown }).reportVersion : undefined;
  const v1 = version === 1;
  const issues = v1 ? validate('conformance-report-v1', data).errors : validateReport(data);
  if (issues.length > 0) {
    const schema = v1 ? 'conformance-report-v1.schema.json' : 'conformance-report.schema.json';
    const first = formatReportIssues(issues.slice(0, 1)).split('\n')[0]!.trim();
    const newer = typeof version === 'number' && version > REPORT_VERSION ? ` (a report of version ${version}: this kit reads versions 1 to ${REPORT_VERSION})` : '';
    throw new ReportFileError(`${file} is not a conformance report (spec/schemas/${schema}): ${first}${issues.length > 1 ? ` (and ${issues.length - 1} more)` : ''}${newer}`);
  }
  return v1 ? upgradeV1(data) : (data as ConformanceReport);
}

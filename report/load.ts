// Reading a conformance.json someone hands the kit (compare, baseline, summary): validated against its schema, or
// a ReportFileError that says why it cannot be used.
import { readJsonFile, type ReadBounds } from '../spec/file-reader.ts';
import { formatReportIssues, validateReport, type ConformanceReport } from './json.ts';

/** The file cannot be used as a report: unreadable, not JSON, or not a conformance report. */
export class ReportFileError extends Error {}

/** A conformance.json is read within this bound (a per-model matrix's report is tens of MB). */
const REPORT_FILE: ReadBounds = { maxBytes: 256 * 1024 * 1024, timeoutMs: 120_000 };

/** A conformance.json, validated against its schema; ReportFileError when it cannot be read or is not one. */
export function loadReport(file: string): ConformanceReport {
  let data: unknown;
  try {
    data = readJsonFile(file, 'the report', REPORT_FILE);
  } catch (err) {
    // The reader names the file; the refusal keeps its own words ("cannot read FILE: no such file").
    throw new ReportFileError(`cannot read ${file}: ${(err as Error).message.slice(`the report ${file}: `.length)}`);
  }
  const issues = validateReport(data);
  if (issues.length > 0) {
    const first = formatReportIssues(issues.slice(0, 1)).split('\n')[0]!.trim();
    throw new ReportFileError(`${file} is not a conformance report (spec/schemas/conformance-report.schema.json): ${first}${issues.length > 1 ? ` (and ${issues.length - 1} more)` : ''}`);
  }
  return data as ConformanceReport;
}

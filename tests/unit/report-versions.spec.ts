// Version 2 of conformance.json speaks the kit's words; the kit still reads version 1 (the 0.2 kit's), from real
// reports kept as written (tests/fixtures/reports-v1: a whole run and two shards with their blobs, made on e545e63).
// report/load.ts validates each against its own version's schema and reads it in the current shape
// (report/upgrade.ts), so `report compare`, `report merge`, `report summary` and --last-failed read both.
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { expect, test } from '@playwright/test';
import { compareReports } from '../../report/compare.ts';
import { foldReport } from '../../report/fold.ts';
import { REPORT_VERSION, validateReport } from '../../report/json.ts';
import { loadReport, ReportFileError } from '../../report/load.ts';
import { planMerge, shardBlob } from '../../report/merge.ts';
import { renderSummary } from '../../report/terminal.ts';
import { writeReports } from '../../report/write.ts';
import { rerunOfReport } from '../../run/rerun.ts';
import { repoRoot } from '../../run/config.ts';
import { validate } from '../../spec/validator.ts';
import { sampleInfo } from '../support/reports.ts';

const FIXTURES = path.join(repoRoot, 'tests/fixtures/reports-v1');
let dir: string;

/** A fixture's conformance.json unpacked into the temp folder (a shard's with its blob-report/ beside it). */
function unpack(from: string, to: string): string {
  mkdirSync(to, { recursive: true });
  const file = path.join(to, 'conformance.json');
  writeFileSync(file, gunzipSync(readFileSync(path.join(FIXTURES, from))));
  const blobs = path.join(FIXTURES, path.dirname(from), 'blob-report');
  if (path.dirname(from) !== '.') {
    mkdirSync(path.join(to, 'blob-report'), { recursive: true });
    for (const zip of readdirSync(blobs)) copyFileSync(path.join(blobs, zip), path.join(to, 'blob-report', zip));
  }
  return file;
}

test.beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'report-versions-'));
});
test.afterAll(() => rmSync(dir, { recursive: true, force: true }));

test('version 2 is what the kit writes, with none of Playwright\'s words', () => {
  expect(REPORT_VERSION).toBe(2);
  const report = foldReport([], { info: sampleInfo(), startedAt: new Date(0), durationMs: 1, stopReason: 'out-of-time', errors: [] }, {});
  expect(report.reportVersion).toBe(2);
  expect(report.run).toMatchObject({ stopReason: 'out-of-time', caseKind: 'test', tests: { total: 0, judged: 0, unfinished: 0, skipped: 0, notRun: 0 } });
  expect(JSON.stringify(report)).not.toMatch(/playwrightStatus|exitStatus|timedOut|"timedout"|"passed"/);
  const schema = readFileSync(path.join(repoRoot, 'spec/schemas/conformance-report.schema.json'), 'utf8');
  // Nor in its schema: no Playwright status, run status or test status is defined there any more.
  expect(schema).not.toMatch(/playwrightStatus|exitStatus|runStatus|testStatus|timedOut|"timedout"|Playwright's statuses/);
});

test('a real version-1 report reads in the current shape: the kit\'s words, the same verdict and results', () => {
  const file = unpack('full.conformance.json.gz', path.join(dir, 'full'));
  const raw = JSON.parse(readFileSync(file, 'utf8'));
  expect(raw).toMatchObject({ reportVersion: 1, run: { playwrightStatus: 'passed' }, verdict: { exitStatus: 'failed' } });
  expect(validate('conformance-report-v1', raw).errors).toEqual([]);
  expect(validateReport(raw).length).toBeGreaterThan(0);

  const report = loadReport(file);
  // The file's version is kept: an upgraded report says where it came from; its shape is version 2's.
  expect(report.reportVersion).toBe(1);
  expect(validateReport({ ...report, reportVersion: 2 })).toEqual([]);
  expect(JSON.stringify(report)).not.toMatch(/playwrightStatus|exitStatus|"timedOut"|"passed"/);
  expect(report.run).toMatchObject({ stopReason: 'completed', caseKind: 'test' });
  // 105 passed, 6 failed on their checks, 3 skipped: 111 judged.
  expect(raw.run.tests).toMatchObject({ total: 114, passed: 105, failed: 6, skipped: 3 });
  expect(report.run.tests).toEqual({ total: 114, judged: 111, unfinished: 0, skipped: 3, notRun: 0 });
  expect(report.verdict).toEqual((({ exitStatus: _e, ...rest }) => rest)(raw.verdict));
  expect(report.verdict).toMatchObject({ result: 'fail', exitCode: 1, mustFailed: ['CAT-027', 'REQ-009', 'REQ-011'] });
  expect(report.requirements.map((r) => [r.id, r.status])).toEqual(raw.requirements.map((r: { id: string; status: string }) => [r.id, r.status]));
  expect(new Set(report.requirements.flatMap((r) => r.tests.map((t) => t.status)))).toEqual(new Set(['judged', 'skipped']));
  expect(report.failedTests.map((t) => [t.status, t.failed.length > 0])).toEqual(raw.failedTests.map(() => ['judged', true]));
  // The terminal summary of it (chatconform report summary) and a rerun of its failures (--last-failed) read it.
  expect(renderSummary(report, [])).toContain('FAIL — 3 MUST requirements failed');
  expect(rerunOfReport(report, file).requirements).toEqual(['CAT-027', 'REQ-009', 'REQ-011']);
});

test('report compare reads a version-1 report beside a version-2 one', () => {
  const old = loadReport(unpack('full.conformance.json.gz', path.join(dir, 'compare-old')));
  // The same target after a fix of the null fields: CAT-027 passes now.
  const cases = [{ title: 'catalog › lists', file: 'suites/catalog.spec.ts', line: 1, status: 'judged' as const, declared: ['CAT-027'], durationMs: 1, evidence: { checks: [{ id: 'CAT-027', status: 'pass' as const }], exchanges: [] } }];
  const out = path.join(dir, 'compare-new');
  writeReports(foldReport(cases, { info: sampleInfo(), startedAt: new Date(0), durationMs: 1, stopReason: 'completed', errors: [] }, {}), out, []);
  const comparison = compareReports(old, loadReport(path.join(out, 'conformance.json')));
  expect(comparison.improved.map((c) => [c.id, c.from, c.to])).toContainEqual(['CAT-027', 'fail', 'pass']);
  expect(comparison.old.verdict).toBe('fail');
});

test('report merge reads version-1 shards: the plan, the blobs their reports name, the counts in total', async () => {
  const shards = [1, 2].map((i) => {
    const d = path.join(dir, `shard${i}`);
    unpack(`shard${i}/conformance.json.gz`, d);
    return { dir: d, report: loadReport(path.join(d, 'conformance.json')) };
  });
  for (const s of shards) expect(path.basename(await shardBlob(s))).toMatch(/^report-\d\.zip$/);
  const plan = planMerge(shards);
  expect(plan).toMatchObject({ stopReason: 'completed', failOn: 'must', countsPerStatus: false, merge: { total: 2, missing: [] } });
  expect(plan.tests.total).toBe(shards.reduce((n, s) => n + s.report.run.tests.total, 0));
  expect(Object.keys(plan)).not.toContain('playwrightStatus');
});

test('a report of a version this kit does not know is refused in one line that says so', () => {
  const file = path.join(dir, 'future.json');
  writeFileSync(file, JSON.stringify({ ...JSON.parse(readFileSync(unpack('full.conformance.json.gz', path.join(dir, 'future')), 'utf8')), reportVersion: 3 }));
  expect(() => loadReport(file)).toThrow(ReportFileError);
  expect(() => loadReport(file)).toThrow(/a report of version 3: this kit reads versions 1 to 2/);
});

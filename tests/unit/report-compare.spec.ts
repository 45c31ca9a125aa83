// `npm run report -- --compare old.json new.json` on two small hand-made reports.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { main } from '../../cli/npm-report.ts';
import { compareReports } from '../../report/compare.ts';
import { buildReport, type ConformanceReport } from '../../report/json.ts';
import { aggregate, type TestOutcome } from '../../report/results.ts';
import { sampleInfo } from '../support/reports.ts';
import type { CheckRecord } from '../../judge/checker.ts';

function report(records: CheckRecord[], startedAt = '2025-01-01T00:00:00Z'): ConformanceReport {
  const outcomes: TestOutcome[] = [
    {
      title: 'hand-made',
      file: 'suites/x.spec.ts',
      line: 1,
      status: 'judged',
      declared: [...new Set(records.map((r) => r.id))],
      durationMs: 1,
      evidence: { checks: records, exchanges: [] },
    },
  ];
  return buildReport({ info: sampleInfo(), results: aggregate(outcomes), outcomes, startedAt: new Date(startedAt), durationMs: 1, stopReason: 'completed', errors: [] });
}

const OLD = report([
  { id: 'CAT-001', status: 'pass' }, // → fail: regressed
  { id: 'CAT-002', status: 'pass' }, // → warn? (MUST cannot warn) → skip: no longer checked, regressed
  { id: 'CAT-038', status: 'pass' }, // SHOULD → warn: regressed
  { id: 'CAT-004', status: 'fail', message: 'was broken' }, // → pass: improved
  { id: 'CAT-005', status: 'fail', message: 'was broken' }, // → skip: failure no longer checked (other)
  { id: 'REQ-002', status: 'warn', message: 'meh' }, // SHOULD → pass: improved
  { id: 'OBS-003', status: 'observed', observed: ['free'] }, // → other values: observation changed
  { id: 'OBS-004', status: 'observed', observed: ['a'] }, // unchanged
  { id: 'CAT-006', status: 'pass' }, // unchanged
]);
const NEW = report(
  [
    { id: 'CAT-001', status: 'fail', message: 'now broken' },
    { id: 'CAT-002', status: 'skip', message: 'no model' },
    { id: 'CAT-038', status: 'warn', message: 'percent-encoding ignored' },
    { id: 'CAT-004', status: 'pass' },
    { id: 'CAT-005', status: 'skip', message: 'no model' },
    { id: 'REQ-002', status: 'pass' },
    { id: 'OBS-003', status: 'observed', observed: ['free', 'pro'] },
    { id: 'OBS-004', status: 'observed', observed: ['a'] },
    { id: 'CAT-006', status: 'pass' },
    { id: 'CAT-007', status: 'fail', message: 'newly checked, failing' }, // untested → fail: regressed
    { id: 'CAT-008', status: 'pass' }, // untested → pass: improved
  ],
  '2025-01-02T00:00:00Z',
);

test.describe('compare two reports', () => {
  test('regressions and improvements, each with its from → to', () => {
    const c = compareReports(OLD, NEW);
    const summary = (list: typeof c.regressed) => list.map((x) => `${x.id} ${x.from}→${x.to}`).sort();
    expect(summary(c.regressed)).toEqual(['CAT-001 pass→fail', 'CAT-002 pass→skip', 'CAT-007 untested→fail', 'CAT-038 pass→warn']);
    expect(summary(c.improved)).toEqual(['CAT-004 fail→pass', 'CAT-008 untested→pass', 'REQ-002 warn→pass']);
    expect(c.other.map((x) => `${x.id} ${x.kind}`).sort()).toEqual(['CAT-005 unchecked', 'OBS-003 observation']);
    expect(c.regressed.find((x) => x.id === 'CAT-001')!.reason).toBe('now broken');
    expect(c.improved.find((x) => x.id === 'CAT-004')!.reason).toBeUndefined();
    // MUST first
    expect(c.regressed.at(-1)!.id).toBe('CAT-038');
  });

  test('the same report twice: nothing changed', () => {
    const c = compareReports(NEW, NEW);
    expect([c.regressed, c.improved, c.other]).toEqual([[], [], []]);
  });

  test('CLI: exit 1 when something regressed, 0 when not, 2 on bad usage, 3 for a file that is not a report', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'chatconform-compare-'));
    const oldFile = path.join(dir, 'old.json');
    const newFile = path.join(dir, 'new.json');
    const bogus = path.join(dir, 'bogus.json');
    writeFileSync(oldFile, JSON.stringify(OLD));
    writeFileSync(newFile, JSON.stringify(NEW));
    writeFileSync(bogus, JSON.stringify({ hello: 'world' }));
    let out = '';
    let err = '';
    const io = { out: (s: string) => (out += s), err: (s: string) => (err += s) };

    expect(await main(['--compare', oldFile, newFile], io)).toBe(1);
    expect(out).toMatch(/Regressed \(4\):\n {2}CAT-001 +MUST +§2\.10 +pass → fail +now broken/);
    expect(out).toMatch(/Improved \(3\):/);
    expect(out).toMatch(/CAT-005 .*\[failure no longer checked\]/);
    expect(out).toMatch(/OBS-003 .*\[observation changed\]/);

    out = '';
    expect(await main(['--compare', newFile, oldFile], io)).toBe(1); // the reverse regresses too (CAT-004, CAT-008 …)
    out = '';
    expect(await main(['--compare', newFile, newFile], io)).toBe(0);
    expect(out).toMatch(/Regressed \(0\):\n {2}none/);

    out = '';
    expect(await main(['--compare', oldFile, newFile, '--json'], io)).toBe(1);
    expect(JSON.parse(out).regressed).toHaveLength(4);

    expect(await main(['--compare', oldFile], io)).toBe(2);
    // A file that is not a report is a file the command cannot use: exit 3 (cli/usage.ts).
    expect(await main(['--compare', oldFile, bogus], io)).toBe(3);
    expect(err).toMatch(/bogus\.json is not a conformance report/);
    expect(await main(['--compare', oldFile, path.join(dir, 'missing.json')], io)).toBe(3);
    expect(await main([], io)).toBe(2);
  });
});

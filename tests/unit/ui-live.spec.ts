// Issue 52, point 3: the live view is the engine's events folded by report/'s own fold, sent in batches. A run of
// 2,000 cases read in 20 batches gives 20 deltas, each naming only the rows whose status moved since the last one;
// the rows the page ends with are the statuses the report's fold gives for the same cases; a requirement whose tests
// have not ended is pending, not untested. The events file is read a whole line at a time (a line being written waits).
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { foldReport, type RecordedCase } from '../../report/fold.ts';
import { appendEvent, EventsReader, type EngineEvent } from '../../run/events.ts';
import { LiveRun } from '../../ui/live.ts';
import type { Row } from '../../ui/view.ts';
import { sampleInfo } from '../support/reports.ts';

const IDS = ['CAT-031', 'CAT-032', 'CHAT-004', 'CHAT-005', 'STREAM-002', 'STREAM-003', 'STREAM-004', 'STREAM-009', 'ERR-001', 'AUTH-001'];

/** Case `i`: declares two IDs; STREAM-004 fails from case 1,500 on, every other check passes. */
function caseOf(i: number): RecordedCase {
  const ids = [IDS[i % IDS.length]!, IDS[(i + 3) % IDS.length]!];
  return {
    title: `synthetic › case ${i}`,
    file: 'suites/streaming.spec.ts',
    line: 10 + i,
    status: 'judged',
    declared: ids,
    durationMs: 5,
    evidence: { checks: ids.map((id) => ({ id, status: id === 'STREAM-004' && i >= 1500 ? ('fail' as const) : ('pass' as const), ...(id === 'STREAM-004' && i >= 1500 ? { message: 'the stream ended without [DONE]' } : {}) })), exchanges: [] },
  };
}

test('2,000 cases in 20 batches: 20 deltas, only changed rows in each, and the rows end as the fold of the same cases says', () => {
  const live = new LiveRun({ startedAt: Date.now(), target: { embeddedMock: true } });
  const cases = Array.from({ length: 2000 }, (_, i) => caseOf(i));
  expect(live.apply([{ type: 'begin', at: Date.now(), total: 2000, declared: IDS }])).toBe(true);
  const first = live.delta();
  // Before any case ends, every declared requirement is pending.
  expect(first.rows.map((r) => r.id).sort()).toEqual([...IDS].sort());
  expect(new Set(first.rows.map((r) => r.status))).toEqual(new Set(['pending']));
  const page = new Map<string, Row>(first.rows.map((r) => [r.id, r]));
  const sizes: number[] = [];
  for (let b = 0; b < 20; b++) {
    const events: EngineEvent[] = cases.slice(b * 100, (b + 1) * 100).map((c) => ({ type: 'case', at: Date.now(), case: c as unknown as Record<string, unknown> }));
    expect(live.apply(events)).toBe(true);
    const d = live.delta();
    expect(d.progress.done).toBe((b + 1) * 100);
    expect(d.progress.total).toBe(2000);
    sizes.push(d.rows.length);
    for (const r of d.rows) page.set(r.id, r);
  }
  // The first batch judges every ID (pending to pass); then nothing moves until STREAM-004 fails in batch 16, and its
  // reason (the first failure's message) stays the same after.
  expect(sizes[0]).toBe(IDS.length);
  expect(sizes.slice(1, 15).every((n) => n === 0)).toBe(true);
  expect(sizes[15]).toBe(1);
  expect(sizes.slice(16).every((n) => n === 0)).toBe(true);
  // A delta with no new event sends no row again.
  expect(live.delta().rows).toEqual([]);

  const report = foldReport(cases, { info: sampleInfo(), startedAt: new Date(), durationMs: 1, stopReason: 'completed', errors: [] }, {});
  const expected = report.requirements.filter((r) => r.status !== 'untested').map((r) => [r.id, r.status]);
  expect([...page.values()].map((r) => [r.id, r.status]).sort()).toEqual(expected.sort());
  expect(page.get('STREAM-004')!.status).toBe('fail');
  expect(live.delta().progress.mustFailed).toBe(report.verdict.mustFailed.length);
  expect(live.snapshot().rows.length).toBe(IDS.length);
});

test('a requirement is pending until one of its tests ends; a case never declared by the run shows once judged', () => {
  const live = new LiveRun({ startedAt: Date.now(), target: { embeddedMock: true } });
  live.apply([{ type: 'begin', at: Date.now(), total: 2, declared: ['CAT-031', 'STREAM-004'] }]);
  live.apply([{ type: 'case', at: Date.now(), case: caseOf(0) as unknown as Record<string, unknown> }]);
  const rows = new Map(live.delta().rows.map((r) => [r.id, r]));
  expect(rows.get('CAT-031')!.status).toBe('pass');
  expect(rows.get('STREAM-004')).toEqual({ id: 'STREAM-004', section: '6', level: 'MUST', status: 'pending' });
  // caseOf(0) declares CHAT-005 too: not in the run's declared list, shown as judged.
  expect(rows.get('CHAT-005')!.status).toBe('pass');
  // Once the run ended, nothing is pending any more: what no test judged is untested.
  live.end();
  expect(live.snapshot().rows.find((r) => r.id === 'STREAM-004')!.status).toBe('untested');
});

test('the events file is read whole lines at a time; a torn line waits for its end, a line that is not JSON is skipped', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'ui-events-'));
  try {
    const file = path.join(dir, 'events.jsonl');
    const reader = new EventsReader(file);
    expect(reader.read()).toEqual([]);
    writeFileSync(file, '');
    appendEvent(file, { type: 'begin', at: 1, total: 3, declared: ['CAT-031'] });
    appendFileSync(file, 'not json\n{"type":"end","at"');
    expect(reader.read().map((e) => e.type)).toEqual(['begin']);
    appendFileSync(file, ':2,"status":"passed"}\n');
    expect(reader.read()).toEqual([{ type: 'end', at: 2, status: 'passed' }]);
    expect(reader.read()).toEqual([]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

// The kit's own progress line (suites/reporter/progress.ts), in place of Playwright's list and line reporters: tests
// done of total, requirements judged by the kit's marks, MUST failures so far, elapsed; under 120 characters; on a
// terminal one line rewritten in place, in CI a line every 50 tests or 10 s; never a tag, never Playwright's count.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import type { FullConfig, Suite, TestCase, TestResult } from '@playwright/test/reporter';
import type { CheckRecord } from '../../judge/checker.ts';
import { repoRoot } from '../../run/config.ts';
import { targetRequirements } from '../../report/results.ts';
import ProgressReporter, { EVERY_TESTS, LINE_MAX, ProgressTally, elapsed, type ProgressOut } from '../../suites/reporter/progress.ts';

const MUSTS = targetRequirements().filter((r) => r.level === 'MUST' && r.kind === 'requirement').map((r) => r.id);
const SHOULD = targetRequirements().find((r) => r.level === 'SHOULD' && r.kind === 'requirement')!.id;

test('the tally: requirements by their worst mark so far, MUST failures by ID in the order found', () => {
  const t = new ProgressTally(10);
  t.add([{ id: 'CAT-031', status: 'pass' }, { id: 'CAT-027', status: 'fail' }, { id: SHOULD, status: 'fail' }, { id: 'CHAT-005', status: 'skip' }]);
  t.add([{ id: 'CAT-027', status: 'pass' }, { id: 'CHAT-005', status: 'pass' }, { id: 'OBS-003', status: 'observed' }]);
  expect(t.done).toBe(2);
  expect([t.count('PASS'), t.count('FAIL'), t.count('WARN'), t.count('SKIP')]).toEqual([2, 1, 1, 0]);
  expect(t.mustFailed()).toEqual(['CAT-027']);
  expect(t.line(34_000)).toBe('chatconform  2/10 tests · 4 requirements judged: PASS 2 FAIL 1 WARN 1 · SKIP 0 · 34s · failed CAT-027');
});

test('every line stays under 120 characters, however many tests and failures; the failed IDs that do not fit are counted', () => {
  const t = new ProgressTally(25_000);
  for (let i = 0; i < 24_999; i++) t.add(i < MUSTS.length ? [{ id: MUSTS[i]!, status: 'fail' }] : []);
  const line = t.line(3_725_000);
  expect(line.length).toBeLessThanOrEqual(LINE_MAX);
  expect(line).toMatch(/^chatconform 24999\/25000 tests · \d+ requirements judged: PASS 0 FAIL \d+ WARN 0 · SKIP 0 · 62m05s · failed [A-Z]+-\d{3}(, [A-Z]+-\d{3})* \+\d+$/);
  expect(elapsed(5_400)).toBe('5s');
  expect(elapsed(125_000)).toBe('2m05s');
});

/** A reporter writing into `lines`, fed `n` tests. */
function feed(tty: boolean, n: number, records: (i: number) => CheckRecord[] = () => []): string[] {
  const written: string[] = [];
  const out: ProgressOut = { write: (s) => written.push(s), tty, paint: { red: (s) => s, yellow: (s) => s, green: (s) => s, dim: (s) => s } };
  const reporter = new ProgressReporter({ out });
  const tests = Array.from({ length: n }, (_, i) => ({ title: `t${i}` }) as TestCase);
  reporter.onBegin({} as FullConfig, { allTests: () => tests } as unknown as Suite);
  for (let i = 0; i < n; i++) {
    const checks = records(i);
    const file = JSON.stringify({ checks, exchanges: [] });
    reporter.onTestEnd(tests[i]!, { attachments: [{ name: 'chatconform-evidence', contentType: 'application/json', body: Buffer.from(file) }] } as unknown as TestResult);
  }
  reporter.onEnd();
  return written;
}

test('in CI: a line at the start, every 50 tests, and at the end; nothing else, never a tag', () => {
  const written = feed(false, 120, (i) => (i === 3 ? [{ id: 'CAT-027', status: 'fail' }] : [{ id: 'CAT-031', status: 'pass' }]));
  expect(written.every((s) => s.endsWith('\n') && !s.includes('\r'))).toBe(true);
  const lines = written.map((s) => s.trimEnd());
  expect(lines.map((l) => /(\d+)\/120 tests/.exec(l)?.[1])).toEqual(['0', String(EVERY_TESTS), String(2 * EVERY_TESTS), '120']);
  expect(lines.at(-1)).toMatch(/^chatconform 120\/120 tests · 2 requirements judged: PASS 1 FAIL 1 WARN 0 · SKIP 0 · \d+s · failed CAT-027$/);
  for (const l of lines) expect(l).not.toMatch(/@|passed|✓/);
});

test('on a terminal: one line rewritten in place, ended once, before the verdict', () => {
  const written = feed(true, 30, (i) => (i === 10 ? [{ id: 'CAT-027', status: 'fail' }] : []));
  expect(written.slice(0, -1).every((s) => s.startsWith('\r\u001b[2K') && !s.includes('\n'))).toBe(true);
  expect(written.at(-1)).toMatch(/^\r\u001b\[2Kchatconform 30\/30 tests .* failed CAT-027\n$/);
  // The first MUST failure is shown at once, whatever the throttle.
  expect(written.some((s) => s.includes('11/30 tests') && s.includes('FAIL 1'))).toBe(true);
});

test('npm run conformance and chatconform run use it in place of Playwright\'s list and line reporters', () => {
  const config = readFileSync(path.join(repoRoot, 'suites/conformance.config.ts'), 'utf8');
  expect(config).toContain('./reporter/progress${ext}');
  expect(config).not.toMatch(/['"](list|line|dot)['"]/);
});

// `chatconform run --last-failed` (the report of the report dir) and `--rerun FILE` run again the tests in which a
// requirement failed or could not be judged, and every test that can record it (the suite's index): STREAM-004
// ([DONE]) fails in a tools test that does not declare it (its judgeStream records it), and the rerun runs that test
// with every other test whose index holds STREAM-004. The rerun's reports go to rerun/ and name the run they reran;
// the earlier report is kept.
// Each run is narrowed (a requirement, then the rerun's own tests): no whole-suite run.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { startMockServer } from '../../mock/server.ts';
import { MOCK_KEYS } from '../../mock/keys-and-models.ts';
import { chatconformCommand, runProcess } from './support/cli-process.ts';
import { testsRecording } from '../../run/test-index.ts';

const dirs: string[] = [];
test.afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

const chatconform = (args: string[]) =>
  runProcess(...chatconformCommand(['run', ...args]), { boundMs: 300_000, env: { ...process.env, CONFORMANCE_API_KEY: MOCK_KEYS.full } });
const text = (file: string) => readFileSync(file, 'utf8');
const reportOf = (dir: string): any => JSON.parse(text(path.join(dir, 'conformance.json')));
const where = (r: any, id: string): string[] => [...new Set<string>(r.requirements.find((x: any) => x.id === id).evidence.filter((e: any) => e.status === 'fail').map((e: any) => `${e.location} ${e.test}`))].sort();

test('--last-failed reruns the tests where a requirement failed and every test that can record it; the earlier report is kept', async () => {
  test.setTimeout(600_000);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'chatconform-rerun-'));
  dirs.push(dir);
  const rerunDir = path.join(dir, 'rerun');
  // The defect drops [DONE] after streamed tool calls: only the tools tests see it.
  const broken = await startMockServer({ port: 0, defect: 'stream-no-done' });
  let first: any;
  try {
    const base = ['--base-url', broken.url, '--profile', 'mock', '--report-dir', dir];
    const ran = await chatconform([...base, '--seed', '7', '--requirement', 'TOOL-009']);
    expect(ran.code, ran.output.slice(-2000)).toBe(1);
    first = reportOf(dir);
    const failedAt = where(first, 'STREAM-004');
    expect(failedAt.length).toBeGreaterThan(0);
    // Where it failed, no test declares it: a rerun by requirement would run other tests.
    for (const at of failedAt) expect(at).toMatch(/^suites\/tools\.spec\.ts:\d+ /);
    const tools = first.requirements.find((x: any) => x.id === 'STREAM-004').tests.filter((t: any) => t.error !== undefined);
    expect(tools.length).toBeGreaterThan(0);
    const before = text(path.join(dir, 'conformance.json'));

    const again = await chatconform([...base, '--last-failed']);
    expect(again.code, again.output.slice(-2000)).toBe(1);
    // The tests where it failed first, then every other test whose index holds STREAM-004, once each.
    const recording = testsRecording(['STREAM-004']);
    const failedKeys = new Set(first.failedTests.map((t: any) => `${t.file}\n${t.title}`));
    const others = recording.filter((t) => !failedKeys.has(`suites/${t.file}\n${t.titles.join(' › ')}`));
    const total = first.failedTests.length + others.length;
    expect(total).toBe(recording.length);
    expect(again.output).toContain(`rerunning the ${total} test(s) that can record STREAM-004, which failed or could not be judged in ${path.join(dir, 'conformance.json')} (seed 7; reports in ${rerunDir})`);
    const rerun = reportOf(rerunDir);
    // It still fails where it failed, with the earlier run's seed, and also in the other streamed tool calls the first
    // run (a selection of TOOL-009) did not run: the rerun judges STREAM-004 as the whole run does.
    const rerunAt = where(rerun, 'STREAM-004');
    expect(rerunAt).toEqual(expect.arrayContaining(failedAt));
    expect(rerunAt.length).toBeGreaterThan(failedAt.length);
    for (const at of rerunAt) expect(at).toMatch(/^suites\/tools\.spec\.ts:\d+ .*streamed/);
    expect(rerun.verdict.mustFailed).toEqual(['STREAM-004']);
    expect(rerun.run.tests.total).toBe(total);
    expect(rerun.run.seed).toBe(7);
    expect(rerun.run.rerunOf).toEqual({
      report: '../conformance.json',
      startedAt: first.run.startedAt,
      seed: 7,
      requirements: ['STREAM-004'],
      tests: [...first.failedTests.map((t: any) => ({ file: t.file, line: t.line, title: t.title })), ...others.map((t) => ({ file: `suites/${t.file}`, line: 0, title: t.titles.join(' › ') }))],
    });
    expect(rerun.verdict.summary).toContain(`a rerun of the ${total} test`);
    expect(text(path.join(rerunDir, 'conformance.html'))).toContain('Rerun of');
    // The earlier report, untouched.
    expect(text(path.join(dir, 'conformance.json'))).toBe(before);
  } finally {
    await broken.close();
  }

  // The server fixed: a rerun of the rerun passes (partial: no certification), written one level deeper; then
  // nothing is left to rerun.
  const fixed = await startMockServer({ port: 0 });
  try {
    const base = ['--base-url', fixed.url, '--profile', 'mock', '--report-dir', dir];
    const keep = text(path.join(rerunDir, 'conformance.json'));
    const green = await chatconform([...base, '--rerun', path.join(rerunDir, 'conformance.json')]);
    expect(green.code, green.output.slice(-2000)).toBe(0);
    const deeper = reportOf(path.join(rerunDir, 'rerun'));
    expect(deeper.verdict.result).toBe('partial');
    expect(deeper.requirements.find((x: any) => x.id === 'STREAM-004').status).toBe('pass');
    expect(deeper.run.rerunOf.report).toBe('../conformance.json');
    expect(text(path.join(rerunDir, 'conformance.json'))).toBe(keep);
    const none = await chatconform([...base, '--rerun', path.join(rerunDir, 'rerun', 'conformance.json')]);
    expect(none.code).toBe(0);
    expect(none.output).toContain('nothing to rerun: no requirement failed');
  } finally {
    await fixed.close();
  }
  const missing = await chatconform(['--last-failed', '--report-dir', path.join(dir, 'nowhere')]);
  expect(missing.code).toBe(3);
  expect(missing.stderr.trim()).toMatch(/^error: --last-failed: no report to rerun from: cannot read .*nowhere\/conformance\.json/);
  const both = await chatconform(['--last-failed', '--requirement', 'CAT-031', '--report-dir', dir]);
  expect(both.code).toBe(2);
});

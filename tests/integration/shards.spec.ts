// Issue 33, item 2: `chatconform run --shard i/n` runs one shard (a partial report plus Playwright's blob report);
// `chatconform report merge` joins the shards into one verdict and one coverage, equal to the unsharded run's.
// A selection of requirements (section 5: nine tests) keeps the four runs short; shards-full.spec.ts (slow tier)
// does the same with the whole suite.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { chatconformCommand, runProcess } from './support/cli-process.ts';

const root = mkdtempSync(path.join(os.tmpdir(), 'chatconform-shards-'));
test.afterAll(() => rmSync(root, { recursive: true, force: true }));

// The embedded mock: every run starts its own (its own port), as every CI job of a matrix would.
const chatconform = (args: string[]) =>
  runProcess(...chatconformCommand(args), { boundMs: 300_000, env: { ...process.env, CONFORMANCE_BASE_URL: '', CI: '1' } });
const reportOf = (dir: string): any => JSON.parse(readFileSync(path.join(dir, 'conformance.json'), 'utf8'));
const statuses = (r: any) => Object.fromEntries(r.requirements.map((x: any) => [x.id, x.status]));
const selection = ['--seed', '5', '--section', '5'];
const shard = (i: number) => path.join(root, `shard-${i}`);

/** A copy of a shard's folder with its conformance.json changed by `edit` (still a valid report). */
function alteredShard(i: number, name: string, edit: (report: any) => void): string {
  const dir = path.join(root, name);
  cpSync(shard(i), dir, { recursive: true });
  const report = reportOf(dir);
  edit(report);
  writeFileSync(path.join(dir, 'conformance.json'), JSON.stringify(report));
  return dir;
}

test.describe.configure({ mode: 'serial' });

test.beforeAll(async () => {
  test.setTimeout(600_000);
  const runs = await Promise.all([
    chatconform(['run', ...selection, '--report-dir', path.join(root, 'whole')]),
    ...[1, 2, 3].map((i) => chatconform(['run', ...selection, '--shard', `${i}/3`, '--report-dir', shard(i)])),
  ]);
  for (const r of runs) expect(r.code, r.output.slice(-2000)).toBe(0);
});

test('a shard alone is partial, names its shard, and keeps its blob report and its discovery', () => {
  for (const i of [1, 2, 3]) {
    const report = reportOf(shard(i));
    expect(report.verdict.result).toBe('partial');
    expect(report.verdict.selection).toContain(`shard ${i}/3 of the suite`);
    expect(report.run.shard).toMatchObject({ index: i, total: 3, selection: 'section 5' });
    expect(report.run.shard.discovery.models.length).toBeGreaterThan(0);
    expect(report.run.shard.discovery.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(readFileSync(path.join(shard(i), 'blob-report', `report-${i}.zip`)).length).toBeGreaterThan(0);
  }
  // Playwright split the nine tests: each ran in exactly one shard.
  expect([1, 2, 3].map((i) => reportOf(shard(i)).run.tests.total).reduce((a, b) => a + b, 0)).toBe(reportOf(path.join(root, 'whole')).run.tests.total);
});

test('the three shards merged equal the unsharded run: the same verdict, the same status for every requirement', async () => {
  test.setTimeout(300_000);
  const out = path.join(root, 'merged');
  const merged = await chatconform(['report', 'merge', shard(1), shard(2), shard(3), '--report-dir', out]);
  expect(merged.code, merged.output.slice(-2000)).toBe(0);
  const whole = reportOf(path.join(root, 'whole'));
  const report = reportOf(out);
  expect(report.verdict.result).toBe(whole.verdict.result);
  expect(report.verdict.exitCode).toBe(whole.verdict.exitCode);
  expect(statuses(report)).toEqual(statuses(whole));
  expect(report.coverage).toEqual(whole.coverage);
  expect(report.run.tests).toEqual(whole.run.tests);
  expect(report.run.merge).toMatchObject({ total: 3, missing: [], catalogsDiffer: false });
  expect(report.run.merge.shards.map((s: any) => s.index)).toEqual([1, 2, 3]);
  // The merge is the run's selection (section 5), no longer a shard.
  expect(report.verdict.selection).toBe('section 5');
  expect(report.run.shard).toBeUndefined();
  for (const file of ['junit.xml', 'conformance.html', 'badge.svg']) expect(readFileSync(path.join(out, file), 'utf8').length).toBeGreaterThan(0);
  // A folder of shard folders (a CI matrix's artifacts downloaded side by side) is read the same way.
  const all = path.join(root, 'all');
  for (const i of [1, 2, 3]) cpSync(shard(i), path.join(all, `shard-${i}`), { recursive: true });
  const again = await chatconform(['report', 'merge', all, '--report-dir', path.join(root, 'merged-all')]);
  expect(again.code, again.output.slice(-2000)).toBe(0);
  expect(statuses(reportOf(path.join(root, 'merged-all')))).toEqual(statuses(whole));
});

test('a merge missing a shard says which, and its verdict is partial', async () => {
  test.setTimeout(300_000);
  const out = path.join(root, 'merged-short');
  const merged = await chatconform(['report', 'merge', shard(1), shard(3), '--report-dir', out]);
  expect(merged.code, merged.output.slice(-2000)).toBe(0);
  expect(merged.stderr).toContain('merging 2 of 3 shards; missing: 2/3');
  const report = reportOf(out);
  expect(report.verdict.result).toBe('partial');
  expect(report.verdict.selection).toBe('shards missing from the merge: 2/3; section 5');
  expect(report.run.merge.missing).toEqual([2]);
  expect(report.run.tests.total).toBe(reportOf(shard(1)).run.tests.total + reportOf(shard(3)).run.tests.total);
});

test('shards of different runs are refused (exit 3), naming what differs; a foreign report or a repeated shard too', async () => {
  const seed = alteredShard(2, 'other-seed', (r) => (r.run.seed = 6));
  const split = alteredShard(2, 'other-split', (r) => (r.run.shard.total = 4));
  const target = alteredShard(2, 'other-target', (r) => Object.assign(r.target, { embeddedMock: false, url: 'https://elsewhere.example' }));
  const cases: [string[], RegExp][] = [
    [[shard(1), seed, shard(3)], /^error: report merge: the shards are not of one run: they differ in the seed \(shard 1\/3, shard 3\/3: 5; shard 2\/3: 6\)$/],
    [[shard(1), split, shard(3)], /^error: report merge: the shards split the suite differently: .*shard-1 is shard 1\/3, .*other-split is shard 2\/4/],
    [[shard(1), target], /^error: report merge: the shards are not of one run: they differ in the target \(shard 1\/3: "the embedded mock"; shard 2\/3: "https:\/\/elsewhere\.example"\)$/],
    [[shard(1), shard(1)], /^error: report merge: shard 1\/3 is given twice: /],
    [[shard(1), path.join(root, 'whole')], /^error: report merge: .*whole: its conformance\.json is not a shard's \(no run\.shard/],
    [[path.join(root, 'nowhere')], /^error: report merge: .*nowhere: no conformance\.json in it/],
  ];
  for (const [dirs, message] of cases) {
    const out = path.join(root, 'refused');
    const refused = await chatconform(['report', 'merge', ...dirs, '--report-dir', out]);
    expect(refused.code, refused.output).toBe(3);
    expect(refused.stderr.trim()).toMatch(message);
  }
});

test('shards that saw different catalogs merge, and the merged report says so', async () => {
  test.setTimeout(300_000);
  const other = alteredShard(2, 'other-catalog', (r) => {
    r.run.shard.discovery.models = r.run.shard.discovery.models.slice(1);
    r.run.shard.discovery.sha256 = '0'.repeat(64);
  });
  const out = path.join(root, 'merged-catalogs');
  const merged = await chatconform(['report', 'merge', shard(1), other, shard(3), '--report-dir', out]);
  expect(merged.code, merged.output.slice(-2000)).toBe(0);
  const report = reportOf(out);
  expect(report.run.merge.catalogsDiffer).toBe(true);
  expect(report.verdict.summary).toMatch(/the shards saw different catalogs \(shard 1\/3: \d+ models, discovery [0-9a-f]{12}; shard 2\/3: \d+ models, discovery 000000000000; shard 3\/3/);
});

test('--shard is checked before anything runs: a bad value, or no seed, is a usage error', async () => {
  const bad = await chatconform(['run', '--shard', '4/3']);
  expect(bad.code).toBe(2);
  expect(bad.stderr).toMatch(/--shard <i\/n>.*expected a shard as i\/n with 1 <= i <= n/);
  const unseeded = await chatconform(['run', '--shard', '1/3', '--section', '5']);
  expect(unseeded.code).toBe(2);
  expect(unseeded.stderr.trim()).toBe('error: --shard: give --seed too (the same for every shard of the run; `chatconform report merge` refuses shards of different seeds)');
});

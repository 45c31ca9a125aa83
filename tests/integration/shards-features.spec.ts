// A sharded run with --trials 2 and --reference, merged, against the mock: the merged report keeps the trials and
// the reference column an unsharded run has (the target and its reference run in one run per shard; the merge folds
// each one's cases with the same fold, the reference's shards first); and a shard folder holding another blob than
// its own (here, the other shard's) is refused instead of being merged. One test of the suite, repeated twice, split
// over two shards, keeps the three runs short.
import { copyFileSync, cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { startMockServer, type RunningMockServer } from '../../mock/server.ts';
import { MOCK_KEYS } from '../../mock/keys-and-models.ts';
import { chatconformCommand, runProcess } from './support/cli-process.ts';

const root = mkdtempSync(path.join(os.tmpdir(), 'chatconform-shards-features-'));
let target: RunningMockServer;
let reference: RunningMockServer;

const chatconform = (args: string[]) =>
  runProcess(...chatconformCommand(args), {
    boundMs: 300_000,
    env: { ...process.env, CONFORMANCE_API_KEY: MOCK_KEYS.full, CONFORMANCE_REFERENCE_API_KEY: MOCK_KEYS.full, CI: '1' },
  });
const reportOf = (dir: string): any => JSON.parse(readFileSync(path.join(dir, 'conformance.json'), 'utf8'));
const tool006 = (dir: string): any => reportOf(dir).requirements.find((r: any) => r.id === 'TOOL-006');
const shard = (i: number) => path.join(root, `shard-${i}`);

test.describe.configure({ mode: 'serial' });

test.beforeAll(async () => {
  test.setTimeout(600_000);
  // The target names a call it was not given (TOOL-006 fails in every trial); the reference is the clean mock.
  [target, reference] = await Promise.all([startMockServer({ port: 0, defect: 'tool-call-undeclared-name' }), startMockServer({ port: 0 })]);
  const args = ['run', '--base-url', target.url, '--profile', 'mock', '--reference', reference.url, '--reference-profile', 'mock', '--seed', '3', '--trials', '2', '--grep', 'a function tool with a parameters JSON Schema is accepted'];
  const runs = await Promise.all([
    chatconform([...args, '--report-dir', path.join(root, 'whole')]),
    ...[1, 2].map((i) => chatconform([...args, '--shard', `${i}/2`, '--report-dir', shard(i)])),
  ]);
  // The target fails TOOL-006 (exit 1) in the whole run; the shards split the four tests (two trials, two targets)
  // between them as Playwright orders them, so a shard may hold none of the target's.
  expect(runs[0]!.code, runs[0]!.output.slice(-2000)).toBe(1);
  for (const r of runs.slice(1)) expect([0, 1], r.output.slice(-2000)).toContain(r.code);
});

test.afterAll(async () => {
  await Promise.all([target?.close(), reference?.close()]);
  rmSync(root, { recursive: true, force: true });
});

test('the merged report of a sharded --trials 2 --reference run keeps the trials and the reference column', async () => {
  test.setTimeout(300_000);
  // Between them the shards hold each target's two trials, once.
  const trialsIn = (dir: string): number => tool006(dir).trials?.runs ?? 0;
  expect(trialsIn(shard(1)) + trialsIn(shard(2)), "the target's trials").toBe(2);
  expect(trialsIn(path.join(shard(1), 'reference')) + trialsIn(path.join(shard(2), 'reference')), "the reference's trials").toBe(2);
  const out = path.join(root, 'merged');
  const merged = await chatconform(['report', 'merge', shard(1), shard(2), '--report-dir', out]);
  expect(merged.code, merged.output.slice(-2000)).toBe(1);
  const whole = reportOf(path.join(root, 'whole'));
  const report = reportOf(out);
  expect(tool006(out)).toMatchObject({ status: 'fail', trials: { runs: 2, passed: 0, rate: 0, minPassRate: 1 }, differential: { reference: 'pass', classification: 'target-only' } });
  expect(tool006(out).trials).toEqual(tool006(path.join(root, 'whole')).trials);
  expect(tool006(out).differential.classification).toBe(tool006(path.join(root, 'whole')).differential.classification);
  expect(report.run.trials).toEqual(whole.run.trials);
  expect(report.run.reference).toMatchObject({ url: reference.url, verdict: whole.run.reference.verdict, mustFailed: [], counts: whole.run.reference.counts });
  // The reference's shards were merged first, into the merge's own reference/ folder.
  expect(report.run.reference.reportDir).toBe(path.join(out, 'reference'));
  expect(reportOf(path.join(out, 'reference')).run.merge).toMatchObject({ total: 2, missing: [] });
  expect(report.verdict.mustFailed).toEqual(whole.verdict.mustFailed);
  expect(report.run.stopReason).toBe('completed');
});

test("a shard folder holding another blob than its own is refused (exit 3, one line naming the shard), not merged", async () => {
  // Each shard's blob swapped for the other shard's, under its own name.
  const forged = [1, 2].map((i) => {
    const dir = path.join(root, `forged-${i}`);
    cpSync(shard(i), dir, { recursive: true });
    // Playwright names a blob by its shard (and its command's filters): each report names its own.
    const own = reportOf(shard(i)).run.shard.blob.file;
    const other = shard(3 - i);
    copyFileSync(path.join(other, 'blob-report', reportOf(other).run.shard.blob.file), path.join(dir, 'blob-report', own));
    return dir;
  });
  const out = path.join(root, 'merged-forged');
  const r = await chatconform(['report', 'merge', ...forged, '--report-dir', out]);
  expect(r.code, r.output.slice(-2000)).toBe(3);
  expect(r.stderr.trim()).toMatch(/^error: report merge: shard 1\/2 \(.*forged-1\): blob-report\/report-[0-9a-f]*-?1\.zip is not the blob its conformance\.json was written with \(SHA-256 [0-9a-f]{12}, the report names [0-9a-f]{12}\): another run's blob\?$/);
  expect(existsSync(path.join(out, 'conformance.json'))).toBe(false);
});

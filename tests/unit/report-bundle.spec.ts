// Certification bundles (report/bundle.ts): a run fit to certify, the bundle's contents with every secret
// removed, and `verify`, which holds on an untouched bundle and fails on a bundle with one file changed, as a
// folder and as a .tar.gz.
import { appendFileSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import * as tar from 'tar';
import { certifyProblems, formatVerification, MANIFEST, profileWithoutSecrets, verifyBundle, writeBundle } from '../../report/bundle.ts';
import { writeReports } from '../../report/write.ts';
import { SAMPLE_SECRET, sampleReport } from '../support/reports.ts';

let root: string;
test.beforeAll(() => {
  root = mkdtempSync(path.join(os.tmpdir(), 'chatconform-bundle-'));
});
test.afterAll(() => rmSync(root, { recursive: true, force: true }));

const profile = { name: 'acme', apiKey: SAMPLE_SECRET, restrictedKey: { key: 'sk-restricted-0123456789', allowedModels: ['m'] }, secrets: ['hunter2-hunter2'], budget: { maxRequests: 5000 } };

async function bundle(name: string) {
  const reportDir = path.join(root, `${name}-reports`);
  const report = sampleReport();
  writeReports(report, reportDir, [SAMPLE_SECRET]);
  return writeBundle({
    reportDir,
    bundleDir: path.join(root, name),
    report,
    profile,
    secrets: [SAMPLE_SECRET, 'sk-restricted-0123456789', 'hunter2-hunter2'],
    command: `chatconform run --certify --base-url https://api.example.com --profile acme.json`,
    catalogText: '{"requirements": []}',
    commit: '0123456789abcdef0123456789abcdef01234567',
  });
}

test('a run fit to certify: the whole suite, a profile, no budget below the defaults', () => {
  expect(certifyProblems({ profilePath: 'p.json', profile: {}, fuzzRuns: 25 })).toEqual([]);
  expect(certifyProblems({ selection: 'requirement STREAM-004', profile: { budget: { maxRequests: 10, fuzzRuns: 3 } }, fuzzRuns: 3 })).toEqual([
    'a certification judges the whole suite; this run selects requirement STREAM-004',
    'a certification needs a target profile (--profile / CONFORMANCE_PROFILE): what the target offers beyond the black box',
    "the profile's budget.maxRequests 10 is below the default 2000",
    "the profile's budget.fuzzRuns 3 is below the default 25",
    '3 fuzz runs per property is below the default 25',
  ]);
});

test('the bundle: the four reports, the profile without its secrets, bundle.json, and a manifest of them all', async () => {
  const { dir, tarball } = await bundle('ok');
  expect(readdirSync(dir).sort()).toEqual([MANIFEST, 'badge.svg', 'bundle.json', 'conformance.html', 'conformance.json', 'junit.xml', 'profile.json']);
  const all = readdirSync(dir).map((f) => readFileSync(path.join(dir, f), 'utf8')).join('\n');
  for (const secret of [SAMPLE_SECRET, 'sk-restricted-0123456789', 'hunter2-hunter2']) expect(all).not.toContain(secret);
  const info = JSON.parse(readFileSync(path.join(dir, 'bundle.json'), 'utf8'));
  expect(info).toMatchObject({ kit: { commit: '0123456789abcdef0123456789abcdef01234567' }, catalogSha256: expect.stringMatching(/^[0-9a-f]{64}$/), verdict: { result: 'fail' }, command: expect.stringContaining('--certify') });
  expect(readFileSync(path.join(dir, MANIFEST), 'utf8').split('\n').filter(Boolean)).toHaveLength(6);
  const v = await verifyBundle(dir);
  expect(v).toMatchObject({ ok: true, problems: [], verdict: { result: 'fail' } });
  expect(formatVerification('ok', v)).toMatch(/^ok: the manifest holds .*\nverdict: FAIL — 3 MUST requirements failed/);
  expect((await verifyBundle(tarball)).ok).toBe(true);
  expect(profileWithoutSecrets(profile, [])).toEqual({ name: 'acme', apiKey: '***REDACTED***', restrictedKey: { key: '***REDACTED***', allowedModels: ['m'] }, secrets: ['***REDACTED***'], budget: { maxRequests: 5000 } });
});

test('one changed file, an added file or a changed archive fails verify, naming the file', async () => {
  const { dir } = await bundle('tampered');
  const report = path.join(dir, 'conformance.json');
  writeFileSync(report, readFileSync(report, 'utf8').replace('"result": "fail"', '"result": "pass"'));
  const v = await verifyBundle(dir);
  expect(v.ok).toBe(false);
  expect(v.problems).toContain('conformance.json: its SHA-256 does not match SHA256SUMS (the file was changed)');
  expect(formatVerification(dir, v)).toContain('NOT VERIFIED');

  const other = await bundle('added');
  writeFileSync(path.join(other.dir, 'extra.txt'), 'x');
  expect((await verifyBundle(other.dir)).problems).toEqual(['extra.txt: in the bundle but not in SHA256SUMS']);

  // The archive: unpacked, one byte appended to the badge, packed again.
  const packed = await bundle('packed');
  const work = mkdtempSync(path.join(root, 'unpack-'));
  await tar.extract({ file: packed.tarball, cwd: work });
  appendFileSync(path.join(work, 'packed', 'badge.svg'), ' ');
  const repacked = path.join(root, 'repacked.tar.gz');
  await tar.create({ gzip: true, file: repacked, cwd: work }, ['packed']);
  expect((await verifyBundle(repacked)).problems).toEqual(['badge.svg: its SHA-256 does not match SHA256SUMS (the file was changed)']);
  expect((await verifyBundle(path.join(root, 'nothing-here'))).problems).toEqual([`${path.join(root, 'nothing-here')}: no such bundle`]);
});

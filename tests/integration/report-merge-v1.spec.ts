// `chatconform report merge` of the shards a 0.2 kit wrote (version-1 reports and their blob reports, kept as
// written in tests/fixtures/reports-v1): the shards' facts are read through report/load.ts, their blobs replayed
// into the conformance reporter, and the merged report is written in the current version, in the kit's words.
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { expect, test } from '@playwright/test';
import { repoRoot } from '../../run/config.ts';
import { CLI, runProcess } from './support/cli-process.ts';

test('version-1 shards merge into one version-2 report with their verdict', async () => {
  test.setTimeout(180_000);
  const root = mkdtempSync(path.join(os.tmpdir(), 'chatconform-merge-v1-'));
  try {
    const fixtures = path.join(repoRoot, 'tests/fixtures/reports-v1');
    const shards = [1, 2].map((i) => {
      const dir = path.join(root, `shard${i}`);
      mkdirSync(path.join(dir, 'blob-report'), { recursive: true });
      writeFileSync(path.join(dir, 'conformance.json'), gunzipSync(readFileSync(path.join(fixtures, `shard${i}/conformance.json.gz`))));
      for (const zip of readdirSync(path.join(fixtures, `shard${i}/blob-report`))) copyFileSync(path.join(fixtures, `shard${i}/blob-report`, zip), path.join(dir, 'blob-report', zip));
      return dir;
    });
    const out = path.join(root, 'merged');
    const r = await runProcess(process.execPath, ['--import', 'tsx', CLI, 'report', 'merge', ...shards, '--report-dir', out], { boundMs: 150_000, env: { ...process.env, CI: '1' } });
    // The 0.2 run found CAT-027 broken (the mock's catalog-null-optional defect): the merged run fails on it.
    expect(r.code, r.output.slice(-2000)).toBe(1);
    const merged = JSON.parse(readFileSync(path.join(out, 'conformance.json'), 'utf8'));
    expect(merged).toMatchObject({ reportVersion: 2, run: { stopReason: 'completed', caseKind: 'test', merge: { total: 2, missing: [] } }, verdict: { result: 'fail', mustFailed: ['CAT-027'], exitCode: 1 } });
    const old = [1, 2].map((i) => JSON.parse(readFileSync(path.join(shards[i - 1]!, 'conformance.json'), 'utf8')));
    expect(merged.run.tests.total).toBe(old[0].run.tests.total + old[1].run.tests.total);
    expect(JSON.stringify(merged)).not.toMatch(/playwrightStatus|exitStatus|"timedOut"/);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

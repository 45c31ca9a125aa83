// `chatconform report merge` given a hostile blob report (built here, a few KB each): a name that climbs out of the
// folder merge-reports extracts to, and a blob that inflates a thousand times over. Each is refused before
// Playwright reads it: one line on stderr, no stack trace, exit 3, quickly (no merge-reports is started).
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { sampleReport } from '../support/reports.ts';
import { zipOf, type ZipEntrySpec } from '../support/zip.ts';
import { chatconformCommand, runProcess } from './support/cli-process.ts';

const root = mkdtempSync(path.join(os.tmpdir(), 'chatconform-shards-hostile-'));
test.afterAll(() => rmSync(root, { recursive: true, force: true }));

const chatconform = (args: string[]) => runProcess(...chatconformCommand(args), { boundMs: 120_000, env: { ...process.env, CI: '1' } });

/** A shard folder (1 of 1) whose conformance.json names `entries`' zip as its blob, digest included. */
function shardWith(name: string, entries: readonly ZipEntrySpec[]): string {
  const dir = path.join(root, name);
  mkdirSync(path.join(dir, 'blob-report'), { recursive: true });
  const zip = zipOf(entries);
  writeFileSync(path.join(dir, 'blob-report', 'report-1.zip'), zip);
  const report = sampleReport('completed');
  report.run.shard = {
    index: 1,
    total: 1,
    discovery: { sha256: 'a'.repeat(64), models: ['m'] },
    blob: { file: 'report-1.zip', sha256: createHash('sha256').update(zip).digest('hex') },
  };
  writeFileSync(path.join(dir, 'conformance.json'), JSON.stringify(report));
  return dir;
}

const jsonl = Buffer.from(`${JSON.stringify({ method: 'onBlobReportMetadata', params: { version: 2 } })}\n`);

test('a blob whose entry name leaves the folder (zip-slip) is refused in one line, nothing written outside', async () => {
  const dir = shardWith('slip', [{ name: 'report.jsonl', data: jsonl }, { name: '../../../chatconform-zip-slip.txt', data: Buffer.from('owned') }]);
  const out = path.join(root, 'out-slip');
  const r = await chatconform(['report', 'merge', dir, '--report-dir', out]);
  expect(r.code, r.output).toBe(3);
  expect(r.stderr.trim().split('\n')).toHaveLength(1);
  expect(r.stderr.trim()).toBe(`error: report merge: shard 1/1 (${dir}): its blob report report-1.zip is refused: an entry named "../../../chatconform-zip-slip.txt" would be written outside the folder it is extracted to`);
  expect(r.output).not.toMatch(/^\s+at /m);
  expect(existsSync(path.join(out, 'conformance.json'))).toBe(false);
});

test('a blob that inflates a thousand times over is refused in one line, before merge-reports reads it', async () => {
  // 8 MiB of one byte deflate to about 8 KiB.
  const dir = shardWith('bomb', [{ name: 'report.jsonl', data: Buffer.alloc(8 * 1024 * 1024, 0x20) }]);
  const r = await chatconform(['report', 'merge', dir, '--report-dir', path.join(root, 'out-bomb')]);
  expect(r.code, r.output).toBe(3);
  expect(r.stderr.trim()).toMatch(/^error: report merge: shard 1\/1 \(.*bomb\): its blob report report-1\.zip is refused: the entry report\.jsonl inflates \d+ times over \(\d+ KiB to 8 MiB\), more than the 200 a blob report may$/);
  expect(r.output).not.toMatch(/^\s+at /m);
});

// What `report merge` lets merge-reports unzip (report/blob-zip.ts), on zips built here, each a few KB: a name that
// climbs out of its folder, too many entries, a directory that declares too much or too high a ratio, and one that
// lies about an entry's size (refused while inflating, at the declared size, never holding the rest).
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { BLOB_BOUNDS, checkZip, safeEntryName, ZipRefused } from '../../report/blob-zip.ts';
import { zipOf, type ZipEntrySpec } from '../support/zip.ts';

const dir = mkdtempSync(path.join(os.tmpdir(), 'chatconform-blob-zip-'));
test.afterAll(() => rmSync(dir, { recursive: true, force: true }));

let n = 0;
function zipFile(entries: readonly ZipEntrySpec[]): string {
  const file = path.join(dir, `z${++n}.zip`);
  writeFileSync(file, zipOf(entries));
  return file;
}

const jsonl = Buffer.from(`${JSON.stringify({ method: 'onBlobReportMetadata', params: { version: 2 } })}\n`.repeat(50));

test('a blob report within the bounds passes: its entries counted and inflated, nothing kept', async () => {
  const file = zipFile([{ name: 'report.jsonl', data: jsonl }, { name: 'resources/abc.json', data: Buffer.from('{}'), method: 0 }]);
  expect(await checkZip(file)).toEqual({ entries: 2, bytes: jsonl.length + 2 });
});

test('an entry whose name leaves its folder is refused (zip-slip), before anything is inflated', async () => {
  for (const name of ['../../evil.jsonl', 'resources/../../evil.txt', '/etc/evil', 'C:\\evil', '..\\evil']) {
    expect(safeEntryName(name), name).toBe(false);
    const file = zipFile([{ name: 'report.jsonl', data: jsonl }, { name, data: Buffer.from('x') }]);
    await expect(checkZip(file)).rejects.toThrow(new ZipRefused(`an entry named ${JSON.stringify(name)} would be written outside the folder it is extracted to`));
  }
  expect(safeEntryName('resources/a..b.json')).toBe(true);
});

test('more entries than a blob report may hold are refused by the count its end record gives', async () => {
  const many = Array.from({ length: BLOB_BOUNDS.maxEntries + 1 }, (_, i) => ({ name: `r/${i}`, data: Buffer.alloc(0), method: 0 as const }));
  await expect(checkZip(zipFile(many))).rejects.toThrow(`${BLOB_BOUNDS.maxEntries + 1} entries, more than the ${BLOB_BOUNDS.maxEntries} a blob report may hold`);
});

test('a compression ratio past the bound is refused from the directory, before inflating', async () => {
  // 4 MiB of one byte deflates to about 4 KiB: a ratio near 1000.
  const file = zipFile([{ name: 'report.jsonl', data: Buffer.alloc(4 * 1024 * 1024, 0x20) }]);
  await expect(checkZip(file)).rejects.toThrow(/^the entry report\.jsonl inflates \d+ times over \(\d+ KiB to 4 MiB\), more than the 200 a blob report may$/);
  // The same bytes in a small file are harmless: the ratio is only held against entries past the floor.
  expect((await checkZip(zipFile([{ name: 'report.jsonl', data: Buffer.alloc(64 * 1024, 0x20) }]))).bytes).toBe(64 * 1024);
});

test('a directory that declares more than the total bound is refused without inflating a byte', async () => {
  // Two entries of 40 KiB against a bound of 64 KiB (the default, 256 MiB, works the same way on larger files).
  const bounds = { ...BLOB_BOUNDS, maxTotalBytes: 64 * 1024 };
  const data = Buffer.from(Array.from({ length: 40 * 1024 }, (_, i) => (i * 7919) % 251));
  const file = zipFile([{ name: 'report.jsonl', data }, { name: 'resources/a.dat', data }]);
  await expect(checkZip(file, bounds)).rejects.toThrow('it inflates to more than 64 KiB (the bound of a blob report), by its own directory');
  // A stored entry's directory cannot claim more than the bytes it stores.
  const stored = zipFile([{ name: 'r/0', data: Buffer.from('x'), method: 0, declaredSize: 100 * 1024 * 1024 }]);
  await expect(checkZip(stored)).rejects.toThrow('the stored entry r/0 declares 104857600 bytes in 1');
});

test('an entry that inflates past the size its directory declares is stopped there', async () => {
  // A lying directory (a bomb that declares 1 KiB): the inflation stops just past 1 KiB, whatever the data holds.
  const file = zipFile([{ name: 'report.jsonl', data: Buffer.alloc(512 * 1024, 0x20), declaredSize: 1024 }]);
  await expect(checkZip(file)).rejects.toThrow('the entry report.jsonl inflates past the 1 KiB its directory declares');
  const short = zipFile([{ name: 'report.jsonl', data: Buffer.from('short'), declaredSize: 10 }]);
  await expect(checkZip(short)).rejects.toThrow('the entry report.jsonl inflates to 5 bytes, not the 10 its directory declares');
});

test('what is not a zip is refused in one line', async () => {
  const file = path.join(dir, 'not.zip');
  writeFileSync(file, 'PK not really');
  await expect(checkZip(file)).rejects.toThrow('not a zip archive (no end of central directory)');
  await expect(checkZip(path.join(dir, 'missing.zip'))).rejects.toThrow(/^cannot read it: no such file$/);
});

test('an entry within the ratio and the total but past the bound of one entry is refused from the directory (issue 51, item 7)', async () => {
  // A report.jsonl of events that deflate about 100 times over, like the 2.2 MB blob that inflated to 240 MiB and
  // took merge-reports past 4 GB: each bound it was under still holds, and the one entry is refused before inflating.
  let seed = 51;
  const next = (): string => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) % 1e6).toString(36);
  const lines = Array.from({ length: Math.ceil((33 * 1024 * 1024) / 420) }, () => `${JSON.stringify({ method: 'onStdOut', params: { chunk: `${'x'.repeat(380)}${next()}` } })}\n`);
  const events = Buffer.from(lines.join(''));
  const file = zipFile([{ name: 'report.jsonl', data: events }]);
  expect(events.length / statSync(file).size).toBeLessThan(BLOB_BOUNDS.maxRatio);
  expect(events.length).toBeLessThan(BLOB_BOUNDS.maxTotalBytes);
  await expect(checkZip(file)).rejects.toThrow(/^the entry report\.jsonl inflates to 3[34] MiB, more than the 24 MiB one entry of a blob report may \(a shard of fewer tests: run more shards\)$/);
});

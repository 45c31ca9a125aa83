// `verify` on hostile bundles (report/bundle.ts): it reads only the files a bundle holds, each within its bound,
// never through a link, and unpacks an archive as a stream, nothing on disk. A 2 MB archive of many files once
// unpacked to 2 GB in the temp folder, a huge conformance.json was unpacked before being refused, a link to
// /dev/zero hung verify; a bundle.json missing a field ended in "internal error" instead of NOT VERIFIED.
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { expect, test } from '@playwright/test';
import { Header } from 'tar';
import { main } from '../../cli/program.ts';
import { BUNDLE_FILE_LIMITS, BUNDLE_MAX_ENTRIES, MANIFEST, verifyBundle, writeBundle } from '../../report/bundle.ts';
import { writeReports } from '../../report/write.ts';
import { sampleReport } from '../support/reports.ts';

let root: string;
test.beforeAll(() => {
  root = mkdtempSync(path.join(os.tmpdir(), 'chatconform-hostile-bundle-'));
});
test.afterAll(() => rmSync(root, { recursive: true, force: true }));

async function bundle(name: string): Promise<string> {
  const reportDir = path.join(root, `${name}-reports`);
  const report = sampleReport();
  writeReports(report, reportDir, []);
  const { dir } = await writeBundle({ reportDir, bundleDir: path.join(root, name), report, profile: { name: 'acme' }, secrets: [], command: 'chatconform run --certify', catalogText: '{}' });
  return dir;
}

const sha256 = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');
/** SHA256SUMS written again over the folder's files, as a forger (or sha256sum) would. */
function resum(dir: string): void {
  const names = readdirSync(dir).filter((f) => f !== MANIFEST).sort();
  writeFileSync(path.join(dir, MANIFEST), names.map((f) => `${sha256(readFileSync(path.join(dir, f)))}  ${f}\n`).join(''));
}

interface Entry {
  path: string;
  type?: 'File' | 'Directory' | 'SymbolicLink';
  /** the size the header declares (default: the body's) */
  size?: number;
  body?: Buffer;
  linkpath?: string;
}
/** A .tar.gz built block by block: headers may declare what no honest archiver writes. */
function archive(file: string, entries: Entry[], end = true): string {
  const blocks: Buffer[] = [];
  for (const e of entries) {
    const body = e.body ?? Buffer.alloc(0);
    const block = Buffer.alloc(512);
    new Header({ path: e.path, type: e.type ?? 'File', size: e.size ?? body.length, mode: 0o644, mtime: new Date(0), ...(e.linkpath ? { linkpath: e.linkpath } : {}) }).encode(block, 0);
    blocks.push(block, body, Buffer.alloc((512 - (body.length % 512)) % 512));
  }
  if (end) blocks.push(Buffer.alloc(1024));
  writeFileSync(file, gzipSync(Buffer.concat(blocks)));
  return file;
}

test('an archive of many files: refused past the entry bound, one problem, nothing unpacked to disk', async () => {
  const tmp = mkdtempSync(path.join(root, 'tmp-'));
  const file = archive(path.join(root, 'many.tar.gz'), [{ path: 'b/', type: 'Directory' }, ...Array.from({ length: 2000 }, (_, i) => ({ path: `b/f${i}.json`, body: Buffer.alloc(1000) }))]);
  const before = process.env.TMPDIR;
  process.env.TMPDIR = tmp;
  try {
    const v = await verifyBundle(file);
    expect(v.ok).toBe(false);
    expect(v.problems).toEqual([`${file}: more than ${BUNDLE_MAX_ENTRIES} entries; a bundle holds 7 or 8 files (the rest not read)`]);
  } finally {
    if (before === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = before;
  }
  expect(readdirSync(tmp)).toEqual([]);
});

test('a file over its bound is refused from its header, before a byte of it is unpacked', async () => {
  // The header declares 1.5 GB; the archive holds none of it (unpacking it would fail on the missing bytes).
  const file = archive(path.join(root, 'huge.tar.gz'), [{ path: 'b/', type: 'Directory' }, { path: 'b/conformance.json', size: 1_500_000_000 }], false);
  expect((await verifyBundle(file)).problems).toEqual([`conformance.json: 1500000000 bytes; a bundle's conformance.json holds at most ${BUNDLE_FILE_LIMITS.get('conformance.json')} (not read)`]);
});

test('a link is never followed: not in an archive, not in a folder (to a file outside, nor to /dev/zero)', async () => {
  const packed = archive(path.join(root, 'link.tar.gz'), [{ path: 'b/', type: 'Directory' }, { path: 'b/conformance.json', type: 'SymbolicLink', linkpath: '/etc/hostname' }]);
  expect((await verifyBundle(packed)).problems).toEqual(['conformance.json: a symbolic link; a bundle holds only regular files (not followed, not read)']);

  // A bundle whose conformance.json is a link to an identical file outside it: its digest would match.
  const dir = await bundle('linked');
  const outside = path.join(root, 'outside.json');
  writeFileSync(outside, readFileSync(path.join(dir, 'conformance.json')));
  rmSync(path.join(dir, 'conformance.json'));
  symlinkSync(outside, path.join(dir, 'conformance.json'));
  expect((await verifyBundle(dir)).problems).toEqual(['conformance.json: a symbolic link; a bundle holds only regular files (not followed, not read)']);
  rmSync(path.join(dir, 'conformance.json'));
  symlinkSync('/dev/zero', path.join(dir, 'conformance.json'));
  expect((await verifyBundle(dir)).problems).toEqual(['conformance.json: a symbolic link; a bundle holds only regular files (not followed, not read)']);
});

test('an archive with an entry outside its one folder, or a file twice, does not verify', async () => {
  const escape = archive(path.join(root, 'escape.tar.gz'), [{ path: 'b/', type: 'Directory' }, { path: 'b/../x.json', body: Buffer.from('{}') }]);
  expect((await verifyBundle(escape)).problems).toEqual([`${escape}: the archive must hold one bundle folder`]);
  const twice = archive(path.join(root, 'twice.tar.gz'), [{ path: 'b/bundle.json', body: Buffer.from('{}') }, { path: 'b/bundle.json', body: Buffer.from('{}') }]);
  expect((await verifyBundle(twice)).problems).toEqual(['bundle.json: twice in the archive']);
});

test('a bundle.json missing a field: NOT VERIFIED, exit 1, naming the field (not an internal error)', async () => {
  const dir = await bundle('no-version');
  const info = JSON.parse(readFileSync(path.join(dir, 'bundle.json'), 'utf8'));
  delete info.kit.version;
  delete info.catalogSha256;
  writeFileSync(path.join(dir, 'bundle.json'), JSON.stringify(info));
  resum(dir);
  let text = '';
  const code = await main(['verify', dir], { out: (s) => (text += s), err: (s) => (text += s) });
  expect(code).toBe(1);
  expect(text).toContain('NOT VERIFIED');
  expect(text).toContain('bundle.json: the field kit.version is missing');
  expect(text).toContain('bundle.json: the field catalogSha256 is missing');
  expect(text).not.toContain('internal error');

  const bare = await bundle('not-object');
  writeFileSync(path.join(bare, 'bundle.json'), '[]');
  writeFileSync(path.join(bare, 'extra.json'), '{}');
  resum(bare);
  const v = await verifyBundle(bare);
  expect(v.problems).toContain('bundle.json: not a JSON object');
  expect(v.problems).toContain('extra.json: listed in SHA256SUMS, but not a file a bundle holds (not read)');
});

// What `chatconform report merge` lets Playwright's merge-reports unzip. merge-reports reads every entry of a blob
// whole into memory and writes it to disk under its entry name, so a blob that inflates to gigabytes exhausts the
// heap (minutes, then a native stack), and a name that climbs out of the folder makes its unzip throw a stack trace.
// This reads the zip's central directory itself (names, counts, declared sizes), then inflates every entry as a
// stream, counting the bytes and keeping none, and stops at the first bound crossed: time and memory stay bounded
// whatever the archive claims, and the refusal is one line.
import { createReadStream, readSync, closeSync } from 'node:fs';
import { FileReadError, openRegularFile } from '../spec/file-reader.ts';
import { createInflateRaw } from 'node:zlib';

export interface ZipBounds {
  /** Most entries (a blob holds report.jsonl and its attachments). */
  maxEntries: number;
  /** Most bytes all entries may inflate to together. */
  maxTotalBytes: number;
  /**
   * Most bytes one entry may inflate to. merge-reports reads each entry whole into memory, and holds every event of
   * a report.jsonl parsed at once (a few times its size): the bound on one entry is the bound on its memory.
   */
  maxEntryBytes: number;
  /** Most bytes one entry may inflate to per compressed byte (past `ratioFloorBytes`). */
  maxRatio: number;
  /** An entry inflating to less than this is never refused for its ratio (a small file of one repeated byte is harmless). */
  ratioFloorBytes: number;
}

/**
 * The bounds of a blob report. A shard of the whole suite against the embedded mock inflates to about 3 MB (1 MB of
 * events in report.jsonl, 2 MB of evidence) at a ratio near 10. merge-reports holds one entry whole, and a
 * report.jsonl's events parsed (about five times its size): 24 MiB per entry keeps a merge under 300 MB of memory
 * with a shard's own events grown to the bound (294 MB, bench/hostile-merge.ts), room for some 2,500 tests' events per shard (a larger run takes
 * more shards); the total bounds the disk merge-reports writes.
 */
export const BLOB_BOUNDS: ZipBounds = { maxEntries: 10_000, maxTotalBytes: 256 * 1024 * 1024, maxEntryBytes: 24 * 1024 * 1024, maxRatio: 200, ratioFloorBytes: 1024 * 1024 };

/** The zip is refused: why, in one line. */
export class ZipRefused extends Error {}

interface Entry {
  name: string;
  method: number;
  compressedSize: number;
  size: number;
  localOffset: number;
}

const EOCD = 0x06054b50;
const ZIP64_LOCATOR = 0x07064b50;
const ZIP64_EOCD = 0x06064b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
const MIB = 1024 * 1024;

const mib = (n: number) => (n < 1024 ? `${n} bytes` : n < MIB ? `${Math.round(n / 1024)} KiB` : `${Math.round(n / MIB)} MiB`);

/** Whether an entry name stays inside the folder it is extracted to: relative, no `..` segment, no drive, no NUL. */
export function safeEntryName(name: string): boolean {
  if (name.length === 0 || name.includes('\0')) return false;
  if (name.startsWith('/') || name.startsWith('\\') || /^[A-Za-z]:/.test(name)) return false;
  return !name.split(/[\\/]/).includes('..');
}

function readAt(fd: number, position: number, length: number): Buffer {
  const buf = Buffer.alloc(length);
  const n = readSync(fd, buf, 0, length, position);
  return buf.subarray(0, n);
}

/** The central directory's entries, refused past the bounds before any byte is inflated. */
function centralDirectory(fd: number, fileSize: number, bounds: ZipBounds): Entry[] {
  // The end record is in the last 22 bytes plus at most a 64 KiB comment.
  const tailStart = Math.max(0, fileSize - (22 + 0xffff));
  const tail = readAt(fd, tailStart, fileSize - tailStart);
  let at = -1;
  for (let i = tail.length - 22; i >= 0; i--) {
    if (tail.readUInt32LE(i) === EOCD) {
      at = i;
      break;
    }
  }
  if (at < 0) throw new ZipRefused('not a zip archive (no end of central directory)');
  let count = tail.readUInt16LE(at + 10);
  let cdSize = tail.readUInt32LE(at + 12);
  let cdOffset = tail.readUInt32LE(at + 16);
  if (count === 0xffff || cdSize === 0xffffffff || cdOffset === 0xffffffff) {
    // ZIP64: the locator sits just before the end record and points at the 64-bit end record.
    const loc = at - 20;
    if (loc < 0 || tail.readUInt32LE(loc) !== ZIP64_LOCATOR) throw new ZipRefused('a ZIP64 archive without its locator');
    const rec = readAt(fd, Number(tail.readBigUInt64LE(loc + 8)), 56);
    if (rec.length < 56 || rec.readUInt32LE(0) !== ZIP64_EOCD) throw new ZipRefused('a ZIP64 archive without its end record');
    count = Number(rec.readBigUInt64LE(32));
    cdSize = Number(rec.readBigUInt64LE(40));
    cdOffset = Number(rec.readBigUInt64LE(48));
  }
  if (count > bounds.maxEntries) throw new ZipRefused(`${count} entries, more than the ${bounds.maxEntries} a blob report may hold`);
  // An entry's record is 46 bytes plus three fields of at most 64 KiB each.
  if (cdOffset + cdSize > fileSize || cdSize > count * (46 + 3 * 0xffff)) throw new ZipRefused('its central directory does not fit the file');
  const cd = readAt(fd, cdOffset, cdSize);
  const entries: Entry[] = [];
  let p = 0;
  let total = 0;
  for (let i = 0; i < count; i++) {
    if (p + 46 > cd.length || cd.readUInt32LE(p) !== CENTRAL) throw new ZipRefused('a damaged central directory');
    const flags = cd.readUInt16LE(p + 8);
    const method = cd.readUInt16LE(p + 10);
    let compressedSize = cd.readUInt32LE(p + 20);
    let size = cd.readUInt32LE(p + 24);
    const nameLength = cd.readUInt16LE(p + 28);
    const extraLength = cd.readUInt16LE(p + 30);
    const commentLength = cd.readUInt16LE(p + 32);
    let localOffset = cd.readUInt32LE(p + 42);
    const name = cd.subarray(p + 46, p + 46 + nameLength).toString('utf8');
    const extra = cd.subarray(p + 46 + nameLength, p + 46 + nameLength + extraLength);
    // ZIP64 extended information: the 64-bit values of the fields set to all ones, in this order.
    for (let e = 0; e + 4 <= extra.length; ) {
      const id = extra.readUInt16LE(e);
      const len = extra.readUInt16LE(e + 2);
      if (id === 0x0001) {
        let q = e + 4;
        const next = () => {
          if (q + 8 > e + 4 + len) throw new ZipRefused('a damaged ZIP64 field');
          const v = Number(extra.readBigUInt64LE(q));
          q += 8;
          return v;
        };
        if (size === 0xffffffff) size = next();
        if (compressedSize === 0xffffffff) compressedSize = next();
        if (localOffset === 0xffffffff) localOffset = next();
      }
      e += 4 + len;
    }
    p += 46 + nameLength + extraLength + commentLength;
    if (!safeEntryName(name)) throw new ZipRefused(`an entry named ${JSON.stringify(name.slice(0, 200))} would be written outside the folder it is extracted to`);
    if (flags & 1) throw new ZipRefused(`the entry ${name} is encrypted`);
    if (method !== 0 && method !== 8) throw new ZipRefused(`the entry ${name} uses compression method ${method} (a blob report uses deflate)`);
    if (method === 0 && compressedSize !== size) throw new ZipRefused(`the stored entry ${name} declares ${size} bytes in ${compressedSize}`);
    if (localOffset + 30 + compressedSize > fileSize) throw new ZipRefused(`the entry ${name} does not fit the file`);
    if (size > bounds.maxEntryBytes) throw new ZipRefused(`the entry ${name} inflates to ${mib(size)}, more than the ${mib(bounds.maxEntryBytes)} one entry of a blob report may (a shard of fewer tests: run more shards)`);
    total += size;
    if (total > bounds.maxTotalBytes) throw new ZipRefused(`it inflates to more than ${mib(bounds.maxTotalBytes)} (the bound of a blob report), by its own directory`);
    if (size > bounds.ratioFloorBytes && size > bounds.maxRatio * Math.max(1, compressedSize)) {
      throw new ZipRefused(`the entry ${name} inflates ${Math.round(size / Math.max(1, compressedSize))} times over (${mib(compressedSize)} to ${mib(size)}), more than the ${bounds.maxRatio} a blob report may`);
    }
    entries.push({ name, method, compressedSize, size, localOffset });
  }
  return entries;
}

/** Inflates one entry as a stream, keeping nothing; refused as soon as it outgrows its declared size. */
function inflateCounting(file: string, fd: number, entry: Entry): Promise<void> {
  const local = readAt(fd, entry.localOffset, 30);
  if (local.length < 30 || local.readUInt32LE(0) !== LOCAL) return Promise.reject(new ZipRefused(`the entry ${entry.name} has no local header`));
  const start = entry.localOffset + 30 + local.readUInt16LE(26) + local.readUInt16LE(28);
  if (entry.compressedSize === 0) {
    return entry.size === 0 ? Promise.resolve() : Promise.reject(new ZipRefused(`the entry ${entry.name} is not the size its directory declares`));
  }
  return new Promise((resolve, reject) => {
    const source = createReadStream(file, { start, end: start + entry.compressedSize - 1 });
    const inflate = entry.method === 8 ? createInflateRaw() : undefined;
    let out = 0;
    const fail = (err: ZipRefused) => {
      source.destroy();
      inflate?.destroy();
      reject(err);
    };
    const count = (chunk: Buffer) => {
      out += chunk.length;
      if (out > entry.size) fail(new ZipRefused(`the entry ${entry.name} inflates past the ${mib(entry.size)} its directory declares`));
    };
    const done = () => (out === entry.size ? resolve() : reject(new ZipRefused(`the entry ${entry.name} inflates to ${out} bytes, not the ${entry.size} its directory declares`)));
    source.on('error', (err) => reject(new ZipRefused(`cannot read it: ${err.message}`)));
    if (!inflate) {
      source.on('data', (c) => count(c as Buffer));
      source.on('end', done);
      return;
    }
    inflate.on('data', count);
    inflate.on('end', done);
    inflate.on('error', (err) => fail(new ZipRefused(`the entry ${entry.name} does not inflate: ${err.message}`)));
    source.pipe(inflate);
  });
}

/**
 * Checks a zip against the bounds without keeping what it inflates; resolves to its entries' count and inflated
 * size, or rejects with ZipRefused saying which bound it crossed (or which entry name escapes its folder).
 */
export async function checkZip(file: string, bounds: ZipBounds = BLOB_BOUNDS): Promise<{ entries: number; bytes: number }> {
  let fd: number;
  let size: number;
  try {
    // The kit's one reader's check: a regular file (never a FIFO or a device behind a link), its size from its descriptor.
    ({ fd, size } = openRegularFile(file, 'the blob'));
  } catch (err) {
    throw new ZipRefused(`cannot read it: ${err instanceof FileReadError ? err.message.replace(/^the blob \S+: /, '') : (err as Error).message}`);
  }
  try {
    const entries = centralDirectory(fd, size, bounds);
    for (const entry of entries) await inflateCounting(file, fd, entry);
    return { entries: entries.length, bytes: entries.reduce((a, e) => a + e.size, 0) };
  } finally {
    closeSync(fd);
  }
}

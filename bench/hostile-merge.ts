// `npx tsx bench/hostile-merge.ts --shard DIR [--repo DIR] [--only bomb,bound]`: `chatconform report merge` on
// hostile blob reports built from a real shard's report folder (`chatconform run --shard 1/1 --report-dir DIR`):
// - bomb: its report.jsonl grown to 240 MiB of events that deflate about 110 times over (a 2.2 MB blob, under the
//   ratio and total bounds of the old code: issue 51, item 7);
// - bound: its report.jsonl grown to just under the bound of one entry (24 MiB) with copies of its own test events.
// Each blob's digest is written into the shard's conformance.json, as a hostile shard would. Prints the exit code, the
// time and the peak RSS of the merge (its process tree's largest process, through /usr/bin/time). `--repo DIR` runs
// another checkout's CLI (read only): the figures before a change. Figures are printed, never asserted.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { deflateRawSync, inflateRawSync } from 'node:zlib';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1]! : fallback;
}
const SHARD = path.resolve(arg('shard', ''));
const REPO = path.resolve(arg('repo', fileURLToPath(new URL('../', import.meta.url))));
const ONLY = new Set(arg('only', 'bomb,bound').split(','));
const MIB = 1024 * 1024;

/** The entries of a zip (stored or deflated), read whole: the blob of a real shard is a few MB. */
function unzip(zip: Buffer): Map<string, Buffer> {
  let end = zip.length - 22;
  while (end >= 0 && zip.readUInt32LE(end) !== 0x06054b50) end--;
  const count = zip.readUInt16LE(end + 10);
  let p = zip.readUInt32LE(end + 16);
  const out = new Map<string, Buffer>();
  for (let i = 0; i < count; i++) {
    const method = zip.readUInt16LE(p + 10);
    const size = zip.readUInt32LE(p + 20);
    const nameLength = zip.readUInt16LE(p + 28);
    const name = zip.subarray(p + 46, p + 46 + nameLength).toString('utf8');
    const local = zip.readUInt32LE(p + 42);
    const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    const data = zip.subarray(start, start + size);
    out.set(name, method === 8 ? inflateRawSync(data) : Buffer.from(data));
    p += 46 + nameLength + zip.readUInt16LE(p + 30) + zip.readUInt16LE(p + 32);
  }
  return out;
}

/** A zip of the entries, deflated (local headers, central directory, end record; no ZIP64: entries under 4 GiB). */
function zip(entries: Map<string, Buffer>): Buffer {
  const parts: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const [n, data] of entries) {
    const body = deflateRawSync(data);
    const name = Buffer.from(n);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(body.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(name.length, 26);
    const cd = Buffer.alloc(46);
    cd.writeUInt32LE(0x02014b50, 0);
    cd.writeUInt16LE(20, 4);
    cd.writeUInt16LE(20, 6);
    cd.writeUInt16LE(8, 10);
    cd.writeUInt32LE(body.length, 20);
    cd.writeUInt32LE(data.length, 24);
    cd.writeUInt16LE(name.length, 28);
    cd.writeUInt32LE(offset, 42);
    parts.push(local, name, body);
    central.push(cd, name);
    offset += 30 + name.length + body.length;
  }
  const cdSize = central.reduce((a, b) => a + b.length, 0);
  const eocd = Buffer.alloc(22);
  eocd.writeUInt32LE(0x06054b50, 0);
  eocd.writeUInt16LE(entries.size, 8);
  eocd.writeUInt16LE(entries.size, 10);
  eocd.writeUInt32LE(cdSize, 12);
  eocd.writeUInt32LE(offset, 16);
  return Buffer.concat([...parts, ...central, eocd]);
}

/** The shard's report.jsonl grown to `bytes` with lines made by `more` (after the real events, before onEnd). */
function grown(jsonl: Buffer, bytes: number, more: (i: number) => string): Buffer {
  const lines = jsonl.toString('utf8').split('\n').filter(Boolean);
  const endAt = lines.findIndex((l) => l.startsWith('{"method":"onEnd"'));
  const head = lines.slice(0, endAt < 0 ? lines.length : endAt);
  const tail = endAt < 0 ? [] : lines.slice(endAt);
  const extra: string[] = [];
  let size = jsonl.length;
  for (let i = 0; size < bytes; i++) {
    const line = more(i);
    extra.push(line);
    size += line.length + 1;
  }
  return Buffer.from(`${[...head, ...extra, ...tail].join('\n')}\n`);
}

function run(name: string, entries: Map<string, Buffer>): void {
  const work = mkdtempSync(path.join(os.tmpdir(), `chatconform-hostile-merge-${name}-`));
  try {
    const dir = path.join(work, 'shard');
    mkdirSync(path.join(dir, 'blob-report'), { recursive: true });
    const blob = zip(entries);
    const file = readdirSync(path.join(SHARD, 'blob-report')).find((f) => f.endsWith('.zip'))!;
    writeFileSync(path.join(dir, 'blob-report', file), blob);
    const report = JSON.parse(readFileSync(path.join(SHARD, 'conformance.json'), 'utf8')) as { run: { shard: { blob: { sha256: string } } } };
    report.run.shard.blob.sha256 = createHash('sha256').update(blob).digest('hex');
    writeFileSync(path.join(dir, 'conformance.json'), JSON.stringify(report));
    const inflated = [...entries.values()].reduce((a, b) => a + b.length, 0);
    const started = performance.now();
    const r = spawnSync('/usr/bin/time', ['-f', 'peak-rss-kb %M', process.execPath, '--import', 'tsx', path.join(REPO, 'cli/main.ts'), 'report', 'merge', dir, '--report-dir', path.join(work, 'out')], {
      cwd: REPO,
      encoding: 'utf8',
      timeout: 300_000,
      maxBuffer: 64 * MIB,
    });
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    const rss = /peak-rss-kb (\d+)/.exec(r.stderr ?? '')?.[1];
    const said = (r.stderr ?? '').split('\n').find((l) => l.startsWith('error:')) ?? '';
    console.log(`${name}: blob ${(blob.length / MIB).toFixed(1)} MiB inflating to ${(inflated / MIB).toFixed(0)} MiB (ratio ${Math.round(inflated / blob.length)}): exit ${r.status ?? r.signal}, ${seconds} s, peak RSS ${rss ? Math.round(Number(rss) / 1024) : '?'} MB ${said.slice(0, 200)}`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

const zipName = readdirSync(path.join(SHARD, 'blob-report')).find((f) => f.endsWith('.zip'));
if (!zipName) throw new Error(`--shard ${SHARD}: no blob report in blob-report/ (run chatconform run --shard 1/1 --report-dir DIR first)`);
const entries = unzip(readFileSync(path.join(SHARD, 'blob-report', zipName)));
const jsonlName = [...entries.keys()].find((n) => n.endsWith('.jsonl'))!;
const jsonl = entries.get(jsonlName)!;
if (ONLY.has('bomb')) {
  let seed = 51;
  const noise = (): string => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) % 1e6).toString(36);
  run('bomb', new Map([...entries, [jsonlName, grown(jsonl, 240 * MIB, () => JSON.stringify({ method: 'onStdOut', params: { text: `${'x'.repeat(380)}${noise()}` } }))]]));
}
if (ONLY.has('bound')) {
  const events = jsonl.toString('utf8').split('\n').filter((l) => l.startsWith('{"method":"onTest') || l.startsWith('{"method":"onStep'));
  run('bound', new Map([...entries, [jsonlName, grown(jsonl, 23.5 * MIB, (i) => events[i % events.length]!)]]));
}

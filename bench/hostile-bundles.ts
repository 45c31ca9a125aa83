// `npx tsx bench/hostile-bundles.ts [--scale 1] [--hang-s 120] [--only a,b]`: `chatconform verify` on hostile
// bundles, run on demand. It builds, in a temporary folder, the inputs that once cost verify gigabytes (a .tar.gz
// of 20,000 files of 100 KB of zeros, 2 GB unpacked; a .tar.gz whose conformance.json is 1.5 GB of zeros; a bundle
// folder whose conformance.json is a link to /dev/zero) and one at verify's bounds (the three large report files
// at 64 MB each); then runs `chatconform verify` on each (a child process through tsx, TMPDIR a folder of its own)
// and prints its exit code, time, peak RSS (VmHWM), how far the free space of the temporary folder's disk dropped,
// and what verify said first. A verify still running after --hang-s is killed and reported as a hang. --scale
// shrinks (or grows) every input. Figures are printed, never asserted.
import { spawn } from 'node:child_process';
import { createWriteStream, mkdirSync, mkdtempSync, readFileSync, rmSync, statfsSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createGzip } from 'node:zlib';
import { Header } from 'tar';

const repoRoot = fileURLToPath(new URL('../', import.meta.url));

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1]! : fallback;
}
const SCALE = Number(arg('scale', '1'));
const HANG_S = Number(arg('hang-s', '120'));
const ONLY = process.argv.includes('--only') ? new Set(arg('only', '').split(',')) : undefined;

const ZEROS = Buffer.alloc(1 << 20);

/** Writes a .tar.gz of `files` (name, size: that many zero bytes) under one folder, without any on disk. */
async function zeroArchive(file: string, folder: string, files: Iterable<[string, number]>): Promise<void> {
  const gz = createGzip({ level: 1 });
  const out = createWriteStream(file);
  gz.pipe(out);
  const write = async (chunk: Buffer): Promise<void> => {
    if (!gz.write(chunk)) await new Promise((r) => gz.once('drain', r));
  };
  const header = (p: string, size: number, type: 'File' | 'Directory') => {
    const h = new Header({ path: p, size, type, mode: type === 'File' ? 0o644 : 0o755, mtime: new Date(0) });
    const block = Buffer.alloc(512);
    h.encode(block, 0);
    return block;
  };
  await write(header(`${folder}/`, 0, 'Directory'));
  for (const [name, size] of files) {
    await write(header(`${folder}/${name}`, size, 'File'));
    for (let left = size; left > 0; left -= ZEROS.length) await write(ZEROS.subarray(0, Math.min(left, ZEROS.length)));
    if (size % 512) await write(Buffer.alloc(512 - (size % 512)));
  }
  await write(Buffer.alloc(1024));
  gz.end();
  await new Promise<void>((r) => out.once('close', () => r()));
}

interface Input {
  name: string;
  what: string;
  make(dir: string): Promise<string>;
}

const INPUTS: Input[] = [
  {
    name: 'many-files',
    what: `.tar.gz of ${Math.round(20_000 * SCALE)} files of 100 KB of zeros`,
    make: async (dir) => {
      const file = path.join(dir, 'many-files.tar.gz');
      const n = Math.round(20_000 * SCALE);
      await zeroArchive(file, 'chatconform-bundle', (function* () {
        for (let i = 0; i < n; i++) yield [`f${i}.json`, 100_000] as [string, number];
      })());
      return file;
    },
  },
  {
    name: 'zeros-report',
    what: `.tar.gz whose conformance.json is ${(1.5 * SCALE).toFixed(2)} GB of zeros`,
    make: async (dir) => {
      const file = path.join(dir, 'zeros-report.tar.gz');
      await zeroArchive(file, 'chatconform-bundle', [['conformance.json', Math.round(1_500_000_000 * SCALE)]]);
      return file;
    },
  },
  {
    name: 'at-bounds',
    what: 'a .tar.gz whose three large report files are 64 MB of zeros each (the most verify reads)',
    make: async (dir) => {
      const file = path.join(dir, 'at-bounds.tar.gz');
      const size = Math.round(64 * 1024 * 1024 * SCALE);
      await zeroArchive(file, 'chatconform-bundle', ['conformance.json', 'junit.xml', 'conformance.html'].map((n) => [n, size] as [string, number]));
      return file;
    },
  },
  {
    name: 'dev-zero-link',
    what: 'folder whose conformance.json is a link to /dev/zero',
    make: async (dir) => {
      const bundle = path.join(dir, 'dev-zero-link');
      mkdirSync(bundle);
      symlinkSync('/dev/zero', path.join(bundle, 'conformance.json'));
      writeFileSync(path.join(bundle, 'SHA256SUMS'), `${'0'.repeat(64)}  conformance.json\n`);
      return bundle;
    },
  },
];

const freeBytes = (dir: string): number => {
  const s = statfsSync(dir);
  return s.bavail * s.bsize;
};
const hwmMb = (pid: number): number => {
  const m = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
};

/** Runs `chatconform verify target` in a child; its exit, time, peak RSS, the temp disk's drop, its first line. */
async function verify(target: string, scratch: string): Promise<string> {
  const started = performance.now();
  const child = spawn(process.execPath, ['--import', 'tsx', 'cli/main.ts', 'verify', target], {
    cwd: repoRoot,
    env: { ...process.env, TMPDIR: scratch },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out = (out + d.toString()).slice(0, 4096)));
  child.stderr!.on('data', (d: Buffer) => (out = (out + d.toString()).slice(0, 4096)));
  const free0 = freeBytes(scratch);
  let peak = 0;
  let drop = 0;
  const sampler = setInterval(() => {
    try {
      const mb = hwmMb(child.pid!);
      if (Number.isFinite(mb)) peak = Math.max(peak, mb);
    } catch {
      // exited
    }
    drop = Math.max(drop, free0 - freeBytes(scratch));
  }, 50);
  let hung = false;
  const killer = setTimeout(() => {
    hung = true;
    child.kill('SIGKILL');
  }, HANG_S * 1000);
  const code = await new Promise<number | null>((r) => child.once('exit', (c) => r(c)));
  clearInterval(sampler);
  clearTimeout(killer);
  const seconds = (performance.now() - started) / 1000;
  const said = out.split('\n').filter((l) => l.trim()).slice(0, 2).map((l) => `    ${l.slice(0, 200)}`);
  return `${hung ? `HUNG, killed after ${HANG_S} s` : `exit ${code}`} in ${seconds.toFixed(1)} s; peak RSS ${peak.toFixed(0)} MB; temp disk ${(Math.max(0, drop) / 1e6).toFixed(0)} MB\n${said.join('\n')}`;
}

const work = mkdtempSync(path.join(tmpdir(), 'chatconform-hostile-bundles-'));
try {
  console.log(`chatconform verify on hostile bundles (scale ${SCALE}; a verify still running after ${HANG_S} s is killed)`);
  for (const input of INPUTS) {
    if (ONLY && !ONLY.has(input.name)) continue;
    const made = await input.make(work);
    const size = statSync(made).isFile() ? `${(statSync(made).size / 1e6).toFixed(1)} MB` : 'a folder';
    const scratch = mkdtempSync(path.join(work, 'tmp-'));
    console.log(`${input.name}: ${input.what} (${size})\n  ${await verify(made, scratch)}`);
    rmSync(scratch, { recursive: true, force: true });
    rmSync(made, { recursive: true, force: true });
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}

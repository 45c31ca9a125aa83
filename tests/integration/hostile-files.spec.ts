// Issue 51, items 5, 6 and 12 (brief points 4 and 10): the files the kit is given go through one reader (a regular
// file, a size bound, a time bound), and a value it refuses is never echoed. A chatconform.config.yaml found by
// discovery that links to /dev/zero, or is a FIFO, or is 50 MB, ends `chatconform run` in one line (exit 3) in
// seconds, before any request; a key pasted into `seed` (the config file, the variable, the flag) is refused without
// being shown. A blob report that is a FIFO or a device is refused by the merge's zip check without blocking.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { repoRoot } from '../../run/config.ts';
import { checkZip } from '../../report/blob-zip.ts';
import { chatconformCommand, runProcess } from './support/cli-process.ts';

/** A key-shaped value that must never be echoed. */
const KEY = 'sk-pasted-3f9a1c7e5b2d4068aa11';
/** The longest a refusal may take: the old code hung on the FIFO and read /dev/zero for minutes. */
const BOUND_MS = 60_000;

let root: string;
test.beforeAll(() => {
  root = mkdtempSync(path.join(os.tmpdir(), 'chatconform-hostile-files-'));
});
test.afterAll(() => rmSync(root, { recursive: true, force: true }));

function folder(name: string): string {
  const dir = path.join(root, name);
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** `chatconform run` as a child process in `cwd`, bounded (killed with its process group past BOUND_MS). */
async function run(cwd: string, argv: string[] = [], env: NodeJS.ProcessEnv = {}) {
  const base: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('CONFORMANCE_')) base[k] = v;
  return runProcess(...chatconformCommand(['run', ...argv]), { cwd, env: { ...base, ...env }, boundMs: BOUND_MS });
}

/** The refusal: exit 3, one line on stderr naming the file, nothing run. */
function expectRefused(r: Awaited<ReturnType<typeof run>>, file: string, reason: RegExp): void {
  expect(r.killed, 'the run hung on the file').toBe(false);
  expect(r.code, r.stderr).toBe(3);
  const lines = r.stderr.trim().split('\n');
  expect(lines, r.stderr).toHaveLength(1);
  expect(lines[0]).toContain(`config file ${file}`);
  expect(lines[0]).toMatch(reason);
}

test.describe.configure({ mode: 'parallel' });

test('a discovered chatconform.config.yaml that links to /dev/zero is refused in one line, exit 3', async () => {
  const dir = folder('zero');
  const file = path.join(dir, 'chatconform.config.yaml');
  symlinkSync('/dev/zero', file);
  expectRefused(await run(dir), file, /a character device \(such as \/dev\/zero\), not a regular file: refused$/);
});

test('a discovered chatconform.config.yaml that is a FIFO no one writes is refused in one line, exit 3', async () => {
  const dir = folder('fifo');
  const file = path.join(dir, 'chatconform.config.yaml');
  execFileSync('mkfifo', [file]);
  expectRefused(await run(dir), file, /a FIFO \(named pipe\), not a regular file: refused$/);
});

test('a 50 MB config file is refused by its size before it is parsed, exit 3', async () => {
  const dir = folder('large');
  const file = path.join(dir, 'chatconform.config.yaml');
  writeFileSync(file, `seed: 1\n${'# padding\n'.repeat(5 * 1024 * 1024)}`);
  expectRefused(await run(dir), file, /larger than 1 MiB, the most the kit reads of it: refused$/);
});

test('a key pasted into seed is refused without being echoed: from the config file, the variable and the flag', async () => {
  const dir = folder('echo');
  writeFileSync(path.join(dir, 'chatconform.config.yaml'), `seed: ${KEY}\n`);
  const fromFile = await run(dir);
  expect(fromFile.code, fromFile.stderr).toBe(3);
  expect(fromFile.stderr).toMatch(/\/seed: must be an integer/);
  const elsewhere = folder('echo-elsewhere');
  const fromVariable = await run(elsewhere, [], { CONFORMANCE_SEED: KEY });
  expect(fromVariable.code, fromVariable.stderr).toBe(2);
  expect(fromVariable.stderr).toMatch(/CONFORMANCE_SEED: expected an integer of at least 0 \(got a value of \d+ characters, not shown\)/);
  const fromFlag = await run(elsewhere, ['--seed', KEY]);
  expect(fromFlag.code, fromFlag.stderr).toBe(2);
  // A config file that is not YAML at all: where it breaks, never what it holds.
  const broken = folder('echo-broken');
  writeFileSync(path.join(broken, 'chatconform.config.yaml'), `seed: [${KEY}\n`);
  const fromBroken = await run(broken);
  expect(fromBroken.code, fromBroken.stderr).toBe(3);
  for (const r of [fromFile, fromVariable, fromFlag, fromBroken]) {
    expect(r.stderr).not.toContain(KEY.slice(0, 12));
    expect(r.stdout).not.toContain(KEY.slice(0, 12));
  }
});

test('a blob that is a FIFO or a device is refused without blocking or reading it', async () => {
  const fifo = path.join(folder('blob'), 'fifo.zip');
  execFileSync('mkfifo', [fifo]);
  await expect(checkZip(fifo)).rejects.toThrow(/^cannot read it: a FIFO \(named pipe\), not a regular file: refused$/);
  const zero = path.join(folder('blob'), 'zero.zip');
  symlinkSync('/dev/zero', zero);
  await expect(checkZip(zero)).rejects.toThrow(/^cannot read it: a character device/);
});

// The shipped Containerfile, built and run for real (slow tier): Debian's podman with runc (crun fails on the
// rlimits here, so containers.conf sets none). No image registry is reachable, so the base is made here from a Debian
// root file system (debootstrap, Node 20 from Debian, npm 10 as the official image has it, this machine's CA
// certificates) and handed to the Containerfile as NODE_IMAGE in place of the official node image it names. The test
// checks that the image holds exactly the runtime versions of package-lock.json, starts the image's mock, runs the
// image's suite against it as the image's user and as an arbitrary uid given by --user (README's command), reads the
// reports from the volume, and sees a folder the user cannot write refused in one line. It prints what the build and
// the runs took (figures, never asserted).
import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { repoRoot } from '../../run/config.ts';
import type { Lockfile } from '../../scripts/shrinkwrap.ts';
import { closedPort } from '../support/listen.ts';
import { runProcess } from './support/cli-process.ts';

const BASE = 'localhost/chatconform-test-base:trixie-npm10';
// A tag of this process's own: another run building at the same time on this machine tags its own image.
const IMAGE = `localhost/chatconform:test-${process.pid}`;
/** Debian's release with Node 20 (bookworm has 18). */
const SUITE = 'trixie';
const MIRROR = 'http://deb.debian.org/debian';
/** The base's PATH: /usr/local/bin first, as in the official node image. */
const PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

const has = (command: string) => spawnSync('sh', ['-c', `command -v ${command}`]).status === 0;
const missing = ['podman', 'runc', 'debootstrap'].filter((c) => !has(c));
const root = process.getuid?.() === 0;

const dir = mkdtempSync(path.join(os.tmpdir(), 'chatconform-container-'));
const conf = path.join(dir, 'containers.conf');
// runc, and no default rlimits (crun, and runc with them, fail to set rlimits in this sandbox).
writeFileSync(conf, '[containers]\ndefault_ulimits = []\n\n[engine]\nruntime = "runc"\n');
const env = { ...process.env, CONTAINERS_CONF: conf };
const mockName = `chatconform-mock-${process.pid}`;

test.afterAll(async () => {
  if (missing.length === 0 && root) {
    await runProcess('podman', ['rm', '--force', '--ignore', mockName], { env, boundMs: 60_000 });
    await runProcess('podman', ['rmi', '--force', '--ignore', IMAGE], { env, boundMs: 60_000 });
  }
  rmSync(dir, { recursive: true, force: true });
});

async function podman(args: string[], boundMs = 900_000) {
  const r = await runProcess('podman', args, { env, boundMs, keepChars: 20_000 });
  expect(r.code, `podman ${args.join(' ')}\n${r.output}`).toBe(0);
  return r;
}

/**
 * The base image, made once per machine: a Debian root file system with nodejs (debootstrap), npm (apt in the new
 * root: debootstrap's own resolver trips on npm's dependencies; then npm 10, the official node:20 image's: Debian's
 * npm 9.2 cannot read an `npm:` alias in the lockfile, and refuses `npm ci`) and this machine's CA certificates (the
 * build's npm reaches the registry as this machine does, through whatever TLS-inspecting proxy it trusts), imported
 * into podman.
 */
async function baseImage(): Promise<void> {
  if (spawnSync('podman', ['image', 'exists', BASE], { env }).status === 0) return;
  const rootfs = path.join(dir, 'rootfs');
  const step = async (command: string, args: string[]) => {
    const r = await runProcess(command, args, { env: { ...env, DEBIAN_FRONTEND: 'noninteractive' }, boundMs: 900_000, keepChars: 20_000 });
    expect(r.code, `${command} ${args.join(' ')}\n${r.output}`).toBe(0);
  };
  await step('debootstrap', ['--variant=minbase', '--include=nodejs,ca-certificates', SUITE, rootfs, MIRROR]);
  await step('chroot', [rootfs, 'apt-get', 'install', '-y', '-qq', '--no-install-recommends', 'npm']);
  await step('chroot', [rootfs, 'apt-get', 'clean']);
  copyFileSync('/etc/ssl/certs/ca-certificates.crt', path.join(rootfs, 'etc/ssl/certs/ca-certificates.crt'));
  // Under /usr/local, first on the PATH, as the official image has it (Debian's own npm owns /usr/bin/npm).
  await step('chroot', [rootfs, 'env', 'NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt', 'npm', 'install', '--global', '--prefix', '/usr/local', '--no-audit', '--no-fund', 'npm@10']);
  await step('chroot', [rootfs, 'env', `PATH=${PATH}`, 'sh', '-c', 'npm --version | grep -q "^10\\."']);
  await step('sh', ['-c', `tar -C '${rootfs}' -c . | podman import --change 'CMD ["node"]' --change 'ENV PATH=${PATH}' --change 'ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt' - ${BASE}`]);
  rmSync(rootfs, { recursive: true, force: true });
}

/** Run in the image: the version of every package under the installed kit, by its path as a lockfile names it. */
const VERSIONS_SCRIPT = `const fs = require('fs'), p = require('path'); const out = {};
function walk(dir, prefix) {
  const m = p.join(dir, 'node_modules'); if (!fs.existsSync(m)) return;
  for (const e of fs.readdirSync(m)) {
    if (e.startsWith('.')) continue;
    for (const n of e.startsWith('@') ? fs.readdirSync(p.join(m, e)).map((x) => e + '/' + x) : [e]) {
      const f = p.join(m, n, 'package.json'); if (!fs.existsSync(f)) continue;
      const w = prefix + 'node_modules/' + n; out[w] = JSON.parse(fs.readFileSync(f, 'utf8')).version; walk(p.join(m, n), w + '/');
    }
  }
}
let kit = p.dirname(fs.realpathSync('/usr/local/bin/chatconform'));
while (!fs.existsSync(p.join(kit, 'package.json'))) kit = p.dirname(kit);
walk(kit, ''); console.log(JSON.stringify(out));`;

test('the image builds from the Containerfile, serves its mock, runs its suite against it as a non-root user, and leaves the report in /reports', async () => {
  test.skip(missing.length > 0, `needs ${missing.join(', ')} (Debian: apt-get install podman runc debootstrap; .ci/run installs them)`);
  test.skip(!root, 'podman runs here as root (rootless podman needs subuids this machine does not set up)');
  test.setTimeout(40 * 60_000);

  let t = Date.now();
  await baseImage();
  const baseS = (Date.now() - t) / 1000;
  t = Date.now();
  // --network host: the build's npm reaches the registry the way this machine does.
  await podman(['build', '--network', 'host', '--build-arg', `NODE_IMAGE=${BASE}`, '-t', IMAGE, '-f', 'Containerfile', repoRoot]);
  const buildS = (Date.now() - t) / 1000;
  const user = (await podman(['image', 'inspect', '--format', '{{.Config.User}}', IMAGE])).stdout.trim();
  expect(user).toBe('chatconform');

  // Exactly the lockfile's runtime versions: nothing was resolved at build time.
  const lock = JSON.parse(readFileSync(path.join(repoRoot, 'package-lock.json'), 'utf8')) as Lockfile;
  const inImage = JSON.parse((await podman(['run', '--rm', '--entrypoint', 'node', IMAGE, '-e', VERSIONS_SCRIPT])).stdout.trim()) as Record<string, string>;
  const runtime = Object.entries(lock.packages).filter(([where, e]) => where !== '' && !e.dev && !e.devOptional);
  expect(Object.keys(inImage).sort(), 'the packages under the kit in the image').toEqual(runtime.map(([w]) => w).sort());
  expect(Object.entries(inImage).filter(([w, v]) => lock.packages[w]?.version !== v).map(([w, v]) => `${w}@${v} (lockfile: ${lock.packages[w]?.version})`), 'versions the lockfile does not pin').toEqual([]);

  // The mock, published as the README says (-p), on a free port of this machine.
  const port = await closedPort();
  await podman(['run', '--detach', '--rm', '--name', mockName, '-p', `127.0.0.1:${port}:8787`, IMAGE, 'mock', '--host', '0.0.0.0', '--port', '8787']);
  const url = `http://127.0.0.1:${port}`;
  let up = false;
  for (let i = 0; i < 60 && !up; i++) {
    up = await fetch(`${url}/v1/models`).then((r) => r.ok, () => false);
    if (!up) await new Promise((r) => setTimeout(r, 500));
  }
  expect(up, (await runProcess('podman', ['logs', mockName], { env })).output).toBe(true);

  // The suite from the image against that mock, the reports in a folder of this machine mounted at /reports.
  const suite = (reports: string, podmanArgs: string[] = []) =>
    runProcess('podman', ['run', '--rm', '--network', 'host', ...podmanArgs, '-v', `${reports}:/reports`, IMAGE, 'run', '--base-url', url, '--profile', 'mock', '--section', '4.1'], { env, boundMs: 900_000, keepChars: 40_000 });
  const expectReports = (reports: string, output: string) => {
    const file = path.join(reports, 'conformance.json');
    expect(existsSync(file), output).toBe(true);
    const report = JSON.parse(readFileSync(file, 'utf8'));
    expect(report.target.url).toBe(url);
    expect(report.verdict.exitCode).toBe(0);
    expect(report.run.tests.judged).toBeGreaterThan(0);
    for (const f of ['junit.xml', 'conformance.html', 'badge.svg']) expect(existsSync(path.join(reports, f)), f).toBe(true);
  };

  // As the image's own user, in a folder anyone may write.
  const open = path.join(dir, 'reports-open');
  mkdirSync(open);
  chmodSync(open, 0o777);
  t = Date.now();
  const run = await suite(open);
  const runS = (Date.now() - t) / 1000;
  expect(run.code, run.output).toBe(0);
  // The working directory is /reports: the summary names it as ./
  expect(run.output).toMatch(/reports in (\.|\/reports)\/: conformance.json/);
  // Paths as the user gave them or as the package names its files, never the install's place in the image:
  // Playwright's line and list reporters print each test's file relative to the working directory
  // (../opt/chatconform/node_modules/chatconform/dist/suites/...); the kit's own progress line names no file.
  // Soft: the runs below still run.
  const installPaths = run.output.split('\n').filter((l) => /node_modules\/chatconform|\/opt\/chatconform|\.\.\//.test(l));
  expect.soft(installPaths.slice(0, 5), "lines naming the install's place in the image").toEqual([]);
  expectReports(open, run.output);

  // README's command: --user "$(id -u):$(id -g)", a uid the image does not know (no passwd entry, no home), in a
  // folder only that uid may write. The reports are that user's.
  const uid = 4242;
  const own = path.join(dir, 'reports-own');
  mkdirSync(own, { mode: 0o700 });
  chownSync(own, uid, uid);
  const asUser = await suite(own, ['--user', `${uid}:${uid}`]);
  expect(asUser.code, asUser.output).toBe(0);
  expectReports(own, asUser.output);
  expect(statSync(path.join(own, 'conformance.json')).uid).toBe(uid);

  // Without --user, a folder the image's user cannot write: one line saying so and what to do, exit 3, before any test.
  const closed = path.join(dir, 'reports-closed');
  mkdirSync(closed, { mode: 0o755 });
  const refused = await suite(closed);
  expect(refused.code, refused.output).toBe(3);
  expect(refused.stderr.trim(), refused.output).toMatch(/^error: the report folder \/reports cannot be written \(EACCES[^)]*\): .*--user "\$\(id -u\):\$\(id -g\)"/);
  expect(readdirSync(closed)).toEqual([]);
  console.log(`[container] base image ${baseS.toFixed(0)} s (0 when cached), image build ${buildS.toFixed(0)} s, suite run (section 4.1) ${runS.toFixed(0)} s`);
});

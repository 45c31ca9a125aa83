// An empty project that depends on the packed kit, with the lockfile npm writes when it installs the kit from the
// registry: the kit's entry marked `hasShrinkwrap`, so `npm ci` places the kit's dependencies from the tarball's
// npm-shrinkwrap.json (scripts/shrinkwrap.ts), under node_modules/chatconform/node_modules. npm honours a
// shrinkwrap only for a registry package (the registry flags it); installed from a tarball, the kit's ranges would
// resolve afresh. So the tests' installed kit (tests/integration/support/installed-kit.ts) and the container image
// (Containerfile) hold exactly the versions of package-lock.json, as a user's `npm install chatconform` does.
//   tsx scripts/consumer-project.ts DIR TARBALL   (then `npm ci --omit=dev` in DIR)
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as tar from 'tar';
import type { Lockfile } from './shrinkwrap.ts';

interface Manifest {
  name: string;
  version: string;
  license?: string;
  dependencies?: Record<string, string>;
  bin?: Record<string, string>;
  engines?: Record<string, string>;
}

/** package.json and npm-shrinkwrap.json of a packed tarball (under `package/`). */
export function readTarball(tarball: string): { manifest: Manifest; shrinkwrap?: Lockfile } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'chatconform-tarball-'));
  try {
    tar.x({ file: tarball, cwd: dir, sync: true, filter: (p) => p === 'package/package.json' || p === 'package/npm-shrinkwrap.json' });
    const read = (f: string) => {
      try {
        return JSON.parse(readFileSync(path.join(dir, 'package', f), 'utf8')) as unknown;
      } catch {
        return undefined;
      }
    };
    const manifest = read('package.json') as Manifest | undefined;
    if (!manifest) throw new Error(`${tarball}: no package/package.json (not a packed npm package)`);
    const shrinkwrap = read('npm-shrinkwrap.json') as Lockfile | undefined;
    return { manifest, ...(shrinkwrap ? { shrinkwrap } : {}) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Writes DIR/package.json and DIR/package-lock.json: a project named `name` depending on the tarball alone. Returns
 * the kit's manifest. A tarball without npm-shrinkwrap.json is refused: its install would not be pinned.
 */
export function writeConsumerProject(dir: string, tarball: string, name = 'consumer'): Manifest {
  const { manifest, shrinkwrap } = readTarball(tarball);
  if (!shrinkwrap) throw new Error(`${tarball}: no npm-shrinkwrap.json in the package (npm pack writes it: prepack)`);
  mkdirSync(dir, { recursive: true });
  const spec = `file:${path.relative(dir, path.resolve(tarball)).split(path.sep).join('/')}`;
  const integrity = `sha512-${createHash('sha512').update(readFileSync(tarball)).digest('base64')}`;
  const project = { name, version: '1.0.0', private: true, type: 'module', dependencies: { [manifest.name]: spec } };
  const kit = {
    version: manifest.version,
    resolved: spec,
    integrity,
    hasShrinkwrap: true,
    ...(manifest.license ? { license: manifest.license } : {}),
    ...(manifest.dependencies ? { dependencies: manifest.dependencies } : {}),
    ...(manifest.bin ? { bin: manifest.bin } : {}),
    ...(manifest.engines ? { engines: manifest.engines } : {}),
  };
  const lock: Lockfile = {
    name,
    version: '1.0.0',
    lockfileVersion: 3,
    requires: true,
    packages: { '': { name, version: '1.0.0', dependencies: project.dependencies }, [`node_modules/${manifest.name}`]: kit },
  };
  writeFileSync(path.join(dir, 'package.json'), `${JSON.stringify(project, null, 2)}\n`);
  writeFileSync(path.join(dir, 'package-lock.json'), `${JSON.stringify(lock, null, 2)}\n`);
  return manifest;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [dir, tarball] = process.argv.slice(2);
  if (!dir || !tarball) {
    console.error('usage: tsx scripts/consumer-project.ts DIR TARBALL');
    process.exitCode = 2;
  } else {
    const kit = writeConsumerProject(dir, tarball);
    console.log(`${dir}: a project depending on ${kit.name} ${kit.version} (${tarball}), pinned by its npm-shrinkwrap.json`);
  }
}

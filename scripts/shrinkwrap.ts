// The package's npm-shrinkwrap.json: the lockfile's runtime packages, shipped in the tarball so that an install gets
// the versions CI tested, not whatever the ranges of package.json resolve to on the day (npm honours a published
// package's shrinkwrap; package-lock.json is never published). `npm pack` writes it (prepack) and removes it
// (postpack): left in the clone, npm would read it instead of package-lock.json.
//   tsx scripts/shrinkwrap.ts write | remove
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const SHRINKWRAP = path.join(ROOT, 'npm-shrinkwrap.json');

/** The parts of a lockfile (v2/v3) this reads and writes. */
export interface Lockfile {
  name: string;
  version: string;
  lockfileVersion: number;
  requires?: boolean;
  packages: Record<string, LockEntry>;
}

export interface LockEntry {
  version?: string;
  resolved?: string;
  integrity?: string;
  dev?: boolean;
  devOptional?: boolean;
  optional?: boolean;
  devDependencies?: Record<string, string>;
  [field: string]: unknown;
}

/**
 * The lockfile without what only the project's own work needs: the dev-only packages (`dev`), and those a runtime
 * package names only as an optional peer (`devOptional`: npm installs neither for a user). npm installs every entry
 * of a dependency's shrinkwrap, flags or not, so they must not be in it.
 */
export function productionShrinkwrap(lock: Lockfile): Lockfile {
  const packages: Record<string, LockEntry> = {};
  for (const [where, entry] of Object.entries(lock.packages)) {
    if (where === '') {
      const { devDependencies: _dev, ...root } = entry;
      packages[where] = root;
    } else if (!entry.dev && !entry.devOptional) {
      packages[where] = entry;
    }
  }
  return { ...lock, packages };
}

export function writeShrinkwrap(): number {
  const lock = JSON.parse(readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')) as Lockfile;
  const shrinkwrap = productionShrinkwrap(lock);
  writeFileSync(SHRINKWRAP, `${JSON.stringify(shrinkwrap, null, 2)}\n`);
  return Object.keys(shrinkwrap.packages).length - 1;
}

export function removeShrinkwrap(): void {
  rmSync(SHRINKWRAP, { force: true });
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const what = process.argv[2];
  if (what === 'write') console.log(`npm-shrinkwrap.json: the ${writeShrinkwrap()} runtime packages of package-lock.json`);
  else if (what === 'remove') {
    if (existsSync(SHRINKWRAP)) removeShrinkwrap();
  } else {
    console.error('usage: tsx scripts/shrinkwrap.ts write|remove');
    process.exitCode = 2;
  }
}

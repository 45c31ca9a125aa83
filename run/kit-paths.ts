// Where the kit's own files are, and the defaults that follow from it: the kit's root (the repository, or the
// package's dist/), its package.json, the default report folder, the built-in profiles. A leaf of run/: it imports
// nothing of the kit, so every other module of run/ may use it.
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The root of the kit's tree (spec/, suites/, mock/, fixtures/): the repository when it runs from its TypeScript
 * sources, the package's dist/ when it runs compiled from an install.
 */
export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** True when running from the compiled package (dist/ holds no package.json; the checkout's root does). */
export const compiledKit = !existsSync(path.join(repoRoot, 'package.json'));

/** The kit's package.json: beside the sources in a checkout, one level above dist/ in an install. */
export function kitPackage(): { name: string; version: string } {
  const file = path.join(compiledKit ? path.dirname(repoRoot) : repoRoot, 'package.json');
  try {
    const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
    return { name: pkg.name ?? 'chatconform', version: pkg.version ?? '0.0.0' };
  } catch {
    return { name: 'chatconform', version: '0.0.0' };
  }
}

/**
 * Reports go to `reports/` in the checkout (what `npm run conformance` has always done), and to `./reports` in
 * the caller's working directory when installed: never inside node_modules.
 */
export function defaultReportDir(): string {
  return compiledKit ? path.resolve('reports') : path.join(repoRoot, 'reports');
}

/** Profiles that ship with the kit, by name: `--profile mock` is the reference mock's own. */
export const BUILTIN_PROFILES: Readonly<Record<string, string>> = { mock: path.join(repoRoot, 'fixtures/profiles/mock.json') };

/** The profile file a CONFORMANCE_PROFILE value names: a path, or the name of a built-in profile unless a file has that name. */
export function profilePathOf(value: string): string {
  const file = path.resolve(value);
  const builtin = BUILTIN_PROFILES[value];
  // A folder named like a profile (a project's own mock/) is not a profile file.
  return builtin && !(existsSync(file) && statSync(file).isFile()) ? builtin : file;
}

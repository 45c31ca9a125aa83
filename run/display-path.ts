// A file as a person reads it: relative to the working directory when it is under it, the kit's own files (a
// built-in profile, the suite) by their place in the package, never as node_modules/chatconform/dist/...
import path from 'node:path';
import { kitPackage, repoRoot } from './kit-paths.ts';

/** `kitPrefix: false` names a kit file by its place in the package alone (fixtures/profiles/mock.json), as reports do. */
export function displayPath(file: string, cwd: string = process.cwd(), kitRoot: string = repoRoot, opts: { kitPrefix?: boolean } = {}): string {
  const abs = path.resolve(cwd, file);
  const inKit = path.relative(kitRoot, abs);
  const fromCwd = path.relative(cwd, abs);
  const outside = (rel: string) => rel.startsWith('..') || path.isAbsolute(rel);
  // Installed: the kit's files sit under node_modules; they read better as the package's own.
  if (!outside(inKit) && (outside(fromCwd) || fromCwd.split(path.sep).includes('node_modules'))) {
    const place = inKit.split(path.sep).join('/');
    return opts.kitPrefix === false ? place : `${kitPackage().name}/${place}`;
  }
  return outside(fromCwd) ? abs : fromCwd || '.';
}

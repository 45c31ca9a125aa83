// Where the kit's own files are: the same code runs from the repository's TypeScript sources (tsx) and from
// the compiled package (dist/cli/*.js), so every path is found from this module's location and extension.
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
/** `.ts` from the sources, `.js` compiled. */
export const EXT = path.extname(fileURLToPath(import.meta.url));
/** The kit's tree: the repository, or the package's dist/. */
export const KIT_ROOT = path.resolve(here, '..');

export const CONFORMANCE_CONFIG = path.join(KIT_ROOT, `suites/conformance.config${EXT}`);

/**
 * Playwright's CLI, resolved from the kit itself: the suite's test files import @playwright/test from the kit's
 * dependencies, and the runner must be that same copy (a user's own @playwright/test may be another version).
 */
export function playwrightCli(): string {
  return createRequire(import.meta.url).resolve('@playwright/test/cli');
}

// Writes docs/troubleshooting.md from the setup messages themselves (run/setup-messages.ts), so the page lists each
// one line `chatconform run` prints, with its cause and fix, and cannot drift from them.
//   npm run docs:troubleshooting             regenerate the page
//   npm run docs:troubleshooting -- --check  exit 1 when it is stale
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from '../run/kit-paths.ts';
import { troubleshootingPage } from '../run/setup-messages.ts';

export const TROUBLESHOOTING_MD = path.join(repoRoot, 'docs/troubleshooting.md');

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  const page = troubleshootingPage();
  if (process.argv.includes('--check')) {
    const stale = readFileSync(TROUBLESHOOTING_MD, 'utf8') !== page;
    if (stale) process.stderr.write('docs/troubleshooting.md is stale: run npm run docs:troubleshooting\n');
    process.exitCode = stale ? 1 : 0;
  } else {
    writeFileSync(TROUBLESHOOTING_MD, page);
    process.stdout.write(`wrote ${path.relative(process.cwd(), TROUBLESHOOTING_MD)}\n`);
  }
}

#!/usr/bin/env -S node --max-semi-space-size=8
// The `chatconform` executable (package.json "bin"; `npx chatconform`). The installed package runs its compiled
// dist/cli/main.js; a clone, whose TypeScript sources sit beside this file (tsx among its devDependencies), runs
// cli/main.ts through tsx, as `npm run chatconform` does: `npx chatconform` in a clone needs no build and never runs
// a stale one. The shebang's young-generation cap is cli/main.ts's (it says why). Plain JavaScript: it runs before
// anything can load TypeScript.
import { existsSync } from 'node:fs';

const sources = new URL('./main.ts', import.meta.url);
if (existsSync(sources)) {
  await import('tsx');
  await import(sources.href);
} else {
  await import(new URL('../dist/cli/main.js', import.meta.url).href);
}

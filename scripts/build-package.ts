// `npm run build`: the package's dist/. The kit compiled by tsc (tsconfig.build.json: JavaScript, source maps,
// declarations), then the data files the compiled code reads beside itself, at the same relative paths as in
// the repository (the code finds them from import.meta.url: spec/schemas/, spec/requirements/, fixtures/).
import { execFileSync } from 'node:child_process';
import { chmodSync, cpSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const DIST = path.join(ROOT, 'dist');

/** Folders whose JSON files the compiled kit reads at run time (every one of them, so a new fixture ships). */
export const DATA_DIRS = ['spec/schemas', 'spec/requirements', 'run/test-index', 'fixtures/mock', 'fixtures/profiles'] as const;
/** Folders copied whole: the HTML report's style and script (report/html.ts reads them beside itself), the UI's page and style (ui/static-files.ts). */
export const ASSET_DIRS = ['report/html', 'ui/static'] as const;

function files(dir: string): string[] {
  return (readdirSync(dir, { recursive: true }) as string[]).map((f) => path.join(dir, f));
}

/**
 * Declarations keep the sources' `./x.ts` specifiers (tsc rewrites them only in JavaScript); a consumer's
 * TypeScript resolves `./x.js` to `./x.d.ts` under every module resolution, so the declarations say `.js` too.
 */
function rewriteDeclarationSpecifiers(dist: string): number {
  let changed = 0;
  for (const file of files(dist).filter((f) => f.endsWith('.d.ts'))) {
    const text = readFileSync(file, 'utf8');
    const next = text.replace(/((?:from|import)\s*\(?\s*)(['"])(\.{1,2}\/[^'"]+?)\.ts\2/g, '$1$2$3.js$2');
    if (next !== text) {
      writeFileSync(file, next);
      changed++;
    }
  }
  return changed;
}

/**
 * The source maps carry their TypeScript inline; their `sources` name it where it would sit in dist/, beside the
 * JavaScript (`chat.spec.ts`, not `../../suites/chat.spec.ts`). Playwright reports test locations through the maps,
 * so the installed kit names the suite's files as the repository does (`suites/chat.spec.ts`), never a path outside
 * the package.
 */
function placeMapSources(dist: string): number {
  let changed = 0;
  for (const file of files(dist).filter((f) => f.endsWith('.js.map'))) {
    const map = JSON.parse(readFileSync(file, 'utf8')) as { sources: string[]; sourceRoot?: string };
    map.sources = map.sources.map((s) => path.basename(s));
    delete map.sourceRoot;
    writeFileSync(file, JSON.stringify(map));
    changed++;
  }
  return changed;
}

function gitCommit(): string | undefined {
  try {
    return execFileSync('git', ['-C', ROOT, 'rev-parse', 'HEAD'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim() || undefined;
  } catch {
    return undefined;
  }
}

/** Builds the package into `dist` (default the repository's dist/; a test builds into a folder of its own). */
export function build(dist: string = DIST): void {
  rmSync(dist, { recursive: true, force: true });
  execFileSync(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', path.join(ROOT, 'tsconfig.build.json'), '--outDir', dist], { stdio: 'inherit' });
  let copied = 0;
  for (const dir of DATA_DIRS) {
    for (const file of files(path.join(ROOT, dir)).filter((f) => f.endsWith('.json'))) {
      cpSync(file, path.join(dist, path.relative(ROOT, file)));
      copied++;
    }
  }
  for (const dir of ASSET_DIRS) {
    cpSync(path.join(ROOT, dir), path.join(dist, dir), { recursive: true });
    copied += files(path.join(ROOT, dir)).length;
  }
  const declarations = rewriteDeclarationSpecifiers(dist);
  placeMapSources(dist);
  chmodSync(path.join(dist, 'cli/main.js'), 0o755);
  // The commit the package was built from: a certification bundle records it (report/bundle.ts kitCommit).
  const commit = gitCommit();
  if (commit) writeFileSync(path.join(dist, 'build-info.json'), `${JSON.stringify({ commit }, null, 2)}\n`);
  console.log(`built ${path.relative(ROOT, dist) || dist}/: ${copied} data files copied, ${declarations} declaration files' import specifiers set to .js`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) build();

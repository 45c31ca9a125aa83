// The page's own files, served from the package (no CDN): index.html and app.css as written (ui/static/), and the
// app's modules (ui/app/). The installed kit serves the JavaScript tsc compiled into dist/ui/app/; a checkout, which
// runs from its TypeScript sources, has them transpiled by TypeScript (a devDependency there) when first asked for.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
/** `.ts` in a checkout, `.js` compiled. */
const EXT = path.extname(fileURLToPath(import.meta.url));

export interface AppFile {
  body: string;
  type: string;
}

const TYPES: Record<string, string> = { '.html': 'text/html; charset=utf-8', '.css': 'text/css; charset=utf-8', '.js': 'text/javascript; charset=utf-8' };

/** A module's name: lower-case words joined by hyphens (what ui/app/ holds). */
const MODULE = /^\/app\/([a-z][a-z0-9-]*)\.js$/;

const transpiled = new Map<string, { mtimeMs: number; body: string }>();

async function moduleText(name: string): Promise<string | undefined> {
  if (EXT === '.js') return readOrUndefined(path.join(here, 'app', `${name}.js`));
  const file = path.join(here, 'app', `${name}.ts`);
  let mtimeMs: number;
  try {
    mtimeMs = statSync(file).mtimeMs;
  } catch {
    return undefined;
  }
  const cached = transpiled.get(file);
  if (cached?.mtimeMs === mtimeMs) return cached.body;
  const ts = (await import('typescript')).default;
  const out = ts.transpileModule(readFileSync(file, 'utf8'), {
    fileName: file,
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, rewriteRelativeImportExtensions: true, verbatimModuleSyntax: true },
  });
  transpiled.set(file, { mtimeMs, body: out.outputText });
  return out.outputText;
}

function readOrUndefined(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

/** The app's file at `urlPath` (below the token), or undefined. */
export async function appFile(urlPath: string): Promise<AppFile | undefined> {
  if (urlPath === '/' || urlPath === '/index.html') return withType('.html', readOrUndefined(path.join(here, 'static', 'index.html')));
  if (urlPath === '/app.css') return withType('.css', readOrUndefined(path.join(here, 'static', 'app.css')));
  const m = MODULE.exec(urlPath);
  return m ? withType('.js', await moduleText(m[1]!)) : undefined;
}

function withType(ext: string, body: string | undefined): AppFile | undefined {
  return body === undefined ? undefined : { body, type: TYPES[ext]! };
}

/** Every file the page loads, as served (the bundle whose gzipped size tests/integration/ui-server.spec.ts bounds). */
export async function bundleFiles(): Promise<{ name: string; body: string }[]> {
  const names = readdirSync(path.join(here, 'app')).filter((f) => f.endsWith(EXT) && !f.endsWith('.d.ts')).map((f) => f.slice(0, -EXT.length));
  const out: { name: string; body: string }[] = [];
  for (const p of ['/', '/app.css', ...names.map((n) => `/app/${n}.js`)]) {
    const f = await appFile(p);
    if (f) out.push({ name: p, body: f.body });
  }
  return out;
}

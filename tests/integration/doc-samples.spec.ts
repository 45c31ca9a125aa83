// The code samples of the Markdown files import what exists: a sample that names a moved or deleted file (or a
// package entry the package does not export) teaches the reader something that fails on the first line. Read
// from every tracked Markdown file (not CHANGELOG.md: it records what was, under the names of its day).
//
// What a sample's specifier is checked against:
// - relative (`./x`, `../x`): a file relative to the Markdown file, or to the repository root when the sample says
//   so ("relative to the repository root"); or a file another sample of the same Markdown file declares by a first
//   line `// name.ts` (a user's own file, as `./fixtures` in docs/testing.md);
// - `chatconform` or `chatconform/...`: an entry of package.json's "exports";
// - anything else (`openai`, `msw/node`, `node:fs`): another package, not this kit's to check.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from '@playwright/test';

const root = fileURLToPath(new URL('../..', import.meta.url));

const CODE_LANGS = new Set(['ts', 'typescript', 'tsx', 'js', 'javascript', 'jsx', 'mjs', 'cjs', 'mts', 'cts']);

interface Sample {
  /** Line of the opening fence, 1-based. */
  line: number;
  code: string;
}

/** The ts/js fenced blocks of a Markdown text (``` or ~~~, indented in a list or not). */
export function codeSamples(markdown: string): Sample[] {
  const samples: Sample[] = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,}|~{3,})\s*([\w+-]*)/.exec(lines[i]!);
    if (!open) continue;
    const [, indent, fence, lang] = open;
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length; j++) {
      const close = lines[j]!.trim();
      if (close.startsWith(fence!) && /^(`+|~+)$/.test(close)) break;
      body.push(lines[j]!.startsWith(indent!) ? lines[j]!.slice(indent!.length) : lines[j]!);
    }
    if (CODE_LANGS.has(lang!.toLowerCase())) samples.push({ line: i + 1, code: body.join('\n') });
    i = j;
  }
  return samples;
}

/** The module specifiers a sample imports: static and type imports, re-exports, side-effect imports, import(), require(). */
export function specifiers(code: string): string[] {
  const found: { at: number; spec: string }[] = [];
  const patterns = [
    /^\s*(?:import|export)\b[^'"`;]*?\bfrom\s*(['"])([^'"]+)\1/gm,
    /^\s*import\s*(['"])([^'"]+)\1/gm,
    /\bimport\(\s*(['"])([^'"]+)\1\s*\)/g,
    /\brequire\(\s*(['"])([^'"]+)\1\s*\)/g,
  ];
  for (const re of patterns) for (const m of code.matchAll(re)) found.push({ at: m.index + m[0].indexOf(m[2]!), spec: m[2]! });
  // In the order they are written.
  return found.sort((a, b) => a.at - b.at).map((f) => f.spec);
}

/** Files a sample declares by its first line (`// fixtures.ts`): a reader's own files, named by the other samples. */
function declaredFiles(samples: Sample[]): string[] {
  return samples.flatMap((s) => {
    const m = /^\s*\/\/\s*([\w./-]+\.(?:[cm]?[jt]sx?))\s*$/.exec(s.code.split('\n')[0] ?? '');
    return m ? [path.posix.normalize(m[1]!)] : [];
  });
}

/** The forms a specifier may take on disk: as written, with an extension, an index file, or `.js` naming its `.ts` source. */
function candidates(target: string): string[] {
  const out = [target, `${target}.ts`, `${target}.js`, `${target}.mjs`, path.join(target, 'index.ts'), path.join(target, 'index.js')];
  if (/\.[cm]?js$/.test(target)) out.push(target.replace(/\.([cm]?)js$/, '.$1ts'));
  return out;
}

const isFile = (p: string): boolean => existsSync(p) && statSync(p).isFile();

/** What is wrong with one Markdown file's samples: one line per bad specifier. */
export function badImports(file: string, markdown: string, exportsMap: Record<string, unknown>): string[] {
  const samples = codeSamples(markdown);
  const declared = declaredFiles(samples);
  const problems: string[] = [];
  for (const sample of samples) {
    const fromRoot = /relative to the repository root|relative to the repo root/i.test(sample.code);
    const base = fromRoot ? root : path.dirname(path.join(root, file));
    for (const spec of specifiers(sample.code)) {
      const where = `${file}:${sample.line}: '${spec}'`;
      if (spec.startsWith('./') || spec.startsWith('../')) {
        const onDisk = candidates(path.resolve(base, spec)).some(isFile);
        const aReadersFile = candidates(path.posix.normalize(spec)).some((c) => declared.includes(path.posix.normalize(c)));
        if (!onDisk && !aReadersFile) problems.push(`${where}: no such file (${path.relative(root, path.resolve(base, spec))}${fromRoot ? ', from the repository root' : ''})`);
      } else if (spec === 'chatconform' || spec.startsWith('chatconform/')) {
        const entry = spec === 'chatconform' ? '.' : `./${spec.slice('chatconform/'.length)}`;
        if (!(entry in exportsMap)) problems.push(`${where}: package.json "exports" has no "${entry}" (it has ${Object.keys(exportsMap).join(', ')})`);
      }
    }
  }
  return problems;
}

function trackedMarkdown(): string[] {
  return execFileSync('git', ['ls-files', '-z', '--', '*.md'], { cwd: root, encoding: 'utf8' })
    .split('\0')
    .filter((f) => f !== '' && !f.split('/').includes('node_modules') && path.basename(f) !== 'CHANGELOG.md')
    .filter((f) => existsSync(path.join(root, f)));
}

test('every tracked Markdown file is read, the READMEs and docs/ among them', () => {
  const files = trackedMarkdown();
  for (const f of ['README.md', 'suites/README.md', 'mock/README.md', 'docs/testing.md']) expect(files).toContain(f);
  expect(files).not.toContain('CHANGELOG.md');
});

test('the code samples of every Markdown file import files that exist and package entries that are exported', () => {
  const exportsMap = (JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { exports: Record<string, unknown> }).exports;
  const problems = trackedMarkdown().flatMap((f) => badImports(f, readFileSync(path.join(root, f), 'utf8'), exportsMap));
  expect(problems, 'imports in Markdown code samples that do not resolve').toEqual([]);
});

test('the check itself: it reads fences and specifiers, and tells a missing file or entry from a present one', () => {
  const md = [
    '```ts',
    "import { a } from './exists.ts';",
    "import type { B } from '../nowhere/b.ts';",
    "import {\n  c,\n} from 'chatconform/testing';",
    "import 'chatconform/nope';",
    "const d = await import('./dynamic.js');",
    "// in a clone: './not-an-import.ts'",
    "import OpenAI from 'openai';",
    '```',
    '',
    '- in a list:',
    '',
    '  ```js',
    "  export { e } from 'chatconform';",
    "  import { f } from './fixtures';",
    '  ```',
    '',
    '```ts',
    '// fixtures.ts',
    'export const f = 1;',
    '```',
    '',
    '```sh',
    "import x from './shell-is-not-checked.ts'",
    '```',
  ].join('\n');
  expect(codeSamples(md).map((s) => s.line)).toEqual([1, 15, 20]);
  expect(codeSamples(md).flatMap((s) => specifiers(s.code))).toEqual(['./exists.ts', '../nowhere/b.ts', 'chatconform/testing', 'chatconform/nope', './dynamic.js', 'openai', 'chatconform', './fixtures']);
  // Placed as tests/integration/x.md: ./exists.ts names this very file once renamed; ./dynamic.js its .ts source.
  const here = path.relative(root, fileURLToPath(import.meta.url));
  const placed = md.replace('./exists.ts', `./${path.basename(here)}`).replace('./dynamic.js', `./${path.basename(here).replace(/\.ts$/, '.js')}`);
  const problems = badImports(path.join(path.dirname(here), 'x.md'), placed, { '.': {}, './testing': {} });
  expect(problems).toEqual([
    `${path.join(path.dirname(here), 'x.md')}:1: '../nowhere/b.ts': no such file (tests/nowhere/b.ts)`,
    `${path.join(path.dirname(here), 'x.md')}:1: 'chatconform/nope': package.json "exports" has no "./nope" (it has ., ./testing)`,
  ]);
});

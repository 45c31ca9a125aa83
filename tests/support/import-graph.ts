// The import graph between the repository's top-level folders, read with TypeScript's own scanner (static and
// dynamic imports, `import type`, re-exports), and the rules of README's "Architecture" block.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import ts from 'typescript';

/** One import: the file, what it names, and the folder each side belongs to (`.` for a file at the root). */
export interface ImportEdge {
  file: string;
  specifier: string;
  from: string;
  /** The folder of the imported file, or the package name for a bare specifier. */
  to: string;
  external: boolean;
}

const SOURCE = /\.(?:ts|mts|cts|js|mjs|cjs)$/;

function folderOf(file: string): string {
  const parts = file.split('/');
  return parts.length > 1 ? parts[0]! : '.';
}

function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

/** Every import of every tracked (or new, not ignored) source file under `root`. */
export function importEdges(root: string): ImportEdge[] {
  const files = execFileSync('git', ['ls-files', '-co', '--exclude-standard'], { cwd: root, encoding: 'utf8' })
    .split('\n')
    .filter((f) => SOURCE.test(f) && !f.startsWith('node_modules/') && !f.endsWith('.d.ts'));
  const edges: ImportEdge[] = [];
  for (const file of files) {
    let text: string;
    try {
      text = readFileSync(path.join(root, file), 'utf8');
    } catch {
      continue; // deleted in the working tree
    }
    for (const { fileName: specifier } of ts.preProcessFile(text, true, true).importedFiles) {
      if (specifier.startsWith('node:')) continue;
      const relative = specifier.startsWith('.');
      const to = relative ? folderOf(path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier))) : packageOf(specifier);
      edges.push({ file, specifier, from: folderOf(file), to, external: !relative });
    }
  }
  return edges;
}

/** The allowed directions: folder -> the folders it may import. `*` allows every folder. */
export type Layers = Map<string, ReadonlySet<string>>;

/** Reads the ```layers block (lines `folder -> other other`). */
export function parseLayers(markdown: string): Layers {
  const block = /```layers\n([\s\S]*?)```/.exec(markdown);
  if (!block) throw new Error('no ```layers block');
  const layers: Layers = new Map();
  for (const line of block[1]!.split('\n')) {
    if (!line.trim()) continue;
    const m = /^(\S+)\s*->\s*(.*)$/.exec(line.trim());
    if (!m) throw new Error(`not a layers line: ${line}`);
    layers.set(m[1]!, new Set(m[2]!.split(/\s+/).filter(Boolean)));
  }
  return layers;
}

/** Packages only the Playwright suite and the project's tests may import. */
export const RUNNER_PACKAGES: ReadonlySet<string> = new Set(['@playwright/test', 'playwright', 'playwright-core']);
/** Folders that may import the runner (and the root files: the project's own Playwright config). */
const RUNNER_FOLDERS: ReadonlySet<string> = new Set(['suites', 'tests', '.']);
/** Folders every rule leaves free: the project's own tests. */
const FREE: ReadonlySet<string> = new Set(['tests', '.']);

/** Every import the rules refuse, one line each. */
export function violations(edges: readonly ImportEdge[], layers: Layers): string[] {
  const out: string[] = [];
  const folders = new Set([...layers.keys()]);
  for (const e of edges) {
    if (e.external) {
      if (RUNNER_PACKAGES.has(e.to) && !RUNNER_FOLDERS.has(e.from)) out.push(`${e.file}: imports ${e.specifier}; only suites/ and tests/ may import the test runner`);
      continue;
    }
    if (e.from === e.to || FREE.has(e.from)) continue;
    const allowed = layers.get(e.from);
    if (!allowed) {
      out.push(`${e.file}: its folder ${e.from}/ has no line in the layers block`);
      continue;
    }
    if (allowed.has('*')) continue;
    if (!folders.has(e.to) && !FREE.has(e.to) && e.to !== 'fixtures') out.push(`${e.file}: imports ${e.specifier}, in ${e.to}/, which has no line in the layers block`);
    else if (!allowed.has(e.to)) out.push(`${e.file}: imports ${e.specifier}; ${e.from}/ may import ${[...allowed].join(', ') || 'nothing'}, not ${e.to}/`);
  }
  for (const cycle of folderCycles(edges)) out.push(`a cycle between top-level folders: ${cycle.join(' -> ')}`);
  return out;
}

/** Cycles in the folder graph of the edges (the tests folder aside), each as a path that returns to its start. */
export function folderCycles(edges: readonly ImportEdge[]): string[][] {
  const graph = new Map<string, Set<string>>();
  for (const e of edges) {
    if (e.external || e.from === e.to || FREE.has(e.from) || FREE.has(e.to)) continue;
    if (!graph.has(e.from)) graph.set(e.from, new Set());
    graph.get(e.from)!.add(e.to);
  }
  const cycles: string[][] = [];
  const seen = new Set<string>();
  const visit = (node: string, trail: string[]): void => {
    const at = trail.indexOf(node);
    if (at >= 0) {
      cycles.push([...trail.slice(at), node]);
      return;
    }
    if (seen.has(node)) return;
    for (const next of graph.get(node) ?? []) visit(next, [...trail, node]);
    seen.add(node);
  };
  for (const node of graph.keys()) visit(node, []);
  return cycles;
}

/** The files of `folder` each file of it imports (type imports included), by path from the root. */
export function fileGraph(edges: readonly ImportEdge[], folder: string): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const e of edges) {
    if (e.external || e.from !== folder || e.to !== folder) continue;
    const target = path.posix.normalize(path.posix.join(path.posix.dirname(e.file), e.specifier));
    if (!graph.has(e.file)) graph.set(e.file, new Set());
    if (target !== e.file) graph.get(e.file)!.add(target);
  }
  return graph;
}

/** Cycles between the files of one folder, each as a path that returns to its start. */
export function fileCycles(edges: readonly ImportEdge[], folder: string): string[][] {
  const graph = fileGraph(edges, folder);
  const cycles: string[][] = [];
  const done = new Set<string>();
  const visit = (node: string, trail: string[]): void => {
    const at = trail.indexOf(node);
    if (at >= 0) {
      cycles.push([...trail.slice(at), node]);
      return;
    }
    if (done.has(node)) return;
    for (const next of graph.get(node) ?? []) visit(next, [...trail, node]);
    done.add(node);
  };
  for (const node of [...graph.keys()].sort()) visit(node, []);
  return cycles;
}

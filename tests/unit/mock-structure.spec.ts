// The shape of mock/: the core is the contract only (it names no mode and imports nothing outside itself but
// engine/ and spec/), the engine knows nothing of modes, adapters or the harness, and no module of mock/ imports
// itself back through others (type imports count).
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from '@playwright/test';

const MOCK = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../mock');
const files = (readdirSync(MOCK, { recursive: true }) as string[]).filter((f) => f.endsWith('.ts')).map((f) => path.join(MOCK, f));
const source = new Map(files.map((f) => [f, readFileSync(f, 'utf8')]));
/** Relative imports and re-exports of a file, resolved to paths. */
const importsOf = (f: string): string[] =>
  [...source.get(f)!.matchAll(/^(?:import|export)[^'"]*?from\s+['"](\.[^'"]+)['"]/gm)].map((m) => path.normalize(path.join(path.dirname(f), m[1]!)));

const under = (folder: string) => (f: string): boolean => f.startsWith(path.join(MOCK, folder) + path.sep);
const SPEC = path.resolve(MOCK, '../spec') + path.sep;

test('mock/core names no defect or variant and imports nothing outside itself but engine/ and spec/', () => {
  const core = files.filter(under('core'));
  expect(core.length).toBeGreaterThan(10);
  for (const f of core) {
    expect(source.get(f)!, path.relative(MOCK, f)).not.toMatch(/defect|variant/);
    for (const d of importsOf(f)) {
      const inside = under('core')(d) || under('engine')(d) || d.startsWith(SPEC);
      expect(inside, `${path.relative(MOCK, f)} imports ${d}`).toBe(true);
    }
  }
});

test('mock/engine names no mode and imports nothing but itself, the core and spec/', () => {
  const engine = files.filter(under('engine'));
  expect(engine.length).toBeGreaterThan(0);
  for (const f of engine) {
    expect(source.get(f)!, path.relative(MOCK, f)).not.toMatch(/defect|variant/);
    for (const d of importsOf(f)) {
      const inside = under('engine')(d) || under('core')(d) || d.startsWith(SPEC);
      expect(inside, `${path.relative(MOCK, f)} imports ${d}`).toBe(true);
    }
  }
});

test('mock/ has no import cycle', () => {
  const state = new Map<string, 'open' | 'done'>();
  const cycles: string[] = [];
  const visit = (f: string, stack: string[]): void => {
    state.set(f, 'open');
    stack.push(f);
    for (const d of importsOf(f).filter((x) => source.has(x))) {
      if (state.get(d) === 'open') cycles.push([...stack.slice(stack.indexOf(d)), d].map((x) => path.relative(MOCK, x)).join(' -> '));
      else if (!state.has(d)) visit(d, stack);
    }
    stack.pop();
    state.set(f, 'done');
  };
  for (const f of files) if (!state.has(f)) visit(f, []);
  expect(cycles).toEqual([]);
});

/** Names a file exports (declarations and `export { ... }` lists; `default` never used in mock/). */
const exportsOf = (f: string): string[] => {
  const text = source.get(f)!;
  const declared = [...text.matchAll(/^export\s+(?:declare\s+)?(?:async\s+)?(?:function\*?|const|let|class|interface|type|enum|abstract\s+class)\s+([A-Za-z_$][\w$]*)/gm)].map((m) => m[1]!);
  const listed = [...text.matchAll(/^export\s+(?:type\s+)?\{([^}]*)\}/gm)].flatMap((m) => m[1]!.split(',').map((s) => s.trim().split(/\s+as\s+/).pop()!.replace(/^type\s+/, '')));
  return [...declared, ...listed].filter(Boolean);
};

/** The names a file imports (or re-exports) from each relative module, resolved to paths. */
const namedImportsOf = (f: string): { from: string; names: string[] }[] =>
  [...source.get(f)!.matchAll(/^(?:import|export)\s+(?:type\s+)?\{([^}]*)\}\s*from\s+['"](\.[^'"]+)['"]/gm)].map((m) => ({
    from: path.normalize(path.join(path.dirname(f), m[2]!)),
    names: m[1]!.split(',').map((s) => s.trim().replace(/^type\s+/, '').split(/\s+as\s+/)[0]!).filter(Boolean),
  }));

test('mock/core exports nothing that only the modes use (a hook for modes belongs in mock/modes/support.ts)', () => {
  const importers = new Map<string, string[]>();
  for (const f of files) {
    for (const { from, names } of namedImportsOf(f)) for (const n of names) importers.set(`${from}#${n}`, [...(importers.get(`${from}#${n}`) ?? []), f]);
  }
  const modesOnly: string[] = [];
  for (const f of files.filter(under('core'))) {
    for (const name of exportsOf(f)) {
      const users = importers.get(`${f}#${name}`) ?? [];
      // Used in its own file (beyond the export itself) or by any module outside mock/modes/: the contract uses it.
      const usedInFile = (source.get(f)!.match(new RegExp(`(?<![\\w$])${name.replace(/\$/g, '\\$')}(?![\\w$])`, 'g')) ?? []).length > 1;
      if (users.length > 0 && !usedInFile && users.every(under('modes'))) modesOnly.push(`${path.relative(MOCK, f)}: ${name} (${users.map((u) => path.relative(MOCK, u)).join(', ')})`);
    }
  }
  expect(modesOnly).toEqual([]);
});

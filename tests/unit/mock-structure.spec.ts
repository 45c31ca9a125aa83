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

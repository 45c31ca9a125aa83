// The layers README's "Architecture" block allows, held over every import of the tree: no cycle between top-level
// folders, nothing imports suites/ but tests/, the test runner only in suites/ and tests/, the mock only the contract.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { repoRoot } from '../../run/config.ts';
import { fileCycles, fileGraph, folderCycles, importEdges, parseLayers, violations, type ImportEdge } from '../support/import-graph.ts';

const layers = parseLayers(readFileSync(path.join(repoRoot, 'README.md'), 'utf8'));

test('every import of the tree follows the layers README allows', () => {
  const edges = importEdges(repoRoot);
  expect(edges.length).toBeGreaterThan(500);
  expect(violations(edges, layers)).toEqual([]);
});

test('the layers block itself has no cycle, and keeps suites/ out of every other folder and the mock on the contract', () => {
  const asEdges: ImportEdge[] = [...layers].flatMap(([from, tos]) => [...tos].filter((to) => to !== '*').map((to) => ({ file: `${from}/x.ts`, specifier: `../${to}/x.ts`, from, to, external: false })));
  expect(folderCycles(asEdges)).toEqual([]);
  for (const [from, tos] of layers) if (from !== 'suites') expect(tos.has('suites'), `${from} may import suites/`).toBe(false);
  expect([...layers.get('mock')!]).toEqual(['spec']);
});

test('the rule fails on each kind of import it forbids', () => {
  const edge = (file: string, specifier: string, to: string, external = false): ImportEdge => ({ file, specifier, from: file.split('/')[0]!, to, external });
  const found = violations(
    [
      edge('mock/harness/journal.ts', '../../suites/lib/x.ts', 'suites'),
      edge('proxy/judge-exchange.ts', '../suites/lib/x.ts', 'suites'),
      edge('judge/checker.ts', '@playwright/test', '@playwright/test', true),
      edge('report/html.ts', '../judge/x.ts', 'judge'),
      edge('judge/x.ts', '../report/html.ts', 'report'),
    ],
    layers,
  );
  expect(found).toEqual([
    expect.stringContaining('mock/ may import spec, not suites/'),
    expect.stringContaining('proxy/ may import'),
    expect.stringContaining('only suites/ and tests/ may import the test runner'),
    expect.stringContaining('judge/ may import spec, not report/'),
    'a cycle between top-level folders: report -> judge -> report',
  ]);
});

test("run/'s modules import one way: no circle between them, the settings table and the kit's paths at the root", () => {
  const edges = importEdges(repoRoot);
  expect(fileCycles(edges, 'run').map((c) => c.join(' -> '))).toEqual([]);
  const graph = fileGraph(edges, 'run');
  // The root of run/'s settings imports nothing that reads a run; the plan reads no run's configuration.
  const below = (file: string): Set<string> => {
    const seen = new Set<string>();
    const walk = (f: string) => (graph.get(f) ?? new Set<string>()).forEach((g) => !seen.has(g) && (seen.add(g), walk(g)));
    walk(file);
    return seen;
  };
  for (const root of ['run/settings.ts', 'run/kit-paths.ts', 'run/config-file.ts']) expect([...below(root)].filter((f) => /run\/(plan|config)\.ts$/.test(f)), root).toEqual([]);
  expect(below('run/plan.ts').has('run/config.ts')).toBe(false);
  // The rule finds a circle when there is one.
  const edge = (file: string, specifier: string): ImportEdge => ({ file, specifier, from: 'run', to: 'run', external: false });
  expect(fileCycles([edge('run/a.ts', './b.ts'), edge('run/b.ts', './c.ts'), edge('run/c.ts', './a.ts')], 'run')).toEqual([['run/a.ts', 'run/b.ts', 'run/c.ts', 'run/a.ts']]);
});

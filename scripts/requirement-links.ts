// Where each requirement lives in the code, read from the sources and the suite's index (never kept by hand), in the
// manner of Kubernetes' conformance walk: the check functions and judge entry points that judge it, the tests that can
// record it (run/test-index/: those that declare it, and those that call a judge entry point that records it: the
// same index a partial run selects by), the mock code that honours it (a `// honours: ID, ID` marker comment), and the
// defect modes that break it. spec/REQUIREMENTS.md is generated from this; a stale file fails npm test.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFECTS } from '../mock/defects.ts';
import { ALL_CHECKS } from '../judge/checks/registry.ts';
import { JUDGE_ENTRIES } from '../judge/entry-points.ts';
import { getRequirement, primaryOf, requirements } from '../spec/requirements/index.ts';
import { testIndex, type TestIndex } from '../run/test-index.ts';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export interface RequirementLinks {
  /** Check functions (judge/checks/) with file:line, and the judge entry points that record it themselves. */
  checks: string[];
  /** Tests that declare it (req(...)): `file › title path`. */
  tests: string[];
  /** Tests that can record it through a judge entry point they declare, counted by file: `file (n)`. */
  throughJudges: string[];
  /** Mock code that honours it: its `// honours:` markers, with file:line. */
  mock: string[];
  /** Defect modes (mock/defects.ts) that break it, with the file:line of the mode (mock/modes/defects/). */
  defects: string[];
}

/** A mock marker: `// honours: CAT-002, CAT-027` (what follows the IDs is free text). */
const HONOURS = /\/\/\s*honours:\s*((?:[A-Z]+-\d{3}(?:,\s*)?)+)/;

const ID = /\b(?:CAT|REQ|RESP|CHAT|TOOL|SEARCH|ROUTE|IMG|RSN|AUTH|STREAM|ERR|LIMIT|VER|OBS)-\d{3}\b/g;

function sources(dir: string): { file: string; lines: string[] }[] {
  return (readdirSync(path.join(ROOT, dir), { recursive: true }) as string[])
    .filter((f) => f.endsWith('.ts'))
    .sort()
    .map((f) => ({ file: path.join(dir, f).split(path.sep).join('/'), lines: readFileSync(path.join(ROOT, dir, f), 'utf8').split('\n') }));
}

/** Every requirement's links, computed from the registered checks, the judge entry points, the suite's index and mock/. */
export function requirementLinks(index: TestIndex = testIndex()): Map<string, RequirementLinks> {
  const links = new Map(requirements.map((r) => [r.id, { checks: [] as string[], tests: [] as string[], throughJudges: [] as string[], mock: [] as string[], defects: [] as string[] }]));
  const add = (id: string, key: keyof RequirementLinks, where: string) => {
    const l = links.get(id);
    if (l && !l[key].includes(where)) l[key].push(where);
  };

  // Check functions: `check('ID', function name(` in judge/checks/, and the rows of the schema rule tables.
  const checkSources = sources('judge/checks');
  const named = new Set(ALL_CHECKS.map((c) => `${c.id} ${c.name}`));
  for (const { file, lines } of checkSources) {
    lines.forEach((line, i) => {
      const fn = /\bcheck\('([A-Z]+-\d{3})', function (\w+)\(/.exec(line);
      if (fn && named.has(`${fn[1]} ${fn[2]}`)) add(fn[1]!, 'checks', `${fn[2]} (${file}:${i + 1})`);
      const rule = /\{ id: '([A-Z]+-\d{3})', scope:/.exec(line) ?? /catalogField\('\w+', '([A-Z]+-\d{3})'\)/.exec(line);
      if (rule) add(rule[1]!, 'checks', `schema rule (${file}:${i + 1})`);
    });
  }
  // Judge entry points (judge/entry.ts) that record an ID no registered check judges: their own IDs, as data.
  const registered = new Set(ALL_CHECKS.map((c) => c.id));
  for (const [name, { entry, module }] of [...JUDGE_ENTRIES].sort(([a], [b]) => (a < b ? -1 : 1))) {
    for (const id of entry.own) if (!registered.has(id)) add(id, 'checks', `${name} (${module})`);
  }
  // Schema fallbacks and null rules are named in registry.ts.
  for (const c of ALL_CHECKS) if (c.name === 'schemaRule' && links.get(c.id)?.checks.length === 0) add(c.id, 'checks', 'schema fallback (judge/checks/registry.ts)');

  // Tests, from the suite's index: those that declare the ID, and, by file, those whose judge entry points record it.
  // A restatement's tests are its primary's (a rule stated twice is judged once, under the primary).
  for (const t of index.tests) {
    const where = `suites/${t.file} › ${t.titles.join(' › ')}`;
    for (const id of new Set(t.declared.flatMap((d) => [d, primaryOf(d)]))) add(id, 'tests', where);
  }
  for (const id of links.keys()) {
    const byFile = new Map<string, number>();
    const primary = primaryOf(id);
    for (const t of index.tests) if (t.ids.includes(primary) && !t.declared.some((d) => primaryOf(d) === primary)) byFile.set(t.file, (byFile.get(t.file) ?? 0) + 1);
    for (const [file, n] of [...byFile].sort()) add(id, 'throughJudges', `suites/${file} (${n})`);
  }
  // The mock code that honours a rule names it in a marker; the modes (mock/modes/) break rules, never honour them.
  for (const { file, lines } of sources('mock')) {
    if (file === 'mock/defects.ts' || file.startsWith('mock/modes/')) continue;
    lines.forEach((line, i) => {
      const marker = HONOURS.exec(line);
      if (marker) for (const id of marker[1]!.match(ID) ?? []) add(id, 'mock', `${file}:${i + 1}`);
    });
  }
  // Each defect mode is one object in mock/modes/defects/: its name line is where it lives.
  const modeLines = new Map<string, string>();
  for (const { file, lines } of sources('mock/modes/defects')) {
    lines.forEach((line, i) => {
      const m = /^\s*name: '([a-z0-9-]+)',/.exec(line);
      if (m) modeLines.set(m[1]!, `${file}:${i + 1}`);
    });
  }
  const defectLink = (name: string): string => (modeLines.has(name) ? `${name} (${modeLines.get(name)})` : name);
  for (const d of DEFECTS) add(d.breaks, 'defects', defectLink(d.name));
  // A defect that breaks a restated rule breaks its primary.
  for (const d of DEFECTS) if (getRequirement(d.breaks).sameAs) add(getRequirement(d.breaks).sameAs!, 'defects', defectLink(d.name));
  return links;
}

/**
 * The spec files that can show a deviation from a requirement: those holding a test that can record it (it declares
 * it, or a judge entry point it declares records it). The defect matrix runs these for a defect that breaks it.
 */
export function specFilesOf(links: RequirementLinks): string[] {
  return [...new Set([...links.tests, ...links.throughJudges].map((t) => t.split(/ /)[0]!))].sort();
}

// Where each requirement lives in the code, read from the sources (never kept by hand), in the manner of
// Kubernetes' conformance walk: the check functions that judge it, the tests that declare it or check it
// directly, the mock code that honours it (a comment or code naming the ID), and the defect modes that break it.
// spec/REQUIREMENTS.md is generated from this; a stale file fails npm test.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFECTS } from '../mock/defects.ts';
import { ALL_CHECKS } from '../judge/checks/registry.ts';
import { getRequirement, requirements } from '../spec/requirements/index.ts';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export interface RequirementLinks {
  /** Check functions (judge/checks/) with file:line. */
  checks: string[];
  /** Tests that declare it (req(...)) or judge it directly, with file:line. */
  tests: string[];
  /** Mock code that names it. */
  mock: string[];
  /** Defect modes (mock/defects.ts) that break it, with the file:line of the mode (mock/modes/defects/). */
  defects: string[];
}

const ID = /\b(?:CAT|REQ|RESP|CHAT|TOOL|SEARCH|ROUTE|IMG|RSN|AUTH|STREAM|ERR|LIMIT|VER|OBS)-\d{3}\b/g;

function sources(dir: string): { file: string; lines: string[] }[] {
  return (readdirSync(path.join(ROOT, dir), { recursive: true }) as string[])
    .filter((f) => f.endsWith('.ts'))
    .sort()
    .map((f) => ({ file: path.join(dir, f).split(path.sep).join('/'), lines: readFileSync(path.join(ROOT, dir, f), 'utf8').split('\n') }));
}

/** Every requirement's links, computed from the sources of suites/, mock/ and the registered checks. */
export function requirementLinks(): Map<string, RequirementLinks> {
  const links = new Map(requirements.map((r) => [r.id, { checks: [] as string[], tests: [] as string[], mock: [] as string[], defects: [] as string[] }]));
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
  // Schema fallbacks and null rules are named in registry.ts.
  for (const c of ALL_CHECKS) if (c.name === 'schemaRule' && links.get(c.id)?.checks.length === 0) add(c.id, 'checks', 'schema fallback (judge/checks/registry.ts)');

  // Tests: the line of each test() whose req(...) names the ID, and lines elsewhere in the specs judging it.
  for (const { file, lines } of [...sources('suites').filter((s) => s.file.endsWith('.spec.ts'))]) {
    lines.forEach((line, i) => {
      const declared = /\breq\(([^)]*)\)/.exec(line);
      if (declared) for (const id of declared[1]!.match(ID) ?? []) add(id, 'tests', `${file}:${i + 1}`);
    });
  }
  // The mock code that honours a rule; the modes (mock/modes/) break rules, so their IDs are not links to it.
  for (const { file, lines } of sources('mock')) {
    if (file === 'mock/defects.ts' || file.startsWith('mock/modes/')) continue;
    lines.forEach((line, i) => {
      for (const id of line.match(ID) ?? []) add(id, 'mock', `${file}:${i + 1}`);
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

// Where each requirement lives in the code, read from the sources (never kept by hand), in the manner of
// Kubernetes' conformance walk: the check functions that judge it, the tests that declare it or check it
// directly (and, for the checks that judge every answer of a kind, the spec files that send that kind), the mock
// code that honours it (a `// honours: ID, ID` marker comment), and the defect modes that break it.
// spec/REQUIREMENTS.md is generated from this; a stale file fails npm test.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFECTS } from '../mock/defects.ts';
import { ALL_CHECKS, CATALOG_IDS, COMPLETION_IDS, REFUSAL_IDS, STREAM_IDS } from '../judge/checks/registry.ts';
import { getRequirement, requirements } from '../spec/requirements/index.ts';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export interface RequirementLinks {
  /** Check functions (judge/checks/) with file:line. */
  checks: string[];
  /** Tests that declare it (req(...)) or judge it directly, with file:line. */
  tests: string[];
  /** For a requirement judged on every answer of a kind: the spec files that send that kind (`file (every stream)`). */
  everyAnswer: string[];
  /** Mock code that honours it: its `// honours:` markers, with file:line. */
  mock: string[];
  /** Defect modes (mock/defects.ts) that break it, with the file:line of the mode (mock/modes/defects/). */
  defects: string[];
}

/**
 * The judge's entry points for every answer of a kind (judge/judge-response.ts), and the requirements the checks of
 * that kind judge: a spec file that calls one, directly or through a suite helper, judges all of them.
 */
const KINDS: readonly { judge: RegExp; kind: string; ids: readonly string[] }[] = [
  { judge: /\bjudgeCompletion\(/, kind: 'completion', ids: COMPLETION_IDS },
  { judge: /\bjudgeStream\(/, kind: 'stream', ids: STREAM_IDS },
  { judge: /\bjudgeRefusal\(/, kind: 'refusal', ids: REFUSAL_IDS },
  { judge: /\bjudgeModel(?:List|Entry)\(/, kind: 'catalog answer', ids: CATALOG_IDS },
];

/** A mock marker: `// honours: CAT-002, CAT-027` (what follows the IDs is free text). */
const HONOURS = /\/\/\s*honours:\s*((?:[A-Z]+-\d{3}(?:,\s*)?)+)/;

const ID = /\b(?:CAT|REQ|RESP|CHAT|TOOL|SEARCH|ROUTE|IMG|RSN|AUTH|STREAM|ERR|LIMIT|VER|OBS)-\d{3}\b/g;

function sources(dir: string): { file: string; lines: string[] }[] {
  return (readdirSync(path.join(ROOT, dir), { recursive: true }) as string[])
    .filter((f) => f.endsWith('.ts'))
    .sort()
    .map((f) => ({ file: path.join(dir, f).split(path.sep).join('/'), lines: readFileSync(path.join(ROOT, dir, f), 'utf8').split('\n') }));
}

/** Every requirement's links, computed from the sources of suites/, mock/ and the registered checks. */
export function requirementLinks(): Map<string, RequirementLinks> {
  const links = new Map(requirements.map((r) => [r.id, { checks: [] as string[], tests: [] as string[], everyAnswer: [] as string[], mock: [] as string[], defects: [] as string[] }]));
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
  // Judge functions outside the registry (judge/comparisons.ts, judge/token-caps.ts, ...): the exported function
  // whose body records the ID with check.that/status/observe (or names it in a `// judges:` marker).
  for (const { file, lines } of sources('judge').filter((s) => !s.file.includes('/checks/') && !s.file.includes('/decoding/') && s.file !== 'judge/checker.ts')) {
    let fn: string | undefined;
    lines.forEach((line, i) => {
      const start = /^export function (\w+)\(/.exec(line);
      if (start) fn = `${start[1]} (${file}:${i + 1})`;
      else if (/^\S/.test(line) && !line.startsWith('}')) fn = undefined;
      const recorded = /\bcheck\.(?:that|status|observe)\(\s*'([A-Z]+-\d{3})'/.exec(line);
      if (recorded && fn) add(recorded[1]!, 'checks', fn);
      // An ID held in a variable is named by a `// judges: ID, ...` marker in the function.
      const marker = /\/\/\s*judges:\s*((?:[A-Z]+-\d{3}(?:,\s*)?)+)/.exec(line);
      if (marker && fn) for (const id of marker[1]!.match(ID) ?? []) add(id, 'checks', fn);
    });
  }
  // Schema fallbacks and null rules are named in registry.ts.
  for (const c of ALL_CHECKS) if (c.name === 'schemaRule' && links.get(c.id)?.checks.length === 0) add(c.id, 'checks', 'schema fallback (judge/checks/registry.ts)');

  // Tests: the line of each test() whose req(...) names the ID, and lines elsewhere in the specs judging it.
  const suiteSources = sources('suites');
  const specs = suiteSources.filter((s) => s.file.endsWith('.spec.ts'));
  for (const { file, lines } of specs) {
    lines.forEach((line, i) => {
      const declared = /\breq\(([^)]*)\)/.exec(line);
      if (declared) for (const id of declared[1]!.match(ID) ?? []) add(id, 'tests', `${file}:${i + 1}`);
    });
  }
  // The checks of every answer of a kind judge it in each spec file that sends that kind.
  const carriers = answerCarriers(suiteSources.filter((s) => !s.file.endsWith('.spec.ts')));
  for (const { file, lines } of specs) {
    const text = lines.join('\n');
    for (const k of KINDS) {
      if (!k.judge.test(text) && !(carriers.get(k.kind) ?? []).some((fn) => new RegExp(`\\b${fn}\\(`).test(text))) continue;
      for (const id of k.ids) add(id, 'everyAnswer', `${file} (every ${k.kind})`);
    }
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
 * The suite helpers (outside the spec files) that judge an answer of a kind, by kind: a function whose body calls
 * a judge entry point, or another such helper (followed until nothing new is found).
 */
function answerCarriers(helpers: readonly { file: string; lines: string[] }[]): Map<string, string[]> {
  const bodies: { name: string; text: string }[] = [];
  for (const { lines } of helpers) {
    let current: { name: string; text: string } | undefined;
    for (const line of lines) {
      const start = /^export (?:async )?function (\w+)\(/.exec(line);
      if (start) bodies.push((current = { name: start[1]!, text: '' }));
      else if (/^(?:export |function |const |class )/.test(line)) current = undefined;
      if (current) current.text += `${line}\n`;
    }
  }
  const out = new Map<string, string[]>();
  for (const k of KINDS) {
    const found = new Set<string>();
    for (let grew = true; grew; ) {
      grew = false;
      for (const b of bodies) {
        if (found.has(b.name)) continue;
        if (k.judge.test(b.text) || [...found].some((fn) => new RegExp(`\\b${fn}\\(`).test(b.text))) {
          found.add(b.name);
          grew = true;
        }
      }
    }
    out.set(k.kind, [...found].sort());
  }
  return out;
}

/**
 * The spec files that can show a deviation from a requirement: those that declare it, and, for one judged on every
 * answer of a kind, those that send that kind. The defect matrix runs these for a defect that breaks it.
 */
export function specFilesOf(links: RequirementLinks): string[] {
  return [...new Set([...links.tests, ...links.everyAnswer].map((t) => t.split(/[: ]/)[0]!))].sort();
}

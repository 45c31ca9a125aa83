// A partial run: only the tests that check some requirements. Every test carries its requirement IDs as
// Playwright tags (`@STREAM-004`, from req()), so a selection is a grep over tags. The selection comes from the
// environment (the CLI's --requirement, --section, --level and --exclude-requirement set it), and the reporter
// reads the same variables to call the verdict `partial`: a filtered run never shows as a full pass.
import { getRequirement, isKnownRequirement, primaryOf, requirements, type Requirement } from '../spec/requirements/index.ts';
import { CATALOG_IDS, COMPLETION_IDS, REFUSAL_IDS, STREAM_IDS } from '../judge/checks/registry.ts';
import { runSetting } from './plan.ts';
import { setting } from './settings.ts';

/** The variables of the selection's settings (the settings table's). */
export const SELECTION_ENV = {
  requirements: setting('requirements').env,
  sections: setting('sections').env,
  levels: setting('levels').env,
  exclude: setting('excludeRequirements').env,
} as const;

export interface Selection {
  /** Requirement IDs asked for (primary IDs; a restatement asks for its primary). */
  requirements: string[];
  /** Sections asked for: "6" takes 6 and every 6.x; "2.7" takes 2.7 alone. */
  sections: string[];
  levels: Requirement['level'][];
  /** Requirement IDs whose tests are left out. */
  exclude: string[];
}

const LEVELS: readonly Requirement['level'][] = ['MUST', 'SHOULD', 'MAY'];
/** The run's selection (its plan's, else the variables), or undefined for a full run; an unknown ID, section or level is a clear error. */
export function selectionOf(env: NodeJS.ProcessEnv = process.env): Selection | undefined {
  const raw = {
    requirements: runSetting('requirements', env) ?? [],
    sections: runSetting('sections', env) ?? [],
    levels: (runSetting('levels', env) ?? []).map((l) => l.toUpperCase()),
    exclude: runSetting('excludeRequirements', env) ?? [],
  };
  if (Object.values(raw).every((v) => v.length === 0)) return undefined;
  const problems: string[] = [];
  for (const id of [...raw.requirements, ...raw.exclude]) if (!isKnownRequirement(id)) problems.push(`${id} is not a requirement ID of the catalog`);
  const known = new Set(requirements.map((r) => r.section));
  for (const s of raw.sections) if (![...known].some((k) => k === s || k.startsWith(`${s}.`))) problems.push(`section ${s} has no requirement (sections: ${[...new Set([...known].map((k) => k.split('.')[0]))].sort((a, b) => Number(a) - Number(b)).join(', ')} and their subsections)`);
  for (const l of raw.levels) if (!(LEVELS as readonly string[]).includes(l)) problems.push(`level ${l} is not one of ${LEVELS.join(', ')}`);
  if (problems.length > 0) throw new Error(`the run's selection: ${problems.join('; ')}`);
  return {
    requirements: [...new Set(raw.requirements.map(primaryOf))],
    sections: [...new Set(raw.sections)],
    levels: [...new Set(raw.levels)] as Requirement['level'][],
    exclude: [...new Set(raw.exclude.map(primaryOf))],
  };
}

const inSection = (r: Requirement, s: string) => r.section === s || r.section.startsWith(`${s}.`);

/** The requirement IDs a selection takes (restatements included, so their tags match too). */
export function selectedIds(sel: Selection): string[] {
  const included = sel.requirements.length + sel.sections.length === 0 ? requirements : requirements.filter((r) => sel.requirements.includes(primaryOf(r.id)) || sel.sections.some((s) => inSection(r, s)));
  return included.filter((r) => sel.levels.length === 0 || sel.levels.includes(r.level)).filter((r) => !sel.exclude.includes(primaryOf(r.id))).map((r) => r.id);
}

/**
 * Whether a selection takes a test of the suite, from the catalog alone (no listing of the suite, which costs a
 * second Playwright process): every requirement but the kit's own (`mock-only`) is declared by a conformance test or
 * judged by a registered check whose files the selection runs, as tests/integration/suite-coverage.spec.ts holds the suite
 * to. undefined when the catalog cannot tell: an exclusion may leave out every test of a selected ID.
 */
export function selectionTakesTests(sel: Selection): boolean | undefined {
  if (sel.exclude.length > 0) return undefined;
  return selectedIds(sel).some((id) => getRequirement(primaryOf(id)).check !== 'mock-only');
}

/** The Playwright tag of a requirement. */
export const tagOf = (id: string): string => `@${id}`;

/**
 * The spec files whose tests send each kind of exchange. A requirement judged by a registered check
 * (judge/checks/registry.ts) is checked by every test that gets an answer of its kind, whether or not the test
 * declares it; a selection of it runs these files.
 */
export const KIND_FILES: readonly { ids: readonly string[]; files: readonly string[] }[] = [
  { ids: CATALOG_IDS, files: ['catalog.spec'] },
  { ids: COMPLETION_IDS, files: ['chat.spec'] },
  { ids: STREAM_IDS, files: ['streaming.spec'] },
  { ids: REFUSAL_IDS, files: ['errors.spec'] },
];

/** The spec files (stems) that check `ids` through registered checks. */
export function filesCheckingByKind(ids: readonly string[]): string[] {
  return [...new Set(KIND_FILES.filter((k) => ids.some((id) => k.ids.includes(id))).flatMap((k) => k.files))];
}

// Playwright matches grep against "project file describe… title @tags": a tag or a file name selects a test.
const tagAlternatives = (ids: readonly string[]) => (ids.length > 0 ? [`@(?:${ids.join('|')})(?![\\w-])`] : []);
const fileAlternatives = (stems: readonly string[]) => stems.map((f) => `(?:^|[\\s/])${f.replace('.', '\\.')}\\.[jt]s(?=\\s|$)`);

/** grep / grepInvert for the conformance config: the tests that check a selected ID, without those declaring an excluded one. */
export function selectionGrep(sel: Selection | undefined): { grep?: RegExp; grepInvert?: RegExp } {
  if (!sel) return {};
  const ids = selectedIds(sel);
  const excluded = requirements.filter((r) => sel.exclude.includes(primaryOf(r.id))).map((r) => r.id);
  const wanted = [...tagAlternatives(ids), ...fileAlternatives(filesCheckingByKind(ids))];
  // Nothing selected: a pattern nothing matches, so the run says "no tests" instead of running everything.
  return { grep: wanted.length > 0 ? new RegExp(wanted.join('|')) : /(?!)/, ...(excluded.length > 0 ? { grepInvert: new RegExp(tagAlternatives(excluded).join('|')) } : {}) };
}

/** "requirement STREAM-004; section 6; level MUST" for reports. */
export function describeSelection(sel: Selection): string {
  const parts: string[] = [];
  if (sel.requirements.length > 0) parts.push(`requirement ${sel.requirements.join(', ')}`);
  if (sel.sections.length > 0) parts.push(`section ${sel.sections.join(', ')}`);
  if (sel.levels.length > 0) parts.push(`level ${sel.levels.join(', ')}`);
  if (sel.exclude.length > 0) parts.push(`excluding ${sel.exclude.join(', ')}`);
  return parts.join('; ');
}

/** The selection's own IDs as one catalog statement each (for `--list`). */
export function selectionStatements(sel: Selection): string[] {
  return selectedIds(sel).map((id) => `${id} (${getRequirement(id).level}, §${getRequirement(id).section}) ${getRequirement(id).statement}`);
}

/** Options of `playwright test` that take a value (so the value is no file filter). */
const VALUE_OPTIONS = new Set(['-c', '--config', '--browser', '-g', '--grep', '--grep-invert', '--global-timeout', '-j', '--workers', '--max-failures', '--output', '--project', '--repeat-each', '--reporter', '--retries', '--shard', '--timeout', '--trace', '--tsconfig', '--test-list', '--test-list-invert', '--update-source-method']);
/** Options of `playwright test` that leave tests out. */
const FILTER_OPTIONS = new Set(['-g', '--grep', '--grep-invert', '--shard', '--last-failed', '--only-changed', '--test-list', '--test-list-invert', '--project']);

/**
 * What Playwright's own filters leave out of a run, read from the runner's command line (`playwright test
 * suites/chat.spec.ts --grep x`): file arguments and filtering options. undefined: none, the whole suite runs.
 */
export function runnerFilters(argv: readonly string[]): string | undefined {
  const at = argv.indexOf('test');
  if (at < 0) return undefined;
  const files: string[] = [];
  const options: string[] = [];
  for (let i = at + 1; i < argv.length; i++) {
    const a = argv[i]!;
    const name = a.startsWith('--') && a.includes('=') ? a.slice(0, a.indexOf('=')) : a;
    if (FILTER_OPTIONS.has(name)) options.push(a.includes('=') || !VALUE_OPTIONS.has(name) ? a : `${a} ${argv[i + 1] ?? ''}`.trim());
    if (VALUE_OPTIONS.has(name) && !a.includes('=')) i++;
    else if (!a.startsWith('-')) files.push(a);
  }
  const parts = [...(files.length > 0 ? [`files ${files.join(', ')}`] : []), ...options];
  return parts.length > 0 ? parts.join('; ') : undefined;
}

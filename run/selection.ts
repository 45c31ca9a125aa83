// A partial run: only the tests that can record some requirements. Which tests can record an ID is the suite's
// index (run/test-index.ts: the IDs a test declares and those of the judge entry points it calls), so a selection is
// a grep for those tests. The selection comes from the run's plan (the CLI's --requirement, --section, --level and
// --exclude-requirement set it), and the reporter reads the same to call the verdict `partial`: a filtered run never
// shows as a full pass.
import { getRequirement, isKnownRequirement, primaryOf, requirements, type Requirement } from '../spec/requirements/index.ts';
import { runSetting } from './plan.ts';
import { grepOf, testIndex, testsDeclaring, testsRecording, type IndexedTest, type TestIndex } from './test-index.ts';
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
 * The tests a selection runs, from the suite's index (run/test-index.ts): every test that can record a selected ID
 * (it declares it, or a judge entry point it declares records it), without those that declare an excluded one.
 */
export function selectedTests(sel: Selection, index: TestIndex = testIndex()): IndexedTest[] {
  const excluded = new Set(testsDeclaring(excludedIds(sel), index));
  return testsRecording(selectedIds(sel), index).filter((t) => !excluded.has(t));
}

/** The requirement IDs an exclusion names (restatements included). */
function excludedIds(sel: Selection): string[] {
  return requirements.filter((r) => sel.exclude.includes(primaryOf(r.id))).map((r) => r.id);
}

/** Whether a selection takes a test of the suite, from the index alone (no listing of the suite, a second Playwright process). */
export function selectionTakesTests(sel: Selection, index: TestIndex = testIndex()): boolean {
  return selectedTests(sel, index).length > 0;
}

/**
 * grep / grepInvert for the conformance config, as arrays of patterns (Playwright runs a test that one grep pattern
 * matches and no grepInvert pattern matches, so a caller may add its own): one pattern per selected test, and, for
 * an exclusion, one per test declaring an excluded ID. Nothing selected: a pattern nothing matches, so the run says
 * "no tests" instead of running everything.
 */
export function selectionGrep(sel: Selection | undefined, index: TestIndex = testIndex()): { grep?: RegExp[]; grepInvert?: RegExp[] } {
  if (!sel) return {};
  const tests = testsRecording(selectedIds(sel), index);
  const excluded = testsDeclaring(excludedIds(sel), index);
  return { grep: tests.length > 0 ? tests.map(grepOf) : [/(?!)/], ...(excluded.length > 0 ? { grepInvert: excluded.map(grepOf) } : {}) };
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

// Expected failures: how a team adopts the suite before its server conforms. A baseline file (YAML or JSON,
// schema spec/schemas/expected-failures.schema.json; CONFORMANCE_EXPECTED_FAILURES) lists the requirement IDs the
// target is known to fail, each with its reason. Then a listed ID that fails is `expected-fail` and does not fail
// the run; an unlisted MUST that fails does; and a listed ID that now passes makes the baseline stale, which fails
// the run too, naming the entry to delete, so the list never outlives the failures it excuses.
import { readBoundedText } from '../spec/file-reader.ts';
import YAML from 'yaml';
import { formatIssues, validate } from '../spec/validator.ts';
import { getRequirement, isKnownRequirement, primaryOf } from '../spec/requirements/index.ts';
import type { RequirementResult } from './results.ts';

export interface BaselineEntry {
  /** The primary requirement ID (a restatement listed in the file is read as its primary). */
  id: string;
  reason: string;
  /** The ID as the file lists it, when it is a restatement of `id`. */
  listedAs?: string;
}

export interface Baseline {
  /** The file, as given (for messages). */
  file: string;
  entries: BaselineEntry[];
}

/** What a run made of its baseline. */
export interface BaselineOutcome {
  file: string;
  /** Listed and failed (or warned): excused. */
  expected: BaselineEntry[];
  /** Listed and passed: the entry must be deleted; the run fails until it is. */
  stale: BaselineEntry[];
  /** Listed but not judged by this run (skipped, untested, or the kit could not judge): neither. */
  unjudged: BaselineEntry[];
}

/** A baseline file that cannot be used: a configuration error, said in one line per problem. */
export class BaselineError extends Error {
  override name = 'BaselineError';
}

/** Reads and checks a baseline file. */
export function loadBaseline(file: string): Baseline {
  let text: string;
  try {
    text = readBoundedText(file, 'expected failures');
  } catch (err) {
    throw new BaselineError((err as Error).message);
  }
  return parseBaseline(text, file);
}

/** Parses baseline text (YAML, of which JSON is a subset) and checks every ID against the catalog. */
export function parseBaseline(text: string, file: string): Baseline {
  let data: unknown;
  try {
    data = YAML.parse(text);
  } catch (err) {
    throw new BaselineError(`expected failures ${file}: not YAML or JSON (${(err as Error).message.split('\n')[0]})`);
  }
  const result = validate('expected-failures', data);
  if (!result.valid) throw new BaselineError(`expected failures ${file} does not match spec/schemas/expected-failures.schema.json:\n${formatIssues(result.errors)}`);
  const problems: string[] = [];
  const entries: BaselineEntry[] = [];
  const seen = new Map<string, string>();
  for (const { id, reason } of (data as { expectedFailures: { id: string; reason: string }[] }).expectedFailures) {
    if (!isKnownRequirement(id)) {
      problems.push(`${id} is not a requirement of the catalog (chatconform requirements --search …)`);
      continue;
    }
    if (getRequirement(id).kind === 'observation') {
      problems.push(`${id} is an observation: a gap of the spec, recorded and never judged, so it cannot fail`);
      continue;
    }
    const primary = primaryOf(id);
    if (seen.has(primary)) {
      problems.push(`${id} is listed twice${seen.get(primary) !== id ? ` (as ${seen.get(primary)} and ${id}, the same rule)` : ''}`);
      continue;
    }
    seen.set(primary, id);
    entries.push({ id: primary, reason, ...(primary !== id ? { listedAs: id } : {}) });
  }
  if (problems.length > 0) throw new BaselineError(`expected failures ${file}:\n${problems.map((p) => `  ${p}`).join('\n')}`);
  return { file, entries };
}

/** The results with the listed failures turned into `expected-fail`, and what became of each entry. */
export function applyBaseline(results: readonly RequirementResult[], baseline: Baseline): { results: RequirementResult[]; outcome: BaselineOutcome } {
  const listed = new Map(baseline.entries.map((e) => [e.id, e]));
  const outcome: BaselineOutcome = { file: baseline.file, expected: [], stale: [], unjudged: [] };
  const out = results.map((r) => {
    const entry = listed.get(r.id);
    if (!entry) return r;
    if (r.status === 'fail' || r.status === 'warn') {
      outcome.expected.push(entry);
      return { ...r, status: 'expected-fail' as const, baselineReason: entry.reason };
    }
    if (r.status === 'pass') outcome.stale.push(entry);
    else outcome.unjudged.push(entry);
    return { ...r, baselineReason: entry.reason };
  });
  // Listed IDs this run's scope does not hold (the kit's own records, say) are not judged either.
  const inScope = new Set(results.map((r) => r.id));
  for (const e of baseline.entries) if (!inScope.has(e.id)) outcome.unjudged.push(e);
  return { results: out, outcome };
}

/** One line per stale entry: what to delete, and why. */
export function staleLines(outcome: BaselineOutcome): string[] {
  return outcome.stale.map((e) => `stale baseline: ${e.listedAs ?? e.id} now passes; delete its entry from ${outcome.file} (it said: ${e.reason})`);
}

/** A baseline written from a report: every failed or warned requirement, its first failure message as the reason. */
export function baselineFromResults(results: readonly Pick<RequirementResult, 'id' | 'status' | 'reason' | 'baselineReason'>[], target?: string): string {
  const entries = results
    .filter((r) => r.status === 'fail' || r.status === 'warn' || r.status === 'expected-fail')
    .map((r) => ({ id: r.id, reason: r.baselineReason ?? firstLine(r.reason) ?? 'failed' }));
  const doc = { ...(target ? { target } : {}), expectedFailures: entries };
  return `# Expected failures: IDs this target is known to fail. A listed ID that passes makes the run fail until it is deleted.\n${YAML.stringify(doc, { lineWidth: 0 })}`;
}

function firstLine(text: string | undefined): string | undefined {
  const line = text?.split('\n')[0]?.trim();
  return line ? line.slice(0, 300) : undefined;
}

// A judge entry point: a function a test (or the proxy) calls to judge an exchange, carrying the requirement IDs it
// can record beside it, as data. A test declares the entry points it calls (`req('TOOL-006', judges(judgeStream))`
// in the suite), so which tests can record an ID is known without running them: the selection of a partial run and
// spec/REQUIREMENTS.md read it from the suite's index (run/test-index/), and the Checker refuses a record outside
// a test's index (its declared IDs and its entry points' IDs).
import { isKnownRequirement, primaryOf } from '../spec/requirements/index.ts';

/** The annotation type naming a judge entry point a test declares (its description is the function's name). */
export const JUDGE_ANNOTATION = 'judge';

export interface JudgeEntry {
  /** The function's name: how a test's declaration names it in a listing of the suite. */
  readonly name: string;
  /** Every requirement ID (primary) the function can record, whatever the exchange. */
  readonly ids: readonly string[];
  /** The IDs it records itself (the rest, through the entry points it calls). */
  readonly own: readonly string[];
}

/** A judge function with its IDs. */
export type Judge<F> = F & JudgeEntry;

/** IDs, or entry points whose IDs a composed entry point records too (it calls them). */
export type IdSource = string | JudgeEntry | readonly IdSource[];

/** The primary IDs of sources, once each, sorted. */
export function idsOf(...sources: readonly IdSource[]): string[] {
  const out = new Set<string>();
  const add = (s: IdSource): void => {
    if (typeof s === 'string') {
      if (!isKnownRequirement(s)) throw new Error(`a judge entry point names an unknown requirement ID ${s}`);
      out.add(primaryOf(s));
    } else if (Array.isArray(s)) for (const x of s as readonly IdSource[]) add(x);
    else for (const id of (s as JudgeEntry).ids) out.add(id);
  };
  sources.forEach(add);
  return [...out].sort();
}

/**
 * Declares an entry point: `export const judgeStream = entryPoint([STREAM_IDS, 'CHAT-005'], function judgeStream(...) {...})`.
 * An ID the caller passes (a `statusId`, the `id` of a refusal) is the calling test's to declare, not the function's.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any function: its own signature is kept as it is
export function entryPoint<F extends (...args: any[]) => any>(ids: IdSource, fn: F): Judge<F> {
  if (!fn.name) throw new Error('a judge entry point is a named function');
  const own = (s: IdSource): string[] => (typeof s === 'string' ? [s] : Array.isArray(s) ? (s as readonly IdSource[]).flatMap(own) : []);
  Object.defineProperty(fn, 'own', { value: Object.freeze(idsOf(own(ids))), enumerable: true });
  return Object.defineProperty(fn, 'ids', { value: Object.freeze(idsOf(ids)), enumerable: true }) as Judge<F>;
}

export function isJudgeEntry(v: unknown): v is JudgeEntry {
  return typeof v === 'function' && Array.isArray((v as { ids?: unknown }).ids);
}

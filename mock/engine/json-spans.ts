// Fairness, not contract: where the items of the large array of a request body sit in its JSON text, so that the serving thread can decode
// a large body a slice of items per turn of the event loop instead of in one pass (mock/engine/checked-bodies.ts).
// Run by the worker that has already parsed the text, on text it knows to be valid JSON: one linear pass.
import { CLOSE_BRACE, CLOSE_BRACKET, OPEN_BRACE, OPEN_BRACKET, QUOTE, stringEnd } from './json-depth.ts';

const COMMA = 0x2c;

const isSpace = (c: number): boolean => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

function skipSpace(text: string, i: number): number {
  while (i < text.length && isSpace(text.charCodeAt(i))) i++;
  return i;
}

/** The index just past the JSON value that starts at `i` (valid JSON assumed). */
function valueEnd(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c === QUOTE) return stringEnd(text, i) + 1;
  if (c === OPEN_BRACE || c === OPEN_BRACKET) {
    let depth = 0;
    for (; i < text.length; i++) {
      const d = text.charCodeAt(i);
      if (d === QUOTE) i = stringEnd(text, i);
      else if (d === OPEN_BRACE || d === OPEN_BRACKET) depth++;
      else if ((d === CLOSE_BRACE || d === CLOSE_BRACKET) && --depth === 0) return i + 1;
    }
    return text.length;
  }
  // A number, true, false or null: up to the next delimiter.
  while (i < text.length) {
    const d = text.charCodeAt(i);
    if (d === COMMA || d === CLOSE_BRACE || d === CLOSE_BRACKET || isSpace(d)) break;
    i++;
  }
  return i;
}

/** Where the largest array of a request body sits, and its items cut into runs (arrayItemRuns). */
export interface ArrayRuns {
  /** the top-level key whose value it is */
  key: string;
  /** its brackets included */
  start: number;
  end: number;
  /** [start, end) of each run's text: consecutive items and the commas between them */
  runs: number[];
}

/**
 * The largest array value among the top-level keys of a JSON object text, when it has at least `sliceChars`
 * characters: where it sits, and its items cut into runs of consecutive items of about `sliceChars` characters (an
 * item longer than that is a run of its own). Undefined for anything else, and for an object that names a key twice
 * (JSON.parse keeps the last one: decoding a slice of another would not give the same value).
 */
export function arrayItemRuns(text: string, sliceChars: number): ArrayRuns | undefined {
  let i = skipSpace(text, 0);
  if (text.charCodeAt(i) !== OPEN_BRACE) return undefined;
  const names = new Set<string>();
  let largest: { key: string; start: number; end: number } | undefined;
  i = skipSpace(text, i + 1);
  while (i < text.length && text.charCodeAt(i) !== CLOSE_BRACE) {
    const keyEnd = stringEnd(text, i) + 1;
    const key = JSON.parse(text.slice(i, keyEnd)) as string;
    if (names.has(key)) return undefined;
    names.add(key);
    i = skipSpace(text, skipSpace(text, keyEnd) + 1);
    const end = valueEnd(text, i);
    if (text.charCodeAt(i) === OPEN_BRACKET && end - i >= sliceChars && end - i > (largest ? largest.end - largest.start : 0)) largest = { key, start: i, end };
    i = skipSpace(text, end);
    if (text.charCodeAt(i) === COMMA) i = skipSpace(text, i + 1);
  }
  return largest && { key: largest.key, ...runsOf(text, largest.start, sliceChars) };
}

function runsOf(text: string, open: number, sliceChars: number): { start: number; end: number; runs: number[] } {
  const runs: number[] = [];
  let runStart = -1;
  let runEnd = -1;
  let i = skipSpace(text, open + 1);
  while (i < text.length && text.charCodeAt(i) !== CLOSE_BRACKET) {
    const itemEnd = valueEnd(text, i);
    if (runStart < 0) runStart = i;
    runEnd = itemEnd;
    if (runEnd - runStart >= sliceChars) {
      runs.push(runStart, runEnd);
      runStart = -1;
    }
    i = skipSpace(text, itemEnd);
    if (text.charCodeAt(i) === COMMA) i = skipSpace(text, i + 1);
  }
  if (runStart >= 0) runs.push(runStart, runEnd);
  return { start: open, end: i + 1, runs };
}

// The mock's token model and its deterministic randomness.
//
// Token counting, used everywhere (caps, usage): a token is either a maximal run of ASCII non-whitespace
// characters, or one single non-ASCII, non-whitespace code point (each CJK character and each emoji is one
// token). Whitespace belongs to the token before it. Splitting a text into tokens and joining them gives the
// text back.

const TOKEN_RE = /\s+|[\x21-\x7e]+\s*|[^\s\x00-\x7f]\s*/gu;

/** Splits text into tokens (leading whitespace, if any, is its own piece and is not counted). */
export function tokenize(text: string): string[] {
  return text.match(TOKEN_RE) ?? [];
}

/** Code units JavaScript's `\s` matches beyond ASCII (WhiteSpace and LineTerminator of ECMA-262). */
const isUnicodeSpace = (c: number): boolean =>
  c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;

/**
 * Number of tokens in a text under the mock's definition: the count of the non-whitespace pieces `tokenize` gives,
 * read off the text in one pass without splitting it (it runs on every message of every request): a run of
 * visible ASCII counts once, any other non-whitespace code point once each, whitespace and ASCII controls never.
 */
export function countTokens(text: string): number {
  let n = 0;
  let inAsciiRun = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) {
      const visible = c >= 0x21 && c <= 0x7e;
      if (visible && !inAsciiRun) n++;
      inAsciiRun = visible;
      continue;
    }
    inAsciiRun = false;
    if (isUnicodeSpace(c)) continue;
    n++;
    // A surrogate pair is one code point.
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
  }
  return n;
}

const FNV_OFFSET = 0x811c9dc5;

/** FNV-1a, 32 bits, over the UTF-16 code units of a string. */
export function fnv1a(text: string, seed = FNV_OFFSET): number {
  let h = seed >>> 0;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

const fnvCode = (h: number, code: number): number => Math.imul(h ^ code, 0x01000193) >>> 0;

/** Whether JSON.stringify(s) is s in quotes: no quote, backslash, control character or lone surrogate in it. */
function isPlainJsonString(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c === 0x22 || c === 0x5c) return false;
    if (c >= 0xd800 && c <= 0xdfff) {
      const d = i + 1 < s.length ? s.charCodeAt(i + 1) : 0;
      if (c >= 0xdc00 || d < 0xdc00 || d > 0xdfff) return false;
      i++;
    }
  }
  return true;
}

/** FNV-1a over JSON.stringify(s), written out only when it is not s in quotes. */
function fnvJsonString(h: number, s: string): number {
  if (!isPlainJsonString(s)) return fnv1a(JSON.stringify(s), h);
  return fnvCode(fnv1a(s, fnvCode(h, 0x22)), 0x22);
}

/**
 * fnv1a(stableStringify(value)), the same number, without building the text: the seed of every request is this
 * hash of its canonical JSON, and building the text was most of the seed's time and garbage.
 */
export function stableHash(value: unknown, h = FNV_OFFSET): number {
  if (typeof value === 'string') return fnvJsonString(h, value);
  if (value === null || typeof value !== 'object') return fnv1a(JSON.stringify(value) ?? 'null', h);
  if (Array.isArray(value)) {
    h = fnvCode(h, 0x5b);
    for (let i = 0; i < value.length; i++) h = stableHash(value[i], i === 0 ? h : fnvCode(h, 0x2c));
    return fnvCode(h, 0x5d);
  }
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj).sort();
  h = fnvCode(h, 0x7b);
  let first = true;
  for (const k of keys) {
    const v = obj[k];
    if (v === undefined) continue;
    if (!first) h = fnvCode(h, 0x2c);
    first = false;
    h = stableHash(v, fnvCode(fnvJsonString(h, k), 0x3a));
  }
  return fnvCode(h, 0x7d);
}

/** A 64-bit-ish hex digest (two FNV passes), for ids and cache keys. */
export function digest(text: string): string {
  const a = fnv1a(text).toString(16).padStart(8, '0');
  const b = fnv1a(text, 0x12345678 ^ text.length).toString(16).padStart(8, '0');
  return a + b;
}

/** Deterministic PRNG (mulberry32). */
export function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Stable JSON (sorted keys) so that the hash of a request does not depend on key order. */
export function stableStringify(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  // Plain loops rather than map/filter/join chains: this runs on every request (its seed), and the chains'
  // closures and intermediate arrays were most of its time.
  if (Array.isArray(value)) {
    // Arrays of scalars (enums, long lists) in one native call: the same text, a fraction of the time.
    if (value.every((v) => v === null || typeof v !== 'object')) return JSON.stringify(value.map((v) => (v === undefined ? null : v)));
    let out = '[';
    for (let i = 0; i < value.length; i++) out += (i === 0 ? '' : ',') + stableStringify(value[i]);
    return `${out}]`;
  }
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj).sort();
  let out = '{';
  for (const k of keys) {
    const v = obj[k];
    if (v === undefined) continue;
    out += `${out.length === 1 ? '' : ','}${JSON.stringify(k)}:${stableStringify(v)}`;
  }
  return `${out}}`;
}

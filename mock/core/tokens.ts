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

/** Number of tokens in a text under the mock's definition. */
export function countTokens(text: string): number {
  let n = 0;
  for (const t of tokenize(text)) if (!/^\s+$/u.test(t)) n++;
  return n;
}

/** FNV-1a, 32 bits, over the UTF-16 code units of a string. */
export function fnv1a(text: string, seed = 0x811c9dc5): number {
  let h = seed >>> 0;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
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

// Deterministic answer text: derived from a seed (the hash of the request), with CJK and emoji in it.
import { prng } from './tokens.ts';

const WORDS = [
  'the', 'mock', 'answers', 'every', 'request', 'with', 'a', 'deterministic', 'reply', 'built', 'from', 'its',
  'messages', 'so', 'tests', 'can', 'compare', 'bytes', 'stream', 'chunk', 'token', 'model', 'catalog', 'route',
  'search', 'result', 'clear', 'quiet', 'river', 'mountain', 'signal', 'window', 'budget', 'careful', 'steady',
  'green', 'bright', 'small', 'large', 'fast', 'simple', 'honest', 'useful', 'exact', 'gentle', 'north', 'south',
];
/** Single-code-point non-ASCII tokens: CJK (BMP) and emoji (astral, two UTF-16 units). */
const CJK = ['你', '好', '世', '界', '模', '型', '回', '答', '東', '京', '雨', '山'];
const CJK_SET: ReadonlySet<string> = new Set(CJK);
const EMOJI = ['🚀', '✨', '🌏', '🙂', '📦', '🔎'];

const DEFAULT_OPENER = 'Mock answer:';
const DEFAULT_OPENER_WORDS = DEFAULT_OPENER.split(' ');
/** Every token of the vocabulary with its trailing space, made once (an answer has 40-80 of them). */
const SPACED: ReadonlyMap<string, string> = new Map([...WORDS, ...CJK, ...EMOJI, ...DEFAULT_OPENER_WORDS].map((t) => [t, `${t} `]));

/** Default answer length: between 40 and 80 tokens, chosen by the seed. */
export function defaultLength(seed: number): number {
  return 40 + (seed % 41);
}

/**
 * `count` tokens of answer text, each token including its trailing space (the last one has none).
 * Token 2 is a CJK run start, token 5 an emoji, so even short answers carry non-ASCII text.
 */
export function answerTokens(seed: number, count: number, opener = DEFAULT_OPENER): string[] {
  const rnd = prng(seed);
  const out: string[] = [];
  const openerWords = opener === DEFAULT_OPENER ? DEFAULT_OPENER_WORDS : opener.split(' ').filter(Boolean);
  for (let i = 0; i < count; i++) {
    let tok: string;
    if (i < openerWords.length) tok = openerWords[i]!;
    else if (i === openerWords.length || i === openerWords.length + 1) tok = CJK[Math.floor(rnd() * CJK.length)]!;
    else if (i === openerWords.length + 4 || rnd() < 0.06) tok = EMOJI[Math.floor(rnd() * EMOJI.length)]!;
    else if (rnd() < 0.1) tok = CJK[Math.floor(rnd() * CJK.length)]!;
    else tok = WORDS[Math.floor(rnd() * WORDS.length)]!;
    out.push(tok);
  }
  // CJK characters are written without spaces between them; everything else is space-separated (in place: this
  // runs on every answer).
  for (let i = 0; i < out.length - 1; i++) {
    const t = out[i]!;
    if (!(CJK_SET.has(t) && CJK_SET.has(out[i + 1]!))) out[i] = SPACED.get(t) ?? `${t} `;
  }
  return out;
}

/** Reasoning text: ASCII words, `count` tokens. */
export function reasoningTokens(seed: number, count: number): string[] {
  const rnd = prng(seed ^ 0x5bd1e995);
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    const w = i === 0 ? 'Thinking:' : WORDS[Math.floor(rnd() * WORDS.length)]!;
    out.push(i === count - 1 ? w : `${w} `);
  }
  return out;
}

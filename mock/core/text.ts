// Deterministic answer text: derived from a seed (the hash of the request), with CJK and emoji in it.
import { prng } from '../engine/tokens.ts';

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

/** Each word with its trailing space, made once per vocabulary (an answer has 40-80 tokens). */
const spaced = (words: readonly string[]): string[] => words.map((w) => `${w} `);
const WORDS_SPACED = spaced(WORDS);
const CJK_SPACED = spaced(CJK);
const EMOJI_SPACED = spaced(EMOJI);
const DEFAULT_OPENER_SPACED = spaced(DEFAULT_OPENER_WORDS);

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
  const custom = opener !== DEFAULT_OPENER;
  const openerWords = custom ? opener.split(' ').filter(Boolean) : DEFAULT_OPENER_WORDS;
  const openerSpaced = custom ? spaced(openerWords) : DEFAULT_OPENER_SPACED;
  const n = openerWords.length;
  const out: string[] = [];
  // CJK characters are written without spaces between them; everything else is space-separated. So a token is
  // written plain, and given its space once the next one is chosen, unless both are CJK. (Tables by index rather
  // than lookups by string: this runs on every answer.)
  let lastSpaced = '';
  let lastCjk = false;
  for (let i = 0; i < count; i++) {
    let table: readonly string[];
    let spacedTable: readonly string[];
    let k: number;
    if (i < n) {
      table = openerWords;
      spacedTable = openerSpaced;
      k = i;
    } else if (i === n || i === n + 1) {
      table = CJK;
      spacedTable = CJK_SPACED;
      k = Math.floor(rnd() * CJK.length);
    } else if (i === n + 4 || rnd() < 0.06) {
      table = EMOJI;
      spacedTable = EMOJI_SPACED;
      k = Math.floor(rnd() * EMOJI.length);
    } else if (rnd() < 0.1) {
      table = CJK;
      spacedTable = CJK_SPACED;
      k = Math.floor(rnd() * CJK.length);
    } else {
      table = WORDS;
      spacedTable = WORDS_SPACED;
      k = Math.floor(rnd() * WORDS.length);
    }
    const tok = table[k]!;
    const cjk = table === CJK || (custom && table === openerWords && CJK_SET.has(tok));
    if (i > 0 && !(lastCjk && cjk)) out[i - 1] = lastSpaced;
    out.push(tok);
    lastSpaced = spacedTable[k]!;
    lastCjk = cjk;
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

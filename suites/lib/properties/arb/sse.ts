// Arbitraries of section 6 streams, and the law the framing properties state about them.
//
// A generated stream is a list of events, each a payload (multi-byte characters, newlines that become several
// `data:` lines, `data:` with or without its space) with comment lines anywhere; framed with LF, CRLF or a mix
// of both, with or without the final blank line (or even the last line ending); then cut into network chunks at
// arbitrary byte offsets, inside UTF-8 sequences and between CR and LF. The law: the consumer yields exactly the
// generated payloads. `framingLaw` states it once, for the conformance property (suites/properties) and for the
// unit test that shows a broken consumer is caught (tests/unit/sse-properties.spec.ts).
import fc from 'fast-check';
import { isDeepStrictEqual } from 'node:util';
import { encodeStream, FRAMINGS, type Framing } from '../../../../mock/index.ts';

const utf8 = new TextEncoder();

// ---------------------------------------------------------------------------------------------------------
// Payloads

/** Multi-byte characters worth having often: 2-, 3- and 4-byte UTF-8, a ZWJ sequence, a combining mark. */
const MULTI_BYTE = ['é', 'ß', 'ж', '€', '東', '京', '\u2028', '\u00a0', '\ufeff', '😀', '👩‍💻', 'e\u0301', '𝄞'];

/**
 * One character of a payload: mostly ASCII, often multi-byte, sometimes a newline (which makes one more `data:`
 * line). Never CR: CR ends a line in SSE, so no payload can carry it.
 */
export const payloadChar: fc.Arbitrary<string> = fc.oneof(
  // Shrinks across kinds towards ASCII, so a minimal case keeps a newline or a multi-byte character only when the fault needs it.
  { withCrossShrink: true },
  { weight: 6, arbitrary: fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 1 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }).filter((c) => !c.includes('\r')) },
  { weight: 3, arbitrary: fc.constantFrom(...MULTI_BYTE) },
  { weight: 2, arbitrary: fc.constant('\n') },
);

/** A non-empty payload (an empty data buffer dispatches no event in SSE, so no stream can carry one). */
export const ssePayload: fc.Arbitrary<string> = fc.string({ unit: payloadChar, minLength: 1, maxLength: 24 });

/** The text of a comment line (after its colon): anything but a line ending. */
export const commentText: fc.Arbitrary<string> = fc.string({ unit: payloadChar.filter((c) => c !== '\n'), maxLength: 10 });

// ---------------------------------------------------------------------------------------------------------
// Events and framing

export type SseLine = { kind: 'data'; text: string; /** `data:` without the optional space */ tight: boolean } | { kind: 'comment'; text: string };

export interface SseEventSpec {
  payload: string;
  /** The lines that carry it: one `data:` line per payload line, comment lines in between. */
  lines: SseLine[];
}

/** One event: its payload's lines as `data:` lines (with or without the space), comment lines anywhere among them. */
export const sseEvent: fc.Arbitrary<SseEventSpec> = fc
  .record({
    payload: ssePayload,
    tight: fc.array(fc.boolean(), { maxLength: 6 }),
    comments: fc.array(fc.tuple(fc.nat({ max: 8 }), commentText), { maxLength: 2 }),
  })
  .map(({ payload, tight, comments }) => {
    const lines: SseLine[] = payload.split('\n').map((text, i) => ({
      kind: 'data',
      text,
      // A value that starts with a space needs the separating space: the consumer strips exactly one.
      tight: !text.startsWith(' ') && (tight[i] ?? false),
    }));
    for (const [at, text] of comments) lines.splice(at % (lines.length + 1), 0, { kind: 'comment', text });
    return { payload, lines };
  });

export type LineEndings = 'lf' | 'crlf' | 'mixed';
/** blank: the final event ends with its blank line; no-blank: without it; no-eol: not even its last line ending. */
export type StreamEnd = 'blank' | 'no-blank' | 'no-eol';

export interface SseFraming {
  endings: LineEndings;
  /** For mixed endings: which line endings are CRLF, cyclically. */
  crlfPattern: boolean[];
  end: StreamEnd;
}

/** LF, CRLF or both mixed line by line; with or without the final blank line. Shrinks towards LF and a blank line. */
export const sseFraming: fc.Arbitrary<SseFraming> = fc.record({
  endings: fc.constantFrom<LineEndings>('lf', 'crlf', 'mixed'),
  crlfPattern: fc.array(fc.boolean(), { minLength: 1, maxLength: 8 }),
  end: fc.constantFrom<StreamEnd>('blank', 'no-blank', 'no-eol'),
});

/** The text of a stream: every line with its line ending, a blank line after every event (the last one per `end`). */
export function frameEvents(events: readonly SseEventSpec[], f: SseFraming): string {
  let n = 0;
  const eol = (): string => {
    const i = n++;
    if (f.endings === 'lf') return '\n';
    if (f.endings === 'crlf') return '\r\n';
    return f.crlfPattern[i % f.crlfPattern.length] ? '\r\n' : '\n';
  };
  let out = '';
  events.forEach((e, i) => {
    const last = i === events.length - 1;
    e.lines.forEach((line, j) => {
      out += line.kind === 'comment' ? `:${line.text}` : `data:${line.tight ? '' : ' '}${line.text}`;
      if (!(last && j === e.lines.length - 1 && f.end === 'no-eol')) out += eol();
    });
    if (!last || f.end === 'blank') out += eol();
  });
  return out;
}

export interface FramedStream {
  events: SseEventSpec[];
  framing: SseFraming;
  text: string;
  bytes: Uint8Array;
}

export const framedStream: fc.Arbitrary<FramedStream> = fc
  .record({ events: fc.array(sseEvent, { minLength: 1, maxLength: 6 }), framing: sseFraming })
  .map(({ events, framing }) => {
    const text = frameEvents(events, framing);
    return { events, framing, text, bytes: utf8.encode(text) };
  });

// ---------------------------------------------------------------------------------------------------------
// Network chunking

const isContinuation = (b: number | undefined): boolean => b !== undefined && (b & 0xc0) === 0x80;

/** Offsets that cut a multi-byte UTF-8 character in two. */
export function offsetsInsideCharacters(bytes: Uint8Array): number[] {
  const out: number[] = [];
  for (let i = 1; i < bytes.length; i++) if (isContinuation(bytes[i])) out.push(i);
  return out;
}

/** Offsets between a CR and the LF that follows it. */
export function offsetsInsideCrLf(bytes: Uint8Array): number[] {
  const out: number[] = [];
  for (let i = 1; i < bytes.length; i++) if (bytes[i - 1] === 13 && bytes[i] === 10) out.push(i);
  return out;
}

export type ChunkMode = 'whole' | 'random' | 'inside-characters' | 'inside-crlf' | 'bytewise';

/**
 * How the network cuts a body, independent of the body (so the two shrink independently): the whole body at
 * once, one byte per read, arbitrary offsets, inside multi-byte characters, or between CR and LF. `picks`
 * choose among the candidate offsets of the mode; `cutsFor` resolves a plan against the bytes.
 */
export interface ChunkPlan {
  mode: ChunkMode;
  picks: number[];
}

export const networkChunking: fc.Arbitrary<ChunkPlan> = fc.record({
  mode: fc.oneof(
    { withCrossShrink: true },
    { weight: 1, arbitrary: fc.constant<ChunkMode>('whole') },
    { weight: 4, arbitrary: fc.constant<ChunkMode>('random') },
    { weight: 3, arbitrary: fc.constant<ChunkMode>('inside-characters') },
    { weight: 3, arbitrary: fc.constant<ChunkMode>('inside-crlf') },
    { weight: 1, arbitrary: fc.constant<ChunkMode>('bytewise') },
  ),
  picks: fc.array(fc.nat(), { minLength: 1, maxLength: 12 }),
});

/** The sorted byte offsets in (0, length) where the network cuts `bytes` under `plan`. */
export function cutsFor(bytes: Uint8Array, plan: ChunkPlan): number[] {
  const len = bytes.length;
  if (len < 2 || plan.mode === 'whole') return [];
  if (plan.mode === 'bytewise') return Array.from({ length: len - 1 }, (_, i) => i + 1);
  const candidates =
    plan.mode === 'inside-characters' ? offsetsInsideCharacters(bytes) : plan.mode === 'inside-crlf' ? offsetsInsideCrLf(bytes) : [];
  const pick = candidates.length > 0 ? (p: number) => candidates[p % candidates.length]! : (p: number) => 1 + (p % (len - 1));
  return [...new Set(plan.picks.map(pick))].sort((a, b) => a - b);
}

/** The network chunks a body arrives in, given the cut offsets. */
export function cutAt(bytes: Uint8Array, cuts: readonly number[]): Uint8Array[] {
  const out: Uint8Array[] = [];
  let from = 0;
  for (const c of cuts) {
    out.push(bytes.subarray(from, c));
    from = c;
  }
  out.push(bytes.subarray(from));
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// The law

/** Decodes a body given as network chunks into the payloads of its events, in order. */
export type Decode = (chunks: Uint8Array[]) => string[];

/** One judgement of a case, charged to the requirement whose feature the case exercised. */
export interface Verdict {
  id: string;
  ok: boolean;
  message: string;
}

/** What a case exercises, each tied to the consumer requirement of section 6 it tests. */
export interface FramingFeatures {
  /** STREAM-006: an event spread over several data: lines. */
  multiLine: boolean;
  /** STREAM-008: CRLF line endings (alone or mixed with LF). */
  crlf: boolean;
  /** STREAM-011: the final event lacks its blank line. */
  noFinalBlank: boolean;
  /** STREAM-014: a network cut inside a multi-byte character. */
  splitCharacter: boolean;
  /** (STREAM-008) a network cut between a CR and its LF. */
  splitCrLf: boolean;
}

export const FEATURE_IDS = { multiLine: 'STREAM-006', crlf: 'STREAM-008', noFinalBlank: 'STREAM-011', splitCharacter: 'STREAM-014' } as const;
export const CONSUMER_IDS: string[] = Object.values(FEATURE_IDS);

/** The requirements a case exercises; a case with none of the features tests the baseline all four rest on. */
export function idsExercised(f: FramingFeatures): string[] {
  const ids = (Object.keys(FEATURE_IDS) as (keyof typeof FEATURE_IDS)[]).filter((k) => f[k]).map((k) => FEATURE_IDS[k]);
  return ids.length > 0 ? ids : CONSUMER_IDS;
}

/** Compares decoded payloads with the expected ones; undefined when equal, else what differs. */
export function payloadMismatch(expected: readonly string[], decode: () => string[], same: (a: string, b: string) => boolean = (a, b) => a === b): string | undefined {
  let got: string[];
  try {
    got = decode();
  } catch (err) {
    return `the consumer threw: ${err instanceof Error ? err.message : String(err)}`;
  }
  const n = Math.max(expected.length, got.length);
  for (let i = 0; i < n; i++) {
    const e = expected[i];
    const g = got[i];
    if (e === undefined || g === undefined || !same(e, g)) {
      return (
        `expected ${expected.length} payload(s), decoded ${got.length}; first difference at event ${i}: ` +
        `expected ${e === undefined ? 'no event' : JSON.stringify(e)}, decoded ${g === undefined ? 'no event' : JSON.stringify(g)}`
      );
    }
  }
  return undefined;
}

export interface FramingCase extends FramedStream {
  chunking: ChunkPlan;
  cuts: number[];
}

/** A framed stream and the network cuts it arrives with. */
export const framingCase: fc.Arbitrary<FramingCase> = fc
  .record({ stream: framedStream, chunking: networkChunking })
  .map(({ stream, chunking }) => ({ ...stream, chunking, cuts: cutsFor(stream.bytes, chunking) }));

export function framingFeatures(c: FramingCase): FramingFeatures {
  const cutSet = new Set(c.cuts);
  return {
    multiLine: c.events.some((e) => e.lines.filter((l) => l.kind === 'data').length > 1),
    crlf: c.text.includes('\r\n'),
    noFinalBlank: c.framing.end !== 'blank',
    splitCharacter: offsetsInsideCharacters(c.bytes).some((o) => cutSet.has(o)),
    splitCrLf: offsetsInsideCrLf(c.bytes).some((o) => cutSet.has(o)),
  };
}

/** The law: the consumer yields exactly the generated payloads, judged once per requirement the case exercises. */
export function framingLaw(c: FramingCase, decode: Decode): Verdict[] {
  const mismatch = payloadMismatch(
    c.events.map((e) => e.payload),
    () => decode(cutAt(c.bytes, c.cuts)),
  );
  return idsExercised(framingFeatures(c)).map((id) => ({ id, ok: mismatch === undefined, message: mismatch ?? '' }));
}

/** A string as a JSON literal with everything outside printable ASCII escaped (a no-break space is not a space). */
export function literal(s: string): string {
  return JSON.stringify(s).replace(/[^\x20-\x7e]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

export function describeFramingCase(c: FramingCase): string {
  const f = framingFeatures(c);
  const features = (Object.keys(f) as (keyof FramingFeatures)[]).filter((k) => f[k]);
  return [
    `body ${literal(c.text)} (${c.bytes.length} bytes; ${c.framing.endings}, end ${c.framing.end}${features.length ? `; ${features.join(', ')}` : ''})`,
    `cut at byte offsets [${c.cuts.join(', ')}] (${c.chunking.mode})`,
    `payloads [${c.events.map((e) => literal(e.payload)).join(', ')}]`,
  ].join('\n    ');
}

// ---------------------------------------------------------------------------------------------------------
// The mock's own encoder

/** A chat-chunk-like payload: the fields a chunk has, unicode text with newlines in deltas, arbitrary extra JSON. */
export const chunkPayload: fc.Arbitrary<Record<string, unknown>> = fc.record(
  {
    id: fc.string({ unit: 'grapheme-ascii', maxLength: 12 }),
    object: fc.constant('chat.completion.chunk'),
    created: fc.nat(),
    model: fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 12 }),
    choices: fc.array(fc.record({ index: fc.nat({ max: 2 }), delta: fc.record({ content: fc.string({ unit: payloadChar, maxLength: 16 }) }, { requiredKeys: [] }) }), { maxLength: 2 }),
    extra: fc.jsonValue({ maxDepth: 2, stringUnit: 'grapheme' }),
  },
  { requiredKeys: ['id', 'object', 'created', 'model', 'choices'] },
);

export interface EncoderCase {
  /** Chunks, then the sentinel. */
  payloads: (Record<string, unknown> | '[DONE]')[];
  framing: Framing[];
  text: string;
  bytes: Uint8Array;
  cuts: number[];
}

/**
 * Payloads encoded by the mock's encoder with any set of its framing variants, then cut by the network (one
 * byte per read when the variants include bytewise, as the mock writes them).
 */
export const encoderCase: fc.Arbitrary<EncoderCase> = fc
  .record({ chunks: fc.array(chunkPayload, { maxLength: 5 }), framing: fc.subarray([...FRAMINGS]), chunking: networkChunking })
  .map(({ chunks, framing, chunking }) => {
    const payloads: EncoderCase['payloads'] = [...chunks, '[DONE]'];
    const text = encodeStream(payloads, { framing: new Set(framing) }).join('');
    const bytes = utf8.encode(text);
    const cuts = cutsFor(bytes, framing.includes('bytewise') ? { mode: 'bytewise', picks: [] } : chunking);
    return { payloads, framing, text, bytes, cuts };
  });

export function encoderFeatures(c: EncoderCase): FramingFeatures {
  const cutSet = new Set(c.cuts);
  return {
    multiLine: c.framing.includes('multiline'),
    crlf: c.framing.includes('crlf'),
    noFinalBlank: c.framing.includes('no-final-blank'),
    splitCharacter: offsetsInsideCharacters(c.bytes).some((o) => cutSet.has(o)),
    splitCrLf: offsetsInsideCrLf(c.bytes).some((o) => cutSet.has(o)),
  };
}

/** The mock's stream round-trips: every event decodes to the payload it encoded ([DONE] as is, chunks as equal JSON). */
export function encoderLaw(c: EncoderCase, decode: Decode): Verdict[] {
  const expected = c.payloads.map((p) => (p === '[DONE]' ? p : JSON.stringify(p)));
  const sameJson = (e: string, g: string): boolean => {
    if (e === '[DONE]' || g === '[DONE]') return e === g;
    try {
      return isDeepStrictEqual(JSON.parse(g), JSON.parse(e));
    } catch {
      return false;
    }
  };
  const mismatch = payloadMismatch(expected, () => decode(cutAt(c.bytes, c.cuts)), sameJson);
  return idsExercised(encoderFeatures(c)).map((id) => ({ id, ok: mismatch === undefined, message: mismatch ?? '' }));
}

export function describeEncoderCase(c: EncoderCase): string {
  return [
    `framing [${c.framing.join(', ')}], ${c.payloads.length} payload(s)`,
    `body ${literal(c.text.length > 600 ? `${c.text.slice(0, 600)}…` : c.text)} (${c.bytes.length} bytes)`,
    `cut at byte offsets [${c.cuts.length > 40 ? `${c.cuts.slice(0, 40).join(', ')}, … (${c.cuts.length})` : c.cuts.join(', ')}]`,
  ].join('\n    ');
}

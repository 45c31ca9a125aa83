// Encode stage of a stream (section 6): whole server-sent events. An event is always built complete; a framing
// only changes what section 6 leaves open: line endings (rule 3), data lines (rules 1-2), comment lines, the
// final blank line (rule 5) and how the bytes are cut into network writes (rule 7).
import { chatJson } from '../engine/chat-json.ts';

export type Framing = 'crlf' | 'multiline' | 'comments' | 'bytewise' | 'no-final-blank' | 'no-space';
export const FRAMINGS: readonly Framing[] = ['crlf', 'multiline', 'comments', 'bytewise', 'no-final-blank', 'no-space'];

export type SsePayload = unknown | '[DONE]';

export interface FramingOptions {
  framing?: ReadonlySet<Framing>;
  /** the `event:` name of a payload, when it gets one (none: unnamed events, as clients need) */
  eventNameOf?: (payload: SsePayload) => string | undefined;
  /** events are not separated by a blank line (not SSE: the events run together) */
  noBlankLine?: boolean;
  /** every event also carries `event: message`, `id: <n>` and `retry: 3000` lines (standard SSE fields) */
  sseFields?: boolean;
}

/** The reconnection time announced by `sseFields` (SSE `retry:` field, ms). */
export const SSE_RETRY_MS = 3000;

const encoder = new TextEncoder();
const NO_FRAMING: ReadonlySet<Framing> = new Set();

/** The text of one event: `data: <payload>` line(s) and the blank line (unless `final` and no-final-blank). */
export function encodeEvent(payload: SsePayload, opts: FramingOptions = {}, final = false, index = 0): string {
  const f = opts.framing ?? NO_FRAMING;
  // The plain framing (LF, `data: `, one line, a blank line), which every stream of the clean mock uses; its
  // chunks are written by chatJson (the text of JSON.stringify, in a fraction of the time).
  if (f.size === 0 && opts.eventNameOf === undefined && !opts.sseFields && !opts.noBlankLine) {
    return `data: ${payload === '[DONE]' ? '[DONE]' : chatJson(payload)}\n\n`;
  }
  const eol = f.has('crlf') ? '\r\n' : '\n';
  const prefix = f.has('no-space') ? 'data:' : 'data: ';
  let lines: string[];
  if (payload === '[DONE]') lines = ['[DONE]'];
  else if (f.has('multiline')) {
    // Pretty-printed JSON: the newlines fall between JSON tokens, so joining the data lines with "\n" gives a
    // payload that parses to the same value.
    lines = JSON.stringify(payload, null, 1).split('\n');
  } else lines = [JSON.stringify(payload)];
  const name = opts.eventNameOf?.(payload);
  let text = name !== undefined ? `event: ${name}${eol}` : opts.sseFields ? `event: message${eol}` : '';
  // `message` is the default event type, so standard consumers see the same data; id and retry are legal fields.
  if (opts.sseFields) text += `id: ${index + 1}${eol}retry: ${SSE_RETRY_MS}${eol}`;
  for (const line of lines) {
    // With no-space, a line that starts with a space would lose it: keep the space in that case.
    text += (prefix === 'data:' && line.startsWith(' ') ? 'data: ' : prefix) + line + eol;
  }
  if (!(final && f.has('no-final-blank')) && !opts.noBlankLine) text += eol;
  return text;
}

/** A comment line (keep-alive). */
export function encodeComment(text: string, opts: FramingOptions = {}): string {
  const eol = opts.framing?.has('crlf') ? '\r\n' : '\n';
  return `: ${text}${eol}`;
}

/**
 * The whole body of a stream as text pieces, one per event (comments, when asked, before every event).
 * The last payload is the final event.
 */
export function encodeStream(payloads: SsePayload[], opts: FramingOptions = {}): string[] {
  const out: string[] = [];
  const comments = opts.framing?.has('comments') ?? false;
  if (comments) out.push(encodeComment('mock stream open', opts));
  payloads.forEach((p, i) => {
    const piece = encodeEvent(p, opts, i === payloads.length - 1, i);
    out.push(comments && i > 0 ? encodeComment('keep-alive', opts) + piece : piece);
  });
  return out;
}

/** Cuts an encoded piece into network writes: one write per piece, or one byte per write with bytewise. */
export function toWrites(piece: string, opts: FramingOptions = {}): Uint8Array[] {
  const bytes = encoder.encode(piece);
  if (!opts.framing?.has('bytewise')) return [bytes];
  const out: Uint8Array[] = [];
  for (let i = 0; i < bytes.length; i++) out.push(bytes.subarray(i, i + 1));
  return out;
}

// Encode stage of a stream (section 6): whole server-sent events. An event is always built complete; a framing
// only changes what section 6 leaves open: line endings (rule 3), data lines (rules 1-2), comment lines, the
// final blank line (rule 5) and how the bytes are cut into network writes (rule 7).
import { chatJson } from '../engine/chat-json.ts';

export type Framing = 'crlf' | 'multiline' | 'comments' | 'bytewise' | 'no-final-blank' | 'no-space';
export const FRAMINGS: readonly Framing[] = ['crlf', 'multiline', 'comments', 'bytewise', 'no-final-blank', 'no-space'];

export type SsePayload = unknown | '[DONE]';

export interface FramingOptions {
  framing?: ReadonlySet<Framing>;
}

const encoder = new TextEncoder();
const NO_FRAMING: ReadonlySet<Framing> = new Set();

/** The line ending of a framing. */
// honours: STREAM-007
export const eolOf = (opts: FramingOptions): string => (opts.framing?.has('crlf') ? '\r\n' : '\n');

/** Whether an event ends with its blank line: always, but for the final one under no-final-blank. */
// honours: STREAM-010
export const endsWithBlankLine = (opts: FramingOptions, final: boolean): boolean => !(final && opts.framing?.has('no-final-blank'));

/** The text of one event: `data: <payload>` line(s) and the blank line (unless `final` and no-final-blank). */
// honours: STREAM-002, STREAM-009 (data lines only, no named events; a blank line after each event)
export function encodeEvent(payload: SsePayload, opts: FramingOptions = {}, final = false): string {
  const f = opts.framing ?? NO_FRAMING;
  // The plain framing (LF, `data: `, one line, a blank line), which every stream of the clean mock uses; its
  // chunks are written by chatJson (the text of JSON.stringify, in a fraction of the time).
  if (f.size === 0) return `data: ${payload === '[DONE]' ? '[DONE]' : chatJson(payload)}\n\n`;
  const eol = eolOf(opts);
  const prefix = f.has('no-space') ? 'data:' : 'data: ';
  let lines: string[];
  if (payload === '[DONE]') lines = ['[DONE]'];
  // honours: STREAM-005
  else if (f.has('multiline')) {
    // Pretty-printed JSON: the newlines fall between JSON tokens, so joining the data lines with "\n" gives a
    // payload that parses to the same value.
    lines = JSON.stringify(payload, null, 1).split('\n');
  } else lines = [JSON.stringify(payload)];
  let text = '';
  for (const line of lines) {
    // With no-space, a line that starts with a space would lose it: keep the space in that case.
    text += (prefix === 'data:' && line.startsWith(' ') ? 'data: ' : prefix) + line + eol;
  }
  if (endsWithBlankLine(opts, final)) text += eol;
  return text;
}

/** A comment line (keep-alive). */
export function encodeComment(text: string, opts: FramingOptions = {}): string {
  return `: ${text}${eolOf(opts)}`;
}

/** How one event of a stream is written (`index`: its position; `final`: the last one). */
export type EventEncoder = (payload: SsePayload, final: boolean, index: number) => string;

/**
 * The whole body of a stream as text pieces, one per event (comments, when asked, before every event).
 * The last payload is the final event.
 */
export function encodeStream(payloads: SsePayload[], opts: FramingOptions = {}, event: EventEncoder = (p, final) => encodeEvent(p, opts, final)): string[] {
  const out: string[] = [];
  const comments = opts.framing?.has('comments') ?? false;
  if (comments) out.push(encodeComment('mock stream open', opts));
  payloads.forEach((p, i) => {
    const piece = event(p, i === payloads.length - 1, i);
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

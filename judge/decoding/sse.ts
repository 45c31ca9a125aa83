// The one reference consumer of section 6 server-sent events. The suite, the property tests and the
// mock's own tests all decode streams through this module; nothing else in the kit parses SSE.
//
// Framing is eventsource-parser's (LF, CRLF and CR line endings, several `data:` lines joined with "\n",
// comment lines). What it does not do by itself, this module adds:
// - incremental UTF-8 decoding across network chunks (a character split between two reads);
// - consuming a final event that arrives without its terminating blank line (section 6 rule 5;
//   eventsource-parser, like browsers, drops it);
// - a CR at the end of one chunk and its LF at the start of the next are one line ending, not two.
import { createParser, type EventSourceParser } from 'eventsource-parser';

export interface SseEvent {
  data: string;
  /** Present only when the server named the event (`event:` line); chat streams use unnamed events. */
  event?: string;
  id?: string;
}

export interface SseDecoderHooks {
  onEvent: (event: SseEvent) => void;
  onComment?: (comment: string) => void;
  /** A line the SSE grammar does not know, e.g. a payload without the `data:` prefix. */
  onUnknownLine?: (line: string) => void;
  /** A `retry:` field: legal SSE (a reconnection delay), carries no data. */
  onRetry?: (ms: number) => void;
}

export class SseDecoder {
  private readonly parser: EventSourceParser;
  private readonly utf8 = new TextDecoder('utf-8', { fatal: true });
  private pendingCr = false;
  private ended = false;

  constructor(hooks: SseDecoderHooks | ((event: SseEvent) => void)) {
    const h = typeof hooks === 'function' ? { onEvent: hooks } : hooks;
    this.parser = createParser({
      onEvent: (e) => {
        const event: SseEvent = { data: e.data };
        if (e.event !== undefined) event.event = e.event;
        if (e.id !== undefined) event.id = e.id;
        h.onEvent(event);
      },
      onComment: h.onComment,
      onRetry: (ms) => h.onRetry?.(ms),
      onError: (err) => {
        // Unknown fields are reported, not fatal: the spec's events are `data:` lines, and a target that
        // sends anything else is judged by the checks, not by a crash of the decoder.
        if (err.type === 'unknown-field') h.onUnknownLine?.(err.line ?? `${err.field ?? ''}:${err.value ?? ''}`);
        else throw err;
      },
    });
  }

  /** Feed one network chunk. Throws a TypeError on bytes that are not valid UTF-8. */
  feed(chunk: Uint8Array | string): void {
    if (this.ended) throw new Error('SseDecoder: feed() after end()');
    const text = typeof chunk === 'string' ? chunk : this.utf8.decode(chunk, { stream: true });
    this.feedText(text);
  }

  /** End of body: flush a partial UTF-8 sequence (an error) and consume a final event that lacks its blank line. */
  end(): void {
    if (this.ended) return;
    const rest = this.utf8.decode(); // throws if the body ended inside a multi-byte character
    if (rest) this.feedText(rest);
    // Two line feeds complete whatever the body left open: a last line without its line ending, and the
    // blank line that dispatches the final event. After a complete body they dispatch nothing.
    this.parser.feed((this.pendingCr ? '\r' : '') + '\n\n');
    this.pendingCr = false;
    this.ended = true;
  }

  private feedText(text: string): void {
    if (text === '') return;
    let t = text;
    if (this.pendingCr) {
      t = '\r' + t;
      this.pendingCr = false;
    }
    // Hold back a trailing CR: if the next chunk starts with LF, the pair is a single line ending.
    if (t.endsWith('\r')) {
      this.pendingCr = true;
      t = t.slice(0, -1);
    }
    if (t) this.parser.feed(t);
  }
}

/** Decode a whole body given as network chunks. */
export function decodeSse(chunks: Iterable<Uint8Array | string>): SseEvent[] {
  const events: SseEvent[] = [];
  const decoder = new SseDecoder((e) => events.push(e));
  for (const chunk of chunks) decoder.feed(chunk);
  decoder.end();
  return events;
}

/** Everything the SSE layer saw of a body, for the chat-stream checks. */
export interface SseTranscript {
  events: SseEvent[];
  comments: string[];
  unknownLines: string[];
  /** `retry:` fields seen (legal SSE; no data). */
  retries: number[];
  /** Set when the bytes could not be decoded (invalid UTF-8, or a character cut by the end of the body). */
  decodeError?: string;
}

export function transcribeSse(chunks: Iterable<Uint8Array | string>): SseTranscript {
  const transcript: SseTranscript = { events: [], comments: [], unknownLines: [], retries: [] };
  const decoder = new SseDecoder({
    onEvent: (e) => transcript.events.push(e),
    onComment: (c) => transcript.comments.push(c),
    onUnknownLine: (l) => transcript.unknownLines.push(l),
    onRetry: (ms) => transcript.retries.push(ms),
  });
  try {
    for (const chunk of chunks) decoder.feed(chunk);
    decoder.end();
  } catch (err) {
    transcript.decodeError = err instanceof Error ? err.message : String(err);
  }
  return transcript;
}

// The plain request the core reads and the plain result it answers. Adapters (mock/server.ts for node:http,
// mock/handlers.ts for MSW) translate to and from these; the core never sees a socket or a Fetch object.
import type { Framing } from './sse-encoder.ts';

/** A request body the core pulls chunk by chunk; it stops pulling (and cancels) past its limit. */
export interface BodySource {
  /** The next chunk, or null at the end of the body. Rejects when the transport fails (e.g. a 408 bound). */
  read(): Promise<Uint8Array | null>;
  /** The core will not read further. */
  cancel(): void;
}

export interface CoreRequest {
  method: string;
  /** The path as sent, without query (not percent-decoded). */
  path: string;
  /** A header's value by lower-case name (repeated headers joined with ", "). */
  header(name: string): string | undefined;
  body: BodySource;
  /** Every header by lower-case name, as `header` reads them (for a recorder of traffic; the contract never reads it). */
  headers?(): Record<string, string>;
  /** The query string without its `?`, when the target has one (the contract's endpoints take none). */
  query?: string;
  /** Resolves when the client goes away before its answer is sent (a stalled answer ends then; the contract never waits on it). */
  closed?(): Promise<void>;
}

/** How a stream's encoded events go out on the network (6 rule 7: a network may split them anywhere). */
export interface StreamWrites {
  /** the SSE framing the pieces were encoded with; `bytewise` cuts every piece into one-byte writes */
  framing: ReadonlySet<Framing>;
  /** delay before each event */
  chunkDelayMs: number;
  /** delay before each network write */
  writeDelayMs: number;
  /** delay before each event, by position, over chunkDelayMs (a replay at its recorded pace) */
  delaysMs?: readonly number[];
  /**
   * a runtime fault, never the contract: the connection is reset after this many events (0: before the status line,
   * nothing sent); a stream with fewer events ends as usual
   */
  resetAfter?: number;
}

/** What the core answers: a status, headers, and a JSON value, a list of encoded SSE events, or text. */
export type CoreResult =
  | { status: number; headers: Record<string, string>; kind: 'json'; body: unknown }
  | { status: number; headers: Record<string, string>; kind: 'sse'; pieces: string[]; writes: StreamWrites }
  | { status: number; headers: Record<string, string>; kind: 'text'; body: string };

export const NO_BODY: BodySource = { read: () => Promise.resolve(null), cancel: () => {} };

/** A body source over bytes already in memory. */
export function bodyFromBytes(bytes: Uint8Array): BodySource {
  let done = bytes.byteLength === 0;
  return {
    read: () => {
      if (done) return Promise.resolve(null);
      done = true;
      return Promise.resolve(bytes);
    },
    cancel: () => {
      done = true;
    },
  };
}

/** A body source over a web stream (the MSW adapter's Request.body). */
export function bodyFromStream(stream: ReadableStream<Uint8Array> | null): BodySource {
  if (stream === null) return NO_BODY;
  const reader = stream.getReader();
  return {
    read: async () => {
      const { done, value } = await reader.read();
      return done ? null : value;
    },
    // Not awaited: cancelling one branch of a teed body (MSW clones requests) settles only when the other
    // branch is cancelled too.
    cancel: () => {
      reader.cancel('the mock stopped reading the request body').catch(() => {});
    },
  };
}

// How a result's bytes go out: the writer the transport hands an answer to. The reference writer is the plain one
// (a JSON body in one write, an unpaced stream one res.write per event, nothing held back); the fast writer
// (fast-writer.ts) batches, encodes into slabs and holds answers to the end of the turn. Both send the same bytes.

/** What the transport asks of a writer for an answer that is not paced (a paced stream is written event by event, on its clocks). */
export interface Writer {
  /** Resolves when the answer may go out; undefined: at once. */
  hold(): Promise<void> | undefined;
  /** The bytes of a JSON body. */
  json(body: unknown): Uint8Array;
  /** The writes of an unpaced stream's encoded events, in order. */
  stream(pieces: readonly string[]): Iterable<Uint8Array | string>;
}

/** One write per piece, JSON.stringify for bodies, nothing batched or held: the writer whose bytes are obviously right. */
export const referenceWriter: Writer = {
  hold: () => undefined,
  json: (body) => Buffer.from(JSON.stringify(body)),
  stream: (pieces) => pieces,
};

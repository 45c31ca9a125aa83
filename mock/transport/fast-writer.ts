// The fast writer (opt-in; `chatconform mock` uses it): the answers made ready in one turn of the event loop go out
// together at its end, an unpaced stream's events are joined into a few writes encoded once into shared slabs, and
// a frozen JSON body (the catalog lists) or stream (a replayed recording) is encoded once. The same bytes as the
// reference writer (writer.ts).
import { jsonText } from '../engine/chat-json.ts';
import type { Writer } from './writer.ts';

/** Most characters of encoded events joined into one write of an unpaced stream. */
export const WRITE_BATCH_CHARS = 16 * 1024;

/** Consecutive pieces joined into strings of up to WRITE_BATCH_CHARS (a longer piece stays whole): the writes of an unpaced stream. */
export function batches(pieces: readonly string[]): string[] {
  const out: string[] = [];
  let current = '';
  for (const p of pieces) {
    if (current.length > 0 && current.length + p.length > WRITE_BATCH_CHARS) {
      out.push(current);
      current = '';
    }
    current += p;
  }
  if (current.length > 0) out.push(current);
  return out;
}

/** Bytes of a slab, the smallest the stream writes are carved from. */
const SLAB_BYTES = 32 * 1024;

/**
 * The UTF-8 bytes of a stream's writes, carved from shared slabs, as Node carves small Buffers from its pool. Why:
 * written as strings, each write is measured (Buffer.byteLength) and then encoded again into memory allocated for
 * that write alone; encoded here, once, into a slab, a stream costs one pass over its text and an allocation every
 * few streams. A slab is never written twice: it is freed when the last write carved from it is.
 */
export class WriteSlabs {
  private slab = Buffer.allocUnsafe(0);
  private used = 0;

  /** The writes of an unpaced stream (the batches of `batches`), as bytes. */
  writes(pieces: readonly string[]): Buffer[] {
    // Each batch is encoded joined, as a string write was: a surrogate pair split across two pieces stays one character.
    return batches(pieces).map((text) => this.encode(text));
  }

  private encode(text: string): Buffer {
    // UTF-8 takes at most 3 bytes for each UTF-16 code unit.
    const bound = text.length * 3;
    if (this.slab.length - this.used < bound) {
      this.slab = Buffer.allocUnsafe(Math.max(SLAB_BYTES, bound));
      this.used = 0;
    }
    const start = this.used;
    const end = start + this.slab.write(text, start);
    this.used = end;
    return this.slab.subarray(start, end);
  }
}

/** One set of slabs for the process (like Node's own pool). */
const slabs = new WriteSlabs();

/**
 * The end of the current turn of the event loop: the answers made ready during one turn go out together, one
 * after the other, once every request that arrived in that turn has been answered (setImmediate runs right after
 * the poll phase, so an idle server adds no wait). Why: a write to a loopback socket whose reader sleeps pays for
 * waking it, and on shared vCPUs that wake-up cost more than the mock's own work on a chat request; written
 * back to back, the answers of one turn wake a client once (bench/README.md, "The last runs, and what moved them").
 */
export class TurnEnd {
  private next: Promise<void> | undefined;
  private readonly fire = (resolve: () => void): void => {
    setImmediate(() => {
      this.next = undefined;
      resolve();
    });
  };

  wait(): Promise<void> {
    this.next ??= new Promise(this.fire);
    return this.next;
  }
}

/** JSON bytes of a body; frozen bodies (the catalog lists, built once) are encoded once. */
const encoded = new WeakMap<object, Buffer>();
export function jsonBytes(body: unknown): Buffer {
  const frozen = body !== null && typeof body === 'object' && Object.isFrozen(body);
  let bytes = frozen ? encoded.get(body as object) : undefined;
  if (bytes === undefined) {
    bytes = Buffer.from(jsonText(body));
    if (frozen) encoded.set(body as object, bytes);
  }
  return bytes;
}

/** A frozen stream's writes as far as some answer has sent it: batch b's bytes, and the piece after it. */
interface EncodedStream {
  writes: Buffer[];
  ends: number[];
}
const encodedStreams = new WeakMap<readonly string[], EncodedStream>();

/**
 * The writes of a frozen stream (a replayed recording, built once: mock/replay/service.ts), cut as `batches` cuts
 * them, each batch encoded once, by the first answer that sends it, into bytes of its own, and shared by every later
 * answer. Lazily, a batch at a time, as the answer is written: a million-event recording took the serving thread
 * half a second to batch and encode in one pass, for every request.
 */
function* frozenWrites(pieces: readonly string[]): Generator<Buffer> {
  let done = encodedStreams.get(pieces);
  if (done === undefined) {
    done = { writes: [], ends: [] };
    encodedStreams.set(pieces, done);
  }
  for (let b = 0, i = 0; i < pieces.length; b++) {
    if (b === done.writes.length) {
      let text = pieces[i]!;
      let j = i + 1;
      while (j < pieces.length && text.length + pieces[j]!.length <= WRITE_BATCH_CHARS) text += pieces[j++]!;
      done.writes.push(Buffer.from(text));
      done.ends.push(j);
    }
    yield done.writes[b]!;
    i = done.ends[b]!;
  }
}

/** The writes of an unpaced stream: encoded into the slabs, or once for all answers when the stream is frozen. */
export const streamWrites = (pieces: readonly string[]): Iterable<Buffer> => (Object.isFrozen(pieces) ? frozenWrites(pieces) : slabs.writes(pieces));

/** A fast writer for one server (its own turn end; the slabs are the process's). */
export function fastWriter(): Writer {
  const turn = new TurnEnd();
  return { hold: () => turn.wait(), json: jsonBytes, stream: streamWrites };
}

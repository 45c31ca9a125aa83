// A core result onto a ServerResponse: a JSON (or text) body in one write with its Content-Length; a stream with
// backpressure, unpaced through the writer, or paced (delays, one-byte writes) event by event on its clocks; a
// client that goes away stops the stream. What is left of the request body is discarded after the answer.
import type http from 'node:http';
import zlib from 'node:zlib';
import type { CoreResult, StreamWrites } from '../core/http.ts';
import { toWrites } from '../core/sse-encoder.ts';
import type { RequestBody } from './request-body.ts';
import type { Writer } from './writer.ts';

/**
 * Whether a stream goes out event by event on its clocks (delays, one-byte writes), not through the writer; so does
 * one to be reset after some events (a runtime fault), whose events must be counted.
 */
const paced = (writes: StreamWrites): boolean =>
  writes.chunkDelayMs > 0 ||
  writes.writeDelayMs > 0 ||
  writes.framing.has('bytewise') ||
  writes.resetAfter !== undefined ||
  (writes.delaysMs?.some((d) => d > 0) ?? false);

/** A connection reset (TCP RST, the client sees ECONNRESET), not a close: what a crashed upstream or a middlebox does. */
function reset(res: http.ServerResponse): void {
  const socket = res.socket;
  if (socket && !socket.destroyed) socket.resetAndDestroy();
  res.destroy();
}

/** The wait before event `i` of a stream. */
const delayBefore = (writes: StreamWrites, i: number): number => writes.delaysMs?.[i] ?? writes.chunkDelayMs;

/**
 * Most of an unpaced stream (characters or bytes) written in one turn of the event loop. A socket that keeps taking
 * writes never asks the loop to wait for a drain, so a long stream (a replayed recording of a million events,
 * 22 MB) would be written in one pass while every other client waits; past this much it lets them in, once a turn.
 */
export const STREAM_TURN_CHARS = 1024 * 1024;

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Resolves when `res` can take more (drain) or is gone (close). */
function drained(res: http.ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

/** res.write that resolves once the chunk is handed to the socket, so each write is its own send. */
function writeAlone(res: http.ServerResponse, chunk: Uint8Array): Promise<void> {
  return new Promise((resolve) => {
    res.write(chunk, () => resolve());
  });
}

/** Writes `result`; `held`: the writer may hold it back (not for the transport's own refusals). */
export async function send(res: http.ServerResponse, result: CoreResult, writer: Writer, body?: RequestBody, held = true): Promise<void> {
  if (body?.cut) res.shouldKeepAlive = false;
  if (held && !(result.kind === 'sse' && paced(result.writes))) await writer.hold();
  if (res.destroyed) return;
  if (result.kind === 'sse' && result.writes.resetAfter === 0) return reset(res);
  if (result.headers['content-encoding'] === 'gzip') return sendGzipped(res, result, writer, body);
  if (result.kind !== 'sse') {
    const bytes = result.kind === 'json' ? writer.json(result.body) : Buffer.from(result.body);
    // A 204 has no body, and so no Content-Length (RFC 9110, 8.6).
    res.writeHead(result.status, result.status === 204 ? result.headers : { ...result.headers, 'content-length': String(bytes.byteLength) });
    res.end(bytes);
    body?.discardRest();
    return;
  }
  let gone = false;
  let cut = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let wake: (() => void) | undefined;
  const onClose = (): void => {
    if (res.writableFinished) return;
    gone = true;
    clearTimeout(timer);
    wake?.();
  };
  res.once('close', onClose);
  const sleep = (ms: number): Promise<void> =>
    new Promise((resolve) => {
      wake = resolve;
      timer = setTimeout(resolve, ms);
    });
  res.writeHead(result.status, result.headers);
  const { pieces, writes } = result;
  try {
    if (!paced(writes)) {
      // Each write waits for the socket to drain when it is full, or for the next turn past STREAM_TURN_CHARS.
      let inTurn = 0;
      for (const w of writer.stream(pieces)) {
        if (gone) break;
        inTurn += w.length;
        if (!res.write(w)) {
          await drained(res);
          inTurn = 0;
        } else if (inTurn >= STREAM_TURN_CHARS) {
          await nextTurn();
          inTurn = 0;
        }
      }
    } else {
      res.flushHeaders();
      for (const [i, piece] of pieces.entries()) {
        const wait = delayBefore(writes, i);
        if (wait > 0) await sleep(wait);
        // The reset comes where the next event would have: after its wait, so the events before it are on their way.
        if (writes.resetAfter !== undefined && i >= writes.resetAfter) {
          cut = true;
          break;
        }
        for (const w of toWrites(piece, { framing: writes.framing })) {
          if (writes.writeDelayMs > 0) await sleep(writes.writeDelayMs);
          if (gone) break;
          await writeAlone(res, w);
        }
        if (gone) break;
      }
    }
  } finally {
    res.off('close', onClose);
    if (cut && !gone) reset(res);
    else if (gone) res.destroy();
    else {
      res.end();
      body?.discardRest();
    }
  }
}

/**
 * A result that names gzip (the variant compressed): its bytes gzipped, a stream flushed after every event (on
 * its clocks between events) so each event arrives when it is sent. A client that goes away stops the stream.
 */
async function sendGzipped(res: http.ServerResponse, result: CoreResult, writer: Writer, body?: RequestBody): Promise<void> {
  if (result.kind !== 'sse') {
    const bytes = zlib.gzipSync(result.kind === 'json' ? writer.json(result.body) : Buffer.from(result.body));
    // A 204 has no body, and so no Content-Length (RFC 9110, 8.6).
    res.writeHead(result.status, result.status === 204 ? result.headers : { ...result.headers, 'content-length': String(bytes.byteLength) });
    res.end(bytes);
    body?.discardRest();
    return;
  }
  res.writeHead(result.status, result.headers);
  const gzip = zlib.createGzip();
  gzip.pipe(res);
  let gone = false;
  res.once('close', () => void (gone = !res.writableFinished));
  const { resetAfter } = result.writes;
  for (const [i, piece] of result.pieces.entries()) {
    if (resetAfter !== undefined && i >= resetAfter) return reset(res);
    const wait = delayBefore(result.writes, i);
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    if (gone) break;
    gzip.write(piece);
    await new Promise<void>((resolve) => gzip.flush(() => resolve()));
  }
  if (gone) return void res.destroy();
  gzip.end();
  body?.discardRest();
}

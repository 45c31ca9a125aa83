// The fast writer's stream writes (mock/transport/fast-writer.ts): the events of an unpaced stream go out in batches of
// up to WRITE_BATCH_CHARS characters, encoded once into shared slabs. The bytes must be exactly the UTF-8 of the
// text (surrogate pairs, lone surrogates, pieces longer than a slab), the batches those of `batches`, and a slab
// region, once handed out, never written again.
import { expect, test } from '@playwright/test';
import fc from 'fast-check';
// Fixes fast-check's seed for the properties below (random, printed, under npm run test:explore).
import '../support/seed.ts';
import type http from 'node:http';
import type { CoreResult } from '../../mock/core/http.ts';
import { batches, WRITE_BATCH_CHARS, WriteSlabs } from '../../mock/transport/fast-writer.ts';
import { send, STREAM_TURN_CHARS } from '../../mock/transport/send.ts';
import { referenceWriter } from '../../mock/transport/writer.ts';
import { countTurns } from '../support/event-loop-turns.ts';

/** Pieces as a stream has them, with every kind of UTF-16 content, some longer than a batch. */
const piece = fc.oneof(
  { weight: 6, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: fc.constantFrom('a', '你', '🚀', '\ud800', '\udfff', '"', '\n'), maxLength: 300 }) },
  { weight: 1, arbitrary: fc.integer({ min: WRITE_BATCH_CHARS - 10, max: 3 * WRITE_BATCH_CHARS }).map((n) => '好'.repeat(n)) },
);

/** The writes equal the expected bytes, write by write (a boolean: no diff of megabytes on a failure). */
const sameBytes = (writes: Buffer[], expected: string[]): boolean =>
  writes.length === expected.length && writes.every((w, i) => w.equals(Buffer.from(expected[i]!)));

test('the writes are the UTF-8 bytes of the batches, for any text', () => {
  const slabs = new WriteSlabs();
  fc.assert(
    fc.property(fc.array(piece, { maxLength: 60 }), (pieces) => sameBytes(slabs.writes(pieces), batches(pieces))),
    { numRuns: 300 },
  );
  // A surrogate pair cut between two events is still one character (4 bytes), as in the joined text.
  expect(sameBytes(slabs.writes(['\ud83d', '\ude80']), ['🚀'])).toBe(true);
  expect(slabs.writes(['\ud83d', '\ude80'])[0]!.toString('hex')).toBe('f09f9a80');
});

test('a write keeps its bytes while later streams are encoded (no slab region is handed out twice)', () => {
  const slabs = new WriteSlabs();
  const kept: { bytes: Buffer; copy: Buffer }[] = [];
  const small = fc.string({ unit: fc.constantFrom('a', '你', '🚀', '"'), minLength: 100, maxLength: 400 });
  fc.assert(
    fc.property(fc.array(small, { minLength: 5, maxLength: 20 }), (pieces) => {
      for (const w of slabs.writes(pieces)) kept.push({ bytes: w, copy: Buffer.from(w) });
      return kept.every((k) => k.bytes.equals(k.copy));
    }),
    { numRuns: 200 },
  );
  // Enough bytes went through for the slabs to have been replaced many times.
  expect(kept.reduce((n, k) => n + k.bytes.byteLength, 0)).toBeGreaterThan(4 * 32 * 1024);
});

test('a long unpaced stream written to a socket that never asks to wait lets other requests in, every STREAM_TURN_CHARS', async () => {
  // A response whose every write is taken at once (a fast reader on loopback): only the transport's own turns let
  // the event loop run other work between writes.
  const turns = countTurns();
  const turnOfWrite: number[] = [];
  const res = {
    destroyed: false,
    writableFinished: false,
    writeHead: () => undefined,
    write: () => {
      turnOfWrite.push(turns.now());
      return true;
    },
    end: () => undefined,
    once: () => undefined,
    off: () => undefined,
  };
  const pieces = Array.from({ length: 5 * 1024 }, () => `data: ${'x'.repeat(1016)}\n\n`);
  const result: CoreResult = { status: 200, headers: {}, kind: 'sse', pieces, writes: { framing: new Set(), chunkDelayMs: 0, writeDelayMs: 0 } };
  await send(res as unknown as http.ServerResponse, result, referenceWriter);
  turns.stop();
  expect(turnOfWrite).toHaveLength(pieces.length);
  // About 5 MB: written over at least five turns of the loop, never more than STREAM_TURN_CHARS in one.
  const perTurn = new Map<number, number>();
  for (const [i, t] of turnOfWrite.entries()) perTurn.set(t, (perTurn.get(t) ?? 0) + pieces[i]!.length);
  expect(perTurn.size).toBeGreaterThanOrEqual(5);
  for (const chars of perTurn.values()) expect(chars).toBeLessThanOrEqual(STREAM_TURN_CHARS);
});

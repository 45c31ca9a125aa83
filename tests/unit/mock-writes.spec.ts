// The fast writer's stream writes (mock/transport/fast-writer.ts): the events of an unpaced stream go out in batches of
// up to WRITE_BATCH_CHARS characters, encoded once into shared slabs. The bytes must be exactly the UTF-8 of the
// text (surrogate pairs, lone surrogates, pieces longer than a slab), the batches those of `batches`, and a slab
// region, once handed out, never written again.
import { expect, test } from '@playwright/test';
import fc from 'fast-check';
// Fixes fast-check's seed for the properties below (random, printed, under npm run test:explore).
import '../support/seed.ts';
import { batches, WRITE_BATCH_CHARS, WriteSlabs } from '../../mock/transport/fast-writer.ts';

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

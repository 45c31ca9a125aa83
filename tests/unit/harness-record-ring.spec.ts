// The journal's byte ring (mock/harness/record-ring.ts), against a plain array as the model: whatever is pushed
// and cleared, it gives back the last `size` records exactly (numbers, test id, text, body bytes), oldest first,
// drops only for the count, and its bytes stay within a few times what it holds.
import { expect, test } from '@playwright/test';
import fc from 'fast-check';
// Fixes fast-check's seed for the properties below (random, printed, under npm run test:explore).
import '../support/seed.ts';
import { Journal } from '../../mock/harness/journal.ts';
import { RecordRing, type PackedRecord, type StoredRecord } from '../../mock/harness/record-ring.ts';

/** A record as the ring should give it back. */
type Model = StoredRecord;

const bodyPart = fc.oneof(
  { weight: 5, arbitrary: fc.uint8Array({ maxLength: 200 }) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 150_000 }).map((n) => new Uint8Array(n).fill(n % 251)) },
);
const record = fc.record({
  seq: fc.nat(),
  at: fc.integer({ min: 0, max: 4_000_000_000_000 }),
  status: fc.integer({ min: 100, max: 599 }),
  outcome: fc.integer({ min: 0, max: 3 }),
  bodyBytes: fc.integer({ min: -1, max: 1_000_000 }),
  testId: fc.option(fc.constantFrom('a', 'b', 'c'), { nil: undefined }),
  // The journal's text is JSON (well-formed UTF-16), of any length.
  text: fc.oneof(fc.string({ unit: 'grapheme', maxLength: 300 }), fc.integer({ min: 0, max: 40_000 }).map((n) => '你'.repeat(n))),
  body: fc.array(bodyPart, { maxLength: 4 }),
});
const op = fc.oneof(
  { weight: 12, arbitrary: record.map((r) => ({ push: r as PackedRecord })) },
  { weight: 1, arbitrary: fc.option(fc.constantFrom('a', 'b', 'c'), { nil: undefined }).map((testId) => ({ clear: testId })) },
);

const stored = (r: PackedRecord): Model => ({ ...r, body: Buffer.concat(r.body) });
const bytesOf = (r: PackedRecord): number => r.text.length * 3 + r.body.reduce((n, p) => n + p.byteLength, 0);

test('the ring gives back exactly the last `size` records pushed and not cleared, oldest first', () => {
  fc.assert(
    fc.property(fc.integer({ min: 1, max: 70 }), fc.array(op, { maxLength: 150 }), (size, ops) => {
      const ring = new RecordRing(size);
      let model: Model[] = [];
      let dropped = 0;
      let largest = 0;
      for (const o of ops) {
        if ('push' in o) {
          model.push(stored(o.push));
          if (model.length > size) {
            model = model.slice(1);
            dropped++;
          }
          ring.push(o.push);
          largest = Math.max(largest, bytesOf(o.push));
        } else {
          const before = model.length;
          model = model.filter((m) => o.clear !== undefined && m.testId !== o.clear);
          expect(ring.clear(o.clear)).toBe(before - model.length);
        }
        expect(ring.length).toBe(model.length);
      }
      expect(ring.dropped).toBe(dropped);
      const back = ring.records().map((r) => ({ ...r }));
      expect(back.length).toBe(model.length);
      back.forEach((r, i) => {
        const m = model[i]!;
        expect({ ...r, body: r.body.toString('hex') }).toEqual({ ...m, body: m.body.toString('hex') });
      });
      for (const id of ['a', 'b']) expect(ring.records(id).map((r) => r.seq)).toEqual(model.filter((m) => m.testId === id).map((m) => m.seq));
      // The bytes: a fraction of what it holds, and never more than a few times that.
      const held = model.reduce((n, m) => n + m.text.length * 3 + m.body.byteLength, 0);
      expect(ring.capacity).toBeLessThanOrEqual(Math.max(64 * 1024, 4 * (held + largest)));
    }),
    { numRuns: 150 },
  );
});

test('the bytes grow for large records and are given back once those are dropped', () => {
  const ring = new RecordRing(10);
  const record = (seq: number, bodyBytes: number): PackedRecord => ({ seq, at: 0, status: 200, outcome: 0, bodyBytes, testId: undefined, text: '["POST"]', body: [new Uint8Array(bodyBytes)] });
  for (let i = 0; i < 10; i++) ring.push(record(i, 100_000));
  expect(ring.capacity).toBeGreaterThanOrEqual(1_000_000);
  for (let i = 10; i < 30; i++) ring.push(record(i, 10));
  expect(ring.capacity).toBe(64 * 1024);
  expect(ring.records().map((r) => r.seq)).toEqual(Array.from({ length: 10 }, (_, i) => 20 + i));
});

test('a ring of size 0 keeps nothing', () => {
  const ring = new RecordRing(0);
  ring.push({ seq: 1, at: 0, status: 200, outcome: 0, bodyBytes: -1, testId: undefined, text: '[]', body: [] });
  expect(ring.length).toBe(0);
  expect(ring.records()).toEqual([]);
});

test('the journal gives back any string it was given, lone surrogates included, and a body cut inside a character', () => {
  const journal = new Journal(3, 5);
  const odd = 'a\ud800b\udfffc"\\\n';
  journal.push({
    seq: journal.nextSeq(),
    at: 0,
    testId: odd,
    method: 'POST',
    path: `/v1/${odd}`,
    query: odd,
    headers: { 'x-odd': odd },
    body: { chunks: [Buffer.from('€€').subarray(0, 5)], bytes: 9 },
    status: 200,
    outcome: 'stream',
    scriptRule: odd,
    faults: [odd],
  });
  const [e] = journal.entries({ testId: odd });
  expect(e).toMatchObject({ test_id: odd, path: `/v1/${odd}`, query: odd, headers: { 'x-odd': odd }, script_rule: odd, faults: [odd], body_bytes: 9, body_truncated: true });
  expect(e!.body).toBe('€\ufffd');
});

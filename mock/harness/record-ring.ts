// The journal's storage: each record packed into bytes, in one growing ring buffer, instead of kept as objects.
// Why: held as objects (a record, its headers, its body parts), every one of the last 1,000 requests outlived the
// young generation's collections on a mock under load; each was copied into the old generation and freed there
// by full collections, about 6 µs of CPU per request served (bench/README.md, session 7). Packed, a record is a
// row of numbers and a run of bytes: nothing a request leaves in the journal is a JavaScript object.
//
// Bounds: at most `size` records (the oldest dropped first). The bytes double when the records need room and are
// never the reason a record is dropped, so the ring holds what an array of `size` records would; they halve when
// the records held come to use less than an eighth of them. Either way the buffer stays within a few times the
// bytes it holds.

/** What the ring keeps of one record. */
export interface PackedRecord {
  seq: number;
  /** time of arrival, ms since the epoch */
  at: number;
  status: number;
  /** the caller's code for the outcome */
  outcome: number;
  /** bytes of the body read; -1 when the body was never read */
  bodyBytes: number;
  testId: string | undefined;
  /** every other field, as text (the caller's format) */
  text: string;
  /** the kept part of the body */
  body: readonly Uint8Array[];
}

/** A record as read back: the body's kept part as bytes. */
export interface StoredRecord extends Omit<PackedRecord, 'body'> {
  body: Buffer;
}

// A record's row of numbers: where its bytes start (a position that only grows), how many are text and how many
// body, and its own numbers.
const START = 0;
const TEXT = 1;
const KEPT = 2;
const SEQ = 3;
const AT = 4;
const STATUS = 5;
const OUTCOME = 6;
const BODY = 7;
const ROW = 8;

const FIRST_BYTES = 64 * 1024;
const FIRST_ROWS = 64;

export class RecordRing {
  private bytes = Buffer.allocUnsafe(FIRST_BYTES);
  private rows: Float64Array;
  private testIds: (string | undefined)[] = [];
  /** row of the oldest record, and records held */
  private first = 0;
  private count = 0;
  /** position just past the newest record's bytes */
  private end = 0;
  /** records pushed out by newer ones since the start */
  dropped = 0;

  constructor(readonly size: number) {
    this.rows = new Float64Array(Math.min(size, FIRST_ROWS) * ROW);
  }

  get length(): number {
    return this.count;
  }

  /** Bytes of storage the records are packed into. */
  get capacity(): number {
    return this.bytes.length;
  }

  private get rowCap(): number {
    return this.rows.length / ROW;
  }

  private row(i: number): number {
    return ((this.first + i) % this.rowCap) * ROW;
  }

  push(r: PackedRecord): void {
    if (this.size === 0) return;
    if (this.count === this.size) {
      this.first = (this.first + 1) % this.rowCap;
      this.count--;
      this.dropped++;
    } else if (this.count === this.rowCap) this.rebuild(this.bytes.length, Math.min(this.size, this.rowCap * 2));
    let kept = 0;
    for (const part of r.body) kept += part.byteLength;
    // UTF-8 takes at most 3 bytes per UTF-16 code unit.
    const at = this.place(r.text.length * 3 + kept);
    const off = at % this.bytes.length;
    const text = this.bytes.write(r.text, off, 'utf8');
    let b = off + text;
    for (const part of r.body) {
      this.bytes.set(part, b);
      b += part.byteLength;
    }
    const row = this.row(this.count);
    const m = this.rows;
    m[row + START] = at;
    m[row + TEXT] = text;
    m[row + KEPT] = kept;
    m[row + SEQ] = r.seq;
    m[row + AT] = r.at;
    m[row + STATUS] = r.status;
    m[row + OUTCOME] = r.outcome;
    m[row + BODY] = r.bodyBytes;
    this.testIds[row / ROW] = r.testId;
    this.count++;
    this.end = at + text + kept;
    // Room left by large records that have since been dropped is given back.
    const cap = this.bytes.length;
    if (cap > FIRST_BYTES && (this.end - this.oldestStart()) * 8 < cap) this.rebuild(cap / 2, this.rowCap);
  }

  /** Where `n` bytes go: contiguous, after the newest record, clear of the oldest one (the bytes grow if they must). */
  private place(n: number): number {
    const at = this.fit(n);
    if (at !== undefined) return at;
    let grown = this.bytes.length * 2;
    while (grown < this.end - this.oldestStart() + n) grown *= 2;
    this.rebuild(grown, this.rowCap);
    // Rebuilt, the records sit from 0 and leave at least `n` bytes after them.
    const after = this.fit(n);
    if (after === undefined) throw new Error(`the journal's ring has no room for ${n} bytes after growing to ${grown}`);
    return after;
  }

  /** The position for `n` bytes in the bytes as they are, if there is room. */
  private fit(n: number): number | undefined {
    const cap = this.bytes.length;
    let at = this.end;
    const off = at % cap;
    // A record never wraps: the tail too short for it is skipped.
    if (off + n > cap) at += cap - off;
    return n <= cap && (this.count === 0 || this.oldestStart() >= at + n - cap) ? at : undefined;
  }

  private oldestStart(): number {
    return this.count === 0 ? this.end : this.rows[this.row(0) + START]!;
  }

  /** Copies the records (those `keep` accepts) oldest first into new storage of the given sizes. */
  private rebuild(byteCap: number, rowCap: number, keep: (testId: string | undefined) => boolean = () => true): void {
    const bytes = Buffer.allocUnsafe(byteCap);
    const rows = new Float64Array(rowCap * ROW);
    const testIds: (string | undefined)[] = [];
    let pos = 0;
    let n = 0;
    for (let i = 0; i < this.count; i++) {
      const row = this.row(i);
      const testId = this.testIds[row / ROW];
      if (!keep(testId)) continue;
      const off = this.rows[row + START]! % this.bytes.length;
      const len = this.rows[row + TEXT]! + this.rows[row + KEPT]!;
      this.bytes.copy(bytes, pos, off, off + len);
      rows.set(this.rows.subarray(row, row + ROW), n * ROW);
      rows[n * ROW + START] = pos;
      testIds[n] = testId;
      pos += len;
      n++;
    }
    this.bytes = bytes;
    this.rows = rows;
    this.testIds = testIds;
    this.first = 0;
    this.count = n;
    this.end = pos;
  }

  /** The records held, oldest first (those of one test id, when given). */
  records(testId?: string): StoredRecord[] {
    const out: StoredRecord[] = [];
    const m = this.rows;
    for (let i = 0; i < this.count; i++) {
      const row = this.row(i);
      const id = this.testIds[row / ROW];
      if (testId !== undefined && id !== testId) continue;
      const off = m[row + START]! % this.bytes.length;
      const textEnd = off + m[row + TEXT]!;
      out.push({
        seq: m[row + SEQ]!,
        at: m[row + AT]!,
        status: m[row + STATUS]!,
        outcome: m[row + OUTCOME]!,
        bodyBytes: m[row + BODY]!,
        testId: id,
        text: this.bytes.toString('utf8', off, textEnd),
        body: Buffer.from(this.bytes.subarray(textEnd, textEnd + m[row + KEPT]!)),
      });
    }
    return out;
  }

  /** Forgets a test's records (or all of them); returns how many. */
  clear(testId?: string): number {
    const before = this.count;
    if (testId === undefined) this.rebuild(FIRST_BYTES, Math.min(this.size, FIRST_ROWS), () => false);
    else this.rebuild(this.bytes.length, this.rowCap, (id) => id !== testId);
    return before - this.count;
  }
}

// The request journal: what each client request held and how the mock answered it, for a client author's
// assertions ("my client sent this body", "my client retried three times"). Memory is bounded twice: a ring of
// `size` entries (the oldest is dropped first) and at most `bodyBytes` of each request body. Credentials are
// masked whenever the journal is served, so no key ever leaves the mock.
import type { BodySource, CoreResult } from '../core/http.ts';
import { redactHeaders } from '../../suites/lib/transport/redact.ts';

/** What became of a request, as far as the mock decided it (a client that hangs up mid-stream is not seen here). */
export type Outcome = 'answered' | 'error' | 'stream' | 'stream-error';

export interface JournalEntry {
  /** 1, 2, ... in arrival order, over the instance's life (a gap means entries were dropped or cleared) */
  seq: number;
  /** ISO time of arrival */
  at: string;
  test_id?: string;
  method: string;
  path: string;
  query?: string;
  /** request headers, lower-case names; credentials masked */
  headers: Record<string, string>;
  /** the body as far as the mock read it (UTF-8), cut at the bound; absent when the mock read none */
  body?: string;
  /** bytes of body the mock read (the whole body once it was read to the end) */
  body_bytes: number;
  body_truncated: boolean;
  status: number;
  outcome: Outcome;
  /** error.code of an error answer, or of the error event that ended a stream */
  error_code?: string;
  /** the runtime faults that fired on it (their specs) */
  faults?: string[];
  /** the scripted rule that answered it (its name, or rules[i]) */
  script_rule?: string;
}

export interface JournalFilter {
  testId?: string;
  /** the last `limit` matching entries */
  limit?: number;
}

export const DEFAULT_JOURNAL_SIZE = 1000;
export const DEFAULT_JOURNAL_BODY_BYTES = 16 * 1024;

/**
 * One request as recorded: the cheap part of an entry. Headers are masked and the body decoded only when the
 * journal is read, so recording costs little on a mock under load.
 */
export interface JournalRecord {
  seq: number;
  at: number;
  testId?: string;
  method: string;
  path: string;
  query?: string;
  headers: Record<string, string>;
  body?: BodyCopy;
  status: number;
  outcome: Outcome;
  errorCode?: string;
  faults?: string[];
  scriptRule?: string;
}

/** A ring buffer of records: a fixed array, overwritten oldest first. */
export class Journal {
  private ring: (JournalRecord | undefined)[];
  private start = 0;
  private count = 0;
  private seq = 0;
  /** records pushed out by newer ones since the start */
  dropped = 0;

  constructor(
    readonly size: number = DEFAULT_JOURNAL_SIZE,
    readonly bodyBytes: number = DEFAULT_JOURNAL_BODY_BYTES,
  ) {
    if (!Number.isInteger(size) || size < 0) throw new Error(`journal size must be an integer of at least 0 (got ${size})`);
    if (!Number.isInteger(bodyBytes) || bodyBytes < 0) throw new Error(`journal body bound must be an integer of at least 0 (got ${bodyBytes})`);
    this.ring = new Array<JournalRecord | undefined>(size);
  }

  get enabled(): boolean {
    return this.size > 0;
  }

  /** Records now held (never more than `size`). */
  get length(): number {
    return this.count;
  }

  nextSeq(): number {
    return ++this.seq;
  }

  push(record: JournalRecord): void {
    if (this.size === 0) return;
    if (this.count < this.size) {
      this.ring[(this.start + this.count) % this.size] = record;
      this.count++;
    } else {
      this.ring[this.start] = record;
      this.start = (this.start + 1) % this.size;
      this.dropped++;
    }
  }

  private records(testId?: string): JournalRecord[] {
    const out: JournalRecord[] = [];
    for (let i = 0; i < this.count; i++) {
      const r = this.ring[(this.start + i) % this.size]!;
      if (testId === undefined || r.testId === testId) out.push(r);
    }
    return out;
  }

  /** The entries held, oldest first, as served: credentials masked, bodies decoded. */
  entries(filter: JournalFilter = {}): JournalEntry[] {
    const out = this.records(filter.testId);
    return (filter.limit !== undefined ? out.slice(Math.max(0, out.length - filter.limit)) : out).map(render);
  }

  /** Forgets a test's records (or all of them); returns how many. */
  clear(testId?: string): number {
    const keep = testId === undefined ? [] : this.records().filter((r) => r.testId !== testId);
    const cleared = this.count - keep.length;
    this.ring = new Array<JournalRecord | undefined>(this.size);
    this.start = 0;
    this.count = 0;
    for (const r of keep) this.push(r);
    return cleared;
  }
}

function render(r: JournalRecord): JournalEntry {
  const e: JournalEntry = {
    seq: r.seq,
    at: new Date(r.at).toISOString(),
    ...(r.testId !== undefined ? { test_id: r.testId } : {}),
    method: r.method,
    path: r.path,
    ...(r.query !== undefined ? { query: r.query } : {}),
    headers: redactHeaders(r.headers, []),
    body_bytes: r.body?.bytes ?? 0,
    body_truncated: r.body?.truncated ?? false,
    status: r.status,
    outcome: r.outcome,
  };
  if (r.body !== undefined) e.body = Buffer.concat(r.body.chunks).toString('utf8');
  if (r.errorCode !== undefined) e.error_code = r.errorCode;
  if (r.faults !== undefined) e.faults = r.faults;
  if (r.scriptRule !== undefined) e.script_rule = r.scriptRule;
  return e;
}

/** The part of a body a record keeps. */
export interface BodyCopy {
  chunks: Uint8Array[];
  bytes: number;
  truncated: boolean;
}

/** A request body that keeps a copy of the first `bound` bytes the core reads. */
export class RecordedBody implements BodySource {
  private readonly kept: Uint8Array[] = [];
  private keptBytes = 0;
  bytes = 0;
  /** whether the core asked for the body at all */
  touched = false;

  constructor(
    private readonly inner: BodySource,
    private readonly bound: number,
  ) {}

  async read(): Promise<Uint8Array | null> {
    this.touched = true;
    const chunk = await this.inner.read();
    if (chunk === null) return null;
    this.bytes += chunk.byteLength;
    if (this.keptBytes < this.bound) {
      // A copy (Buffer.from; a Buffer's own slice() is a view): the chunk may be a view on a larger buffer that
      // must not stay alive with the entry. Small copies come from Node's pool, not an allocation each.
      const part = Buffer.from(chunk.subarray(0, this.bound - this.keptBytes));
      this.kept.push(part);
      this.keptBytes += part.byteLength;
    }
    return chunk;
  }

  cancel(): void {
    this.inner.cancel();
  }

  /** What was read, detached from the transport (undefined when the core never asked for the body). */
  copy(): BodyCopy | undefined {
    if (!this.touched) return undefined;
    return { chunks: this.kept, bytes: this.bytes, truncated: this.bytes > this.keptBytes };
  }
}

/** The outcome and error code of an answer. */
export function outcomeOf(result: CoreResult): { outcome: Outcome; errorCode?: string } {
  if (result.kind === 'sse') {
    const last = result.pieces.at(-1) ?? '';
    if (last.includes('[DONE]')) return { outcome: 'stream' };
    const code = /"code"\s*:\s*"([^"]*)"/.exec(last)?.[1];
    return code !== undefined ? { outcome: 'stream-error', errorCode: code } : { outcome: 'stream' };
  }
  if (result.status < 400) return { outcome: 'answered' };
  const body = result.kind === 'json' ? (result.body as { error?: { code?: unknown } } | null) : undefined;
  const code = body?.error?.code;
  return typeof code === 'string' ? { outcome: 'error', errorCode: code } : { outcome: 'error' };
}

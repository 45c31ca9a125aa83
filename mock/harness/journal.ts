// The request journal: what each client request held and how the mock answered it, for a client author's
// assertions ("my client sent this body", "my client retried three times"). Memory is bounded twice: a ring of
// `size` entries (the oldest is dropped first) and at most `bodyBytes` of each request body. Credentials are
// masked whenever the journal is served (headers, query and body, through spec/redact.ts), so no key ever leaves
// the mock.
import type { BodySource, CoreResult } from '../core/http.ts';
import { redact, redactHeaders } from '../../spec/redact.ts';
import { RecordRing, type StoredRecord } from './record-ring.ts';

/** What became of a request, as far as the mock decided it (a client that hangs up mid-stream is not seen here). */
export type Outcome = 'answered' | 'error' | 'stream' | 'stream-error' | 'reset';

export interface JournalEntry {
  /** 1, 2, ... in arrival order, over the instance's life (a gap means entries were dropped or cleared) */
  seq: number;
  /** ISO time of arrival */
  at: string;
  test_id?: string;
  method: string;
  path: string;
  query?: string;
  /** request headers, lower-case names; credentials masked (as in `query` and `body`) */
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
 * One request as recorded, as the harness fills it while the request is answered. The journal packs it into bytes
 * when the answer is made (mock/harness/record-ring.ts); headers are masked and the body decoded only when the
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

const OUTCOMES: readonly Outcome[] = ['answered', 'error', 'stream', 'stream-error', 'reset'];

/** The fields of a record the ring keeps as text: one JSON array (exact for any string, lone surrogates included). */
type RecordText = [method: string, path: string, query: string | null, headers: Record<string, string>, errorCode: string | null, faults: string[] | null, scriptRule: string | null];

/** The journal: the last `size` records, packed into bytes. */
export class Journal {
  private readonly ring: RecordRing;
  private seq = 0;

  constructor(
    readonly size: number = DEFAULT_JOURNAL_SIZE,
    readonly bodyBytes: number = DEFAULT_JOURNAL_BODY_BYTES,
  ) {
    if (!Number.isInteger(size) || size < 0) throw new Error(`journal size must be an integer of at least 0 (got ${size})`);
    if (!Number.isInteger(bodyBytes) || bodyBytes < 0) throw new Error(`journal body bound must be an integer of at least 0 (got ${bodyBytes})`);
    this.ring = new RecordRing(size);
  }

  get enabled(): boolean {
    return this.size > 0;
  }

  /** Records now held (never more than `size`). */
  get length(): number {
    return this.ring.length;
  }

  /** Records pushed out by newer ones since the start. */
  get dropped(): number {
    return this.ring.dropped;
  }

  nextSeq(): number {
    return ++this.seq;
  }

  push(r: JournalRecord): void {
    if (this.size === 0) return;
    const text: RecordText = [r.method, r.path, r.query ?? null, r.headers, r.errorCode ?? null, r.faults ?? null, r.scriptRule ?? null];
    this.ring.push({
      seq: r.seq,
      at: r.at,
      status: r.status,
      outcome: OUTCOMES.indexOf(r.outcome),
      bodyBytes: r.body?.bytes ?? -1,
      testId: r.testId,
      text: JSON.stringify(text),
      body: r.body?.chunks ?? [],
    });
  }

  /** The entries held, oldest first, as served: credentials masked, bodies decoded. */
  entries(filter: JournalFilter = {}): JournalEntry[] {
    const out = this.ring.records(filter.testId);
    return (filter.limit !== undefined ? out.slice(Math.max(0, out.length - filter.limit)) : out).map(render);
  }

  /** Forgets a test's records (or all of them); returns how many. */
  clear(testId?: string): number {
    return this.ring.clear(testId);
  }
}

function render(r: StoredRecord): JournalEntry {
  const [method, path, query, headers, errorCode, faults, scriptRule] = JSON.parse(r.text) as RecordText;
  const e: JournalEntry = {
    seq: r.seq,
    at: new Date(r.at).toISOString(),
    ...(r.testId !== undefined ? { test_id: r.testId } : {}),
    method,
    path,
    ...(query !== null ? { query: redact(query, []) } : {}),
    headers: redactHeaders(headers, []),
    body_bytes: Math.max(0, r.bodyBytes),
    body_truncated: r.bodyBytes > r.body.byteLength,
    status: r.status,
    outcome: OUTCOMES[r.outcome]!,
  };
  if (r.bodyBytes >= 0) e.body = redact(r.body.toString('utf8'), []);
  if (errorCode !== null) e.error_code = errorCode;
  if (faults !== null) e.faults = faults;
  if (scriptRule !== null) e.script_rule = scriptRule;
  return e;
}

/** The part of a body a record keeps, and the bytes read in all. */
export interface BodyCopy {
  chunks: Uint8Array[];
  bytes: number;
}

/** A request body that keeps (as views) the first `bound` bytes the core reads. */
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
      // A view, not a copy: the journal copies the kept bytes into its ring when the answer is made, and no
      // transport reuses a chunk it has handed over.
      const part = chunk.subarray(0, this.bound - this.keptBytes);
      this.kept.push(part);
      this.keptBytes += part.byteLength;
    }
    return chunk;
  }

  cancel(): void {
    this.inner.cancel();
  }

  /** What was read (undefined when the core never asked for the body). */
  recorded(): BodyCopy | undefined {
    if (!this.touched) return undefined;
    return { chunks: this.kept, bytes: this.bytes };
  }
}

/** The outcome and error code of an answer. */
export function outcomeOf(result: CoreResult): { outcome: Outcome; errorCode?: string } {
  if (result.kind === 'sse') {
    // A runtime fault that resets the connection before the stream's end (or before any byte: a stall).
    const { resetAfter } = result.writes;
    if (resetAfter !== undefined && (resetAfter === 0 || resetAfter < result.pieces.length)) return { outcome: 'reset' };
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

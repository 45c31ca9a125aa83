// Request-body limit (section 8): 10 MB, read as SI megabytes = 10,000,000 bytes. A body is rejected from its
// Content-Length at once, or while reading as soon as the count passes the limit; it is never buffered past it.
import { MockHttpError } from './errors.ts';
import type { BodySource } from './http.ts';
import type { CoreOptions } from './types.ts';

// honours: LIMIT-001, CHAT-006, LIMIT-007 (a 413 JSON refusal, from Content-Length before the upload with Expect: 100-continue)
export const DEFAULT_BODY_LIMIT_BYTES = 10_000_000;

/** The body limit a mock instance applies. */
export function bodyLimitOf(options: CoreOptions): number {
  return options.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES;
}

export const tooLarge = (limit: number): MockHttpError =>
  new MockHttpError(413, 'request_too_large', `request body exceeds the limit of ${limit} bytes (10 MB)`);

/** Throws 413 when Content-Length announces more than `limit` bytes. */
// honours: LIMIT-003 (only a body over the limit is refused)
export function checkContentLength(raw: string | undefined, limit: number): void {
  if (raw === undefined) return;
  const n = Number(raw.trim());
  if (/^\d+$/.test(raw.trim()) && n > limit) throw tooLarge(limit);
}

/**
 * Reads a body stream into bytes, counting as it goes; past `limit` it cancels the stream and throws 413.
 * Memory is bounded by the limit plus one chunk.
 */
export async function readBodyLimited(body: BodySource, limit: number): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const value = await body.read();
    if (value === null) break;
    total += value.byteLength;
    if (total > limit) {
      parts.length = 0;
      // The transport discards what is left of the body (or drops the connection).
      body.cancel();
      throw tooLarge(limit);
    }
    parts.push(value);
  }
  if (parts.length === 1) return parts[0]!;
  const out = new Uint8Array(total);
  let off = 0;
  for (const p of parts) {
    out.set(p, off);
    off += p.byteLength;
  }
  return out;
}

// Request-body limit (section 8): 10 MB, read as SI megabytes = 10,000,000 bytes. A body is rejected from its
// Content-Length at once, or while reading as soon as the count passes the limit; it is never buffered past it.
import { MockHttpError } from './errors.ts';
import { defectOn } from './modes.ts';
import type { MockOptions } from './types.ts';

export const DEFAULT_BODY_LIMIT_BYTES = 10_000_000;

/** How far the defect oversized-parsed-first reads a body before parsing it. */
export const PARSE_FIRST_READ_LIMIT_BYTES = 64 * 1024 * 1024;

/** The body limit a mock instance applies: the option, or a defect's (body-limit-1mb, oversized-accepted). */
export function bodyLimitOf(options: MockOptions): number {
  if (defectOn(options, 'oversized-accepted')) return Number.POSITIVE_INFINITY;
  if (defectOn(options, 'body-limit-1mb')) return 1_000_000;
  return options.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES;
}

export const tooLarge = (limit: number): MockHttpError =>
  new MockHttpError(413, 'request_too_large', `request body exceeds the limit of ${limit} bytes (10 MB)`);

/** Throws 413 when Content-Length announces more than `limit` bytes. */
export function checkContentLength(headers: Headers, limit: number): void {
  const raw = headers.get('content-length');
  if (raw === null) return;
  const n = Number(raw.trim());
  if (/^\d+$/.test(raw.trim()) && n > limit) throw tooLarge(limit);
}

/**
 * Reads a body stream into bytes, counting as it goes; past `limit` it cancels the stream and throws 413.
 * Memory is bounded by the limit plus one chunk.
 */
export async function readBodyLimited(body: ReadableStream<Uint8Array> | null, limit: number): Promise<Uint8Array> {
  if (body === null) return new Uint8Array(0);
  const reader = body.getReader();
  const parts: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      parts.length = 0;
      // Not awaited: cancelling one branch of a teed body (MSW clones requests) settles only when the
      // other branch is cancelled too. The transport discards what is left of the body.
      reader.cancel('request body too large').catch(() => {});
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

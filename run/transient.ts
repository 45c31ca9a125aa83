// Transient refusals: a 429, or a 503 that says when to come back (Retry-After), tells the kit to wait, not that
// the target broke the rule the request was about. Such an answer to a request whose subject is not the rate
// limit (or the 503) is sent again after the delay the target named, a bounded number of times with a bounded
// total wait. Every retry is recorded in the exchange's evidence; a request whose subject IS the refusal
// (SendOptions.transient 'judge') is never retried into a pass.

/** How many times, and how long in all, a request answered with a transient refusal is sent again. */
export interface RetryPolicy {
  /** Most retries of one request (0: none). */
  maxRetries: number;
  /** Most time spent waiting for one request, over all its retries. */
  maxWaitMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxRetries: 3, maxWaitMs: 30_000 };

/** The wait of a 429 that names none: long enough for a per-second window to pass, doubled on each retry. */
export const DEFAULT_BACKOFF_MS = 1_000;

/** `retry-after-ms`, or `retry-after` (seconds or an HTTP date), in milliseconds; undefined when neither is usable. */
export function retryAfterMs(headers: Record<string, string | undefined>, now = Date.now()): number | undefined {
  const ms = headers['retry-after-ms'];
  if (ms !== undefined && ms.trim() !== '' && Number.isFinite(Number(ms)) && Number(ms) >= 0) return Number(ms);
  const raw = headers['retry-after']?.trim();
  if (raw === undefined || raw === '') return undefined;
  const s = Number(raw);
  if (Number.isFinite(s)) return s >= 0 ? s * 1000 : undefined;
  const at = Date.parse(raw);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/**
 * How long to wait before sending a request again after this answer, or undefined when the answer is not a
 * transient refusal: a 429 always is (backing off when it names no delay), a 503 only with a delay named.
 */
export function transientWaitMs(status: number, headers: Record<string, string | undefined>, retry: number): number | undefined {
  const named = retryAfterMs(headers);
  if (status === 429) return named ?? DEFAULT_BACKOFF_MS * 2 ** retry;
  if (status === 503) return named;
  return undefined;
}

/** The next retry's wait, or why there is none: the policy's count or total wait would be exceeded. */
export function nextRetry(
  policy: RetryPolicy,
  status: number,
  headers: Record<string, string | undefined>,
  done: { retries: number; waitedMs: number },
): { waitMs: number } | { stop: string } | undefined {
  const wait = transientWaitMs(status, headers, done.retries);
  if (wait === undefined) return undefined;
  if (done.retries >= policy.maxRetries) return { stop: `still HTTP ${status} after ${done.retries} ${done.retries === 1 ? 'retry' : 'retries'} (the most the run allows)` };
  if (done.waitedMs + wait > policy.maxWaitMs) {
    return { stop: `HTTP ${status} asks for a wait of ${wait} ms, past the run's bound of ${policy.maxWaitMs} ms of waiting per request (${done.waitedMs} ms waited)` };
  }
  return { waitMs: wait };
}

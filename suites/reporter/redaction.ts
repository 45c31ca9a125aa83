// The reporter's last line of defence: every string of every report file passes through `redact()` with the
// run's secrets once more, on top of what the target client already scrubbed. Keys of objects too (a header
// name is target data). The replay curls keep their `Bearer $CONFORMANCE_API_KEY`: redact() leaves a
// variable reference alone.
import { redact } from '../lib/redact.ts';

export function redactText(text: string, secrets: readonly string[]): string {
  return redact(text, secrets);
}

/** A deep copy of `value` with every string (and every object key) redacted. */
export function redactDeep<T>(value: T, secrets: readonly string[]): T {
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return redact(v, secrets);
    if (Array.isArray(v)) return v.map(walk);
    if (v !== null && typeof v === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) out[redact(k, secrets)] = walk(x);
      return out;
    }
    return v;
  };
  return walk(value) as T;
}

// Transport is not a verdict: how many exchanges of the run never got a complete HTTP response (timeouts,
// resets, refused connections...) or met a transport event on the way (a retry on a fresh connection). The
// report says so beside the verdict, which rests on the exchanges that did get an answer.
import type { TestOutcome } from './results.ts';
import { plural } from './plural.ts';

export interface TransportSummary {
  /** Every exchange the run's tests recorded. */
  exchanges: number;
  /** Exchanges without a complete HTTP response (`error` set). */
  failed: number;
  /** Exchanges that met a transport event (e.g. `retried`), whether or not they got an answer in the end. */
  withEvents: number;
  /** Failures by kind (`errorKind`, `other` when unnamed) and events by kind. */
  kinds: Record<string, number>;
}

export function transportSummary(outcomes: readonly TestOutcome[]): TransportSummary {
  const out: TransportSummary = { exchanges: 0, failed: 0, withEvents: 0, kinds: {} };
  const add = (kind: string) => (out.kinds[kind] = (out.kinds[kind] ?? 0) + 1);
  for (const t of outcomes) {
    for (const x of t.evidence?.exchanges ?? []) {
      out.exchanges++;
      if (x.error) {
        out.failed++;
        add(x.errorKind ?? 'other');
      }
      const events = x.transportEvents ?? [];
      if (events.length > 0) out.withEvents++;
      for (const e of events) add(e.kind);
    }
  }
  return out;
}

/** One sentence for the verdict, or undefined when the transport was clean. */
export function transportSentence(t: TransportSummary): string | undefined {
  const parts: string[] = [];
  if (t.failed > 0) parts.push(`${t.failed} of ${plural(t.exchanges, 'exchange')} failed at the transport level; the verdict rests on the rest`);
  if (t.withEvents > 0) parts.push(`${plural(t.withEvents, 'exchange')} met transport events on the way`);
  if (parts.length === 0) return undefined;
  const kinds = Object.entries(t.kinds).map(([k, n]) => `${n} ${k}`).join(', ');
  return `${parts.join('; ')} (${kinds})`;
}

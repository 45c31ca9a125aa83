// Comparing an observed answer with a golden expectation. Every difference is reported (not only the first), each
// as one line naming where it is: status, a header, a JSON pointer into the body or an event, or a raw offset.
import { eventPayloads, isEventStream, type Observed } from './exchange.ts';
import type { GoldenExpect, Json } from './format.ts';

function show(v: unknown): string {
  const s = v === undefined ? 'absent' : JSON.stringify(v);
  return s.length > 120 ? `${s.slice(0, 117)}...` : s;
}

function kind(v: unknown): string {
  return v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v;
}

/** Differences between two JSON values, as `pointer: expected X, got Y`; `keyOrder` compares object key order too. */
export function jsonDifferences(expected: Json | undefined, actual: Json | undefined, pointer: string, keyOrder: boolean, out: string[] = []): string[] {
  const at = pointer || '/';
  if (kind(expected) !== kind(actual)) {
    out.push(`${at}: expected ${show(expected)}, got ${show(actual)}`);
    return out;
  }
  if (Array.isArray(expected) && Array.isArray(actual)) {
    if (expected.length !== actual.length) out.push(`${at}: expected ${expected.length} items, got ${actual.length}`);
    const n = Math.min(expected.length, actual.length);
    for (let i = 0; i < n; i++) jsonDifferences(expected[i], actual[i], `${pointer}/${i}`, keyOrder, out);
    return out;
  }
  if (expected !== null && typeof expected === 'object' && actual !== null && typeof actual === 'object') {
    const e = expected as Record<string, Json>;
    const a = actual as Record<string, Json>;
    for (const k of Object.keys(e)) {
      const p = `${pointer}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`;
      if (!(k in a)) out.push(`${p}: expected ${show(e[k])}, got absent`);
      else jsonDifferences(e[k], a[k], p, keyOrder, out);
    }
    for (const k of Object.keys(a)) if (!(k in e)) out.push(`${pointer}/${k}: expected absent, got ${show(a[k])}`);
    if (keyOrder) {
      const ek = Object.keys(e).join(',');
      const ak = Object.keys(a).join(',');
      if (ek !== ak) out.push(`${at}: expected keys in the order ${ek}, got ${ak}`);
    }
    return out;
  }
  if (expected !== actual) out.push(`${at}: expected ${show(expected)}, got ${show(actual)}`);
  return out;
}

/** Where two texts first differ, with a little context of each. */
function rawDifference(expected: string, actual: string): string | undefined {
  if (expected === actual) return undefined;
  let i = 0;
  while (i < expected.length && i < actual.length && expected[i] === actual[i]) i++;
  const near = (s: string): string => JSON.stringify(s.slice(Math.max(0, i - 20), i + 40));
  return `raw body differs at character ${i} (expected length ${expected.length}, got ${actual.length}): expected ${near(expected)}, got ${near(actual)}`;
}

/** Every way `observed` departs from `expect`; empty when it matches. */
export function compareExchange(expect: GoldenExpect, observed: Observed): string[] {
  const out: string[] = [];
  if (observed.status !== expect.status) out.push(`status: expected ${expect.status}, got ${observed.status}`);
  for (const [name, value] of Object.entries(expect.headers)) {
    const got = observed.headers.get(name);
    if (got !== value) out.push(`header ${name}: expected ${value === null ? 'absent' : JSON.stringify(value)}, got ${got === null ? 'absent' : JSON.stringify(got)}`);
  }
  const keyOrder = expect.keyOrder === true;
  if (expect.body !== undefined) {
    let body: Json | undefined;
    try {
      body = JSON.parse(observed.text) as Json;
    } catch {
      out.push(`body: expected JSON, got ${show(observed.text)}`);
    }
    if (body !== undefined) for (const d of jsonDifferences(expect.body, body, '', keyOrder)) out.push(`body ${d}`);
  }
  if (expect.events !== undefined) {
    if (!isEventStream(observed.headers)) out.push(`events: expected an event stream, got content-type ${show(observed.headers.get('content-type') ?? undefined)}`);
    const events = eventPayloads(observed.text);
    if (events.length !== expect.events.length) out.push(`events: expected ${expect.events.length} events, got ${events.length}`);
    const n = Math.min(events.length, expect.events.length);
    for (let i = 0; i < n; i++) for (const d of jsonDifferences(expect.events[i], events[i], '', keyOrder)) out.push(`event ${i} ${d}`);
  }
  if (expect.raw !== undefined) {
    const d = rawDifference(expect.raw, observed.text);
    if (d) out.push(d);
  }
  return out;
}

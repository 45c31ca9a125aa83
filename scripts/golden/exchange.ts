// Sending a golden request and observing the answer the way the golden files describe it: status, headers, and
// the body as JSON, as event payloads, or as raw text. The same code serves both adapters (the base URL differs).
import type { MockOptions } from '../../mock/index.ts';
import type { VariantName } from '../../mock/variants.ts';
import { resolveKeys, type EventPayload, type GoldenExchange, type GoldenOptions, type Json } from './format.ts';

/** The fixed clock of every golden mock instance: 2026-01-01T00:00:00Z, so `created` is 1767225600. */
export const GOLDEN_NOW_MS = 1_767_225_600_000;
/** The fixed completion id of every golden mock instance. */
export const GOLDEN_ID = 'chatcmpl-golden';

/** MockOptions of a golden options set, with the fixed clock and id that make bodies exact. */
export function mockOptionsOf(options: GoldenOptions | undefined): MockOptions {
  const out: MockOptions = { now: () => GOLDEN_NOW_MS, newId: () => GOLDEN_ID };
  if (options?.variant) out.variant = options.variant as VariantName[];
  if (options?.slow) out.slow = { ...options.slow };
  return out;
}

/** The body bytes of a request, or undefined for none. */
export function requestBody(exchange: GoldenExchange): string | undefined {
  const r = exchange.request;
  if (r.rawBody !== undefined) return r.rawBody;
  if (r.body === undefined) return undefined;
  const text = JSON.stringify(r.body);
  const bytes = Buffer.byteLength(text);
  return r.padTo !== undefined && r.padTo > bytes ? text + ' '.repeat(r.padTo - bytes) : text;
}

/** The request headers with keys resolved, and content-type application/json when there is a body. */
export function requestHeaders(exchange: GoldenExchange): Record<string, string> {
  const headers: Record<string, string> = {};
  if (requestBody(exchange) !== undefined) headers['content-type'] = 'application/json';
  for (const [name, value] of Object.entries(exchange.request.headers ?? {})) headers[name] = resolveKeys(value);
  return headers;
}

/** What came back, before it is read as the golden file says. */
export interface Observed {
  status: number;
  headers: Headers;
  text: string;
}

/** Sends the exchange's request to `origin` (+ `prefix` before the path) and reads the whole answer. */
export async function send(exchange: GoldenExchange, origin: string, prefix = ''): Promise<Observed> {
  const body = requestBody(exchange);
  const init: RequestInit = { method: exchange.request.method, headers: requestHeaders(exchange) };
  if (body !== undefined) init.body = body;
  let res: Response;
  try {
    res = await fetch(`${origin}${prefix}${exchange.request.path}`, init);
  } catch {
    // No answer at all: the connection was reset before a status line (the mock's stall fault). Status 0, as
    // the golden format writes it; an answer that should have come fails on its status.
    return { status: 0, headers: new Headers(), text: '' };
  }
  return { status: res.status, headers: res.headers, text: await res.text() };
}

/**
 * The data payloads of a server-sent-event body (section 6): lines end in CRLF, LF or CR; `data:` with or
 * without the space; several data lines join with a newline; a blank line dispatches; a final event without its
 * blank line is still dispatched at the end of the body. Comment lines and other fields carry no payload.
 */
export function eventPayloads(text: string): EventPayload[] {
  const out: EventPayload[] = [];
  let data: string[] | undefined;
  const dispatch = (): void => {
    if (data === undefined) return;
    const payload = data.join('\n');
    data = undefined;
    try {
      out.push(JSON.parse(payload) as Json);
    } catch {
      out.push(payload);
    }
  };
  const lines = text.split(/\r\n|\r|\n/);
  // A body that ends with a line ending leaves one empty string after the split: that is no blank line.
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  for (const line of lines) {
    if (line === '') dispatch();
    else if (line.startsWith('data:')) (data ??= []).push(line.slice(line.startsWith('data: ') ? 6 : 5));
  }
  dispatch();
  return out;
}

/** Whether a response is an event stream (by its content type). */
export function isEventStream(headers: Headers): boolean {
  return (headers.get('content-type') ?? '').startsWith('text/event-stream');
}

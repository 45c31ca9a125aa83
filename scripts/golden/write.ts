// The one way a golden file is written: fixed key order, two-space indentation, and each event payload on one
// line (a stream of thirty chunks stays readable and diffs one line per chunk).
import type { GoldenExchange } from './format.ts';

export function formatGolden(exchange: GoldenExchange): string {
  const e = exchange.expect;
  const expect: Record<string, unknown> = { status: e.status, headers: e.headers };
  if (e.keyOrder !== undefined) expect['keyOrder'] = e.keyOrder;
  if (e.body !== undefined) expect['body'] = e.body;
  if (e.events !== undefined) expect['events'] = '\u0000EVENTS\u0000';
  if (e.raw !== undefined) expect['raw'] = e.raw;
  const ordered: Record<string, unknown> = { $schema: exchange.$schema ?? '../golden.schema.json', narrative: exchange.narrative };
  if (exchange.readme !== undefined) ordered['readme'] = exchange.readme;
  if (exchange.options !== undefined) ordered['options'] = exchange.options;
  ordered['request'] = exchange.request;
  ordered['expect'] = expect;
  let text = JSON.stringify(ordered, null, 2);
  if (e.events !== undefined) {
    const lines = e.events.map((p) => `      ${JSON.stringify(p)}`).join(',\n');
    text = text.replace('"\\u0000EVENTS\\u0000"', e.events.length === 0 ? '[]' : `[\n${lines}\n    ]`);
  }
  return `${text}\n`;
}

/** The headers a recording keeps: those the file already lists, and these whenever the answer carries them. */
export const RECORDED_HEADERS = ['content-type', 'cache-control', 'retry-after', 'x-should-retry', 'allow', 'x-mock-route'] as const;

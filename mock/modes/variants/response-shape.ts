// Legal variants of the JSON shapes (sections 2 and 6): key order, omitted optional fields, vendor extras, a bare
// usage chunk.
import type { PublicCatalogEntry } from '../../core/types.ts';
import { variant } from '../mode.ts';
import { choicesOf, REQUIRED_FIELDS, VENDOR_EXTRA } from '../support.ts';

/** A copy of a JSON value with every object's keys in reverse order. */
export function reverseKeys<T>(value: T): T {
  if (Array.isArray(value)) return value.map((v) => reverseKeys(v)) as T;
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(value as Record<string, unknown>).reverse()) out[k] = reverseKeys((value as Record<string, unknown>)[k]);
  return out as T;
}

export const KEY_ORDER_VARIANT = variant({
  name: 'key-order',
  allows: '2 (JSON objects are unordered)',
  description: 'every JSON object (responses, chunks, catalog, errors) is serialised with its keys in reverse order',
  output: { json: reverseKeys },
});

export const OPTIONAL_OMITTED_VARIANT = variant({
  name: 'optional-omitted',
  allows: '2.9, 2.10 (optional fields omitted when unavailable)',
  description:
    'every optional field that may be omitted is omitted: usage (non-streamed), usage.cost and cost_details, finish_reason, citation titles, and every optional catalog field',
  stages: () => ({
    publicEntry: (next) => (entry) => {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(next(entry))) if (REQUIRED_FIELDS.has(k)) out[k] = v;
      return out as unknown as PublicCatalogEntry;
    },
    complete: (next) => (input) => {
      const c = next(input);
      c.citations = c.citations.map((x) => {
        const { title: _t, ...u } = x.url_citation;
        return { ...x, url_citation: u };
      });
      return c;
    },
    usage: (next) => (input) => {
      const { cost: _c, cost_details: _d, ...u } = next(input);
      return u;
    },
  }),
  output: {
    body: (body) => {
      for (const choice of choicesOf(body)) delete choice.finish_reason;
      delete body.usage;
      return body;
    },
    chunks: (chunks) => {
      for (const chunk of chunks) for (const choice of choicesOf(chunk)) delete choice.finish_reason;
      return chunks;
    },
  },
});

export const EXTRA_FIELDS_VARIANT = variant({
  name: 'extra-fields',
  allows: '1 (the widely used shape carries more fields than the contract lists)',
  description:
    'unknown extra fields on responses, choices, messages, deltas, chunks, usage, the model list object and error bodies (x_vendor_extra, system_fingerprint, ...); never on catalog entries, which 2.10 closes',
  stages: () => ({
    modelList: (next) => (data) => Object.assign(next(data), VENDOR_EXTRA, { has_more: false }),
  }),
  output: {
    body: (body) => {
      for (const choice of choicesOf(body)) {
        Object.assign(choice.message as Record<string, unknown>, { refusal_reason: 'none', ...VENDOR_EXTRA });
        Object.assign(choice, VENDOR_EXTRA);
      }
      if (body.usage !== undefined) body.usage = { ...(body.usage as object), ...VENDOR_EXTRA };
      return Object.assign(body, { system_fingerprint: 'fp_mock', service_tier: 'default', ...VENDOR_EXTRA });
    },
    chunks: (chunks) =>
      chunks.map(({ id, object, created, model, ...rest }) => {
        const out: Record<string, unknown> = { id, object, created, model, system_fingerprint: 'fp_mock', ...VENDOR_EXTRA, ...rest };
        if (Array.isArray(rest.choices)) {
          out.choices = choicesOf(rest).map((c) => ({ ...c, delta: { ...(c.delta as object), ...VENDOR_EXTRA }, ...VENDOR_EXTRA }));
        }
        if (rest.usage !== undefined) out.usage = { ...(rest.usage as object), ...VENDOR_EXTRA };
        return out;
      }),
    error: (result) => {
      if (result.kind !== 'json') return result;
      const body = result.body as { error: Record<string, unknown> };
      return { ...result, body: { ...body, error: { ...body.error, ...VENDOR_EXTRA }, ...VENDOR_EXTRA } };
    },
  },
});

export const USAGE_CHUNK_BARE_VARIANT = variant({
  name: 'usage-chunk-bare',
  allows: '6 rule 9 (the chunk shape beyond choices[].delta.content is not defined)',
  description: 'with include_usage, the usage-only chunk has no choices key at all (clients want choices: [], so the suite warns)',
  output: {
    chunks: (chunks) =>
      chunks.map((c) => {
        if (!('usage' in c)) return c;
        const { choices: _c, ...bare } = c;
        return bare;
      }),
  },
});

/** Ten minutes: a server clock that far behind is still "near now" (the judge allows a day either side). */
const SKEW_S = 600;

export const CREATED_SKEWED_VARIANT = variant({
  name: 'created-skewed',
  allows: '2.9 (created is a Unix timestamp; a server clock may run behind the caller\'s)',
  description: '"created" is ten minutes behind the mock\'s clock (a server whose clock drifted), in every answer and chunk',
  stages: () => ({ envelope: (next) => (input) => { const env = next(input); return { ...env, created: env.created - SKEW_S }; } }),
});

export const SEARCH_CALLS_PARTIAL_VARIANT = variant({
  name: 'search-calls-partial',
  allows: '2.9 (service_web_search_calls counts the actions that completed; message.service_web_search lists those performed)',
  description: 'a search answer counts one completed search in usage.service_web_search_calls, however many actions message.service_web_search lists (the others did not complete)',
  stages: () => ({
    usage: (next) => (input) => {
      const u = next(input);
      return u.service_web_search_calls !== undefined ? { ...u, service_web_search_calls: 1 } : u;
    },
  }),
});

export const CATALOG_PAGE_FIELDS_VARIANT = variant({
  name: 'catalog-page-fields',
  allows: '2.11 (the list object carries more than object and data; data is the whole catalog)',
  description: 'GET /v1/models carries a paginated API\'s fields around the whole catalog: "has_more": false, "first_id" and "last_id"',
  stages: () => ({
    modelList: (next) => (data) => Object.assign(next(data), { has_more: false, ...(data.length > 0 ? { first_id: data[0]!.id, last_id: data[data.length - 1]!.id } : {}) }),
  }),
});

/** Two text parts: the answer cut at its middle space (one part when it has none), so a reader must join them. */
function textParts(text: string): { type: 'text'; text: string }[] {
  const cut = text.indexOf(' ', Math.floor(text.length / 2));
  return cut <= 0 ? [{ type: 'text', text }] : [{ type: 'text', text: text.slice(0, cut) }, { type: 'text', text: text.slice(cut) }];
}

export const CONTENT_PARTS_VARIANT = variant({
  name: 'content-parts',
  allows: '2.9 (message content is a string or an array; 2.5 gives the text parts)',
  description: 'a non-streamed answer gives message.content as an array of text parts (the text in two parts, cut at a space), whose joined text is the answer citation offsets count',
  output: {
    body: (body) => {
      for (const choice of choicesOf(body)) {
        const message = choice.message as Record<string, unknown> | undefined;
        if (message && typeof message.content === 'string' && message.content !== '') message.content = textParts(message.content);
      }
      return body;
    },
  },
});

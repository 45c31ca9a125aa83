// Checks of the model catalog as read (2.10, 2.11, 4.1, 4.2, 9), each one requirement.
import { check, holds, isObject, notApplicable, quote, type Json } from './check.ts';
import type { TargetResponse } from '../exchange.ts';

/** A 200 answer to GET /v1/models: the response, its parsed body and the entries it lists. */
export interface ModelList {
  res: TargetResponse;
  body: unknown;
  entries: Json[];
}

/** Field names that would name the serving backend, which the catalog deliberately removes (2.10). */
export const BACKEND_FIELD_NAMES = ['provider', 'providers', 'backend', 'upstream', 'route', 'routes', 'serving_provider', 'provider_name', 'host', 'endpoint_provider'] as const;
export const BACKEND_FIELD = new RegExp(`^(?:${BACKEND_FIELD_NAMES.join('|')})$`, 'i');

/** An entry as messages name it: its id, quoted, or what it lacks. */
const entryName = (m: Json): string => (typeof m.id === 'string' ? quote(m.id) : 'an entry without an id');

export const listServedAsJson = check('CAT-032', function listServedAsJson(l: ModelList) {
  return holds(isObject(l.body) && /json/i.test(l.res.headers['content-type'] ?? ''), () => `GET /v1/models answers a JSON model list object; received content-type ${quote(l.res.headers['content-type'] ?? '(none)')} and ${l.res.describe()}`);
});

export const noBackendField = check('CAT-002', function noBackendField(l: ModelList) {
  if (l.entries.length === 0) return notApplicable();
  const named = l.entries.flatMap((m) => Object.keys(m).filter((k) => BACKEND_FIELD.test(k)).map((k) => (typeof m.id === 'string' ? `${m.id}.${k}` : `${k} (${entryName(m)})`)));
  return holds(named.length === 0, () => `entries name their backend: ${named.slice(0, 10).join(', ')}`);
}, { when: 'the list holds an entry' });

export const idsListedOnce = check('CAT-030', function idsListedOnce(l: ModelList) {
  if (l.entries.length === 0) return notApplicable();
  const ids = l.entries.map((m) => m.id);
  const dupes = [...new Set(ids.filter((id, i) => ids.indexOf(id) !== i))];
  return holds(dupes.length === 0, () => `ids listed more than once: ${dupes.map((d) => quote(d)).join(', ')}`);
}, { when: 'the list holds an entry' });

// A null is not a value carried: it is charged to CAT-027 (no null placeholders) alone.
const featuredOnly = (field: 'featured_label' | 'featured_tab') => (l: ModelList) => {
  const carrying = l.entries.filter((m) => field in m && m[field] !== null);
  if (carrying.length === 0) return notApplicable();
  return carrying
    .filter((m) => m.is_featured !== true)
    .map((m) => `${entryName(m)} carries ${field} ${quote(m[field])} but ${'is_featured' in m ? `is_featured is ${quote(m.is_featured)}` : 'no is_featured'}; the field is present only on featured entries`);
};

export const featuredLabelOnFeatured = check('CAT-023', function featuredLabelOnFeatured(l: ModelList) {
  return featuredOnly('featured_label')(l);
}, { when: 'an entry carries featured_label' });

export const featuredTabOnFeatured = check('CAT-024', function featuredTabOnFeatured(l: ModelList) {
  return featuredOnly('featured_tab')(l);
}, { when: 'an entry carries featured_tab' });

/** The most tokens one response may generate fits in the whole input-plus-output length. */
export const maxTokensWithinWindow = check('CAT-008', function maxTokensWithinWindow(l: ModelList) {
  const both = l.entries.filter((m) => typeof m.max_tokens === 'number' && typeof m.context_window === 'number');
  if (both.length === 0) return notApplicable();
  return both
    .filter((m) => (m.max_tokens as number) > (m.context_window as number))
    .map((m) => `${entryName(m)}: max_tokens ${String(m.max_tokens)} exceeds context_window ${String(m.context_window)}, the maximum input plus output length`);
}, { when: 'an entry states both max_tokens and context_window' });

/** Prices are per unit of input, output or cache use: never negative. Each price is its own requirement. */
const priceNotNegative = (field: string, id: string) =>
  check(id, function priceNotNegative(l: ModelList) {
    const priced = l.entries.filter((m) => typeof m[field] === 'number');
    if (priced.length === 0) return notApplicable();
    return priced.filter((m) => (m[field] as number) < 0).map((m) => `${entryName(m)}: ${field} is ${String(m[field])}; a price is not negative`);
  }, { when: `an entry states ${field} as a number` });

export const PRICE_CHECKS = [
  priceNotNegative('input_price', 'CAT-012'),
  priceNotNegative('output_price', 'CAT-013'),
  priceNotNegative('cache_write_price', 'CAT-014'),
  priceNotNegative('cache_read_price', 'CAT-015'),
] as const;

// Nulls (CAT-027, restated as CAT-041) are judged by the schema checks, with the pointer of each null field.
export const MODEL_LIST_CHECKS = [listServedAsJson, noBackendField, idsListedOnce, featuredLabelOnFeatured, featuredTabOnFeatured, maxTokensWithinWindow, ...PRICE_CHECKS] as const;

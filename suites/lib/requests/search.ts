// Hosted web search (2.7, 2.9, 4.3 rule 6, section 7, section 8): the requests the web-search spec sends and the
// fixed refusal texts of section 7. What an answer reported about a search is judged in judge/search.ts.
import type { Discovery, SearchProbe } from '../discovery.ts';
import type { Checker } from '../../../judge/checker.ts';
import type { TargetResponse } from '../../../judge/exchange.ts';
import { judgeRefusal } from '../../../judge/judge-response.ts';

type Json = Record<string, unknown>;

/** A question a search answers with sources. */
export const SEARCH_PROMPT = 'Which city hosts the Louvre museum? Answer in one sentence and cite a source.';

/** The bare tools entry that requests hosted search (2.7). */
export const WEB_SEARCH_TOOL = { type: 'web_search' } as const;

/** Fixed messages of section 7 (exact text). */
export const SEARCH_MESSAGES = {
  notSupported: 'hosted web search is unavailable for this request',
  contextSize: 'search_context_size must be one of: low, medium, high',
  locationType: 'user_location.type must be "approximate"',
  locationMixed: 'user_location must not mix nested approximate and flat fields',
  locationMalformed: 'user_location has unknown or malformed fields',
} as const;

/** "hosted web search on this model requires an output budget of at least N tokens; M was requested". */
export const BUDGET_MESSAGE = /^hosted web search on this model requires an output budget of at least (\d+) tokens; (\d+) was requested$/;

/** Valid locations (2.7): real ISO 3166-1 alpha-2 countries, real IANA time-zone names, short city/region. */
export const NESTED_LOCATION = { type: 'approximate', approximate: { country: 'FR', city: 'Paris', region: 'Ile-de-France', timezone: 'Europe/Paris' } };
export const FLAT_LOCATION = { type: 'approximate', country: 'JP', city: 'Osaka', region: 'Kansai', timezone: 'Asia/Tokyo' };

/**
 * What "short" means for a city or region (2.7 bounds them; section 8 does not say where): no longer, in UTF-8 bytes,
 * than the longest the valid-location tests send. A longer value may meet a bound the target is free to choose, so the
 * property tests generate none that they would require to be accepted.
 */
export const SHORT_PLACE_BYTES = Math.max(
  ...[NESTED_LOCATION.approximate, FLAT_LOCATION].flatMap((l) => [l.city, l.region]).map((s) => new TextEncoder().encode(s).length),
);

/** One invalid web_search_options, with the requirement it probes and why it is invalid. */
export interface InvalidCase {
  /** The requirement the rejection itself proves (2.7). */
  id: string;
  label: string;
  options: Json;
}

export const BAD_CONTEXT_SIZES: InvalidCase[] = [
  { id: 'SEARCH-007', label: 'search_context_size "maximum"', options: { search_context_size: 'maximum' } },
  { id: 'SEARCH-007', label: 'search_context_size "LOW" (the values are lowercase)', options: { search_context_size: 'LOW' } },
];

export const UNKNOWN_LOCATION_FIELDS: InvalidCase[] = [
  { id: 'SEARCH-012', label: 'an unknown flat field', options: { user_location: { type: 'approximate', country: 'FR', planet: 'Earth' } } },
  { id: 'SEARCH-012', label: 'an unknown field in the nested object', options: { user_location: { type: 'approximate', approximate: { country: 'FR', planet: 'Earth' } } } },
];

export const MALFORMED_LOCATION_FIELDS: InvalidCase[] = [
  { id: 'SEARCH-013', label: 'country as a number', options: { user_location: { type: 'approximate', country: 33 } } },
  { id: 'SEARCH-013', label: 'city as an array', options: { user_location: { type: 'approximate', approximate: { city: ['Paris'] } } } },
  { id: 'SEARCH-013', label: 'the nested approximate as a string', options: { user_location: { type: 'approximate', approximate: 'Paris' } } },
  { id: 'SEARCH-014', label: 'country of three letters', options: { user_location: { type: 'approximate', country: 'FRA' } } },
  { id: 'SEARCH-014', label: 'country with a digit', options: { user_location: { type: 'approximate', approximate: { country: 'F1' } } } },
  { id: 'SEARCH-019', label: 'timezone that is not an IANA name', options: { user_location: { type: 'approximate', timezone: 'Mars/Olympus_Mons' } } },
];

/**
 * web_search_options that 2.7 makes invalid were rejected: a client error under the requirement the rejection proves
 * (`c.id`), and the section 7 row (`row`: 400, invalid_web_search_options, its fixed message). The one judgement of a
 * rejection, for the web-search tests and the property that generates the faults.
 */
export function judgeOptionsRejected(check: Checker, res: TargetResponse, c: { id: string; label: string }, row: { id: string; message: string }): void {
  check.status(c.id, res, (s) => s >= 400 && s < 500, `${c.label} must be rejected: a client-error (4xx) status`);
  judgeRefusal(check, res, { id: row.id, status: 400, code: 'invalid_web_search_options', message: row.message, statusText: `for ${c.label}, status` });
}

/**
 * The probes with one of the results, in the order the results are given, and a readable summary of all probes
 * for skip reasons.
 */
export function probed(discovery: Discovery, ...results: SearchProbe['result'][]): { models: SearchProbe[]; reason: string } {
  const models = results.flatMap((result) => discovery.searchProbes.filter((p) => p.result === result));
  const all = discovery.searchProbes.map((p) => `${p.model}: ${p.result}${p.status ? ` (HTTP ${p.status}${p.code ? ` ${p.code}` : ''})` : ''}`);
  const reason = discovery.catalogError ?? (all.length ? `no probed model is ${results.map((r) => `'${r}'`).join(' or ')} (probes: ${all.join('; ')})` : 'no model was probed for hosted search');
  return { models, reason };
}

/** Statuses and codes of a probe's answer that say nothing about search: the key's access, the model's state, throttling. */
const NOT_ABOUT_SEARCH = (p: SearchProbe) => p.status === 0 || p.status === 401 || p.status === 403 || p.status === 404 || p.status === 429 || p.code === 'model_unavailable';

/**
 * Probes refused with neither search refusal of section 7 (not web_search_not_supported nor the budget refusal, by
 * code or fixed message), where the answer is about the search request: the route did not serve search and did
 * not say so as 7 states. The refusal test of SEARCH-045 judges these models (a finding under SEARCH-045), and the
 * tests that needed a classified model skip with that finding as their cause.
 */
export function unclassified(discovery: Discovery): SearchProbe[] {
  return discovery.searchProbes.filter((p) => p.result === 'other' && p.status >= 400 && !NOT_ABOUT_SEARCH(p));
}

/**
 * Skip a search test that found no model of the kind it needs: with SEARCH-045's finding as the cause when some
 * probe could not be classified (that test charges it), else with the probes' own reason.
 */
export function skipForSearch(check: Checker, discovery: Discovery, reason: string): never {
  const lost = unclassified(discovery);
  if (lost.length === 0) return check.skip(reason);
  const seen = lost.slice(0, 3).map((p) => `${p.model} HTTP ${p.status}${p.code ? ` ${p.code}` : ' without a code'}`).join(', ');
  return check.skipFor('SEARCH-045', `the search probes could not classify ${lost.length === 1 ? 'a model' : `${lost.length} models`} (${seen}): a refusal of a search request that names neither web_search_not_supported nor the budget refusal (SEARCH-045's finding); ${reason}`);
}

/**
 * Models that took a search request: those that reported a search first, then those that answered 200 without
 * one (the target accepted the request; whether it searched and reported it is what the tests judge).
 */
export function searchTakers(discovery: Discovery): { models: SearchProbe[]; reason: string } {
  return probed(discovery, 'capable', 'ignored');
}

/** Caps below the minimum output budget N, within the run's per-request cap, two distinct ones if possible. */
export function capsBelow(n: number | undefined, maxTokens: number): number[] {
  // Without N (the probe's message did not parse), the probe's own cap was refused: stay below it.
  const bound = n ?? maxTokens;
  return [16, 24, 8, 4, 2, 1].filter((m) => m < bound && m <= maxTokens).slice(0, 2);
}

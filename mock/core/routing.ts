// Routing preferences (2.8, 4.3 rules 4-5, 7 rule 3): provider.sort, provider.order and allow_fallbacks against
// the entry's hidden routes. Every route serves the same entry; the response model is always the requested id.
import { MESSAGES, MockHttpError } from './errors.ts';
import type { ChatRequest } from './request.ts';
import type { FixtureEntry, MockRoute } from './types.ts';

const SORT_KEYS: Record<string, keyof MockRoute> = {
  price: 'price_rank',
  latency: 'latency_rank',
  throughput: 'throughput_rank',
};

/**
 * Picks the serving route:
 * - candidates: routes that are up and, when search is requested, can receive the search signal;
 * - ranked: with provider.order, the named candidates in that order; without it, every route (ordered by
 *   provider.sort when it is price, latency or throughput, else fixture order). Unknown sort values and
 *   unknown names in order are preferences no route implements: ignored;
 * - allow_fallbacks false: only ranked routes may serve; none available gives 503 no_route_available with
 *   `x-should-retry: false`. Otherwise the first ranked candidate, else the first other candidate.
 */
// honours: ROUTE-005, ROUTE-010 (allow_fallbacks false: a refusal, never a route that was not ranked)
export function pickRoute(req: ChatRequest, entry: FixtureEntry, search: boolean): MockRoute {
  const { ranked, byPreference, usable } = rankRoutes(req, entry, search);
  const first = ranked.find(usable);
  if (first) return first;
  if (req.provider?.allow_fallbacks === false) {
    throw new MockHttpError(
      503,
      'no_route_available',
      'no ranked route can serve this request and provider.allow_fallbacks is false',
      { 'x-should-retry': 'false' },
    );
  }
  const fallback = byPreference.find(usable);
  if (fallback) return fallback;
  if (search) throw new MockHttpError(400, 'web_search_not_supported', MESSAGES.webSearchNotSupported);
  throw new MockHttpError(503, 'model_unavailable', `model ${entry.id} cannot be served right now; retry later`, {
    'retry-after': '1',
  });
}

/** The routes the preferences rank, all routes by preference, and which routes can serve the request now. */
// honours: ROUTE-006, ROUTE-007 (sort, order and allow_fallbacks reach the route choice; unknown values are ignored)
export function rankRoutes(req: ChatRequest, entry: FixtureEntry, search: boolean): { ranked: MockRoute[]; byPreference: MockRoute[]; usable: (r: MockRoute) => boolean } {
  const routes = entry.mock.routes;
  const sortKey = req.provider?.sort !== undefined ? SORT_KEYS[req.provider.sort] : undefined;
  const byPreference = sortKey ? [...routes].sort((a, b) => (a[sortKey] as number) - (b[sortKey] as number)) : routes;
  const order = req.provider?.order;
  let ranked: MockRoute[];
  if (Array.isArray(order)) {
    ranked = [];
    for (const name of order) {
      const r = routes.find((x) => x.name === name);
      if (r && !ranked.includes(r)) ranked.push(r);
    }
  } else {
    ranked = byPreference;
  }
  // honours: SEARCH-020 (a route that cannot search never gets the search signal)
  const usable = (r: MockRoute): boolean => r.available && (!search || r.web_search);
  return { ranked, byPreference, usable };
}

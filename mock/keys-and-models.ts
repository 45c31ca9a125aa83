// Named handles on the default fixtures (fixtures/mock/*.json), for tests, the suite's mock profile and docs.
import { defaultCatalog, defaultKeys } from './core/fixture-data.ts';
import { toPublicEntry } from './core/catalog.ts';
import type { FixtureEntry, PublicCatalogEntry } from './core/types.ts';

/** The keys of fixtures/mock/keys.json by role. */
export const MOCK_KEYS = {
  /** highest tier (pro), every model */
  full: 'sk-mock-full-0123456789abcdef',
  /** tier standard */
  standard: 'sk-mock-standard-0123456789abcdef',
  /** tier free */
  free: 'sk-mock-free-0123456789abcdef',
  /** tier pro, restricted to MOCK_RESTRICTED_MODELS */
  restricted: 'sk-mock-restricted-0123456789abcdef',
} as const;

export const MOCK_RESTRICTED_MODELS = ['acme/chat-small', 'mini-chat', 'reason-pro'] as const;

/** Model ids of fixtures/mock/catalog.json by the behaviour they exercise. */
export const MOCK_MODELS = {
  /** pro tier; images, caching, reasoning (low|medium|high), web search, every price, cost_details */
  large: 'acme/chat-large',
  /** free tier; web search (no minimum budget), no images */
  small: 'acme/chat-small',
  /** free tier; minimal entry: no prices (no cost), no max_tokens, no search */
  mini: 'mini-chat',
  /** standard tier; reasoning with the wide set minimal|low|medium|high|xhigh */
  reasoner: 'reason-pro',
  /** free tier; reasoning low|medium|high, max_tokens 512 */
  tinyReasoner: 'tiny-thinker',
  /** free tier; web search needing an output budget of at least 1024 tokens */
  searchBudget: 'search-compact',
  /** standard tier; images, no caching */
  vision: 'vision-lite',
  /** standard tier; prompt caching */
  caching: 'cache-pro',
  /** free tier; four routes (route-a, route-b, route-c, route-down) for provider.sort/order/allow_fallbacks */
  routes: 'route-multi',
  /** pro tier; prices unpublished, reasoning low|high */
  preview: 'acme/chat-large-preview',
  /** deactivated: not listed, 403 model_not_found */
  deactivated: 'legacy-chat-v1',
  /** listed, but chat answers 503 model_unavailable */
  unavailable: 'busy-chat',
} as const;

/** The minimum output budget of MOCK_MODELS.searchBudget. */
export const MOCK_SEARCH_MIN_OUTPUT_TOKENS = 1024;

/** Every fixture entry, hidden attributes included. */
export function fixtureEntries(): FixtureEntry[] {
  return defaultCatalog().entries;
}

/** One fixture entry by id (hidden attributes included). */
export function fixtureEntry(id: string): FixtureEntry | undefined {
  return defaultCatalog().entries.find((e) => e.id === id);
}

/** The catalog entry of an id exactly as GET /v1/models/{id} shows it. */
export function publicEntry(id: string): PublicCatalogEntry | undefined {
  const e = fixtureEntry(id);
  return e ? toPublicEntry(e) : undefined;
}

/** Every key of fixtures/mock/keys.json. */
export function fixtureKeys(): ReturnType<typeof defaultKeys>['keys'] {
  return defaultKeys().keys;
}

// Shared types of the reference mock's core: the fixtures and the options of the contract's behaviour.
// Nothing here knows about MSW, node:http or the modes layered on top (mock/modes/).

/** A catalog entry exactly as GET /v1/models shows it (section 2.10). Optional fields are omitted, never null. */
export interface PublicCatalogEntry {
  id: string;
  name: string;
  min_tier: string;
  max_tokens?: number;
  context_window?: number;
  supports_images: boolean;
  supports_caching: boolean;
  supports_reasoning: boolean;
  input_price?: number;
  output_price?: number;
  cache_write_price?: number;
  cache_read_price?: number;
  description?: string;
  temperature?: number;
  api_format?: string;
  supports_global_endpoint: boolean;
  thinking_config?: Record<string, unknown>;
  tiers?: Record<string, unknown>;
  is_featured: boolean;
  featured_label?: string;
  featured_tab?: string;
  display_order?: number;
  credit_tier?: string;
}

/** One route that can serve an entry. Hidden: never shown by the catalog. */
export interface MockRoute {
  name: string;
  price_rank: number;
  latency_rank: number;
  throughput_rank: number;
  /** false: the route is down right now. */
  available: boolean;
  /** whether this route can receive the hosted-search signal */
  web_search: boolean;
}

export type ModelState = 'active' | 'deactivated' | 'unavailable';

/** Attributes the catalog never shows (stored under `mock` in fixtures/mock/catalog.json). */
export interface HiddenAttributes {
  family: string;
  state: ModelState;
  routes: MockRoute[];
  /** accepted reasoning.effort values; only read when supports_reasoning is true */
  reasoning_efforts?: string[];
  /** minimum output budget N (tokens) needed to search and still answer */
  search_min_output_tokens?: number;
  /** whether usage.cost_details.upstream_inference_cost is reported */
  upstream_cost?: boolean;
}

export interface FixtureEntry extends PublicCatalogEntry {
  mock: HiddenAttributes;
}

export interface CatalogFixture {
  /** account tiers, lowest first */
  tiers_order: string[];
  entries: FixtureEntry[];
}

export interface ApiKey {
  key: string;
  name: string;
  tier: string;
  /** when present, the key may only use these model ids */
  models?: string[];
}

export interface KeysFixture {
  keys: ApiKey[];
}

/** What the core is configured with: fixtures, limits and the sources of ids and time. */
export interface CoreOptions {
  /** replaces fixtures/mock/catalog.json */
  catalog?: CatalogFixture;
  /** replaces fixtures/mock/keys.json */
  keys?: KeysFixture;
  /** request-body limit in bytes for POST /v1/chat/completions; default 10,000,000 (10 MB, SI) */
  bodyLimitBytes?: number;
  /** clock in ms since epoch (for `created`); default Date.now */
  now?: () => number;
  /** generator of completion ids; default `chatcmpl-` + random UUID */
  newId?: () => string;
  /** max entries kept in the prompt cache of one mock instance; default 10,000 */
  cacheCapacity?: number;
}

/** A JSON object as the mock builds it. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

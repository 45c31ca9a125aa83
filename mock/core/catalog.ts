// The catalog (2.10, 2.11, 4.1, 4.2, 5): listed entries only, hidden attributes stripped; resolving a chat's model.
import { keyAllows, tierAtLeast } from './auth.ts';
import { MockHttpError } from './errors.ts';
import type { ApiKey, CatalogFixture, FixtureEntry, PublicCatalogEntry } from './types.ts';

/** Fields of 2.10 in the order the mock emits them. Anything else in a fixture entry never leaves the mock. */
// honours: CAT-001, CAT-002 (only the 23 fields of 2.10 leave the mock; the hidden `mock` attributes never do)
export const PUBLIC_FIELDS = [
  'id', 'name', 'min_tier', 'max_tokens', 'context_window', 'supports_images', 'supports_caching',
  'supports_reasoning', 'input_price', 'output_price', 'cache_write_price', 'cache_read_price', 'description',
  'temperature', 'api_format', 'supports_global_endpoint', 'thinking_config', 'tiers', 'is_featured',
  'featured_label', 'featured_tab', 'display_order', 'credit_tier',
] as const satisfies readonly (keyof PublicCatalogEntry)[];

/** Strips hidden attributes and any null/undefined value (2.10: optional fields are omitted, never null). */
// honours: CAT-027, CAT-041 (a field without a value is omitted, never null)
// honours: CAT-007, CAT-008, CAT-012, CAT-013, CAT-014, CAT-015, CAT-017, CAT-018, CAT-020, CAT-021, CAT-025, CAT-026
export function toPublicEntry(entry: FixtureEntry): PublicCatalogEntry {
  const out: Record<string, unknown> = {};
  for (const field of PUBLIC_FIELDS) {
    const v = (entry as unknown as Record<string, unknown>)[field];
    if (v !== undefined && v !== null) out[field] = v;
  }
  return out as unknown as PublicCatalogEntry;
}

export interface ModelList {
  object: 'list';
  data: PublicCatalogEntry[];
}

/** The three views the catalog is built from, once per mock instance (stages of mock/core/pipeline.ts). */
export interface CatalogView {
  /** 2.10: one entry as the catalog shows it */
  publicEntry(entry: FixtureEntry): PublicCatalogEntry;
  /** 2.11, 3: the entries GET /v1/models lists (deactivated ones are not) */
  listedEntries(entries: readonly FixtureEntry[]): FixtureEntry[];
  /** 2.11: the list object around the entries a caller sees */
  modelList(data: PublicCatalogEntry[]): ModelList;
}

export const CONTRACT_VIEW: CatalogView = {
  publicEntry: toPublicEntry,
  // honours: CAT-039, CAT-033 (deactivated entries are not listed; every listed one is served or 503)
  listedEntries: (entries) => entries.filter((e) => e.mock.state !== 'deactivated'),
  // honours: CAT-028, CAT-029, CAT-045 (every listed entry in one answer: no pages)
  modelList: (data) => ({ object: 'list', data }),
};

export class Catalog {
  readonly byId: Map<string, FixtureEntry>;
  readonly tiersOrder: string[];
  private readonly publicById: Map<string, PublicCatalogEntry>;
  private readonly listed: PublicCatalogEntry[];
  /** The model list per caller (anonymous is ''), built once: the fixtures never change in a running mock. */
  private readonly lists = new Map<string, ModelList>();

  constructor(
    fixture: CatalogFixture,
    private readonly view: CatalogView = CONTRACT_VIEW,
  ) {
    this.tiersOrder = fixture.tiers_order;
    this.byId = new Map(fixture.entries.map((e) => [e.id, e]));
    this.publicById = new Map(fixture.entries.map((e) => [e.id, view.publicEntry(e)]));
    this.listed = view.listedEntries(fixture.entries).map((e) => this.publicById.get(e.id)!);
  }

  /** The entries listed to everyone, in fixture order. */
  get listedEntries(): readonly PublicCatalogEntry[] {
    return this.listed;
  }

  /** The model list (2.11): active entries (unavailable ones included), filtered by a restricted key's list. */
  // honours: CAT-034, AUTH-007 (the list a restricted key reads holds only its models)
  list(key?: ApiKey): ModelList {
    const cacheKey = key?.key ?? '';
    let list = this.lists.get(cacheKey);
    if (!list) {
      list = Object.freeze(this.view.modelList(key ? this.listed.filter((e) => keyAllows(key, e.id)) : this.listed));
      this.lists.set(cacheKey, list);
    }
    return list;
  }

  /** One entry for GET /v1/models/{id}: 404 unknown, 403 outside a restricted key's list, 403 deactivated. */
  // honours: CAT-036, CAT-037 (the very entry object the list shows, under the same key filter)
  get(id: string, key?: ApiKey): PublicCatalogEntry {
    const entry = this.byId.get(id);
    if (!entry) throw new MockHttpError(404, 'unknown_model', `unknown model id: ${id}`);
    if (key && !keyAllows(key, id)) {
      throw new MockHttpError(403, 'model_not_allowed', `this API key is not allowed to use model ${id}`);
    }
    if (entry.mock.state === 'deactivated') {
      throw new MockHttpError(403, 'model_not_found', `model ${id} has been deactivated`);
    }
    return this.publicById.get(id)!;
  }

  /**
   * Resolves the model of a chat request, in this order: 404 unknown_model, 403 model_not_allowed (never
   * rerouted), 403 model_not_found (deactivated), 403 insufficient_tier, 503 model_unavailable.
   */
  // honours: CAT-004, CHAT-011, CHAT-012, ERR-006, AUTH-008 (model_not_allowed, never rerouted)
  // honours: ERR-007, ERR-008, AUTH-010 (deactivated 403 model_not_found, tier 403, unavailable 503 model_unavailable)
  resolveForChat(id: string, key: ApiKey): FixtureEntry {
    const entry = this.byId.get(id);
    if (!entry) throw new MockHttpError(404, 'unknown_model', `unknown model id: ${id}`);
    if (!keyAllows(key, id)) {
      throw new MockHttpError(403, 'model_not_allowed', `this API key is not allowed to use model ${id}`);
    }
    if (entry.mock.state === 'deactivated') {
      throw new MockHttpError(403, 'model_not_found', `model ${id} has been deactivated`);
    }
    if (!tierAtLeast(this.tiersOrder, key.tier, entry.min_tier)) {
      throw new MockHttpError(
        403,
        'insufficient_tier',
        `model ${id} requires account tier ${entry.min_tier}; this key is ${key.tier}`,
      );
    }
    if (entry.mock.state === 'unavailable') {
      throw new MockHttpError(503, 'model_unavailable', `model ${id} cannot be served right now; retry later`, {
        'retry-after': '1',
      });
    }
    return entry;
  }
}

// The catalog as GET /v1/models shows it: active entries only, hidden attributes stripped.
import { keyAllows, tierAtLeast } from './auth.ts';
import { MockHttpError } from './errors.ts';
import { defectOn, VENDOR_EXTRA, variantOn } from './modes.ts';
import type { ApiKey, CatalogFixture, FixtureEntry, MockOptions, PublicCatalogEntry } from './types.ts';

/** Fields of 2.10 in the order the mock emits them. Anything else in a fixture entry never leaves the mock. */
export const PUBLIC_FIELDS = [
  'id', 'name', 'min_tier', 'max_tokens', 'context_window', 'supports_images', 'supports_caching',
  'supports_reasoning', 'input_price', 'output_price', 'cache_write_price', 'cache_read_price', 'description',
  'temperature', 'api_format', 'supports_global_endpoint', 'thinking_config', 'tiers', 'is_featured',
  'featured_label', 'featured_tab', 'display_order', 'credit_tier',
] as const satisfies readonly (keyof PublicCatalogEntry)[];

/** The fields 2.10 requires on every entry; the others are optional. */
export const REQUIRED_FIELDS: ReadonlySet<string> = new Set([
  'id', 'name', 'min_tier', 'supports_images', 'supports_caching', 'supports_reasoning', 'supports_global_endpoint', 'is_featured',
]);

const PRICE_FIELDS = new Set(['input_price', 'output_price', 'cache_write_price', 'cache_read_price']);

/**
 * Strips hidden attributes and any null/undefined value (optional fields are omitted, never null). The modes
 * of `options` reshape it: defects catalog-null-optional, catalog-backend-field, catalog-openai-fields,
 * catalog-price-strings; variant optional-omitted.
 */
export function toPublicEntry(entry: FixtureEntry, options: MockOptions = {}): PublicCatalogEntry {
  const out: Record<string, unknown> = {};
  const nulls = defectOn(options, 'catalog-null-optional');
  const omitOptional = variantOn(options, 'optional-omitted');
  for (const field of PUBLIC_FIELDS) {
    const v = (entry as unknown as Record<string, unknown>)[field];
    if (omitOptional && !REQUIRED_FIELDS.has(field)) continue;
    if (v !== undefined && v !== null) out[field] = PRICE_FIELDS.has(field) && defectOn(options, 'catalog-price-strings') ? String(v) : v;
    else if (nulls) out[field] = null;
    if (field === 'id' && defectOn(options, 'catalog-openai-fields')) Object.assign(out, { object: 'model', created: 1_700_000_000 });
  }
  if (defectOn(options, 'catalog-backend-field')) out.provider = entry.mock.routes[0]?.name ?? 'default';
  return out as unknown as PublicCatalogEntry;
}

export class Catalog {
  readonly byId: Map<string, FixtureEntry>;
  readonly tiersOrder: string[];
  private readonly publicById: Map<string, PublicCatalogEntry>;
  private readonly listed: PublicCatalogEntry[];
  /** The model list per caller (anonymous is ''), built once: the fixtures never change in a running mock. */
  private readonly lists = new Map<string, { object: 'list'; data: PublicCatalogEntry[] }>();

  constructor(
    fixture: CatalogFixture,
    private readonly options: MockOptions = {},
  ) {
    this.tiersOrder = fixture.tiers_order;
    this.byId = new Map(fixture.entries.map((e) => [e.id, e]));
    this.publicById = new Map(fixture.entries.map((e) => [e.id, toPublicEntry(e, options)]));
    const listDeactivated = defectOn(options, 'catalog-lists-deactivated');
    // Defect catalog-get-differs: the list is a summary view, GET one the detailed entry.
    const summary = (e: PublicCatalogEntry): PublicCatalogEntry => {
      if (!defectOn(options, 'catalog-get-differs')) return e;
      const { description: _d, ...rest } = e;
      return rest as PublicCatalogEntry;
    };
    this.listed = fixture.entries.filter((e) => listDeactivated || e.mock.state !== 'deactivated').map((e) => summary(this.publicById.get(e.id)!));
    if (defectOn(options, 'catalog-duplicate-entry') && this.listed[0]) this.listed = [this.listed[0], ...this.listed];
  }

  /** The model list (2.11): active entries (unavailable ones included), filtered by a restricted key's list. */
  list(key?: ApiKey): { object: 'list'; data: PublicCatalogEntry[] } {
    const cacheKey = key?.key ?? '';
    let list = this.lists.get(cacheKey);
    if (!list) {
      const body = { object: 'list' as const, data: key ? this.listed.filter((e) => keyAllows(key, e.id)) : this.listed };
      if (variantOn(this.options, 'extra-fields')) Object.assign(body, VENDOR_EXTRA, { has_more: false });
      list = Object.freeze(body);
      this.lists.set(cacheKey, list);
    }
    return list;
  }

  /**
   * The alias target a defect names instead of `id`: the next listed entry (among those `like` accepts) after
   * it, wrapping around; `id` itself when there is no other.
   */
  aliasOf(id: string, like: (e: PublicCatalogEntry) => boolean = () => true): string {
    const ids = this.listed.filter((e) => e.id === id || like(e)).map((e) => e.id).filter((x, i, all) => all.indexOf(x) === i);
    const i = ids.indexOf(id);
    return ids[(i + 1) % ids.length] ?? id;
  }

  /** One entry for GET /v1/models/{id}: 404 unknown, 403 outside a restricted key's list, 403 deactivated. */
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
  resolveForChat(id: string, key: ApiKey): FixtureEntry {
    const entry = this.byId.get(id);
    if (!entry) throw new MockHttpError(404, 'unknown_model', `unknown model id: ${id}`);
    if (!keyAllows(key, id)) {
      // Defect restricted-key-rerouted: the first model on the key's list serves instead.
      const allowed = key.models?.map((m) => this.byId.get(m)).find((e) => e !== undefined && e.mock.state === 'active');
      if (defectOn(this.options, 'restricted-key-rerouted') && allowed) return allowed;
      throw new MockHttpError(403, 'model_not_allowed', `this API key is not allowed to use model ${id}`);
    }
    if (entry.mock.state === 'deactivated') {
      throw new MockHttpError(403, 'model_not_found', `model ${id} has been deactivated`);
    }
    if (!tierAtLeast(this.tiersOrder, key.tier, entry.min_tier) && !defectOn(this.options, 'tier-not-enforced')) {
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

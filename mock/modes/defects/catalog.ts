// Defect modes: the catalog (2.10, 2.11, 4.1, 4.2). Each breaks the requirement it names, as real servers do.
import { MockHttpError } from '../../core/errors.ts';
import { PUBLIC_FIELDS, type ModelList } from '../../core/catalog.ts';
import type { PublicCatalogEntry } from '../../core/types.ts';
import { defect } from '../mode.ts';

const PRICE_FIELDS = ['input_price', 'output_price', 'cache_write_price', 'cache_read_price'] as const;

/** The entries of a first page (the mock lists twelve). */
const FIRST_PAGE = 3;

export const CATALOG_DEFECTS = [
  defect({
    name: 'catalog-null-optional',
    breaks: 'CAT-027',
    section: 'catalog',
    description: 'unpublished optional entry fields are sent as null instead of being omitted (a serializer that writes every struct field)',
    stages: () => ({
      publicEntry: (next) => (entry) => {
        const shown = next(entry) as unknown as Record<string, unknown>;
        const out: Record<string, unknown> = {};
        for (const field of PUBLIC_FIELDS) out[field] = field in shown ? shown[field] : null;
        for (const [k, v] of Object.entries(shown)) if (!(k in out)) out[k] = v;
        return out as unknown as PublicCatalogEntry;
      },
    }),
  }),
  defect({
    name: 'catalog-backend-field',
    breaks: 'CAT-002',
    section: 'catalog',
    description: 'every entry carries "provider" naming the backend route that serves it (the field the contract deliberately removes)',
    stages: () => ({
      publicEntry: (next) => (entry) => ({ ...next(entry), provider: entry.mock.routes[0]?.name ?? 'default' }) as PublicCatalogEntry,
    }),
  }),
  defect({
    name: 'catalog-openai-fields',
    tier: 'extended',
    breaks: 'CAT-001',
    section: 'catalog',
    description: 'entries carry OpenAI\'s model-object fields "object": "model" and "created", which 2.10 does not list',
    stages: () => ({
      publicEntry: (next) => (entry) => {
        const out: Record<string, unknown> = {};
        for (const [k, v] of Object.entries(next(entry))) {
          out[k] = v;
          if (k === 'id') Object.assign(out, { object: 'model', created: 1_700_000_000 });
        }
        return out as unknown as PublicCatalogEntry;
      },
    }),
  }),
  defect({
    name: 'catalog-price-strings',
    tier: 'extended',
    breaks: 'CAT-012',
    section: 'catalog',
    description: 'prices are JSON strings ("0.15") rather than numbers, as some routers publish them to keep decimals exact',
    stages: () => ({
      publicEntry: (next) => (entry) => {
        const out = { ...next(entry) } as unknown as Record<string, unknown>;
        for (const f of PRICE_FIELDS) if (typeof out[f] === 'number') out[f] = String(out[f]);
        return out as unknown as PublicCatalogEntry;
      },
    }),
  }),
  defect({
    name: 'catalog-requires-credential',
    breaks: 'AUTH-005',
    section: 'catalog',
    description: 'GET /v1/models and GET /v1/models/{id} answer 401 without a credential (authentication middleware on every route)',
    stages: () => ({
      authenticate: (next) => (input) => {
        const key = next(input);
        if (key === undefined) throw new MockHttpError(401, 'missing_api_key', 'an API key is required: send "Authorization: Bearer <API_KEY>"');
        return key;
      },
    }),
  }),
  defect({
    name: 'catalog-lists-deactivated',
    breaks: 'CAT-039',
    section: 'catalog',
    description: 'deactivated entries stay in GET /v1/models (the list filters on "exists", not on "active")',
    stages: () => ({ listedEntries: () => (entries) => [...entries] }),
  }),
  defect({
    name: 'catalog-duplicate-entry',
    tier: 'extended',
    breaks: 'CAT-030',
    section: 'catalog',
    description: 'the first entry is listed twice (a join over two region tables without DISTINCT)',
    stages: () => ({ modelList: (next) => (data) => next(data[0] ? [data[0], ...data] : data) }),
  }),
  defect({
    name: 'catalog-list-object-wrong',
    tier: 'extended',
    breaks: 'CAT-028',
    section: 'catalog',
    description: 'the model list says "object": "models" (the name of the collection) instead of "list"',
    stages: () => ({ modelList: (next) => (data) => ({ ...next(data), object: 'models' }) as unknown as ModelList }),
  }),
  defect({
    name: 'catalog-get-differs',
    breaks: 'CAT-037',
    section: 'catalog',
    description: 'the list is a summary view without "description"; GET /v1/models/{id} returns the detailed entry with it',
    stages: () => ({
      modelList: (next) => (data) => next(data.map(({ description: _d, ...summary }) => summary as PublicCatalogEntry)),
    }),
  }),
  defect({
    name: 'catalog-no-entry-route',
    tier: 'extended',
    breaks: 'CAT-036',
    section: 'catalog',
    description: 'GET /v1/models/{id} is not routed: it answers the unknown-path 404, with a credential or without (a server that only lists)',
    stages: (ctx) => ({ getModel: () => ({ request }) => ctx.s.error({ status: 404, code: 'not_found', message: `no such endpoint: ${request.method} ${request.path}` }) }),
  }),
  defect({
    name: 'catalog-name-missing',
    tier: 'extended',
    breaks: 'CAT-005',
    section: 'catalog',
    description: 'the display name is sent as "display_name" (the field Anthropic\'s models API uses), so no entry has "name"',
    stages: () => ({
      publicEntry: (next) => (entry) => {
        const out: Record<string, unknown> = {};
        for (const [k, v] of Object.entries(next(entry))) out[k === 'name' ? 'display_name' : k] = v;
        return out as unknown as PublicCatalogEntry;
      },
    }),
  }),
  defect({
    name: 'catalog-context-window-string',
    tier: 'extended',
    breaks: 'CAT-008',
    section: 'catalog',
    description: '"context_window" is a JSON string ("200000"): a 64-bit database column written as a string to keep JavaScript clients exact',
    stages: () => ({
      publicEntry: (next) => (entry) => {
        const out = next(entry) as unknown as Record<string, unknown>;
        return (typeof out.context_window === 'number' ? { ...out, context_window: String(out.context_window) } : out) as unknown as PublicCatalogEntry;
      },
    }),
  }),
  defect({
    name: 'catalog-false-omitted',
    tier: 'extended',
    breaks: 'CAT-009',
    section: 'catalog',
    description: 'false booleans are left out of entries (Go\'s `json:",omitempty"` on a bool): "supports_images": false is never sent',
    stages: () => ({
      publicEntry: (next) => (entry) => Object.fromEntries(Object.entries(next(entry)).filter(([, v]) => v !== false)) as unknown as PublicCatalogEntry,
    }),
  }),
  defect({
    name: 'catalog-description-empty',
    tier: 'extended',
    breaks: 'CAT-016',
    section: 'catalog',
    description: 'entries without a description carry "description": "" (an empty text column written as it is)',
    stages: () => ({ publicEntry: (next) => (entry) => ({ description: '', ...next(entry) }) as PublicCatalogEntry }),
  }),
  defect({
    name: 'catalog-thinking-config-array',
    tier: 'extended',
    breaks: 'CAT-020',
    section: 'catalog',
    description: 'reasoning entries without a thinking configuration carry "thinking_config": [] (PHP\'s json_encode of an empty array)',
    stages: () => ({
      publicEntry: (next) => (entry) => {
        const out = next(entry);
        return (out.supports_reasoning && out.thinking_config === undefined ? { ...out, thinking_config: [] } : out) as PublicCatalogEntry;
      },
    }),
  }),
  defect({
    name: 'catalog-tiers-list',
    tier: 'extended',
    breaks: 'CAT-021',
    section: 'catalog',
    description: '"tiers" is a list of {"tier": name, ...limits} rows (the table as it is stored) instead of an object keyed by tier',
    stages: () => ({
      publicEntry: (next) => (entry) => {
        const out = next(entry) as unknown as Record<string, unknown>;
        const tiers = out.tiers as Record<string, Record<string, unknown>> | undefined;
        if (tiers === undefined) return out as unknown as PublicCatalogEntry;
        return { ...out, tiers: Object.entries(tiers).map(([tier, limits]) => ({ tier, ...limits })) } as unknown as PublicCatalogEntry;
      },
    }),
  }),
  defect({
    name: 'catalog-featured-label-unfeatured',
    tier: 'extended',
    breaks: 'CAT-023',
    section: 'catalog',
    description: 'entries no longer featured keep their old "featured_label" ("Popular"): un-featuring clears is_featured only',
    stages: () => ({
      publicEntry: (next) => (entry) => {
        const out = next(entry);
        return (out.is_featured === false && out.featured_label === undefined ? { ...out, featured_label: 'Popular' } : out) as PublicCatalogEntry;
      },
    }),
  }),
  defect({
    name: 'catalog-credit-tier-ordinal',
    tier: 'extended',
    breaks: 'CAT-026',
    section: 'catalog',
    description: '"credit_tier" is the enum\'s ordinal (basic 1, standard 2, premium 3), as an ORM serializes an integer enum column, not its name',
    stages: () => ({
      publicEntry: (next) => (entry) => {
        const out = next(entry) as unknown as Record<string, unknown>;
        const ordinal = ['basic', 'standard', 'premium'].indexOf(out.credit_tier as string) + 1;
        return (out.credit_tier === undefined ? out : { ...out, credit_tier: ordinal > 0 ? ordinal : 0 }) as unknown as PublicCatalogEntry;
      },
    }),
  }),
  defect({
    name: 'catalog-first-page',
    tier: 'extended',
    breaks: 'CAT-045',
    section: 'catalog',
    description: 'GET /v1/models answers a first page: three entries and "has_more": true (a paginated store API exposed as it is); GET /v1/models/{id} still serves every entry',
    stages: () => ({ modelList: (next) => (data) => Object.assign(next(data.slice(0, FIRST_PAGE)), { has_more: true }) }),
  }),
] as const;

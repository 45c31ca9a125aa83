// Defect modes: the catalog (2.10, 2.11, 4.1, 4.2). Each breaks the requirement it names, as real servers do.
import { MockHttpError } from '../../core/errors.ts';
import { PUBLIC_FIELDS, type ModelList } from '../../core/catalog.ts';
import type { PublicCatalogEntry } from '../../core/types.ts';
import { defect } from '../mode.ts';

const PRICE_FIELDS = ['input_price', 'output_price', 'cache_write_price', 'cache_read_price'] as const;

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
] as const;

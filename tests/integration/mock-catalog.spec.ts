// Issue 3, points 1-3: the catalog endpoints, the fixture catalog and the keys, over real HTTP.
import { expect, test } from '@playwright/test';
import { assertValid } from '../../spec/validator.ts';
import { fixtureEntries, MOCK_KEYS, MOCK_MODELS, MOCK_RESTRICTED_MODELS } from '../../mock/keys-and-models.ts';
import { PUBLIC_FIELDS } from '../../mock/core/catalog.ts';
import { useMock } from './support/use-mock.ts';

const server = useMock(test);

async function get(path: string, key?: string): Promise<{ status: number; headers: Headers; body: any }> {
  const res = await fetch(`${server.url}${path}`, { headers: key ? { authorization: `Bearer ${key}` } : {} });
  const body = await res.json();
  if (res.status === 200) assertValid(path === '/v1/models' ? 'model-list' : 'model', body);
  else assertValid('error', body);
  return { status: res.status, headers: res.headers, body };
}

const OPTIONAL_FIELDS = [
  'max_tokens', 'context_window', 'input_price', 'output_price', 'cache_write_price', 'cache_read_price',
  'description', 'temperature', 'api_format', 'thinking_config', 'tiers', 'featured_label', 'featured_tab',
  'display_order', 'credit_tier',
];

test.describe('point 1: endpoints', () => {
  test('GET /v1/models without a credential lists every active entry (deactivated excluded, unavailable listed)', async () => {
    const { status, body } = await get('/v1/models');
    expect(status).toBe(200);
    expect(body.object).toBe('list');
    const ids = body.data.map((e: any) => e.id);
    const active = fixtureEntries().filter((e) => e.mock.state !== 'deactivated').map((e) => e.id);
    expect(ids).toEqual(active);
    expect(ids).not.toContain(MOCK_MODELS.deactivated);
    expect(ids).toContain(MOCK_MODELS.unavailable);
  });

  test('with a restricted key the list reflects the caller', async () => {
    const { status, body } = await get('/v1/models', MOCK_KEYS.restricted);
    expect(status).toBe(200);
    expect(body.data.map((e: any) => e.id).sort()).toEqual([...MOCK_RESTRICTED_MODELS].sort());
  });

  test('with a full key the list is the whole active catalog', async () => {
    const anon = await get('/v1/models');
    const full = await get('/v1/models', MOCK_KEYS.full);
    expect(full.body).toEqual(anon.body);
  });

  test('a wrong credential on a catalog endpoint is 401 invalid_api_key', async () => {
    for (const path of ['/v1/models', `/v1/models/${MOCK_MODELS.mini}`]) {
      const { status, body } = await get(path, 'sk-mock-wrong');
      expect(status).toBe(401);
      expect(body.error.code).toBe('invalid_api_key');
      expect(body.error.type).toBe('authentication_error');
    }
  });

  test('GET /v1/models/{id} returns the same entry as the list', async () => {
    const list = (await get('/v1/models')).body.data;
    for (const entry of list) {
      const one = await get(`/v1/models/${encodeURIComponent(entry.id)}`);
      expect(one.status).toBe(200);
      expect(one.body).toEqual(entry);
    }
  });

  test('an id with a slash is read URL-encoded (a%2Fb) and raw (a/b)', async () => {
    const enc = await get('/v1/models/acme%2Fchat-large');
    const raw = await get('/v1/models/acme/chat-large');
    expect(enc.status).toBe(200);
    expect(enc.body.id).toBe('acme/chat-large');
    expect(raw.body).toEqual(enc.body);
  });

  test('unknown id is 404 unknown_model; deactivated is 403 model_not_found; unavailable is readable', async () => {
    const unknown = await get('/v1/models/no-such-model');
    expect([unknown.status, unknown.body.error.code]).toEqual([404, 'unknown_model']);
    const deact = await get(`/v1/models/${MOCK_MODELS.deactivated}`);
    expect([deact.status, deact.body.error.code]).toEqual([403, 'model_not_found']);
    const busy = await get(`/v1/models/${MOCK_MODELS.unavailable}`);
    expect(busy.status).toBe(200);
  });

  test('a restricted key reading an entry outside its list gets 403 model_not_allowed', async () => {
    const r = await get(`/v1/models/${encodeURIComponent(MOCK_MODELS.large)}`, MOCK_KEYS.restricted);
    expect([r.status, r.body.error.code]).toEqual([403, 'model_not_allowed']);
  });
});

test.describe('point 2: the catalog fixture', () => {
  test('about a dozen entries; every optional field of 2.10 is present somewhere and omitted somewhere', async () => {
    const entries = fixtureEntries();
    expect(entries.length).toBeGreaterThanOrEqual(12);
    const publicEntries = [...(await get('/v1/models')).body.data];
    publicEntries.push((await get(`/v1/models/${MOCK_MODELS.unavailable}`)).body);
    for (const field of OPTIONAL_FIELDS) {
      expect(publicEntries.some((e) => field in e), `${field} present somewhere`).toBe(true);
      expect(publicEntries.some((e) => !(field in e)), `${field} omitted somewhere`).toBe(true);
    }
    for (const field of PUBLIC_FIELDS) expect(publicEntries.some((e) => field in e), field).toBe(true);
  });

  test('capabilities vary: images, caching, reasoning, web search, budget, featured, tiers, states', () => {
    const entries = fixtureEntries();
    const both = (pred: (e: (typeof entries)[number]) => boolean): boolean => entries.some(pred) && entries.some((e) => !pred(e));
    expect(both((e) => e.supports_images)).toBe(true);
    expect(both((e) => e.supports_caching)).toBe(true);
    expect(both((e) => e.supports_reasoning)).toBe(true);
    expect(both((e) => e.is_featured)).toBe(true);
    expect(both((e) => e.mock.routes.some((r) => r.web_search))).toBe(true);
    expect(entries.some((e) => e.mock.search_min_output_tokens !== undefined)).toBe(true);
    expect(entries.some((e) => (e.mock.reasoning_efforts ?? []).includes('xhigh'))).toBe(true);
    expect(new Set(entries.map((e) => e.min_tier)).size).toBeGreaterThanOrEqual(3);
    expect(new Set(entries.map((e) => e.mock.state))).toEqual(new Set(['active', 'deactivated', 'unavailable']));
    expect(entries.some((e) => e.id.includes('/'))).toBe(true);
  });

  test('hidden attributes and backend names never leak; no null anywhere', async () => {
    const texts = [await (await fetch(`${server.url}/v1/models`)).text()];
    for (const e of fixtureEntries()) texts.push(await (await fetch(`${server.url}/v1/models/${encodeURIComponent(e.id)}`)).text());
    for (const t of texts) {
      for (const hidden of ['"mock"', '"family"', '"routes"', '"state"', 'route-a', 'reasoning_efforts', 'search_min_output_tokens', 'provider', 'backend', 'null']) {
        expect(t, hidden).not.toContain(hidden);
      }
    }
  });
});

test.describe('point 3: keys and tiers', () => {
  const chat = async (key: string | undefined, model: string): Promise<{ status: number; body: any }> => {
    const res = await fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
      body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }], max_tokens: 5 }),
    });
    const body = await res.json();
    assertValid(res.status === 200 ? 'chat-response' : 'error', body);
    return { status: res.status, body };
  };

  test('missing credential is 401 missing_api_key; invalid is 401 invalid_api_key', async () => {
    const none = await chat(undefined, MOCK_MODELS.mini);
    expect([none.status, none.body.error.code, none.body.error.type]).toEqual([401, 'missing_api_key', 'authentication_error']);
    const bad = await chat('sk-mock-nope', MOCK_MODELS.mini);
    expect([bad.status, bad.body.error.code]).toEqual([401, 'invalid_api_key']);
  });

  test('the full key uses every active servable model', async () => {
    for (const e of fixtureEntries().filter((x) => x.mock.state === 'active')) {
      const r = await chat(MOCK_KEYS.full, e.id);
      expect(r.status, e.id).toBe(200);
      expect(r.body.model).toBe(e.id);
    }
  });

  test('a restricted key outside its list is 403 model_not_allowed, never rerouted', async () => {
    const inside = await chat(MOCK_KEYS.restricted, MOCK_RESTRICTED_MODELS[0]);
    expect(inside.status).toBe(200);
    const outside = await chat(MOCK_KEYS.restricted, MOCK_MODELS.large);
    expect([outside.status, outside.body.error.code, outside.body.error.type]).toEqual([403, 'model_not_allowed', 'permission_error']);
  });

  test('min_tier is enforced: 403 insufficient_tier below it, 200 at or above it', async () => {
    expect((await chat(MOCK_KEYS.free, MOCK_MODELS.mini)).status).toBe(200);
    const low = await chat(MOCK_KEYS.free, MOCK_MODELS.reasoner); // standard
    expect([low.status, low.body.error.code]).toEqual([403, 'insufficient_tier']);
    expect((await chat(MOCK_KEYS.standard, MOCK_MODELS.reasoner)).status).toBe(200);
    const std = await chat(MOCK_KEYS.standard, MOCK_MODELS.large); // pro
    expect([std.status, std.body.error.code]).toEqual([403, 'insufficient_tier']);
  });
});

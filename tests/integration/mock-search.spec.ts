// Issue 3, point 6: hosted web search (2.7, 4.3 rule 6, section 7) over real HTTP.
import { expect, test } from '@playwright/test';
import { assertValid } from '../../spec/validator.ts';
import { decodeSse } from '../../judge/decoding/sse.ts';
import { MOCK_KEYS, MOCK_MODELS, MOCK_SEARCH_MIN_OUTPUT_TOKENS } from '../../mock/keys-and-models.ts';
import { useMock } from './support/use-mock.ts';

const server = useMock(test);

async function chat(body: Record<string, unknown>): Promise<{ status: number; headers: Headers; body: any }> {
  const res = await fetch(`${server.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${MOCK_KEYS.full}` },
    body: JSON.stringify(body),
  });
  const parsed = await res.json();
  assertValid(res.status === 200 ? 'chat-response' : 'error', parsed);
  return { status: res.status, headers: res.headers, body: parsed };
}

const ask = { messages: [{ role: 'user', content: 'latest news about rivers' }] };

function checkProvenance(message: any, usage: any): void {
  const text: string = message.content;
  expect(message.annotations.length).toBeGreaterThan(0);
  for (const a of message.annotations) {
    expect(a.type).toBe('url_citation');
    const c = a.url_citation;
    expect(c.url.startsWith('https://')).toBe(true);
    expect(0 <= c.start_index && c.start_index <= c.end_index && c.end_index <= text.length).toBe(true);
    // bounded in code points as well as UTF-16 units
    expect(c.end_index).toBeLessThanOrEqual(Array.from(text).length);
  }
  for (const action of message.service_web_search) {
    expect(['search', 'open_page', 'find_in_page']).toContain(action.type);
    if (action.type === 'search') expect(action.url).toBeUndefined();
    if (action.type === 'find_in_page') expect(typeof action.pattern).toBe('string');
  }
  expect(usage.service_web_search_calls).toBe(message.service_web_search.length);
  // actions never mixed into annotations
  expect(message.annotations.every((a: any) => a.type === 'url_citation')).toBe(true);
}

test.describe('point 6: web search', () => {
  test('requested by web_search_options: citations inside the final text, actions, usage count', async () => {
    const r = await chat({ model: MOCK_MODELS.small, ...ask, web_search_options: {} });
    expect(r.status).toBe(200);
    const m = r.body.choices[0].message;
    checkProvenance(m, r.body.usage);
    expect(m.service_web_search.map((a: any) => a.type)).toEqual(['search', 'open_page', 'find_in_page']);
    const cited = m.annotations[0].url_citation;
    expect(m.content.slice(cited.start_index, cited.end_index).length).toBeGreaterThan(5);
  });

  test('requested by a bare {type:"web_search"} tool', async () => {
    const r = await chat({ model: MOCK_MODELS.small, ...ask, tools: [{ type: 'web_search' }] });
    checkProvenance(r.body.choices[0].message, r.body.usage);
  });

  test('search_context_size changes the number of actions; high includes an unattested entry without url', async () => {
    const low = await chat({ model: MOCK_MODELS.small, ...ask, web_search_options: { search_context_size: 'low' } });
    expect(low.body.usage.service_web_search_calls).toBe(2);
    const high = await chat({ model: MOCK_MODELS.small, ...ask, web_search_options: { search_context_size: 'high', user_location: { type: 'approximate', approximate: { country: 'FR', city: 'Paris', timezone: 'Europe/Paris' } } } });
    const actions = high.body.choices[0].message.service_web_search;
    expect(high.body.usage.service_web_search_calls).toBe(5);
    expect(actions.some((a: any) => a.type === 'open_page' && a.url === undefined)).toBe(true);
    expect(actions.some((a: any) => Array.isArray(a.queries) && a.queries.length > 1)).toBe(true);
    checkProvenance(high.body.choices[0].message, high.body.usage);
  });

  test('a small cap keeps citation indices bounded to the final text', async () => {
    for (const cap of [1, 3, 6, 12]) {
      const r = await chat({ model: MOCK_MODELS.small, ...ask, web_search_options: {}, max_completion_tokens: cap });
      const m = r.body.choices[0].message;
      for (const a of m.annotations ?? []) expect(a.url_citation.end_index).toBeLessThanOrEqual(m.content.length);
    }
  });

  test('no search requested: no provenance at all', async () => {
    const r = await chat({ model: MOCK_MODELS.small, ...ask });
    const m = r.body.choices[0].message;
    expect(m.annotations).toBeUndefined();
    expect(m.service_web_search).toBeUndefined();
    expect(r.body.usage.service_web_search_calls).toBeUndefined();
  });

  test('capability gating: an entry that cannot search refuses upfront (web_search_not_supported), streamed or not', async () => {
    for (const stream of [false, true]) {
      const r = await chat({ model: MOCK_MODELS.mini, ...ask, web_search_options: {}, stream });
      expect([r.status, r.body.error.code, r.body.error.message]).toEqual([400, 'web_search_not_supported', 'hosted web search is unavailable for this request']);
    }
  });

  test('route-level capability: only a search-capable route receives the signal', async () => {
    const r = await chat({ model: MOCK_MODELS.routes, ...ask, web_search_options: {}, max_tokens: 10 });
    expect(r.status).toBe(200);
    expect(r.headers.get('x-mock-route')).toBe('route-b');
    const refused = await chat({ model: MOCK_MODELS.routes, ...ask, web_search_options: {}, provider: { order: ['route-a'], allow_fallbacks: false } });
    expect([refused.status, refused.body.error.code]).toEqual([503, 'no_route_available']);
  });

  test('output budget: below N is refused with the exact message (M = the winning cap), at N it searches', async () => {
    const n = MOCK_SEARCH_MIN_OUTPUT_TOKENS;
    const r = await chat({ model: MOCK_MODELS.searchBudget, ...ask, web_search_options: {}, max_tokens: 5000, max_completion_tokens: 64 });
    expect([r.status, r.body.error.code]).toEqual([400, 'web_search_output_budget_too_small']);
    expect(r.body.error.message).toBe(`hosted web search on this model requires an output budget of at least ${n} tokens; 64 was requested`);
    const legacy = await chat({ model: MOCK_MODELS.searchBudget, ...ask, tools: [{ type: 'web_search' }], max_tokens: 100 });
    expect(legacy.body.error.message).toBe(`hosted web search on this model requires an output budget of at least ${n} tokens; 100 was requested`);
    const ok = await chat({ model: MOCK_MODELS.searchBudget, ...ask, web_search_options: {}, max_completion_tokens: n });
    expect(ok.status).toBe(200);
    checkProvenance(ok.body.choices[0].message, ok.body.usage);
    const noSearch = await chat({ model: MOCK_MODELS.searchBudget, ...ask, max_tokens: 5 });
    expect(noSearch.status).toBe(200);
  });

  test('streamed: provenance arrives in the last content delta', async () => {
    const res = await fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${MOCK_KEYS.full}` },
      body: JSON.stringify({ model: MOCK_MODELS.small, ...ask, web_search_options: {}, stream: true, stream_options: { include_usage: true } }),
    });
    const events = decodeSse([new Uint8Array(await res.arrayBuffer())]);
    const chunks = events.filter((e) => e.data !== '[DONE]').map((e) => JSON.parse(e.data));
    chunks.forEach((c) => assertValid('chat-chunk', c));
    const contentIdx = chunks.map((c, i) => (c.choices[0]?.delta?.content !== undefined ? i : -1)).filter((i) => i >= 0);
    const provIdx = chunks.map((c, i) => (c.choices[0]?.delta?.annotations ? i : -1)).filter((i) => i >= 0);
    expect(provIdx).toEqual([contentIdx.at(-1)]);
    const delta = chunks[provIdx[0]!].choices[0].delta;
    const text = chunks.map((c) => c.choices[0]?.delta?.content ?? '').join('');
    const usage = chunks.find((c) => c.usage).usage;
    checkProvenance({ ...delta, content: text }, usage);
  });
});

// The request checks (judge/checks/request.ts): what the proxy charges to a client. Each breach under the rule
// it breaks, advice (fields the service does not read) apart from breaches, and nothing for what the contract
// leaves open (the length of a city).
import { expect, test } from '@playwright/test';
import { owedRefusals, REQUEST_ADVICE, REQUEST_CHECKS, REQUEST_SCHEMA_CHECKS, schemaSubjectOf, type OutgoingRequest } from '../../judge/checks/request.ts';

const base = { model: 'm', messages: [{ role: 'user', content: 'hi' }] };

/** Requirement IDs with findings, over every request check. */
function broken(body: unknown, entry?: Record<string, unknown>): string[] {
  const r: OutgoingRequest = { body, ...(entry ? { entry } : {}) };
  const schema = schemaSubjectOf(body);
  const out = new Set<string>();
  for (const c of REQUEST_SCHEMA_CHECKS) if ((c.run(schema)?.length ?? 0) > 0) out.add(c.id);
  for (const c of [...REQUEST_CHECKS, ...REQUEST_ADVICE]) if ((c.run(r)?.length ?? 0) > 0) out.add(c.id);
  return [...out].sort();
}

test('a valid request breaks nothing', () => {
  expect(broken(base)).toEqual([]);
  expect(broken({ ...base, stream: true, stream_options: { include_usage: true }, max_completion_tokens: 5, web_search_options: { search_context_size: 'low', user_location: { type: 'approximate', approximate: { country: 'FR', city: 'Paris' } } } })).toEqual([]);
});

test('each breach is charged to the rule it breaks', () => {
  expect(broken({ messages: [] })).toEqual(['REQ-001']);
  expect(broken({ ...base, stream: 'yes' })).toEqual(['REQ-005']);
  expect(broken({ ...base, max_tokens: 1.5 })).toEqual(['REQ-008']);
  expect(broken({ ...base, messages: [{ content: 'x' }] })).toEqual(['REQ-015']);
  expect(broken({ ...base, web_search_options: { search_context_size: 'huge' } })).toEqual(['SEARCH-046']);
  expect(broken({ ...base, web_search_options: { user_location: { type: 'exact' } } })).toEqual(['SEARCH-047']);
  expect(broken({ ...base, web_search_options: { user_location: { type: 'approximate', approximate: { country: 'FR' }, city: 'Paris' } } })).toEqual(['SEARCH-048']);
  expect(broken({ ...base, web_search_options: { user_location: { type: 'approximate', country: 'France' } } })).toEqual(['SEARCH-049']);
  // A nested approximate that is not an object is malformed, not a mix of nested and flat fields.
  expect(broken({ ...base, web_search_options: { user_location: { type: 'approximate', approximate: 'Paris' } } })).toEqual(['SEARCH-049']);
  expect(broken({ ...base, messages: [{ role: 'assistant', content: '', tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{}' } }] }] })).toEqual(['TOOL-012']);
  const image = { ...base, messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://example.com/a.png' } }] }] };
  expect(broken(image, { id: 'm', supports_images: false })).toEqual(['IMG-007']);
  expect(broken(image, { id: 'm', supports_images: true })).toEqual([]);
  // Without the catalog entry, the image rule is not judged at all.
  expect(REQUEST_CHECKS.find((c) => c.id === 'IMG-007')!.run({ body: image })).toBeUndefined();
});

test('fields the contract does not list are advice, at the top level and nested', () => {
  expect(broken({ ...base, user: 'u1' })).toEqual(['REQ-013']);
  expect(broken({ ...base, messages: [{ role: 'user', content: 'x', cache: true }] })).toEqual(['REQ-014']);
});

test('a city longer than the kit\'s own bound is not the client\'s fault (section 8 leaves the length open)', () => {
  expect(broken({ ...base, web_search_options: { user_location: { type: 'approximate', city: 'x'.repeat(300) } } })).toEqual([]);
});

test('what the server owes a broken request: the refusal its rule names', () => {
  const owed = (body: unknown, ids: string[]) => owedRefusals({ body }, new Set(ids)).map((o) => [o.id, o.code ?? null, o.message ?? null]);
  expect(owed(base, ['TOOL-012'])).toEqual([['TOOL-012', null, null]]);
  expect(owed(base, ['SEARCH-048', 'SEARCH-049'])).toEqual([['SEARCH-048', 'invalid_web_search_options', 'user_location must not mix nested approximate and flat fields']]);
  expect(owed({ messages: [] }, ['REQ-001'])).toEqual([['REQ-002', null, null]]);
  expect(owed({ model: 5, messages: [] }, ['REQ-001'])).toEqual([]);
});

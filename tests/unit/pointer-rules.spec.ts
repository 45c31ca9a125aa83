// Pointer rules blame exactly their field (judge/checks/schema.ts): every pointer of a model list or entry is
// claimed by one rule at most, so no charge depends on the order of the table. The list's own `object` is CAT-028's
// alone, never CAT-001's (an entry's unlisted field), and a list without entries judges no entry rule.
import { expect, test } from '@playwright/test';
import { CATALOG_ENTRY_RULES, MODEL_LIST_RULES, schemaChecks, type PointerRule } from '../../judge/checks/schema.ts';

const ENTRY = { id: 'm', name: 'M', min_tier: 'free', supports_images: false, supports_caching: false, supports_reasoning: false, supports_global_endpoint: false, is_featured: false };

/** What each rule of a table finds on one value: its problems, [] for a pass, absent when it judged nothing. */
function judged(schema: 'model-list' | 'model', rules: readonly PointerRule[], data: unknown): Record<string, readonly string[]> {
  const out: Record<string, readonly string[]> = {};
  for (const c of schemaChecks(schema, rules, { fallbackId: 'CAT-032', nullId: 'CAT-027' })) {
    const found = c.run({ values: [{ label: 'GET /v1/models', data }] });
    if (found !== undefined) out[c.id] = found;
  }
  return out;
}

const claimants = (rules: readonly PointerRule[], pointer: string) => [...new Set(rules.filter((r) => r.scope.test(pointer)).map((r) => r.id))];

test('every pointer of a model list is claimed by exactly one rule, the one of its field', () => {
  const expected: Record<string, string> = {
    '/object': 'CAT-028',
    '/data': 'CAT-029',
    '/data/0': 'CAT-029',
    '/data/0/id': 'CAT-004',
    '/data/0/max_tokens': 'CAT-007',
    '/data/0/thinking_config/budget': 'CAT-020',
    '/data/3/credit_tier': 'CAT-026',
    '/data/0/provider': 'CAT-002',
    '/data/0/Backend': 'CAT-002',
    '/data/0/object': 'CAT-001',
    '/data/0/created': 'CAT-001',
    '/data/0/ID': 'CAT-001',
  };
  for (const [pointer, id] of Object.entries(expected)) expect(claimants(MODEL_LIST_RULES, pointer), pointer).toEqual([id]);
  // The list's own fields are no entry's: a list-level `id` or `name` is no CAT-004/CAT-005 matter.
  for (const pointer of ['/id', '/name', '/created', '/provider']) expect(claimants(MODEL_LIST_RULES, pointer), pointer).toEqual([]);
});

test('GET /v1/models/{id}: an entry\'s fields at the root are claimed by their own rule, its unlisted ones by CAT-001', () => {
  expect(claimants(CATALOG_ENTRY_RULES, '/object')).toEqual(['CAT-001']);
  expect(claimants(CATALOG_ENTRY_RULES, '/max_tokens')).toEqual(['CAT-007']);
  expect(claimants(CATALOG_ENTRY_RULES, '/provider')).toEqual(['CAT-002']);
});

test('a list whose object is wrong is charged to CAT-028 whatever the order of the rules', () => {
  const data = { object: 'models', data: [ENTRY] };
  for (const rules of [MODEL_LIST_RULES, [...MODEL_LIST_RULES].reverse()]) {
    const found = judged('model-list', rules, data);
    expect(found['CAT-028']).toHaveLength(1);
    expect(found['CAT-028']![0]).toContain('/object');
    expect(found['CAT-001']).toEqual([]);
  }
});

test('a list without entries judges its own fields and no entry rule (CAT-001 is not passed on the list\'s object)', () => {
  const found = judged('model-list', MODEL_LIST_RULES, { object: 'list', data: [] });
  expect(found['CAT-028']).toEqual([]);
  expect(found['CAT-029']).toEqual([]);
  expect(found['CAT-001']).toBeUndefined();
  expect(found['CAT-004']).toBeUndefined();
  // With an entry, CAT-001 is judged (and passes) though every field is listed.
  expect(judged('model-list', MODEL_LIST_RULES, { object: 'list', data: [ENTRY] })['CAT-001']).toEqual([]);
});

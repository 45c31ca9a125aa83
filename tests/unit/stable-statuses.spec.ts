// Stable statuses: a requirement that cannot be judged on a target has the same status and the same kind of
// reason on every target, never blamed on an unrelated failure, and the coverage denominator does not move with it.
// An optional catalog field no entry carries is `skip`, "no entry carries X" (judge/checks/schema.ts, recorded by
// suites/catalog.spec.ts), also where the anonymous list (AUTH-005) or GET /v1/models/{id} (CAT-036) failed.
import { expect, test } from '@playwright/test';
import type { CheckRecord } from '../../judge/checker.ts';
import { OPTIONAL_ENTRY_FIELDS, unjudgedEntryFields } from '../../judge/checks/schema.ts';
import { coverageOf } from '../../report/coverage.ts';
import { aggregate, type TestOutcome } from '../../report/results.ts';

const ENTRY = { id: 'm', name: 'M', min_tier: 'free', supports_images: false, supports_caching: false, supports_reasoning: false, supports_global_endpoint: false, is_featured: false };

test('an optional field no entry carries is unjudged with that reason; one carried (even as null) is not; no entry leaves every entry rule', () => {
  const unjudged = unjudgedEntryFields([ENTRY, { ...ENTRY, id: 'n', max_tokens: 8192, description: null }]);
  expect(unjudged).toContainEqual({ id: 'CAT-008', reason: 'no entry carries context_window' });
  expect(unjudged.map((u) => u.id)).not.toContain('CAT-007');
  expect(unjudged.map((u) => u.id)).not.toContain('CAT-016');
  expect(unjudged.map((u) => u.id)).not.toContain('CAT-004');
  expect(unjudged).toHaveLength(OPTIONAL_ENTRY_FIELDS.length - 2);
  const empty = unjudgedEntryFields([]);
  expect(empty).toContainEqual({ id: 'CAT-004', reason: 'the catalog lists no entry' });
  expect(empty).toContainEqual({ id: 'CAT-001', reason: 'the catalog lists no entry' });
});

/** The catalog tests of one run: the credentialed list, the anonymous list, the entry reads; `records` per test. */
function run(anonymous: CheckRecord[], entries: CheckRecord[]): TestOutcome[] {
  const t = (title: string, declared: string[], checks: CheckRecord[]): TestOutcome => ({
    title,
    file: 'suites/catalog.spec.ts',
    line: title.length,
    status: 'judged',
    declared,
    durationMs: 1,
    evidence: { checks, exchanges: [] },
  });
  const own: CheckRecord = { id: 'CAT-007', status: 'skip', exchange: 0, message: 'no entry carries max_tokens', cause: { exchange: 0, message: 'no entry carries max_tokens' } };
  return [
    t('answers with the run credential', ['AUTH-006', 'AUTH-001', 'CAT-031'], [{ id: 'AUTH-006', status: 'pass' }, { id: 'AUTH-001', status: 'pass' }, { id: 'CAT-031', status: 'pass' }, { id: 'CAT-005', status: 'pass' }, own]),
    t('answers without a credential', ['AUTH-005', 'VER-001'], [{ id: 'VER-001', status: 'pass' }, ...anonymous]),
    t('each listed entry reads back identically', ['CAT-036', 'CAT-037', 'AUTH-005', 'AUTH-006'], entries),
  ];
}

test('CAT-007 without a case is skip "no entry carries max_tokens" on every target, never blamed on AUTH-005 or CAT-036; the denominator holds', () => {
  const ok: CheckRecord[] = [{ id: 'AUTH-005', status: 'pass' }];
  const entriesOk: CheckRecord[] = [{ id: 'CAT-036', status: 'pass' }, { id: 'CAT-037', status: 'pass' }, { id: 'AUTH-005', status: 'pass' }, { id: 'AUTH-006', status: 'pass' }];
  const anonymousRefused: CheckRecord[] = [
    { id: 'AUTH-005', status: 'fail', exchange: 0, message: 'expected status 200; received HTTP 401' },
    { id: 'CAT-007', status: 'skip', exchange: 0, message: 'GET /v1/models gave no model list: HTTP 401', cause: { id: 'AUTH-005', exchange: 0, message: 'GET /v1/models gave no model list: HTTP 401' } },
  ];
  const routeMissing: CheckRecord[] = [
    { id: 'CAT-036', status: 'fail', exchange: 1, message: 'GET /v1/models/m, expected status 200; received HTTP 404' },
    { id: 'CAT-007', status: 'skip', exchange: 1, message: 'GET /v1/models/m did not return one catalog entry', cause: { id: 'CAT-036', exchange: 1, message: 'GET /v1/models/m did not return one catalog entry' } },
    { id: 'AUTH-006', status: 'pass' },
  ];
  const targets = [run(ok, entriesOk), run(anonymousRefused, entriesOk), run(ok, routeMissing)];
  const results = targets.map((outcomes) => aggregate(outcomes));
  for (const r of results) {
    const cat007 = r.find((x) => x.id === 'CAT-007')!;
    expect(cat007.status).toBe('skip');
    expect(cat007.reason).toBe('no entry carries max_tokens');
    expect(cat007.skipReasons).toEqual(['no entry carries max_tokens']);
  }
  expect(new Set(results.map((r) => coverageOf(r).mustDeclared)).size).toBe(1);
  // Where nothing else gave a reason, the cascade is still said (the requirement waited on that failure alone).
  const only = aggregate([run(anonymousRefused, entriesOk)[1]!]).find((x) => x.id === 'CAT-007')!;
  expect(only.reason).toBe('GET /v1/models gave no model list: HTTP 401 (root cause: AUTH-005 failed)');
});

// The request journal (mock/harness/journal.ts): what it records of each request and answer, credentials
// masked, bodies cut at their bound, filtered and cleared by test id, and memory bounded: after 10,000 requests
// it holds its configured number of entries and no more.
import { expect, test } from '@playwright/test';
import { Journal } from '../../mock/harness/journal.ts';
import { TEST_ID_HEADER } from '../../mock/harness/names.ts';
import { MOCK_KEYS, MOCK_MODELS } from '../../mock/keys-and-models.ts';
import { createMockService } from '../../mock/service.ts';
import { chat, send } from '../support/harness-calls.ts';

test('each request: method, path, query, headers with credentials masked, body, status, outcome, faults', async () => {
  const service = createMockService();
  await send(service, 'GET', '/v1/models', {
    query: 'x=1',
    headers: { authorization: `Bearer ${MOCK_KEYS.free}`, 'x-api-key': 'k-1', 'api-key': 'k-2', cookie: 'session=s', 'x-forwarded-auth': `Bearer ${MOCK_KEYS.full}`, 'user-agent': 'my-client/1.0' },
  });
  await chat(service, { stream: true }, { [TEST_ID_HEADER]: 'abc' });
  await chat(service, { model: MOCK_MODELS.deactivated });
  service.harness.faults.add([{ spec: 'fail-after=1', scenario: { failAfter: 1 }, target: 'chat', when: { kind: 'always' } }]);
  await chat(service, { stream: true });

  const [list, streamed, refused, cut] = service.harness.journal.entries();
  expect(list).toMatchObject({ seq: 1, method: 'GET', path: '/v1/models', query: 'x=1', status: 200, outcome: 'answered', body_bytes: 0, body_truncated: false });
  expect(list!.body).toBeUndefined();
  expect(list!.headers).toEqual({
    authorization: '***REDACTED***',
    'x-api-key': '***REDACTED***',
    'api-key': '***REDACTED***',
    cookie: '***REDACTED***',
    // A header whose last word is auth carries a credential (issue 51): masked whole, like authorization.
    'x-forwarded-auth': '***REDACTED***',
    'user-agent': 'my-client/1.0',
  });
  expect(JSON.stringify(service.harness.journal.entries())).not.toMatch(/sk-mock|k-1|k-2|session=s/);
  expect(streamed).toMatchObject({ seq: 2, test_id: 'abc', method: 'POST', path: '/v1/chat/completions', status: 200, outcome: 'stream' });
  expect(JSON.parse(streamed!.body!)).toEqual({ model: MOCK_MODELS.small, messages: [{ role: 'user', content: 'hello' }], stream: true });
  expect(streamed!.body_bytes).toBe(Buffer.byteLength(streamed!.body!));
  expect(refused).toMatchObject({ status: 403, outcome: 'error', error_code: 'model_not_found' });
  expect(cut).toMatchObject({ status: 200, outcome: 'stream-error', error_code: 'upstream_error', faults: ['fail-after=1'] });
  expect(streamed!.faults).toBeUndefined();
});

test('a body past the bound is cut there (on a character boundary or not) and marked truncated; its size is whole', async () => {
  const service = createMockService({ journalBodyBytes: 100 });
  const long = 'é'.repeat(5000);
  await chat(service, { messages: [{ role: 'user', content: long }] });
  const [e] = service.harness.journal.entries();
  expect(e!.body_truncated).toBe(true);
  expect(Buffer.byteLength(e!.body!)).toBeLessThanOrEqual(102);
  expect(e!.body_bytes).toBe(Buffer.byteLength(JSON.stringify({ model: MOCK_MODELS.small, messages: [{ role: 'user', content: long }] })));
  expect(e!.status).toBe(200);
});

test('filtered and cleared by test id; the control API and a journal of size 0 record nothing', async () => {
  const service = createMockService();
  for (const id of ['a', 'b', 'a', undefined]) await send(service, 'GET', '/v1/models', { headers: id ? { [TEST_ID_HEADER]: id } : {} });
  await send(service, 'GET', '/_chatconform/journal');
  const j = service.harness.journal;
  expect(j.entries().map((e) => e.test_id ?? '-')).toEqual(['a', 'b', 'a', '-']);
  expect(j.entries({ testId: 'a' }).map((e) => e.seq)).toEqual([1, 3]);
  expect(j.entries({ limit: 2 }).map((e) => e.seq)).toEqual([3, 4]);
  expect(j.clear('a')).toBe(2);
  expect(j.entries().map((e) => e.seq)).toEqual([2, 4]);
  expect(j.clear()).toBe(2);
  expect(j.length).toBe(0);

  const off = createMockService({ journalSize: 0 });
  await send(off, 'GET', '/v1/models');
  expect(off.harness.journal.entries()).toEqual([]);
});

test('the journal stays within its bound after 10,000 requests: the newest entries, the rest counted as dropped', async () => {
  const service = createMockService({ journalSize: 250 });
  for (let i = 0; i < 10_000; i++) {
    if (i % 100 === 0) await chat(service, { messages: [{ role: 'user', content: `message ${i}` }] });
    else await send(service, 'GET', '/v1/models', { headers: { [TEST_ID_HEADER]: `t${i % 3}` } });
  }
  const j = service.harness.journal;
  expect(j.length).toBe(250);
  expect(j.dropped).toBe(10_000 - 250);
  const entries = j.entries();
  expect(entries).toHaveLength(250);
  expect(entries[0]!.seq).toBe(9_751);
  expect(entries.at(-1)!.seq).toBe(10_000);
  expect(j.entries({ testId: 't1' }).every((e) => e.test_id === 't1')).toBe(true);

  // The default bound, and the ring itself: never more slots than its size, whatever is pushed.
  const ring = new Journal();
  expect(ring.size).toBe(1000);
  const record = { seq: 0, at: 0, method: 'GET', path: '/v1/models', headers: {}, status: 200, outcome: 'answered' as const };
  for (let i = 0; i < 10_000; i++) ring.push({ ...record, seq: ring.nextSeq() });
  expect(ring.length).toBe(1000);
  expect(ring.entries().map((e) => e.seq)).toEqual(Array.from({ length: 1000 }, (_, i) => 9_001 + i));
});

test('a bad size is refused', () => {
  expect(() => createMockService({ journalSize: -1 })).toThrow(/journal size must be an integer of at least 0/);
  expect(() => createMockService({ journalBodyBytes: 1.5 })).toThrow(/journal body bound must be an integer/);
});

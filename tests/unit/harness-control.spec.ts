// The control API (mock/harness/control.ts) in-process: faults set, listed and cleared globally or per test;
// every bad call refused with a JSON error of section 7's shape (400 for bad input, 404, 405); never reachable
// through /v1 paths, never shaped by a defect mode, never journaled.
import { expect, test } from '@playwright/test';
import { validate } from '../../spec/validator.ts';
import { TEST_ID_HEADER } from '../../mock/harness/names.ts';
import { createMockService } from '../../mock/service.ts';
import { chat, send, type Answer } from '../support/harness-calls.ts';

function refused(a: Answer, status: number, code: string, message: RegExp): void {
  expect(a.status, JSON.stringify(a.json)).toBe(status);
  expect(a.headers['content-type']).toBe('application/json');
  expect(validate('error', a.json).valid).toBe(true);
  expect(a.json.error.code).toBe(code);
  expect(a.json.error.message).toMatch(message);
}

test('faults: added for the server or one test, listed with their counts, removed one by one or cleared', async () => {
  const service = createMockService({ fault: 'delay=1ms' });
  const added = await send(service, 'POST', '/_chatconform/faults', { body: { faults: ['429@1/2'] }, headers: { [TEST_ID_HEADER]: 't1' } });
  expect(added.status).toBe(201);
  expect(added.json).toEqual({ faults: [{ id: 'f2', spec: '429@1/2', test_id: 't1', seen: 0, fired: 0 }] });
  await send(service, 'POST', '/_chatconform/faults', { body: { fault: '503' }, query: 'test_id=t2' });
  expect((await chat(service, {}, { [TEST_ID_HEADER]: 't1' })).status).toBe(429);

  const all = await send(service, 'GET', '/_chatconform/faults');
  expect(all.json.faults.map((f: { id: string; spec: string; fired: number }) => `${f.id} ${f.spec} ${f.fired}`)).toEqual(['f1 delay=1ms 1', 'f2 429@1/2 1', 'f3 503 0']);
  expect((await send(service, 'GET', '/_chatconform/faults', { query: 'test_id=t1' })).json.faults).toHaveLength(1);

  expect((await send(service, 'DELETE', '/_chatconform/faults/f3')).json).toEqual({ removed: 'f3' });
  refused(await send(service, 'DELETE', '/_chatconform/faults/f3'), 404, 'not_found', /no fault with id f3/);
  refused(await send(service, 'DELETE', '/_chatconform/faults/%E0%A4%A'), 400, 'invalid_request', /not valid percent-encoding/);
  expect((await send(service, 'DELETE', '/_chatconform/faults', { headers: { [TEST_ID_HEADER]: 't1' } })).json).toEqual({ cleared: 1, test_id: 't1' });
  expect((await send(service, 'DELETE', '/_chatconform/faults')).json).toEqual({ cleared: 1 });
  expect((await send(service, 'GET', '/_chatconform/faults')).json).toEqual({ faults: [] });
});

test('bad input is refused with 400 and changes nothing', async () => {
  const service = createMockService();
  const post = (body: unknown) => send(service, 'POST', '/_chatconform/faults', { body });
  refused(await post({ fault: 'fail-after=x' }), 400, 'invalid_fault', /^fault "fail-after=x": fail-after must be an integer from 0 to 1000000/);
  refused(await post({ faults: ['429', 'framing=wavy'] }), 400, 'invalid_fault', /^faults\[1\]: fault "framing=wavy": unknown framing "wavy"/);
  refused(await post({ faults: [] }), 400, 'invalid_fault', /every fault must be a string/);
  refused(await post({ faults: [429] }), 400, 'invalid_fault', /every fault must be a string/);
  refused(await post({ fault: '429', faults: ['503'] }), 400, 'invalid_fault', /send \{"fault": "SPEC"\} or \{"faults"/);
  refused(await post({ fault: '429', when: 'now' }), 400, 'invalid_fault', /unknown field "when"/);
  refused(await post(['429']), 400, 'invalid_fault', /must be a JSON object/);
  refused(await post('{"fault": '), 400, 'invalid_json', /the body is not JSON/);
  refused(await send(service, 'POST', '/_chatconform/faults'), 400, 'invalid_json', /the body is empty/);
  expect(service.harness.faults.size).toBe(0);

  refused(await send(service, 'PUT', '/_chatconform/script', { body: { rules: [{ answer: {} }] } }), 400, 'invalid_script', /mock-script\.schema\.json: \/rules\/0\/answer/);
  refused(await send(service, 'PUT', '/_chatconform/script', { body: { rules: [{ match: { user_matches: '(' }, answer: { content: 'x' } }] } }), 400, 'invalid_script', /rules\[0\]: match.user_matches is not a regular expression/);
  refused(await send(service, 'PUT', '/_chatconform/script', { body: { rules: [{ answer: { fault: '429@0.5' } }] } }), 400, 'invalid_script', /@WHEN is not allowed here/);
  refused(await send(service, 'PUT', '/_chatconform/script', { body: { rules: [{ answer: { finish_reason: 'tool_calls' } }] } }), 400, 'invalid_script', /finish_reason is tool_calls but the answer has no tool_calls/);
  expect(service.harness.script()).toBeUndefined();

  refused(await send(service, 'GET', '/_chatconform/journal', { query: 'limit=0' }), 400, 'invalid_request', /limit must be an integer of at least 1/);
  refused(await send(service, 'GET', '/_chatconform/journal', { query: 'test=1' }), 400, 'invalid_request', /unknown query parameter "test"; known here: test_id, limit/);
  refused(await send(service, 'GET', '/_chatconform/faults', { query: 'test_id=' }), 400, 'invalid_request', /test_id must not be empty/);
  refused(await send(service, 'GET', '/_chatconform/faults', { query: 'test_id=a', headers: { [TEST_ID_HEADER]: 'b' } }), 400, 'invalid_request', /name different tests/);
  refused(await send(service, 'GET', '/_chatconform/nothing'), 404, 'not_found', /no such control endpoint: GET \/_chatconform\/nothing; known: /);
  const wrong = await send(service, 'PUT', '/_chatconform/faults');
  refused(wrong, 405, 'method_not_allowed', /use GET, POST, DELETE/);
  expect(wrong.headers.allow).toBe('GET, POST, DELETE');
  const big = await send(service, 'PUT', '/_chatconform/script', { body: { rules: [{ answer: { content: 'x'.repeat(1_100_000) } }] } });
  expect(big.status).toBe(413);
});

test('the control API is reachable only at the root: not through /v1 paths, not shaped by defects, not journaled', async () => {
  const service = createMockService({ defect: 'error-plain-text', prefix: '/api' });
  const viaV1 = await send(service, 'GET', '/v1/_chatconform/faults');
  expect(viaV1.status).toBe(404);
  const viaPrefix = await send(service, 'GET', '/api/v1/_chatconform/faults');
  expect(viaPrefix.status).toBe(404);
  expect(viaPrefix.json.error.message).toBe('no such endpoint: GET /api/v1/_chatconform/faults');
  // A path under the control root that looks like a mount prefix before /v1 is the control API's, never the contract's.
  refused(await send(service, 'GET', '/_chatconform/v1/models'), 404, 'not_found', /no such control endpoint/);
  // The defect shapes the mock's own 403 as text; the control API's errors stay JSON.
  refused(await send(service, 'POST', '/_chatconform/faults', { body: { fault: 'x' } }), 400, 'invalid_fault', /unknown fault "x"/);
  expect(service.harness.journal.entries().map((e) => e.path)).toEqual(['/v1/_chatconform/faults', '/api/v1/_chatconform/faults']);
  const index = await send(service, 'GET', '/_chatconform');
  expect(index.json).toMatchObject({ test_id_header: TEST_ID_HEADER, prefix: '/api', journal: { capacity: 1000, held: 2 } });
});

test('a mount prefix: the /v1 routes answer under it only', async () => {
  const service = createMockService({ prefix: '/team/llm/' });
  expect((await send(service, 'GET', '/team/llm/v1/models')).status).toBe(200);
  const outside = await send(service, 'GET', '/v1/models');
  expect(outside.status).toBe(404);
  expect(outside.json.error.message).toBe('no such endpoint: GET /v1/models (this mock serves its API under /team/llm/v1)');
  expect((await send(service, 'GET', '/other/v1/models')).status).toBe(404);
  for (const bad of ['api', '/api?x', '/v1', '/api/v1', '/_chatconform']) expect(() => createMockService({ prefix: bad }), bad).toThrow(/prefix must/);
});

test('journal: read and cleared per test over the control API, with its capacity', async () => {
  const service = createMockService({ journalSize: 3 });
  for (const id of ['a', 'b', 'a', 'a']) await send(service, 'GET', '/v1/models', { headers: { [TEST_ID_HEADER]: id } });
  const a = await send(service, 'GET', '/_chatconform/journal', { query: 'test_id=a&limit=1' });
  expect(a.json).toMatchObject({ capacity: 3, dropped: 1, test_id: 'a' });
  expect(a.json.entries.map((e: { seq: number }) => e.seq)).toEqual([4]);
  expect((await send(service, 'DELETE', '/_chatconform/journal', { headers: { [TEST_ID_HEADER]: 'a' } })).json).toEqual({ cleared: 2, test_id: 'a' });
  expect((await send(service, 'GET', '/_chatconform/journal')).json.entries.map((e: { test_id: string }) => e.test_id)).toEqual(['b']);
});

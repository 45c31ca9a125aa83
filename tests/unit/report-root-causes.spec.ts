// Root causes, not cascades (report/root-causes.ts), on hand-made outcomes: one deviation is shown once
// with the tests it touched, ranked by impact, linked to what it left unjudged, and carried into the reports.
import { expect, test } from '@playwright/test';
import type { CheckRecord } from '../../judge/checker.ts';
import type { Exchange } from '../../judge/exchange.ts';
import { renderHtml } from '../../report/html.ts';
import { renderSummary } from '../../report/terminal.ts';
import { aggregate, type TestOutcome } from '../../report/results.ts';
import { impactOf, normaliseMessage, rootCauses } from '../../report/root-causes.ts';
import { buildReport } from '../../report/json.ts';
import { sampleInfo, sampleReport } from '../support/reports.ts';

const EXCHANGE: Exchange = {
  method: 'POST',
  path: '/v1/chat/completions',
  url: 'http://127.0.0.1:9/v1/chat/completions',
  requestHeaders: { 'content-type': 'application/json' },
  requestBody: '{"model":"m","stream":true}',
  requestBytes: 27,
  status: 200,
  responseHeaders: { 'content-type': 'text/event-stream' },
  responseBody: 'data: {"choices":[{"delta":{},"finish_reason":null}]}\n\n',
  responseBytes: 60,
  durationMs: 3,
  curl: `curl -sS -N -X POST 'http://127.0.0.1:9/v1/chat/completions' -H "Authorization: Bearer $CONFORMANCE_API_KEY" --data-binary '{"model":"m","stream":true}'`,
};

let line = 0;
function outcome(declared: string[], checks: CheckRecord[], exchanges: Exchange[] = [EXCHANGE]): TestOutcome {
  line++;
  return {
    title: `test ${line}`,
    file: 'suites/x.spec.ts',
    line,
    status: 'judged',
    declared,
    durationMs: 1,
    evidence: { checks, exchanges },
  };
}

test('a message is grouped with its numbers and indices normalised; requirement IDs and names like v1 are kept', () => {
  expect(normaliseMessage('chunk 3: /choices/0/finish_reason must not be null')).toBe('chunk N: /choices/N/finish_reason must not be null');
  expect(normaliseMessage('chunk 12: /choices/1/finish_reason must not be null')).toBe('chunk N: /choices/N/finish_reason must not be null');
  expect(normaliseMessage('completion_tokens 9.5 exceeds the cap 3 (see CAT-027) on /v1/chat/completions')).toBe('completion_tokens N exceeds the cap N (see CAT-027) on /v1/chat/completions');
  expect(normaliseMessage('id chatcmpl-8f3a9c2e1b7d4f60aa differs from chatcmpl-0c1d2e3f4a5b6c7d8e')).toBe('id ID differs from ID');
  expect(normaliseMessage('first line:\nsecond line')).toBe('first line: second line');
});

test('one deviation in many tests and chunks is one root cause with every test it touched; the same rule broken in other words too', () => {
  const outcomes = [
    outcome(['RESP-001'], [{ id: 'RESP-001', status: 'fail', exchange: 0, message: 'chunk 0: /choices/0/finish_reason must not be null' }, { id: 'RESP-001', status: 'fail', exchange: 0, message: 'chunk 1: /choices/0/finish_reason must not be null' }]),
    outcome(['RESP-001'], [{ id: 'RESP-001', status: 'fail', exchange: 0, message: 'chunk 7: /choices/0/finish_reason must not be null' }]),
    outcome(['RESP-001'], [{ id: 'RESP-001', status: 'fail', exchange: 0, message: 'chunk 2: /usage must not be null' }]),
    outcome(['RESP-001'], [{ id: 'RESP-001', status: 'pass', exchange: 0 }]),
  ];
  const causes = rootCauses(outcomes);
  expect(causes).toHaveLength(1);
  expect(causes[0]).toMatchObject({
    rank: 1,
    id: 'RESP-001',
    status: 'fail',
    tier: 'core',
    message: 'chunk 0: /choices/0/finish_reason must not be null',
    pattern: 'chunk N: /choices/N/finish_reason must not be null',
    occurrences: 4,
    blocked: [],
    cause: 'requirement RESP-001',
    kind: 'requirement',
    requirements: ['RESP-001'],
  });
  expect(causes[0]!.tests.map((t) => t.title)).toEqual(['test 1', 'test 2', 'test 3']);
  expect(causes[0]!.exchange).toMatchObject({ method: 'POST', status: 200, curl: EXCHANGE.curl });
});

test('impact: MUST before SHOULD; the core before auth, errors and limits, before the extensions (by area, wherever stated)', () => {
  expect(impactOf({ id: 'CHAT-004', section: '4.3' })).toEqual({ tier: 'core', order: 0 });
  expect(impactOf({ id: 'CAT-005', section: '2.10' }).tier).toBe('core');
  expect(impactOf({ id: 'STREAM-004', section: '6' }).tier).toBe('core');
  expect(impactOf({ id: 'AUTH-001', section: '5' }).tier).toBe('auth-errors-limits');
  expect(impactOf({ id: 'ERR-001', section: '7' }).tier).toBe('auth-errors-limits');
  expect(impactOf({ id: 'LIMIT-001', section: '8' }).tier).toBe('auth-errors-limits');
  // Search rules stated in 4.3 or 7 are still the search extension.
  expect(impactOf({ id: 'SEARCH-041', section: '4.3' }).tier).toBe('extension');
  expect(impactOf({ id: 'SEARCH-045', section: '7' }).tier).toBe('extension');
  for (const id of ['TOOL-006', 'ROUTE-008', 'RSN-006', 'IMG-006']) expect(impactOf({ id, section: '2.3' }).tier).toBe('extension');

  const fail = (id: string, message = 'broken'): CheckRecord => ({ id, status: 'fail', exchange: 0, message });
  // Declared in an order that is not the impact order; the extension failure touches the most tests.
  const outcomes = [
    outcome(['SEARCH-023'], [fail('SEARCH-023')]),
    outcome(['SEARCH-023'], [fail('SEARCH-023')]),
    outcome(['SEARCH-023'], [fail('SEARCH-023')]),
    outcome(['CAT-038'], [{ id: 'CAT-038', status: 'warn', exchange: 0, message: 'not found percent-encoded' }]),
    outcome(['ERR-001'], [fail('ERR-001')]),
    outcome(['AUTH-001'], [fail('AUTH-001')]),
    outcome(['STREAM-004'], [fail('STREAM-004')]),
    outcome(['CHAT-004'], [fail('CHAT-004')]),
  ];
  expect(rootCauses(outcomes).map((c) => `${c.rank} ${c.id} ${c.status} ${c.tier}`)).toEqual([
    '1 CHAT-004 fail core',
    '2 STREAM-004 fail core',
    '3 AUTH-001 fail auth-errors-limits',
    '4 ERR-001 fail auth-errors-limits',
    '5 SEARCH-023 fail extension',
    '6 CAT-038 warn core',
  ]);
});

test('skip and error records whose cause names a failed requirement link to its root cause, on the same exchange first', () => {
  const outcomes = [
    outcome(
      ['RESP-001', 'RESP-011', 'STREAM-003', 'STREAM-016'],
      [
        { id: 'RESP-001', status: 'fail', exchange: 0, message: 'chunk 0: /choices/0/finish_reason must not be null' },
        { id: 'RESP-001', status: 'fail', exchange: 1, message: 'chunk 0: /usage must not be null' },
        { id: 'RESP-011', status: 'skip', exchange: 0, message: 'no finish_reason to judge', cause: { id: 'RESP-001', exchange: 0, message: 'finish_reason is null' } },
        { id: 'STREAM-016', status: 'error', exchange: 1, message: 'no usage to judge', cause: { id: 'RESP-001', exchange: 1, message: 'usage is null' } },
        { id: 'STREAM-003', status: 'skip', message: 'no stream', cause: { exchange: 0, message: 'the kit sent no stream request' } },
      ],
      [EXCHANGE, { ...EXCHANGE, responseBody: 'data: {"usage":null}\n\n' }],
    ),
  ];
  const causes = rootCauses(outcomes);
  expect(causes.map((c) => [c.pattern, c.blocked])).toEqual([['chunk N: /choices/N/finish_reason must not be null', ['RESP-011', 'STREAM-016']]]);
  // The unjudged requirement says which failure it waited on.
  const r = aggregate(outcomes).find((x) => x.id === 'RESP-011')!;
  expect(r).toMatchObject({ status: 'skip', reason: 'finish_reason is null (root cause: RESP-001 failed)' });
});

test('nothing failed or warned: no root cause; only observations and passes: none either', () => {
  expect(rootCauses([])).toEqual([]);
  expect(rootCauses([outcome(['CAT-001', 'OBS-003'], [{ id: 'CAT-001', status: 'pass' }, { id: 'OBS-003', status: 'observed', observed: ['free'] }])])).toEqual([]);
});

test('conformance.json and the HTML lead with the root causes: ranked, with their tests, what they blocked, and a curl', () => {
  const report = sampleReport();
  expect(report.rootCauses.map((c) => `${c.rank} ${c.id}`)).toEqual(['1 REQ-010', '2 RESP-001', '3 CAT-027', '4 CAT-038']);
  expect(report.rootCauses[1]).toMatchObject({ occurrences: 3, blocked: ['RESP-011'] });
  expect(report.rootCauses[1]!.tests).toHaveLength(2);
  const html = renderHtml(report);
  const rc = html.indexOf('<section id="root-causes">');
  expect(rc).toBeGreaterThan(0);
  // Before the run's facts and the matrix.
  expect(rc).toBeLessThan(html.indexOf('<section id="run">'));
  expect(rc).toBeLessThan(html.indexOf('<section id="matrix">'));
  expect(html).toContain('<h2>Root causes, by impact (4)</h2>');
  const second = html.slice(html.indexOf('id="rc-2"'), html.indexOf('id="rc-3"'));
  expect(second).toContain('href="#req-RESP-001"');
  expect(second).toContain('3 occurrences in 2 tests');
  expect(second).toMatch(/Left unjudged because of it \(1\): <a href="#req-RESP-011"/);
  expect(second).toContain(`<pre class="curl-text">curl -sS -N -X POST &#39;http://127.0.0.1:9/v1/chat/completions&#39;`);
  const none = buildReport({ info: sampleInfo(), results: aggregate([]), outcomes: [], startedAt: new Date(), durationMs: 1, stopReason: 'completed', errors: [] });
  expect(renderHtml(none)).toContain('No requirement failed or warned.');
});

// One cause, one card: failures grouped by the deviation their exchange shows, not by their messages.
const answer = (over: Partial<Exchange>): Exchange => ({ ...EXCHANGE, requestBody: '{"model":"m"}', responseHeaders: { 'content-type': 'application/json' }, ...over });
const PLAIN_403 = answer({ status: 403, responseHeaders: { 'content-type': 'text/plain; charset=utf-8' }, responseBody: '403 Forbidden: model_not_allowed' });
const PLAIN_403_TIER = answer({ status: 403, responseHeaders: { 'content-type': 'text/plain; charset=utf-8' }, responseBody: '403 Forbidden: insufficient_tier' });
const OK = answer({ status: 200, responseBody: '{"id":"c","object":"chat.completion","created":1732500000123,"choices":[]}' });

test('the mock with three defects: the plain-text error body is one card with every requirement it breaks; one card per defect', () => {
  const outcomes = [
    outcome(['CHAT-011', 'CHAT-012', 'AUTH-008', 'ERR-006'], [
      { id: 'ERR-001', status: 'fail', exchange: 0, message: 'error body of HTTP 403: (root): must be an object (got undefined)' },
      { id: 'AUTH-008', status: 'fail', exchange: 0, message: 'expected error.code "model_not_allowed"; received undefined (HTTP 403: 403 Forbidden: model_not_allowed)' },
      { id: 'ERR-006', status: 'fail', exchange: 0, message: 'expected status 403 with code model_not_allowed; received HTTP 403: 403 Forbidden: model_not_allowed' },
      { id: 'CHAT-011', status: 'fail', exchange: 0, message: 'refused with status 403 but without a section 7 error object' },
      { id: 'CHAT-012', status: 'fail', exchange: 0, message: 'the restricted key: refused with status 403 but without a section 7 error object' },
    ], [PLAIN_403]),
    outcome(['CHAT-012'], [
      { id: 'ERR-001', status: 'fail', exchange: 0, message: 'a non-200 response carries a JSON object with an error object; received HTTP 403: 403 Forbidden: insufficient_tier' },
      { id: 'CHAT-012', status: 'fail', exchange: 0, message: 'the low-tier key: refused with status 403 but without a section 7 error object' },
    ], [PLAIN_403_TIER]),
    outcome(['STREAM-004'], [{ id: 'STREAM-004', status: 'fail', exchange: 0, message: 'the body ended after 6 event(s) without [DONE] and without an error event' }]),
    outcome(['RESP-005'], [{ id: 'RESP-005', status: 'warn', exchange: 0, message: 'completion: created 1732500000123 is not a Unix time in seconds near now (1732500001): milliseconds?' }], [OK]),
    outcome(['RESP-005'], [{ id: 'RESP-005', status: 'warn', exchange: 0, message: '3 generated case(s) out of 3: streamed completion: created 1732500000456 is not a Unix time in seconds near now' }]),
  ];
  const causes = rootCauses(outcomes);
  expect(causes.map((c) => c.kind)).toEqual(['error-body', 'requirement', 'requirement']);
  expect(causes[0]).toMatchObject({ cause: 'error-body', status: 'fail', occurrences: 7, requirements: ['CHAT-011', 'CHAT-012', 'AUTH-008', 'ERR-001', 'ERR-006'] });
  expect(causes[0]!.deviation).toContain('not a JSON error object');
  expect(causes[0]!.deviation).toContain('text/plain');
  expect(causes[0]!.tests).toHaveLength(2);
  expect(causes.slice(1).map((c) => [c.id, c.occurrences]).sort()).toEqual([['RESP-005', 2], ['STREAM-004', 1]]);
});

test('a missing route is one card: its 404 with a key and its 401 without one are not a second deviation; the list\'s own 401 is', () => {
  const route = (path: string, status: number, key: boolean): Exchange =>
    answer({ method: 'GET', path, url: `http://127.0.0.1:9${path}`, requestBody: undefined, status, requestHeaders: key ? { authorization: '***REDACTED***' } : {}, responseBody: status === 404 ? '{"error":{"message":"Not found","type":"not_found"}}' : '{"error":{"message":"Invalid API key","type":"authentication_error","code":"invalid_api_key"}}' });
  const outcomes = [
    outcome(['CAT-036', 'AUTH-005'], [
      { id: 'CAT-036', status: 'fail', exchange: 0, message: 'GET /v1/models/gpt-4, expected status 200; received HTTP 404' },
      { id: 'AUTH-005', status: 'fail', exchange: 1, message: 'GET /v1/models/gpt-4 without a credential, expected status 200; received HTTP 401' },
      { id: 'CAT-036', status: 'fail', exchange: 2, message: 'GET /v1/models/gpt-4o, expected status 200; received HTTP 404' },
      { id: 'AUTH-005', status: 'fail', exchange: 3, message: 'GET /v1/models/gpt-4o without a credential, expected status 200; received HTTP 401' },
    ], [route('/v1/models/gpt-4', 404, true), route('/v1/models/gpt-4', 401, false), route('/v1/models/gpt-4o', 404, true), route('/v1/models/gpt-4o', 401, false)]),
    outcome(['CAT-038'], [{ id: 'CAT-038', status: 'warn', exchange: 0, message: 'GET /v1/models/a%2Fb: HTTP 404' }], [route('/v1/models/a%2Fb', 404, true)]),
    outcome(['AUTH-005'], [{ id: 'AUTH-005', status: 'fail', exchange: 0, message: 'expected status 200; received HTTP 401' }], [route('/v1/models', 401, false)]),
  ];
  const causes = rootCauses(outcomes);
  expect(causes).toHaveLength(2);
  const missing = causes.find((c) => c.kind === 'missing-route')!;
  expect(missing).toMatchObject({ cause: 'missing-route GET /v1/models/{model_id}', id: 'CAT-036', requirements: ['CAT-036', 'AUTH-005', 'CAT-038'], occurrences: 5 });
  expect(missing.deviation).toBe('GET /v1/models/{model_id} is missing: it answers 404 with a credential and 401 without one (5 requests, statuses 401, 404)');
  expect(causes.find((c) => c !== missing)).toMatchObject({ kind: 'requirement', id: 'AUTH-005', requirements: ['AUTH-005'] });
});

test('a common cause: chat answering the same 404 to most prompts is named first, before a core MUST it does not explain', () => {
  const notFound = answer({ status: 404, responseBody: '{"error":{"type":"not_found","code":"not_found","message":"no route for this prompt"}}' });
  const outcomes = [
    outcome(['RESP-004'], [{ id: 'RESP-004', status: 'fail', exchange: 0, message: 'created is not an integer' }], [OK]),
    outcome(['CHAT-004'], [{ id: 'CHAT-004', status: 'fail', exchange: 0, message: 'for a completion request, expected status 200; received HTTP 404' }], [notFound]),
    outcome(['CHAT-005'], [{ id: 'CHAT-005', status: 'fail', exchange: 0, message: 'for a stream request, expected status 200; received HTTP 404' }], [notFound]),
    outcome(['TOOL-001'], [{ id: 'TOOL-001', status: 'fail', exchange: 0, message: 'tools request: HTTP 404' }], [notFound]),
    outcome(['RSN-001'], [{ id: 'RSN-001', status: 'fail', exchange: 0, message: 'reasoning request: HTTP 404' }], [notFound]),
  ];
  const causes = rootCauses(outcomes);
  expect(causes.map((c) => c.kind)).toEqual(['common-answer', 'requirement']);
  expect(causes[0]).toMatchObject({ rank: 1, id: 'CHAT-004', requirements: ['CHAT-004', 'CHAT-005', 'TOOL-001', 'RSN-001'], occurrences: 4 });
  expect(causes[0]!.deviation).toContain('POST /v1/chat/completions gives most requests the same answer (4 of 5): HTTP 404');
  expect(causes[1]).toMatchObject({ rank: 2, id: 'RESP-004' });
});

test('the reports name the deviation of a cause card and every requirement it breaks', () => {
  const outcomes = [
    outcome(['CHAT-012', 'AUTH-008'], [
      { id: 'CHAT-012', status: 'fail', exchange: 0, message: 'refused with status 403 but without a section 7 error object' },
      { id: 'AUTH-008', status: 'fail', exchange: 0, message: 'expected error.code "model_not_allowed"; received undefined' },
    ], [PLAIN_403]),
  ];
  const report = buildReport({ info: sampleInfo(), results: aggregate(outcomes), outcomes, startedAt: new Date(), durationMs: 1, stopReason: 'completed', errors: [] });
  expect(report.rootCauses).toHaveLength(1);
  const html = renderHtml(report);
  expect(html).toContain('<p class="deviation"><b>error answers are not a JSON error object (section 7): e.g. HTTP 403: 403 Forbidden: model_not_allowed (text/plain; charset=utf-8)</b></p>');
  expect(html).toMatch(/Breaks 2 requirements: <a href="#req-CHAT-012"[^>]*><code>CHAT-012<\/code><\/a> <a href="#req-AUTH-008"/);
  const text = renderSummary(report, []);
  expect(text).toContain('error answers are not a JSON error object');
  expect(text).toContain('breaks CHAT-012, AUTH-008');
});

test('the same failure answer to the same request shape is one card, whatever requirements it touches (a 500 to tools with stream)', () => {
  const toolsStream = (tools: number) => answer({ status: 500, requestBody: JSON.stringify({ model: 'm', stream: true, tools: Array.from({ length: tools }, (_, i) => ({ type: 'function', function: { name: `f${i}` } })) }), responseBody: '{"error":{"code":500,"message":"Cannot use tools with stream","type":"server_error"}}' });
  const other500 = answer({ status: 500, responseBody: '{"error":{"code":500,"message":"tokenizer failed","type":"server_error"}}' });
  const outcomes = [
    outcome(['CHAT-005'], [{ id: 'CHAT-005', status: 'fail', exchange: 0, message: 'for a streamed completion request, expected status 200; received HTTP 500' }], [toolsStream(1)]),
    outcome(['TOOL-001'], [{ id: 'TOOL-001', status: 'fail', exchange: 0, message: 'a request with two function tools must be accepted; received HTTP 500' }], [toolsStream(2)]),
    outcome(['TOOL-009'], [{ id: 'TOOL-009', status: 'fail', exchange: 0, message: 'a function tool whose parameters is a JSON Schema object must be accepted; received HTTP 500' }], [toolsStream(1)]),
    // The same tools unstreamed are served (and so is most of the run: the 500 is not the route's common answer).
    ...[1, 2, 3].map(() => outcome(['TOOL-001'], [{ id: 'TOOL-001', status: 'pass', exchange: 0 }], [answer({ status: 200, requestBody: '{"model":"m","tools":[{"type":"function"}]}', responseBody: '{}' })])),
    // One requirement on another 500: its own card, never folded into the first.
    outcome(['RESP-004'], [{ id: 'RESP-004', status: 'fail', exchange: 0, message: 'received HTTP 500' }], [other500]),
  ];
  const causes = rootCauses(outcomes);
  expect(causes.map((c) => [c.kind, c.requirements])).toEqual([
    ['same-answer', ['CHAT-005', 'TOOL-001', 'TOOL-009']],
    ['requirement', ['RESP-004']],
  ]);
  expect(causes[0]!.deviation).toBe('POST /v1/chat/completions answers 3 of its 7 requests HTTP 500: {"error":{"code":500,"message":"Cannot use tools with stream","type":"server_error"}} (application/json), every one of them with stream true and function tools');
  expect(causes[0]!.tests).toHaveLength(3);
  // Each requirement keeps its own record and verdict: the grouping is of cards.
  const results = aggregate(outcomes);
  expect(['CHAT-005', 'TOOL-001', 'TOOL-009'].map((id) => results.find((r) => r.id === id)!.status)).toEqual(['fail', 'fail', 'fail']);
});

test('a requirement failing on another one\'s 500 is that card (SEARCH-004 on the bare web_search tool SEARCH-003 sent)', () => {
  const bare = answer({ status: 500, requestBody: '{"model":"m","tools":[{"type":"web_search"}]}', responseBody: '{"error":{"message":"Unsupported tool type: web_search"}}' });
  const options = answer({ status: 200, requestBody: '{"model":"m","web_search_options":{}}', responseBody: '{}' });
  const outcomes = [
    outcome(['SEARCH-003', 'SEARCH-004'], [
      { id: 'SEARCH-003', status: 'fail', exchange: 1, message: 'a bare {"type":"web_search"} tools entry must be accepted as a request for search; received HTTP 500' },
      { id: 'SEARCH-004', status: 'fail', exchange: 1, message: 'both forms count as a request for search: web_search_options got HTTP 200, the bare web_search tool HTTP 500' },
    ], [options, bare]),
  ];
  // One request, two rules the catalog states together (2.7), each failing only on that answer: one card.
  const causes = rootCauses(outcomes);
  expect(causes).toHaveLength(1);
  expect(causes[0]).toMatchObject({ kind: 'same-answer', id: 'SEARCH-003', requirements: ['SEARCH-003', 'SEARCH-004'] });
  expect(causes[0]!.deviation).toContain('every one of them with a bare web_search tool');
});

test('one ignored cap is one card: REQ-009, REQ-010 and REQ-011 are one rule of 4.3 read through three request shapes', () => {
  const outcomes = [
    outcome(['REQ-010'], [{ id: 'REQ-010', status: 'fail', exchange: 0, message: 'max_completion_tokens 5: usage.completion_tokens is 66, above the cap in force 5' }], [OK]),
    outcome(['REQ-011'], [{ id: 'REQ-011', status: 'fail', exchange: 0, message: 'max_tokens 256 and max_completion_tokens 5: usage.completion_tokens is 66, above the cap in force 5' }], [OK]),
    outcome(['REQ-009'], [{ id: 'REQ-009', status: 'fail', exchange: 0, message: 'adding max_tokens 5 cut it to 5: max_tokens was applied although max_completion_tokens was present' }], [OK]),
    outcome(['RESP-004'], [{ id: 'RESP-004', status: 'fail', exchange: 0, message: 'created is not an integer' }], [OK]),
  ];
  const causes = rootCauses(outcomes);
  expect(causes.map((c) => [c.kind, c.cause, c.requirements])).toEqual([
    ['requirement', 'requirement RESP-004', ['RESP-004']],
    ['rule', 'rule token-cap', ['REQ-009', 'REQ-010', 'REQ-011']],
  ]);
  expect(causes[1]!.deviation).toMatch(/^the token cap in force is not applied/);
});

test('a card names the cause its evidence shows: a 404 to prompts without a fixture is not "error answers are not a JSON error object", and an unrelated 413 is not folded in', () => {
  const noFixture = (body: object) => answer({ status: 404, requestBody: JSON.stringify({ model: 'm', ...body }), responseHeaders: { 'content-type': 'text/plain' }, responseBody: 'No fixture matched this request' });
  const served = answer({ status: 200, responseBody: '{}' });
  const tooLarge = answer({ status: 413, responseHeaders: { 'content-type': 'text/html' }, responseBody: '<html><body>PayloadTooLargeError: request entity too large</body></html>' });
  const outcomes = [
    outcome(['CHAT-004'], [{ id: 'CHAT-004', status: 'pass', exchange: 0 }], [served]),
    outcome(['CHAT-004'], [{ id: 'CHAT-004', status: 'pass', exchange: 0 }], [served]),
    outcome(['CHAT-004'], [{ id: 'CHAT-004', status: 'pass', exchange: 0 }], [served]),
    outcome(['REQ-010'], [{ id: 'CHAT-004', status: 'fail', exchange: 0, message: 'expected status 200; received HTTP 404' }], [noFixture({})]),
    outcome(['TOOL-001'], [{ id: 'TOOL-001', status: 'fail', exchange: 0, message: 'tools must be accepted; received HTTP 404' }], [noFixture({ tools: [{ type: 'function' }] })]),
    outcome(['ERR-001'], [{ id: 'ERR-001', status: 'fail', exchange: 0, message: 'a non-200 response carries a JSON object with an error object; received HTTP 404' }], [noFixture({ stream: true })]),
    // A legal body refused for its size (a 1 MB limit): the status is LIMIT-003's deviation, the body ERR-001's.
    outcome(['LIMIT-003'], [
      { id: 'LIMIT-003', status: 'fail', exchange: 0, statusOnly: true, message: 'for a body just under 10 MB, expected status 200; received HTTP 413' },
      { id: 'ERR-001', status: 'fail', exchange: 0, message: 'a non-200 response carries a JSON object with an error object; received HTTP 413' },
    ], [tooLarge]),
  ];
  const causes = rootCauses(outcomes);
  // ERR-001 fails on the 413 too: the plain-text error body is its own deviation (fixing the fixtures would leave
  // it), so it is on one card, the error body's, with both its findings.
  expect(causes.map((c) => [c.kind, c.requirements])).toEqual([
    ['same-answer', ['CHAT-004', 'TOOL-001']],
    ['error-body', ['ERR-001']],
    ['requirement', ['LIMIT-003']],
  ]);
  expect(causes[0]!.deviation).toBe('POST /v1/chat/completions answers 3 of its 7 requests HTTP 404: No fixture matched this request (text/plain)');
  expect(causes[0]!.deviation).not.toContain('not a JSON error object');
  expect(causes[1]!.deviation).toContain('not a JSON error object');
  expect(causes[1]!.occurrences).toBe(2);
});

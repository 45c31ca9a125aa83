// Recorded-style cases of real servers, as the fold sees them (each case's check records and exchanges): the answers
// llama.cpp's llama-server and a gateway in front of it gave the suite, reduced to the cases that decide the root
// cause cards. Hand-made from the certification replays (curl), so the cards are tested in process.
import type { CheckRecord } from '../../judge/checker.ts';
import type { Exchange } from '../../judge/exchange.ts';
import type { TestOutcome } from '../../report/results.ts';

const CHAT = 'http://127.0.0.1:9/v1/chat/completions';

/** One exchange with the chat route (or another), JSON both ways. */
export function exchange(status: number, request: object | undefined, response: string, over: Partial<Exchange> = {}): Exchange {
  const requestBody = request === undefined ? undefined : JSON.stringify(request);
  return {
    method: 'POST',
    path: '/v1/chat/completions',
    url: CHAT,
    requestHeaders: { 'content-type': 'application/json', authorization: '***REDACTED***' },
    ...(requestBody !== undefined ? { requestBody, requestBytes: requestBody.length } : { requestBytes: 0 }),
    status,
    responseHeaders: { 'content-type': status === 200 && request !== undefined && (request as { stream?: unknown }).stream === true ? 'text/event-stream' : 'application/json' },
    responseBody: response,
    responseBytes: response.length,
    durationMs: 3,
    curl: `curl -sS -X POST '${CHAT}' -H "Authorization: Bearer $CONFORMANCE_API_KEY"`,
    ...over,
  };
}

let line = 0;
/** A judged case with its records (each on exchange 0 unless it says otherwise) and exchanges. */
export function recordedCase(title: string, checks: CheckRecord[], exchanges: Exchange[]): TestOutcome {
  line++;
  return { title, file: 'suites/recorded.spec.ts', line, status: 'judged', declared: [...new Set(checks.map((c) => c.id))], durationMs: 1, evidence: { checks, exchanges } };
}

const completion = '{"id":"chatcmpl-1","object":"chat.completion","created":1732500000,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}]}';
const hello = { model: 'm', messages: [{ role: 'user', content: 'hi' }] };

/** Served requests: the route answers 2xx, and the failures are not its common answer. */
function served(n: number): TestOutcome[] {
  return Array.from({ length: n }, (_, i) => recordedCase(`chat › a completion ${i}`, [{ id: 'CHAT-004', status: 'pass', exchange: 0 }], [exchange(200, hello, completion)]));
}

/** A client fault answered with `status` and `body`: the fault's rule (a SHOULD: a warning) and ERR-003 judged on that answer. */
function clientFault(title: string, id: string, request: object, status: number, body: string, err003: string): TestOutcome {
  return recordedCase(title, [
    { id, status: 'warn', exchange: 0, statusOnly: true, message: `expected a client error (4xx); received HTTP ${status}` },
    { id: 'ERR-003', status: 'fail', exchange: 0, message: err003 },
  ], [exchange(status, request, body)]);
}

/**
 * llama-server: every error answer carries a numeric `error.code` (ERR-003), and it answers 500 to the client
 * faults (REQ-004, REQ-016, REQ-019), each 500 with the exception's own message. Two deviations: two cards.
 */
export function llamaCases(): TestOutcome[] {
  const server = (message: string) => JSON.stringify({ error: { code: 500, message, type: 'server_error' } });
  return [
    ...served(8),
    clientFault('request rules › a request without messages is refused', 'REQ-004', { model: 'm' }, 500, server("'messages' is required"), 'error.code must be a string; received 500 (number)'),
    clientFault('request rules › a message without role is refused', 'REQ-016', { model: 'm', messages: [{ content: 'hi' }] }, 500, server("[json.exception.out_of_range.403] key 'role' not found"), 'error.code must be a string; received 500 (number)'),
    clientFault('request rules › a user message without content is refused', 'REQ-019', { model: 'm', messages: [{ role: 'user' }] }, 500, server("Expected 'content' to be a string or an array"), 'error.code must be a string; received 500 (number)'),
    // Its other error answers have the same numeric code.
    recordedCase('auth › a wrong key is refused', [
      { id: 'ERR-001', status: 'pass', exchange: 0 },
      { id: 'ERR-003', status: 'fail', exchange: 0, message: 'error.code must be a string; received 401 (number)' },
    ], [exchange(401, hello, '{"error":{"code":401,"message":"Invalid API Key","type":"authentication_error"}}', { requestHeaders: { 'content-type': 'application/json', authorization: '***REDACTED***' } })]),
    recordedCase('errors › a bad parameter is refused', [
      { id: 'ERR-001', status: 'pass', exchange: 0 },
      { id: 'ERR-003', status: 'fail', exchange: 0, message: 'error.code must be a string; received 400 (number)' },
    ], [exchange(400, { ...hello, temperature: 'hot' }, '{"error":{"code":400,"message":"temperature must be a number","type":"invalid_request_error"}}')]),
  ];
}

/**
 * A gateway in front of llama-server: the upstream's error wrapped with a null `code` (ERR-003) and its provider
 * named, a 500 to every stream (whatever else the request asks for), and the upstream's 500s to client faults. Three
 * deviations: three cards.
 */
export function gatewayCases(): TestOutcome[] {
  const wrapped = (message: string) => JSON.stringify({ error: { message: `llama error: ${message}`, type: null, param: null, code: null }, provider: 'llama-cpp' });
  const streamFailed = JSON.stringify({ error: { message: 'llama error: stream failed', type: null, param: null, code: null }, provider: 'llama-cpp' });
  const err003 = 'error.code must be a string; received null';
  return [
    ...served(10),
    clientFault('request rules › a request without messages is refused', 'REQ-004', { model: 'm' }, 500, wrapped("'messages' is required"), err003),
    clientFault('request rules › a message without role is refused', 'REQ-016', { model: 'm', messages: [{ content: 'hi' }] }, 500, wrapped("key 'role' not found"), err003),
    clientFault('request rules › a user message without content is refused', 'REQ-019', { model: 'm', messages: [{ role: 'user' }] }, 500, wrapped("Expected 'content'"), err003),
    recordedCase('errors › a bad parameter is refused', [
      { id: 'ERR-001', status: 'pass', exchange: 0 },
      { id: 'ERR-003', status: 'fail', exchange: 0, message: err003 },
    ], [exchange(400, { ...hello, temperature: 'hot' }, JSON.stringify({ error: { message: 'temperature must be a number', type: 'invalid_request_error', param: null, code: null } }))]),
    // Every stream is answered 500: the streaming rules and the streamed tools fail on it, and nothing else.
    recordedCase('streaming › a streamed completion', [
      { id: 'CHAT-005', status: 'fail', exchange: 0, statusOnly: true, message: 'for a streamed completion request, expected status 200; received HTTP 500' },
      { id: 'ERR-003', status: 'fail', exchange: 0, message: err003 },
    ], [exchange(500, { ...hello, stream: true }, streamFailed)]),
    recordedCase('streaming › the stream ends with [DONE]', [{ id: 'STREAM-004', status: 'fail', exchange: 0, message: 'the stream was answered HTTP 500, not an event stream' }], [exchange(500, { ...hello, stream: true }, streamFailed)]),
    recordedCase('tools › a streamed tool call', [{ id: 'TOOL-001', status: 'fail', exchange: 0, statusOnly: true, message: 'a streamed request with tools must be accepted; received HTTP 500' }], [exchange(500, { ...hello, stream: true, tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }] }, streamFailed)]),
  ];
}

/** aimock-style: both token caps ignored on 200 answers (max_tokens alone, max_completion_tokens alone). One rule, two behaviours. */
export function ignoredCapsCases(): TestOutcome[] {
  const ok = exchange(200, hello, completion);
  return [
    recordedCase('limits › max_tokens caps the completion', [{ id: 'REQ-008', status: 'fail', exchange: 0, message: 'max_tokens 5: usage.completion_tokens is 66, above the cap in force 5' }], [ok]),
    recordedCase('limits › max_completion_tokens caps the completion', [{ id: 'REQ-010', status: 'fail', exchange: 0, message: 'max_completion_tokens 5: usage.completion_tokens is 66, above the cap in force 5' }], [ok]),
  ];
}

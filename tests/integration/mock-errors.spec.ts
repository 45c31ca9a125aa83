// Issue 3, points 10 and 11: every row of section 7, the mock's choices for the spec's error gaps, the 10 MB
// body limit (from Content-Length and while reading a chunked body), and bad input that must never crash.
import { expect, test } from '@playwright/test';
import http from 'node:http';
import net from 'node:net';
import { readFileSync } from 'node:fs';
import { assertValid } from '../../spec/validator.ts';
import { startMockServer } from '../../mock/server.ts';
import { MOCK_KEYS, MOCK_MODELS } from '../../mock/keys-and-models.ts';
import { DEFAULT_BODY_LIMIT_BYTES } from '../../mock/core/limits.ts';
import { useMock } from './support/use-mock.ts';

const server = useMock(test);

interface Case {
  name: string;
  status: number;
  code: string;
  message?: string | RegExp;
  headers?: Record<string, string>;
  method?: string;
  path?: string;
  key?: string | null;
  body?: unknown;
}

const u = [{ role: 'user', content: 'hi' }];
const loc = (user_location: unknown): Record<string, unknown> => ({ model: MOCK_MODELS.small, messages: u, web_search_options: { user_location } });

/** Section 7, row by row, then the gap choices documented in mock/README.md. */
const CASES: Case[] = [
  { name: 'model_not_allowed', status: 403, code: 'model_not_allowed', key: MOCK_KEYS.restricted, body: { model: MOCK_MODELS.large, messages: u } },
  { name: 'model_not_found (deactivated)', status: 403, code: 'model_not_found', body: { model: MOCK_MODELS.deactivated, messages: u } },
  { name: 'model_unavailable', status: 503, code: 'model_unavailable', headers: { 'retry-after': '1' }, body: { model: MOCK_MODELS.unavailable, messages: u } },
  { name: 'web_search_not_supported', status: 400, code: 'web_search_not_supported', message: 'hosted web search is unavailable for this request', body: { model: MOCK_MODELS.mini, messages: u, web_search_options: {} } },
  { name: 'invalid_web_search_options: search_context_size', status: 400, code: 'invalid_web_search_options', message: 'search_context_size must be one of: low, medium, high', body: { model: MOCK_MODELS.small, messages: u, web_search_options: { search_context_size: 'max' } } },
  { name: 'invalid_web_search_options: type', status: 400, code: 'invalid_web_search_options', message: 'user_location.type must be "approximate"', body: loc({ type: 'exact', country: 'FR' }) },
  { name: 'invalid_web_search_options: mixed', status: 400, code: 'invalid_web_search_options', message: 'user_location must not mix nested approximate and flat fields', body: loc({ type: 'approximate', approximate: { country: 'FR' }, city: 'Paris' }) },
  { name: 'invalid_web_search_options: unknown field', status: 400, code: 'invalid_web_search_options', message: 'user_location has unknown or malformed fields', body: loc({ type: 'approximate', planet: 'Mars' }) },
  { name: 'invalid_web_search_options: malformed country', status: 400, code: 'invalid_web_search_options', message: 'user_location has unknown or malformed fields', body: loc({ type: 'approximate', approximate: { country: 'FRA' } }) },
  { name: 'invalid_web_search_options: bad timezone', status: 400, code: 'invalid_web_search_options', message: 'user_location has unknown or malformed fields', body: loc({ type: 'approximate', timezone: '+02:00' }) },
  { name: 'invalid_web_search_options: city too long', status: 400, code: 'invalid_web_search_options', message: 'user_location has unknown or malformed fields', body: loc({ type: 'approximate', city: 'x'.repeat(101) }) },
  { name: 'web_search_output_budget_too_small', status: 400, code: 'web_search_output_budget_too_small', message: 'hosted web search on this model requires an output budget of at least 1024 tokens; 256 was requested', body: { model: MOCK_MODELS.searchBudget, messages: u, web_search_options: {}, max_completion_tokens: 256 } },
  // other rules of section 7
  { name: 'reasoning effort outside the entry set', status: 400, code: 'invalid_reasoning_effort', body: { model: MOCK_MODELS.tinyReasoner, messages: u, reasoning: { effort: 'minimal' } } },
  { name: 'tool call without declared tools', status: 400, code: 'tools_not_declared', body: { model: MOCK_MODELS.small, messages: [{ role: 'assistant', content: '', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }] }] } },
  { name: 'allow_fallbacks false, no ranked route', status: 503, code: 'no_route_available', headers: { 'x-should-retry': 'false' }, body: { model: MOCK_MODELS.routes, messages: u, provider: { order: ['route-down'], allow_fallbacks: false } } },
  // gaps: credentials, tiers, ids, paths, methods, bodies
  { name: 'missing credential', status: 401, code: 'missing_api_key', key: null, body: { model: MOCK_MODELS.small, messages: u } },
  { name: 'invalid credential', status: 401, code: 'invalid_api_key', key: 'sk-mock-invalid', body: { model: MOCK_MODELS.small, messages: u } },
  { name: 'tier below min_tier', status: 403, code: 'insufficient_tier', key: MOCK_KEYS.free, body: { model: MOCK_MODELS.large, messages: u } },
  { name: 'unknown model (chat)', status: 404, code: 'unknown_model', body: { model: 'no-such-model', messages: u } },
  { name: 'unknown model (GET one)', status: 404, code: 'unknown_model', method: 'GET', path: '/v1/models/no-such-model' },
  { name: 'deactivated model (GET one)', status: 403, code: 'model_not_found', method: 'GET', path: `/v1/models/${MOCK_MODELS.deactivated}` },
  { name: 'images to a non-image entry', status: 400, code: 'images_not_supported', body: { model: MOCK_MODELS.small, messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://example.com/a.png' } }] }] } },
  { name: 'malformed JSON', status: 400, code: 'invalid_json', body: '{"model": ' },
  { name: 'missing model', status: 400, code: 'invalid_request', message: /model/, body: { messages: u } },
  { name: 'missing messages', status: 400, code: 'invalid_request', message: /messages/, body: { model: MOCK_MODELS.small } },
  { name: 'wrong type of a nested field', status: 400, code: 'invalid_request', message: /messages\[0\]\.content/, body: { model: MOCK_MODELS.small, messages: [{ role: 'user', content: 42 }] } },
  { name: 'missing required nested field', status: 400, code: 'invalid_request', message: /messages\[0\]\.role/, body: { model: MOCK_MODELS.small, messages: [{ content: 'x' }] } },
  { name: 'wrong type of a cap', status: 400, code: 'invalid_request', message: /max_tokens/, body: { model: MOCK_MODELS.small, messages: u, max_tokens: 'ten' } },
  { name: 'null field', status: 400, code: 'invalid_request', message: /temperature.*null/, body: { model: MOCK_MODELS.small, messages: u, temperature: null } },
  { name: 'response-only field in a request message', status: 400, code: 'invalid_request', message: /annotations/, body: { model: MOCK_MODELS.small, messages: [{ role: 'assistant', content: 'x', annotations: [] }] } },
  { name: 'body not an object', status: 400, code: 'invalid_request', body: [1, 2] },
  { name: 'unknown path', status: 404, code: 'not_found', method: 'GET', path: '/v1/nope' },
  { name: 'wrong method', status: 405, code: 'method_not_allowed', headers: { allow: 'POST' }, method: 'GET', path: '/v1/chat/completions' },
  { name: 'request body over 10 MB', status: 413, code: 'request_too_large', body: { model: MOCK_MODELS.small, messages: u, pad: 'x'.repeat(DEFAULT_BODY_LIMIT_BYTES) } },
];

async function run(c: Case): Promise<{ status: number; headers: Headers; body: any }> {
  const method = c.method ?? 'POST';
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  const key = c.key === undefined ? MOCK_KEYS.full : c.key;
  if (key !== null) headers.authorization = `Bearer ${key}`;
  const init: RequestInit = { method, headers };
  if (method === 'POST') init.body = typeof c.body === 'string' ? c.body : JSON.stringify(c.body);
  const res = await fetch(`${server.url}${c.path ?? '/v1/chat/completions'}`, init);
  const body = await res.json();
  assertValid('error', body);
  return { status: res.status, headers: res.headers, body };
}

test.describe('point 10: errors', () => {
  for (const c of CASES) {
    test(`${c.name}: ${c.status} ${c.code}`, async () => {
      const r = await run(c);
      expect(r.status).toBe(c.status);
      expect(r.body.error.code).toBe(c.code);
      expect(typeof r.body.error.type).toBe('string');
      expect(r.body.error.message.length).toBeGreaterThan(0);
      if (typeof c.message === 'string') expect(r.body.error.message).toBe(c.message);
      else if (c.message) expect(r.body.error.message).toMatch(c.message);
      for (const [h, v] of Object.entries(c.headers ?? {})) expect(r.headers.get(h), h).toBe(v);
      expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    });
  }

  test('a refused search leaves no partial answer: the refusal is a JSON error even when streaming', async () => {
    const r = await run({ name: '', status: 400, code: '', body: { model: MOCK_MODELS.searchBudget, messages: u, web_search_options: {}, max_tokens: 10, stream: true } });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('web_search_output_budget_too_small');
  });

  test('mock/README.md has a curl for every code above', () => {
    const readme = readFileSync(new URL('../../mock/README.md', import.meta.url), 'utf8');
    const curls = readme.split('\n').filter((l) => l.includes('curl')).join('\n');
    for (const code of new Set(CASES.map((c) => c.code))) {
      expect(readme, code).toContain(code);
    }
    expect(curls.length).toBeGreaterThan(0);
    for (const row of ['model_not_allowed', 'model_not_found', 'model_unavailable', 'web_search_not_supported', 'invalid_web_search_options', 'web_search_output_budget_too_small']) {
      expect(readme).toMatch(new RegExp(`${row}[\\s\\S]{0,400}curl`));
    }
  });
});

/** A raw request over node:http; resolves with the response as soon as it arrives. */
function rawPost(headers: Record<string, string | number>, write: (req: http.ClientRequest) => void): Promise<{ status: number; body: string; ms: number }> {
  const t0 = Date.now();
  return new Promise((resolve, reject) => {
    const req = http.request(`${server.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${MOCK_KEYS.full}`, 'content-type': 'application/json', ...headers } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (body += d));
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, body, ms: Date.now() - t0 });
        req.destroy();
      });
    });
    req.on('error', (err) => {
      if ((err as NodeJS.ErrnoException).code !== 'ECONNRESET' && (err as NodeJS.ErrnoException).code !== 'EPIPE') reject(err);
    });
    write(req);
  });
}

test.describe('point 11: the 10 MB body limit (10,000,000 bytes)', () => {
  test('rejected from Content-Length at once, before the body is sent', async () => {
    const r = await rawPost({ 'content-length': DEFAULT_BODY_LIMIT_BYTES + 1 }, (req) => req.write('{"model":"mini-chat",'));
    expect(r.status).toBe(413);
    const body = JSON.parse(r.body);
    assertValid('error', body);
    expect(body.error.code).toBe('request_too_large');
  });

  test('rejected while reading a chunked body without Content-Length', async () => {
    let sent = 0;
    const chunk = Buffer.alloc(256 * 1024, 'x');
    const r = await rawPost({ 'transfer-encoding': 'chunked' }, (req) => {
      req.write('{"model":"mini-chat","messages":[],"pad":"');
      const pump = (): void => {
        while (sent < 3 * DEFAULT_BODY_LIMIT_BYTES) {
          sent += chunk.length;
          if (!req.write(chunk)) {
            req.once('drain', pump);
            return;
          }
        }
        req.end('"}');
      };
      pump();
    });
    expect(r.status).toBe(413);
    expect(JSON.parse(r.body).error.code).toBe('request_too_large');
    // The mock stopped reading shortly after the limit: the client never had to send all 30 MB.
    expect(sent).toBeLessThan(3 * DEFAULT_BODY_LIMIT_BYTES);
  });

  test('a body of exactly the limit is accepted; one byte more is refused', async () => {
    const head = JSON.stringify({ model: MOCK_MODELS.mini, messages: u, max_tokens: 2, pad: '' });
    const pad = 'x'.repeat(DEFAULT_BODY_LIMIT_BYTES - Buffer.byteLength(head));
    const exact = head.replace('"pad":""', `"pad":"${pad}"`);
    expect(Buffer.byteLength(exact)).toBe(DEFAULT_BODY_LIMIT_BYTES);
    const ok = await fetch(`${server.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${MOCK_KEYS.full}` }, body: exact });
    expect(ok.status).toBe(200);
    assertValid('chat-response', await ok.json());
    const over = await fetch(`${server.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${MOCK_KEYS.full}` }, body: `${exact} ` });
    expect(over.status).toBe(413);
    assertValid('error', await over.json());
  });

  test('the limit is an option', async () => {
    const small = await startMockServer({ port: 0, bodyLimitBytes: 100 });
    try {
      const r = await fetch(`${small.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${MOCK_KEYS.full}` }, body: JSON.stringify({ model: MOCK_MODELS.mini, messages: [{ role: 'user', content: 'x'.repeat(200) }] }) });
      expect(r.status).toBe(413);
    } finally {
      await small.close();
    }
  });
});

test.describe('bad input never crashes or hangs', () => {
  test('invalid UTF-8, empty body, odd auth schemes, bad percent-encoding, HEAD', async () => {
    const post = (body: BodyInit, headers: Record<string, string> = { authorization: `Bearer ${MOCK_KEYS.full}` }) =>
      fetch(`${server.url}/v1/chat/completions`, { method: 'POST', headers, body });
    const bad = await post(new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]));
    expect([bad.status, (await bad.json()).error.code]).toEqual([400, 'invalid_json']);
    const empty = await post('');
    expect([empty.status, (await empty.json()).error.code]).toEqual([400, 'invalid_json']);
    const basic = await post('{}', { authorization: 'Basic dXNlcjpwYXNz' });
    expect([basic.status, (await basic.json()).error.code]).toEqual([401, 'invalid_api_key']);
    const pct = await fetch(`${server.url}/v1/models/%E0%A4%A`);
    expect(pct.status).toBe(400);
    assertValid('error', await pct.json());
    const head = await fetch(`${server.url}/v1/models`, { method: 'HEAD' });
    expect(head.status).toBe(405);
  });

  test('garbage on the socket gets a 400 and the server keeps serving', async () => {
    const reply = await new Promise<string>((resolve) => {
      const s = net.connect(server.port, '127.0.0.1', () => s.write('NOT HTTP AT ALL\r\n\r\n'));
      let data = '';
      s.on('data', (d) => (data += d));
      s.on('close', () => resolve(data));
      s.on('error', () => resolve(data));
    });
    expect(reply).toMatch(/^HTTP\/1\.1 400/);
    expect((await fetch(`${server.url}/v1/models`)).status).toBe(200);
  });

  test('a client that sends half a body and disconnects does not disturb the server', async () => {
    await new Promise<void>((resolve) => {
      const req = http.request(`${server.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${MOCK_KEYS.full}`, 'content-length': '1000' } });
      req.on('error', () => resolve());
      req.write('{"model":');
      setTimeout(() => {
        req.destroy();
        resolve();
      }, 50);
    });
    expect((await fetch(`${server.url}/v1/models`)).status).toBe(200);
  });
});

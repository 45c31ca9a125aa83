// Keys the kit was never told about (issue 31): query parameters, credential headers, cookies, credential fields
// of a JSON body and well-known key formats are masked by spec/redact.ts, and so never reach the mock's journal,
// a proxy recording or a written report; the replay curls keep naming `$CONFORMANCE_API_KEY`.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { redact, REDACTION_MASK } from '../../spec/redact.ts';
import { createMockService } from '../../mock/service.ts';
import { Traffic } from '../../proxy/traffic.ts';
import type { CapturedExchange } from '../../proxy/forward.ts';
import { MOCK_KEYS, MOCK_MODELS } from '../../mock/keys-and-models.ts';
import { send } from '../support/harness-calls.ts';

/** One value per kind of key, each distinct, none shaped like a known key format (but the `sk-` one). */
const QUERY = { key: 'q-key-value-1111', api_key: 'q-apikey-2222', 'api-key': 'q-api-dash-3333', access_token: 'q-access-4444' };
const HEADERS = { 'x-goog-api-key': 'h-goog-5555', 'api-key': 'h-azure-6666', 'x-api-key': 'h-x-7777', cookie: 'session=h-cookie-8888; theme=dark' };
const BODY = { api_key: 'b-apikey-9999', apiKey: 'b-camel-aaaa', access_token: 'b-access-bbbb', secret: 'b-secret-cccc', password: 'b-password-dddd' };
const SHAPED = 'sk-proj-Zx8Qw2Lm4Np6Rt0Vy3Bc5Df7';
const ALL = [...Object.values(QUERY), ...Object.values(HEADERS).map((v) => v.replace(/^session=|;.*$/g, '')), ...Object.values(BODY), SHAPED];

const query = Object.entries(QUERY).map(([k, v]) => `${k}=${v}`).join('&');
const body = { model: MOCK_MODELS.small, messages: [{ role: 'user', content: `use ${SHAPED} please` }], ...BODY };

function expectNoKey(text: string, where: string): void {
  for (const v of ALL) expect(text, `${where} holds ${v}`).not.toContain(v);
}

test('redact masks each kind of key by its place or shape, and keeps placeholders', () => {
  expect(redact(`https://h/v1/models?${query}&x=1`, [])).toBe(`https://h/v1/models?key=${REDACTION_MASK}&api_key=${REDACTION_MASK}&api-key=${REDACTION_MASK}&access_token=${REDACTION_MASK}&x=1`);
  expect(redact(`-H 'x-goog-api-key: h-goog-5555' -H 'Cookie: a=b; c=d' -H "Authorization: Bearer $CONFORMANCE_API_KEY"`, [])).toBe(
    `-H 'x-goog-api-key: ${REDACTION_MASK}' -H 'Cookie: ${REDACTION_MASK}' -H "Authorization: Bearer $CONFORMANCE_API_KEY"`,
  );
  const masked = JSON.parse(redact(JSON.stringify(body), [])) as Record<string, unknown>;
  for (const k of Object.keys(BODY)) expect(masked[k]).toBe(REDACTION_MASK);
  expect(masked.model).toBe(MOCK_MODELS.small);
  expect(redact(`{"arguments":"{\\"password\\":\\"pw-1234\\",\\"city\\":\\"Paris\\"}"}`, [])).toBe(`{"arguments":"{\\"password\\":\\"${REDACTION_MASK}\\",\\"city\\":\\"Paris\\"}"}`);
  expect(redact(`error: key ${SHAPED} refused; also AIzaSyA1234567890abcdefghijklmnopqrstuv`, [])).toBe(`error: key ${REDACTION_MASK} refused; also ${REDACTION_MASK}`);
  // What names a key without being one stays, and so does what only looks like a credential's name.
  for (const kept of ['?key=$MY_KEY', '{"api_key":"<API_KEY>"}', 'x-api-key: ${KEY}', '{"max_tokens":5,"logprobs":{"token":"hi"},"apiKeyEnv":"MY_KEY"}']) {
    expect(redact(kept, [])).toBe(kept);
  }
});

test('the journal masks keys in the query, the headers and the body', async () => {
  const service = createMockService();
  await send(service, 'POST', '/v1/chat/completions', { query, headers: { authorization: `Bearer ${MOCK_KEYS.full}`, ...HEADERS }, body });
  const [entry] = service.harness.journal.entries();
  expect(entry!.status).toBeGreaterThan(0);
  expectNoKey(JSON.stringify(service.harness.journal.entries()), 'the journal');
  expect(entry!.query).toContain(`key=${REDACTION_MASK}`);
  expect(JSON.parse(entry!.body!).model).toBe(MOCK_MODELS.small);
});

test('a proxy recording, its violation lines and its written report mask every kind of key', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'chatconform-redact-shapes-'));
  try {
    const traffic = new Traffic('http://127.0.0.1:9', 10_000_000, path.join(dir, 'rec'));
    const requestBody = Buffer.from(JSON.stringify(body));
    // The upstream echoes every key it was sent, in plain words and as a JSON field.
    const echo = Buffer.from(JSON.stringify({ error: { type: 'authentication_error', code: 'invalid_api_key', message: `refused: ${ALL.join(' ')}`, param: null }, api_key: BODY.api_key }));
    const x: CapturedExchange = {
      seq: 1,
      method: 'POST',
      path: `/v1/chat/completions?${query}`,
      requestHeaders: { 'content-type': 'application/json', authorization: `Bearer ${MOCK_KEYS.full}`, ...HEADERS },
      requestBody,
      requestBytes: requestBody.length,
      status: 401,
      responseHeaders: { 'content-type': 'application/json', 'set-cookie': 'session=h-cookie-8888' },
      responseBody: echo,
      responseBytes: echo.length,
      complete: true,
      startedAt: 0,
      durationMs: 1,
    };
    const lines = traffic.take(x).map((v) => v.line);
    expect(lines.length).toBeGreaterThan(0);
    expectNoKey(lines.join('\n'), 'a violation line');
    expect(lines.join('\n')).toContain('Authorization: Bearer $CONFORMANCE_API_KEY');
    const recorded = readdirSync(path.join(dir, 'rec'));
    expect(recorded).toHaveLength(1);
    expectNoKey(readFileSync(path.join(dir, 'rec', recorded[0]!), 'utf8'), 'the recording');
    const { files } = traffic.writeReport(path.join(dir, 'reports'));
    expect(files.length).toBeGreaterThanOrEqual(4);
    for (const f of files) expectNoKey(readFileSync(f, 'utf8'), f);
    expect(readFileSync(path.join(dir, 'reports', 'conformance.json'), 'utf8')).toContain('Authorization: Bearer $CONFORMANCE_API_KEY');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

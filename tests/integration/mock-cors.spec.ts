// Issue 32, item 5: `chatconform mock --cors [ORIGIN]` for client authors building browser apps: a preflight gets
// 204 with what the browser needs, every answer the allow-origin header; the control API never; off by default.
import { expect, test } from '@playwright/test';
import { MOCK_KEYS } from '../../mock/keys-and-models.ts';
import { CliProcesses } from './support/cli-process.ts';

const cli = new CliProcesses();
test.afterAll(() => cli.stopAll());

const APP = 'http://localhost:5173';
const preflight = (url: string, path: string, origin = APP): Promise<Response> =>
  fetch(`${url}${path}`, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' } });
const chat = (url: string, stream: boolean, origin = APP): Promise<Response> =>
  fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { origin, authorization: `Bearer ${MOCK_KEYS.full}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'mini-chat', messages: [{ role: 'user', content: 'hi' }], stream }),
  });

test('--cors ORIGIN: preflights answered 204, every answer allows that origin, the control API never', async () => {
  const mock = await cli.start(['mock', '--port', '0', '--cors', APP]);
  const pre = await preflight(mock.url, '/v1/chat/completions');
  expect(pre.status).toBe(204);
  expect(pre.headers.get('access-control-allow-origin')).toBe(APP);
  expect(pre.headers.get('access-control-allow-methods')).toContain('POST');
  expect(pre.headers.get('access-control-allow-headers')).toBe('authorization, content-type');
  expect(pre.headers.get('content-length')).toBeNull();
  for (const stream of [false, true]) {
    const res = await chat(mock.url, stream);
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe(APP);
    expect(res.headers.get('vary')).toMatch(/origin/i);
    await res.text();
  }
  const list = await fetch(`${mock.url}/v1/models`, { headers: { origin: APP } });
  expect(list.headers.get('access-control-allow-origin')).toBe(APP);
  // Another origin is not allowed; the control API stays closed to pages.
  expect((await chat(mock.url, false, 'http://evil.example')).headers.get('access-control-allow-origin')).toBeNull();
  const control = await preflight(mock.url, '/_chatconform/faults');
  expect(control.status).not.toBe(204);
  expect(control.headers.get('access-control-allow-origin')).toBeNull();
  mock.stop();
});

test('--cors alone allows any origin; without --cors a preflight is a 405 and nothing is allowed; a bad origin is exit 2', async () => {
  const any = await cli.start(['mock', '--port', '0', '--cors']);
  const pre = await preflight(any.url, '/v1/models', 'http://127.0.0.1:3000');
  expect(pre.status).toBe(204);
  expect(pre.headers.get('access-control-allow-origin')).toBe('*');
  any.stop();
  const plain = await cli.start(['mock', '--port', '0']);
  const refused = await preflight(plain.url, '/v1/chat/completions');
  expect(refused.status).toBe(405);
  expect(refused.headers.get('access-control-allow-origin')).toBeNull();
  expect((await chat(plain.url, false)).headers.get('access-control-allow-origin')).toBeNull();
  plain.stop();
  const bad = await cli.run(['mock', '--port', '0', '--cors', 'localhost:5173/app']);
  expect(bad.code).toBe(2);
  expect(bad.stderr.trim()).toMatch(/^error: option '--cors \[origin\]' argument 'localhost:5173\/app' is invalid\. expected an origin/);
});

test('--cors-control opens the control API to that origin only when asked; without --cors it is a usage error', async () => {
  const mock = await cli.start(['mock', '--port', '0', '--cors', APP, '--cors-control']);
  const pre = await preflight(mock.url, '/_chatconform/faults');
  expect(pre.status).toBe(204);
  expect(pre.headers.get('access-control-allow-origin')).toBe(APP);
  const set = await fetch(`${mock.url}/_chatconform/faults`, {
    method: 'POST',
    headers: { origin: APP, 'sec-fetch-site': 'cross-site', 'content-type': 'application/json' },
    body: JSON.stringify({ fault: 'status=503' }),
  });
  expect(set.status, await set.text()).toBeLessThan(300);
  expect(set.headers.get('access-control-allow-origin')).toBe(APP);
  // Another origin is still refused by the control API.
  const other = await fetch(`${mock.url}/_chatconform/faults`, { method: 'POST', headers: { origin: 'http://evil.example', 'content-type': 'application/json' }, body: JSON.stringify({ fault: 'status=503' }) });
  expect(other.status).toBe(403);
  mock.stop();
  const bad = await cli.run(['mock', '--port', '0', '--cors-control']);
  expect(bad.code).toBe(2);
  expect(bad.stderr.trim()).toBe('error: --cors-control opens the control API to the --cors origin: give --cors too');
});

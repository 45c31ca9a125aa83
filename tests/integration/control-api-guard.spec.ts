// Issue 31, item 4: the control API takes no key, so nothing but the mock's own callers may reach it. Over real
// HTTP (node:http, raw request targets and headers, which fetch would normalise or forbid): a dot-segment path does
// not reach it; a cross-site text/plain POST, a foreign Origin, a DNS-rebinding Host and Sec-Fetch-Site cross-site
// are 403 with the section-7 envelope; a POST body without a JSON content type is 415; the mock's own clients
// (loopback Host, no Origin or its own, JSON) work as before. The --host help and warning say so.
import http from 'node:http';
import { expect, test } from '@playwright/test';
import { startMockServer, type RunningMockServer } from '../../mock/server.ts';
import { CliProcesses } from './support/cli-process.ts';

let mock: RunningMockServer;
const cli = new CliProcesses();

test.beforeAll(async () => {
  mock = await startMockServer({ port: 0, host: '127.0.0.1', controlHosts: ['mock'] });
});
test.afterAll(async () => {
  cli.stopAll();
  await mock.close();
});

interface Raw {
  status: number;
  json: any;
}

/** One request with the target and headers exactly as given (Host too). */
function raw(method: string, target: string, headers: Record<string, string>, body?: string): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: mock.port, method, path: target, headers: { ...(body !== undefined ? { 'content-length': String(Buffer.byteLength(body)) } : {}), ...headers } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => {
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = text;
        }
        resolve({ status: res.statusCode ?? 0, json });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

const own = (): string => `127.0.0.1:${mock.port}`;
const fault = JSON.stringify({ fault: '429' });
const json = { 'content-type': 'application/json' };

async function faultCount(): Promise<number> {
  const r = await raw('GET', '/_chatconform/faults', { host: own() });
  expect(r.status).toBe(200);
  return r.json.faults.length;
}

function refused(r: Raw, status: number, code: string): void {
  expect(r.status, JSON.stringify(r.json)).toBe(status);
  expect(r.json).toEqual({ error: { type: expect.any(String), code, message: expect.any(String) } });
}

test.beforeEach(async () => {
  await raw('DELETE', '/_chatconform/faults', { host: own() });
});

test('a dot-segment path does not reach the control API', async () => {
  for (const target of ['/v1/../_chatconform/faults', '/v1/%2e%2e/_chatconform/faults', '/api/./../_chatconform/faults', `http://${own()}/v1/../_chatconform/faults`]) {
    const r = await raw('POST', target, { host: own(), ...json }, fault);
    expect(r.status, target).toBe(404);
    expect(r.json.error.code, target).toBe('not_found');
    expect(await faultCount(), target).toBe(0);
  }
});

test('cross-site requests are refused with 403, and change nothing', async () => {
  // The cross-site form of issue 31: a web page's text/plain POST, which no CORS preflight stops.
  refused(await raw('POST', '/_chatconform/faults', { host: own(), origin: 'https://evil.example', 'content-type': 'text/plain' }, fault), 403, 'forbidden_origin');
  refused(await raw('POST', '/_chatconform/faults', { host: own(), origin: 'null', ...json }, fault), 403, 'forbidden_origin');
  refused(await raw('POST', '/_chatconform/faults', { host: own(), origin: `http://localhost:${mock.port}`, ...json }, fault), 403, 'forbidden_origin');
  refused(await raw('DELETE', '/_chatconform/journal', { host: own(), 'sec-fetch-site': 'cross-site' }), 403, 'forbidden_origin');
  // DNS rebinding: the page's own name, resolved to the loopback address.
  refused(await raw('POST', '/_chatconform/faults', { host: `evil.example:${mock.port}`, origin: `http://evil.example:${mock.port}`, ...json }, fault), 403, 'forbidden_host');
  refused(await raw('GET', '/_chatconform/journal', { host: `evil.example:${mock.port}` }), 403, 'forbidden_host');
  expect(await faultCount()).toBe(0);
});

test('a POST or PUT body without a JSON content type is 415', async () => {
  refused(await raw('POST', '/_chatconform/faults', { host: own(), 'content-type': 'text/plain' }, fault), 415, 'unsupported_media_type');
  refused(await raw('POST', '/_chatconform/faults', { host: own(), 'content-type': 'application/x-www-form-urlencoded' }, fault), 415, 'unsupported_media_type');
  refused(await raw('POST', '/_chatconform/faults', { host: own() }, fault), 415, 'unsupported_media_type');
  refused(await raw('PUT', '/_chatconform/script', { host: own(), 'content-type': 'multipart/form-data; boundary=x' }, JSON.stringify({ rules: [] })), 415, 'unsupported_media_type');
  expect(await faultCount()).toBe(0);
});

test("the mock's own callers work as before", async () => {
  for (const headers of [
    { host: own(), ...json },
    { host: own(), origin: `http://${own()}`, 'sec-fetch-site': 'same-origin', ...json },
    { host: `localhost:${mock.port}`, 'content-type': 'application/json; charset=utf-8' },
    { host: `[::1]:${mock.port}`, 'content-type': 'application/merge-patch+json' },
    { host: `mock:${mock.port}`, ...json },
  ]) {
    const r = await raw('POST', '/_chatconform/faults', headers, fault);
    expect(r.status, JSON.stringify(headers)).toBe(201);
  }
  expect(await faultCount()).toBe(5);
  await raw('DELETE', '/_chatconform/faults', { host: own() });
  // The contract's own endpoints are not the control API: no Host rule there.
  expect((await raw('GET', '/v1/models', { host: `evil.example:${mock.port}` })).status).toBe(200);
});

test('the --host help and warning name the control API', async () => {
  test.setTimeout(60_000);
  const help = await cli.run(['mock', '--help']);
  expect(help.stdout).toMatch(/--host[\s\S]*control API[\s\S]*--control-host/);
  const wide = await cli.run(['mock', '--port', '0', '--host', '0.0.0.0']);
  expect(wide.stderr).toMatch(/^warning: the mock listens on 0\.0\.0\.0, .*control API \(\/_chatconform.*takes no key/m);
});

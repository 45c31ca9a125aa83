// Issue 52, points 4 and 6, in process over real HTTP (node:http: the request target and Host exactly as given, which
// fetch would normalise): `chatconform ui`'s server answers only its own page. Every route needs the per-launch token;
// a foreign Host (DNS rebinding), a foreign Origin, Sec-Fetch-Site cross-site and a body that is not JSON are refused;
// every answer carries a Content-Security-Policy without inline script, and the page has none; the page loads only
// its own files, under 150 KB gzipped; a run request the page got wrong is refused without echoing its values.
import http from 'node:http';
import { gzipSync } from 'node:zlib';
import { expect, test } from '@playwright/test';
import { bundleFiles } from '../../ui/static-files.ts';
import { startUiServer, type UiServer } from '../../ui/server.ts';

let ui: UiServer;
const said: string[] = [];

test.beforeAll(async ({}, testInfo) => {
  ui = await startUiServer({ port: 0, reportDir: testInfo.outputPath('reports'), say: (l) => said.push(l), env: { PATH: process.env.PATH ?? '', SET_BUT_EMPTY: '' } });
});
test.afterAll(async () => {
  await ui?.close();
});

interface Raw {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

/** One request with the target and headers as given; an event stream is read until its first frame. */
function raw(method: string, target: string, headers: Record<string, string> = {}, body?: string): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: ui.port, method, path: target, headers: { host: own(), ...(body !== undefined ? { 'content-length': String(Buffer.byteLength(body)) } : {}), ...headers } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => {
        text += d;
        if (String(res.headers['content-type']).startsWith('text/event-stream') && text.includes('\n\n')) {
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text });
          req.destroy();
        }
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const own = (): string => `127.0.0.1:${ui.port}`;
const at = (p: string): string => `/${ui.token}${p}`;
const ROUTES = ['/', '/app.css', '/app/main.js', '/api/state', '/api/catalog', '/api/history', '/api/runs', '/api/events'];

function expectCsp(r: Raw): void {
  const csp = String(r.headers['content-security-policy']);
  expect(csp).toContain("script-src 'self'");
  expect(csp).toContain("default-src 'none'");
  expect(csp).not.toContain('unsafe-inline');
  expect(csp).not.toContain('unsafe-eval');
  expect(r.headers['x-content-type-options']).toBe('nosniff');
  expect(r.headers['referrer-policy']).toBe('no-referrer');
}

test('every route needs the token, and every answer carries the CSP', async () => {
  const wrong = 'x'.repeat(ui.token.length);
  for (const route of ROUTES) {
    const ok = await raw('GET', at(route));
    expect(ok.status, route).toBe(200);
    expectCsp(ok);
    for (const target of [route, `/${wrong}${route}`, `/${ui.token.slice(0, -1)}${route}`]) {
      const refused = await raw('GET', target);
      expect(refused.status, target).toBe(403);
      expect(refused.text).toContain('token');
      expectCsp(refused);
    }
  }
  // The token's folder without its slash is sent to it (the app's relative URLs need the slash).
  const bare = await raw('GET', `/${ui.token}`);
  expect(bare.status).toBe(308);
  expect(bare.headers.location).toBe(`/${ui.token}/`);
  // The token is in the URL the server gives, once.
  expect(ui.url).toBe(`http://127.0.0.1:${ui.port}/${ui.token}/`);
});

test('a foreign Host (DNS rebinding), a foreign Origin, Sec-Fetch-Site cross-site and a non-JSON body are refused', async () => {
  for (const host of ['evil.example', `evil.example:${ui.port}`, `127.0.0.1:${ui.port + 1}`, `rebind.127.0.0.1.nip.io:${ui.port}`, `user@127.0.0.1:${ui.port}`]) {
    const r = await raw('GET', at('/api/state'), { host });
    expect(r.status, host).toBe(403);
    expectCsp(r);
  }
  for (const host of [`localhost:${ui.port}`, `[::1]:${ui.port}`, own()]) expect((await raw('GET', at('/api/state'), { host })).status, host).toBe(200);
  for (const origin of ['http://evil.example', `http://localhost:${ui.port + 1}`, 'null', `https://127.0.0.1:${ui.port}`]) {
    expect((await raw('GET', at('/api/state'), { origin })).status, origin).toBe(403);
  }
  expect((await raw('GET', at('/api/state'), { origin: `http://${own()}` })).status).toBe(200);
  for (const site of ['cross-site', 'same-site']) expect((await raw('GET', at('/api/state'), { 'sec-fetch-site': site })).status, site).toBe(403);
  expect((await raw('GET', at('/api/state'), { 'sec-fetch-site': 'same-origin' })).status).toBe(200);
  // What a form or a text/plain fetch of another page could send without a preflight starts nothing.
  for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
    const r = await raw('POST', at('/api/runs'), { 'content-type': type }, '{}');
    expect(r.status, type).toBe(415);
  }
  // A cross-site POST with the right type but a foreign Origin: refused before its body is read.
  expect((await raw('POST', at('/api/runs'), { 'content-type': 'application/json', origin: 'http://evil.example' }, '{}')).status).toBe(403);
  expect(JSON.parse((await raw('GET', at('/api/runs'))).text)).toEqual([]);
});

test('the page has no inline script and loads only its own files, under 150 KB gzipped', async ({}, testInfo) => {
  const page = (await raw('GET', at('/'))).text;
  const scripts = [...page.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)];
  expect(scripts.length).toBe(1);
  for (const [, attrs, body] of scripts) {
    expect(attrs).toMatch(/\bsrc="app\/main\.js"/);
    expect(body!.trim()).toBe('');
  }
  // No event handler attribute, no javascript: URL, nothing from another origin.
  expect(page).not.toMatch(/\son[a-z]+\s*=/i);
  expect(page).not.toMatch(/javascript:/i);
  expect(page).not.toMatch(/(?:src|href)="(?:https?:)?\/\//i);
  const files = await bundleFiles();
  for (const f of files.filter((x) => x.name.endsWith('.js'))) {
    for (const m of f.body.matchAll(/^(?:import|export)\b[^\n;]*?\bfrom\s*['"]([^'"]+)['"]/gm)) expect(m[1], `${f.name} imports ${m[1]}`).toMatch(/^\.\/[a-z-]+\.js$/);
    // Each module the page asks for is served as listed.
    expect((await raw('GET', at(f.name))).status, f.name).toBe(200);
  }
  const gzipped = files.reduce((n, f) => n + gzipSync(f.body).length, 0);
  testInfo.annotations.push({ type: 'bundle', description: `${files.length} files, ${gzipped} bytes gzipped, ${files.reduce((n, f) => n + Buffer.byteLength(f.body), 0)} bytes raw` });
  expect(gzipped).toBeLessThan(150 * 1024);
});

test('a path out of the app, a history key out of the report folder, an unknown route: refused', async () => {
  for (const target of [at('/../api/state'), at('/app/../../etc/passwd'), at('/app/%2e%2e/x.js'), at('/app/main.ts'), at('/static/index.html')]) {
    const r = await raw('GET', target);
    expect([400, 404], target).toContain(r.status);
  }
  for (const key of ['../', '../../etc', '/etc', 'ui/../../x', '']) {
    const r = await raw('GET', at(`/api/report?key=${encodeURIComponent(key)}`));
    expect(r.status, key).toBe(404);
  }
  expect((await raw('DELETE', at('/api/runs'), { 'content-type': 'application/json' })).status).toBe(404);
});

test('a run request the page got wrong is refused in one line, never echoing a key, and starts nothing', async () => {
  const post = async (body: unknown) => {
    const r = await raw('POST', at('/api/runs'), { 'content-type': 'application/json' }, JSON.stringify(body));
    return { status: r.status, error: (JSON.parse(r.text) as { error: string }).error };
  };
  const key = 'sk-ui-refused-0123456789';
  expect(await post({ target: { key: { from: 'env', name: 'NOT_SET_ANYWHERE' } } })).toEqual({ status: 400, error: 'key variable: NOT_SET_ANYWHERE is not set in the environment chatconform ui was started from' });
  expect((await post({ target: { key: { from: 'env', name: 'SET_BUT_EMPTY' } } })).status).toBe(400);
  expect((await post({ target: { key: { from: 'env', name: 'A B' } } })).status).toBe(400);
  expect((await post({ target: { key: { from: 'typed', value: '' } } })).status).toBe(400);
  const control = await post({ target: { key: { from: 'typed', value: `${key}\nX` } } });
  expect(control.status).toBe(400);
  expect(control.error).not.toContain(key);
  const url = await post({ target: { baseUrl: `ftp://${key}@example.com` } });
  expect(url.status).toBe(400);
  expect(url.error).not.toContain(key);
  expect((await post({ selection: { requirements: ['NOT-AN-ID'] } })).status).toBe(400);
  expect((await post({ selection: { sections: ['6; rm -rf /'] } })).status).toBe(400);
  expect((await post({ target: { headers: `X-Tenant: ${key}\nno colon` } })).error).not.toContain(key);
  expect((await post({ rerunFailedOf: '../../etc' })).status).toBe(400);
  for (const body of [null, [], 'run', { target: 'x' }, { target: { headers: ['X-A: 1'] } }, { target: { key: 'typed' } }, { selection: { trials: 'many' } }]) {
    expect((await post(body)).status, JSON.stringify(body)).toBe(400);
  }
  expect(JSON.parse((await raw('GET', at('/api/runs'))).text)).toEqual([]);
  expect(said).toEqual([]);
});

// Issue 32, item 3: `chatconform run -H 'Name: value'` adds the header to every request of the run; a value under
// a credential-looking name is masked in every output (the terminal, the four reports). Issue 51, item 2: so is the
// value of every header the user supplies, whatever its name (`Authentication`, a bare key under `X-Route`), unless
// declared public (--public-header).
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { startMockServer } from '../../mock/server.ts';
import { listen } from '../support/listen.ts';
import { chatconformCommand, runProcess } from './support/cli-process.ts';
import { forwarder } from './support/hostile-targets.ts';

const GATEWAY_KEY = 'gw-secret-7f3a9c2e51d04b88';
/** Keys under names no list of credential names holds. */
const AUTHENTICATION_KEY = 'authn-5c1e9a77d2b64f03';
const ROUTE_KEY = 'route-0b8d3f6a4e2c9157';

test('-H reaches every request (a test\'s own headers aside), and no header\'s value is in any output unless declared public', async () => {
  test.setTimeout(300_000);
  const mock = await startMockServer({ port: 0 });
  const forward = forwarder(new URL(mock.url), new http.Agent({ keepAlive: true }));
  const seen: { tenant?: string; key?: string }[] = [];
  // A gateway in front of the mock: it notes the headers of every request and passes it on.
  const gateway = await listen(
    http.createServer((req, res) => {
      seen.push({ tenant: req.headers['x-tenant'] as string | undefined, key: req.headers['x-gateway-key'] as string | undefined });
      // One route fails, so the report carries a failure's evidence: the request's headers as the kit sent them.
      if (req.method === 'GET' && /^\/v1\/models\/[^/?]+$/.test(req.url ?? '')) {
        res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'down', type: 'server_error', code: 'internal_error' } }));
        return;
      }
      forward(req, res);
    }),
  );
  const dir = mkdtempSync(path.join(os.tmpdir(), 'chatconform-headers-'));
  try {
    const r = await runProcess(
      ...chatconformCommand(['run', '--base-url', gateway.url, '--profile', 'mock', '--section', '4.1', '--report-dir', dir, '-H', 'X-Tenant: acme, eu', '--header', `X-Gateway-Key: ${GATEWAY_KEY}`, '-H', `Authentication: ${AUTHENTICATION_KEY}`, '-H', `X-Route: ${ROUTE_KEY}`, '--public-header', 'X-Tenant']),
      { boundMs: 240_000 },
    );
    expect(r.code, r.output.slice(-3000)).toBe(1);
    expect(seen.length).toBeGreaterThan(3);
    expect(seen.filter((s) => s.tenant !== 'acme, eu' || s.key !== GATEWAY_KEY)).toEqual([]);
    for (const key of [GATEWAY_KEY, AUTHENTICATION_KEY, ROUTE_KEY]) {
      expect(r.output).not.toContain(key);
      for (const file of readdirSync(dir)) expect(readFileSync(path.join(dir, file), 'utf8'), file).not.toContain(key);
    }
    // The tenant header is declared public: the evidence shows it as sent.
    expect(readFileSync(path.join(dir, 'conformance.json'), 'utf8')).toContain('acme, eu');
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await gateway.close();
    await mock.close();
  }
});

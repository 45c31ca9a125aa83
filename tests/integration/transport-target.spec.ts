// The target client over the transport (run/target.ts): what it sends, what it records, and the kit's
// own limits kept off the target: a request extends the test's timeout, a budget refusal skips the test
// (inside a test) or comes back as a reason (outside one), big bodies get a curl that rebuilds them, and the
// scratch folder's discovery.json is redacted.
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { expect, test } from '@playwright/test';
import { repoRoot, type RunConfig } from '../../run/config.ts';
import { unitRunConfig } from '../support/run-config.ts';
import { saveDiscovery } from '../../suites/lib/discovery.ts';
import { BudgetExhausted } from '../../run/ledger.ts';
import { bodyGenerator, Target } from '../../run/target.ts';
import { playwrightHooks } from '../../suites/lib/runner-hooks.ts';
import type { Profile } from '../../run/profile.ts';

const KEY = 'sk-unit-target-0123456789';

let server: http.Server;
let baseUrl: string;
const seen: { headers: http.IncomingHttpHeaders; body: Buffer }[] = [];
const scratch: string[] = [];

test.beforeAll(async () => {
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (d: Buffer) => chunks.push(d));
    req.on('end', () => {
      seen.push({ headers: req.headers, body: Buffer.concat(chunks) });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ object: 'list', data: [], echo: `Bearer ${KEY}` }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

test.afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
});

function config(profile: Profile = {}, extra: Partial<RunConfig> = {}): RunConfig {
  return unitRunConfig({ baseUrl, apiKey: KEY, folders: scratch }, { profile, ...extra });
}

test('a request carries the user-agent, the key and the exact body; its exchange is recorded redacted', async () => {
  const target = new Target(config());
  const before = seen.length;
  const res = await target.postRaw('/v1/chat/completions', '{"model": "m", broken');
  expect(res.status).toBe(200);
  const got = seen[before]!;
  expect(got.headers['user-agent']).toBe('chatconform');
  expect(got.headers.authorization).toBe(`Bearer ${KEY}`);
  expect(got.body.toString('utf8')).toBe('{"model": "m", broken');
  expect(got.headers['content-length']).toBe(String(got.body.length));
  const x = res.exchange;
  expect(JSON.stringify(x)).not.toContain(KEY);
  expect(x.responseBody).toContain('***REDACTED***');
  expect(x.curl).toContain('"Authorization: Bearer $CONFORMANCE_API_KEY"');
  expect(x.error).toBeUndefined();
});

test('each request extends the running test timeout by its own timeout', async () => {
  const target = new Target(config({}, { requestTimeoutMs: 7_000 }), playwrightHooks);
  const before = test.info().timeout;
  await target.get('/v1/models');
  await target.get('/v1/models', { timeoutMs: 3_000 });
  expect(test.info().timeout).toBe(before + 7_000 + 3_000);
});

const BUDGET_SKIP_TITLE = 'a request the budget refuses skips the test with the reason, it never fails it';
const CAP_SKIP_TITLE = 'a token cap above maxTokensPerRequest skips the test with the reason';

test.afterEach(({}, info) => {
  // The two skip tests are judged here, once their own bodies have ended as skipped.
  if (info.title === BUDGET_SKIP_TITLE) {
    expect(info.status).toBe('skipped');
    expect(info.annotations.find((a) => a.type === 'skip')?.description).toBe('budget exhausted: request budget spent (1 of 1)');
  }
  if (info.title === CAP_SKIP_TITLE) {
    expect(info.status).toBe('skipped');
    expect(info.annotations.find((a) => a.type === 'skip')?.description).toMatch(/^budget exhausted: a cap of 500 tokens exceeds the profile's maxTokensPerRequest \(100\)$/);
  }
});

test(BUDGET_SKIP_TITLE, async () => {
  const target = new Target(config({ budget: { maxRequests: 1 } }), playwrightHooks);
  expect((await target.get('/v1/models')).status).toBe(200);
  let caught: unknown;
  try {
    await target.get('/v1/models');
  } catch (err) {
    caught = err;
  }
  // The property runner stops on `instanceof BudgetExhausted`: the skip must still answer to it.
  expect(caught instanceof BudgetExhausted).toBe(true);
  throw caught;
});

test(CAP_SKIP_TITLE, async () => {
  const target = new Target(config({ budget: { maxTokensPerRequest: 100 } }), playwrightHooks);
  const before = seen.length;
  try {
    await target.chat({ model: 'm', messages: [], max_tokens: 500 });
  } finally {
    expect(seen.length, 'nothing was sent').toBe(before);
  }
  throw new Error('not skipped');
});

test('outside a test (global setup, discovery) a budget refusal comes back as a reason, not a throw', async () => {
  const dir = config().runDir;
  const script = path.join(dir, 'outside.mts');
  writeFileSync(
    script,
    `import { Target } from ${JSON.stringify(path.join(repoRoot, 'run/target.ts'))};
const target = new Target(${JSON.stringify(config({ budget: { maxRequests: 1, maxTokensPerRequest: 10 } }))});
const a = await target.get('/v1/models');
const b = await target.get('/v1/models');
const c = await target.chat({ model: 'm', messages: [], max_tokens: 50 });
console.log(JSON.stringify([a.status, b.status, b.exchange.error, c.status, c.exchange.error]));
`,
  );
  // Asynchronously: the server the script talks to lives in this process.
  const { stdout: out } = await promisify(execFile)(path.join(repoRoot, 'node_modules/.bin/tsx'), [script], { cwd: repoRoot, timeout: 30_000 });
  expect(JSON.parse(out.trim().split('\n').pop()!)).toEqual([
    200,
    0,
    'budget exhausted: request budget spent (1 of 1)',
    0,
    "budget exhausted: a cap of 50 tokens exceeds the profile's maxTokensPerRequest (10)",
  ]);
});

test('a body over the evidence limit gets a generator command that rebuilds it exactly, piped into curl', async () => {
  const head = `{"model":"m","messages":[{"role":"user","content":"it's"}],"note":"${KEY}","chatconform_padding":"`;
  const body = Buffer.from(`${head}${'x'.repeat(10 * 1024 * 1024 + 64 * 1024 - head.length - 2)}"}`);
  const generator = bodyGenerator(body);
  expect(generator).toMatch(/^node -e '/);
  const rebuilt = execFileSync('sh', ['-c', generator!], { maxBuffer: 32 * 1024 * 1024, timeout: 30_000 });
  expect(rebuilt.equals(body)).toBe(true);

  // Through the target: the curl names the generator, and the key in the body is masked there too.
  const target = new Target(config());
  const res = await target.postRaw('/v1/chat/completions', body);
  expect(res.exchange.curl).toMatch(/^node -e '.*' \| curl .* --data-binary @-$/s);
  expect(res.exchange.curl).not.toContain(KEY);
  expect(res.exchange.curl.length).toBeLessThan(2_000);
  // A big body that is not filler has no generator.
  expect(bodyGenerator(Buffer.from(Array.from({ length: 40_000 }, (_, i) => String.fromCharCode(97 + (i % 26))).join('')))).toBeUndefined();
});

test('discovery.json in the scratch folder is written redacted', () => {
  const dir = config().runDir;
  saveDiscovery(dir, { models: [{ id: 'm1', name: `echo ${KEY}`, description: 'Authorization: Bearer sk-never-told' }], searchProbes: [] }, [KEY]);
  const text = readFileSync(path.join(dir, 'discovery.json'), 'utf8');
  expect(text).not.toContain(KEY);
  expect(text).not.toContain('sk-never-told');
  expect(JSON.parse(text).models[0].id).toBe('m1');
});

// Transient refusals and the run's rate limit (run/transient.ts, ledger.ts, target.ts): a 429, or a
// 503 with Retry-After, on a request not about it is sent again after the named delay, within the run's bounds,
// with every retry in the evidence; when the bounds run out the exchange is `rate-limited` and judged by nothing;
// a request whose subject is the refusal gets it as it is. The throttle spaces the run's requests across workers.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { expect, test } from '@playwright/test';
import { type RunConfig } from '../../run/config.ts';
import { resolvePlan } from '../../run/plan.ts';
import { unitRunConfig } from '../support/run-config.ts';
import { Ledger } from '../../run/ledger.ts';
import { Target } from '../../run/target.ts';
import { nextRetry, retryAfterMs, transientWaitMs } from '../../run/transient.ts';
import { Checker } from '../../judge/checker.ts';

let server: http.Server;
let baseUrl: string;
/** Per path: the answers still to give, first first; then 200. */
const script = new Map<string, { status: number; headers?: Record<string, string> }[]>();
const hits = new Map<string, number>();
const scratch: string[] = [];

test.beforeAll(async () => {
  server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const p = req.url ?? '/';
      hits.set(p, (hits.get(p) ?? 0) + 1);
      const next = script.get(p)?.shift();
      const status = next?.status ?? 200;
      res.writeHead(status, { 'content-type': 'application/json', ...(next?.headers ?? {}) });
      res.end(JSON.stringify(status === 200 ? { object: 'list', data: [] } : { error: { type: 'rate_limit_error', code: 'rate_limited', message: 'slow down' } }));
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

function config(extra: Partial<RunConfig> = {}): RunConfig {
  return unitRunConfig({ baseUrl, apiKey: 'sk-unit-transient-0123456789', folders: scratch }, { maxBodyBytes: 1024 * 1024, ...extra });
}

test('Retry-After is read in seconds, as an HTTP date, or as retry-after-ms; a 503 without it is not transient', () => {
  expect(retryAfterMs({ 'retry-after': '2' })).toBe(2000);
  expect(retryAfterMs({ 'retry-after-ms': '150', 'retry-after': '9' })).toBe(150);
  expect(retryAfterMs({ 'retry-after': new Date(10_000).toUTCString() }, 7_000)).toBe(3000);
  expect(retryAfterMs({ 'retry-after': 'soon' })).toBeUndefined();
  expect(retryAfterMs({})).toBeUndefined();
  expect(transientWaitMs(429, { 'retry-after': '0' }, 0)).toBe(0);
  expect(transientWaitMs(429, {}, 0)).toBe(1000);
  expect(transientWaitMs(429, {}, 2)).toBe(4000);
  expect(transientWaitMs(503, { 'retry-after': '1' }, 0)).toBe(1000);
  expect(transientWaitMs(503, {}, 0)).toBeUndefined();
  expect(transientWaitMs(500, { 'retry-after': '1' }, 0)).toBeUndefined();
  expect(transientWaitMs(200, {}, 0)).toBeUndefined();
});

test('the retry bounds: a count and a total wait per request', () => {
  const policy = { maxRetries: 2, maxWaitMs: 1_500 };
  expect(nextRetry(policy, 429, { 'retry-after': '1' }, { retries: 0, waitedMs: 0 })).toEqual({ waitMs: 1000 });
  expect(nextRetry(policy, 429, { 'retry-after': '1' }, { retries: 1, waitedMs: 1000 })).toMatchObject({ stop: expect.stringContaining('past the run\'s bound of 1500 ms') });
  expect(nextRetry(policy, 429, { 'retry-after': '0' }, { retries: 2, waitedMs: 0 })).toMatchObject({ stop: expect.stringContaining('after 2 retries') });
  expect(nextRetry(policy, 200, {}, { retries: 0, waitedMs: 0 })).toBeUndefined();
});

test('a 429 on an ordinary request is sent again after its Retry-After, and each retry is in the evidence', async () => {
  script.set('/v1/models', [
    { status: 429, headers: { 'retry-after': '0' } },
    { status: 503, headers: { 'retry-after-ms': '20' } },
  ]);
  hits.delete('/v1/models');
  const target = new Target(config());
  const res = await target.get('/v1/models');
  expect(res.status).toBe(200);
  expect(hits.get('/v1/models')).toBe(3);
  expect(target.exchanges).toHaveLength(1);
  const events = res.exchange.transportEvents ?? [];
  expect(events.map((e) => e.kind)).toEqual(['rate-limited', 'rate-limited']);
  expect(events[0]!.message).toContain('HTTP 429 (retry-after: 0)');
  expect(events[1]!.message).toContain('HTTP 503 (retry-after-ms: 20)');
  expect(res.exchange.errorKind).toBeUndefined();
  // The budget counts what was really sent.
  expect(target.totals().requests).toBe(3);
});

test('a refusal that outlasts the retries is rate-limited: an error the kit could not judge, never a failure', async () => {
  script.set('/v1/models/x', [0, 1, 2].map(() => ({ status: 429, headers: { 'retry-after': '0' } })));
  hits.delete('/v1/models/x');
  const target = new Target(config({ retry: { maxRetries: 2, maxWaitMs: 1_000 } }));
  const res = await target.get('/v1/models/x');
  expect(hits.get('/v1/models/x')).toBe(3);
  expect(res.status).toBe(429);
  expect(res.exchange.errorKind).toBe('rate-limited');
  expect(res.exchange.error).toContain('still HTTP 429 after 2 retries');
  const check = new Checker(target, { declared: () => ['CAT-036'] });
  expect(check.status('CAT-036', res, 200)).toBe(false);
  expect(check.records).toEqual([expect.objectContaining({ id: 'CAT-036', status: 'error' })]);
  expect(check.failures).toEqual([]);
});

test('a request whose subject is the refusal gets it as it is, without a retry; another transient refusal is still retried', async () => {
  script.set('/v1/chat/completions', [{ status: 503, headers: { 'retry-after': '0' } }]);
  hits.delete('/v1/chat/completions');
  const target = new Target(config());
  const res = await target.chat({ model: 'm', messages: [] }, { subjectStatus: 503 });
  expect(res.status).toBe(503);
  expect(hits.get('/v1/chat/completions')).toBe(1);
  expect(res.exchange.transportEvents).toBeUndefined();
  expect(res.exchange.errorKind).toBeUndefined();

  // A rate limit met on the way to the 503 is not what the request is about.
  script.set('/v1/chat/completions', [{ status: 429, headers: { 'retry-after': '0' } }, { status: 503, headers: { 'retry-after': '0' } }]);
  const again = await target.chat({ model: 'm', messages: [] }, { subjectStatus: 503 });
  expect(again.status).toBe(503);
  expect(again.exchange.transportEvents?.map((e) => e.kind)).toEqual(['rate-limited']);
  expect(again.exchange.errorKind).toBeUndefined();
});

test('the throttle hands out send times spaced by the interval across every ledger of the run', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'chatconform-throttle-'));
  scratch.push(dir);
  const limits = { maxRequests: 100, maxCost: 1, minIntervalMs: 50 };
  // Two workers of one run: each its own Ledger over the same folder.
  const a = Ledger.in(dir, limits);
  const b = Ledger.in(dir, limits);
  const slots = [a.nextSlot(1_000), b.nextSlot(1_000), a.nextSlot(1_010), b.nextSlot(1_400), a.nextSlot(1_400)];
  expect(slots).toEqual([1_000, 1_050, 1_100, 1_400, 1_450]);
  // reserve() says how long to wait for the slot it took.
  expect(b.reserve(1_450)).toBe(50);
  expect(Ledger.in(dir, { maxRequests: 100, maxCost: 1 }).reserve()).toBe(0);
});

test('the rate comes from CONFORMANCE_MAX_RPS, else the profile\'s requests per minute; a bad value is a clear error', () => {
  const profile = path.join(mkdtempSync(path.join(os.tmpdir(), 'chatconform-rps-')), 'profile.json');
  writeFileSync(profile, JSON.stringify({ budget: { requestsPerMinute: 120 } }));
  const maxRps = (env: NodeJS.ProcessEnv) => resolvePlan({ CONFORMANCE_BASE_URL: 'http://127.0.0.1:1', ...env }, { configFile: false }).plan.settings.maxRps;
  expect(maxRps({ CONFORMANCE_MAX_RPS: '2.5', CONFORMANCE_PROFILE: profile })).toBe(2.5);
  expect(maxRps({ CONFORMANCE_PROFILE: profile })).toBe(2);
  expect(maxRps({ CONFORMANCE_MAX_RPS: '' })).toBeUndefined();
  expect(() => maxRps({ CONFORMANCE_MAX_RPS: '0' })).toThrow(/CONFORMANCE_MAX_RPS: expected a number above 0 \(got a value of 1 character, not shown\)/);
  expect(() => maxRps({ CONFORMANCE_MAX_RPS: 'fast' })).toThrow(/got a value of 4 characters, not shown/);
});

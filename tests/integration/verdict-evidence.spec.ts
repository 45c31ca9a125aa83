// The verdict never outruns the evidence (issue 17): a run that could judge little says so instead of passing,
// and the kit's own limits (its budget, its patience with a slow server) are never charged to the target.
// Each case runs the suite (or the spec files it concerns) against a target on 127.0.0.1 and reads its report.
import http from 'node:http';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { MOCK_KEYS } from '../../mock/keys-and-models.ts';
import { startMockServer } from '../../mock/server.ts';
import { cleanup, crashes, MOCK_PROFILE, runSuite } from './support/suite-runner.ts';

const BOUND_MS = 420_000;
test.describe.configure({ mode: 'parallel' });

/** A server that lists one model and answers every completion 503 model_unavailable, a state section 7 allows. */
async function unavailableStub(): Promise<{ url: string; close: () => Promise<void> }> {
  const entry = { id: 'stub-model', name: 'Stub', min_tier: 'free', supports_images: false, supports_caching: false, supports_reasoning: false, supports_global_endpoint: true, is_featured: false };
  const server = http.createServer((req, res) => {
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    req.resume();
    req.on('end', () => {
      if (req.method === 'GET' && req.url === '/v1/models') return json(200, { object: 'list', data: [entry] });
      if (req.method === 'GET' && req.url === '/v1/models/stub-model') return json(200, entry);
      if (req.method === 'POST' && req.url === '/v1/chat/completions') return json(503, { error: { type: 'service_unavailable', code: 'model_unavailable', message: 'stub-model cannot be served right now' } });
      return json(404, { error: { type: 'not_found', code: 'not_found', message: 'no such route' } });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** The mock's own profile with a budget override, written to a temp file. */
function profileWith(budget: Record<string, number>): string {
  const profile = JSON.parse(readFileSync(MOCK_PROFILE, 'utf8')) as { budget: Record<string, number>; $schema?: string };
  delete profile.$schema;
  profile.budget = { ...profile.budget, ...budget };
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'chatconform-profile-')), 'profile.json');
  writeFileSync(file, JSON.stringify(profile));
  return file;
}

test('a target that lists a model but never serves it gets INCOMPLETE, never PASS, with its coverage', async () => {
  test.setTimeout(BOUND_MS + 30_000);
  const stub = await unavailableStub();
  try {
    const run = await runSuite({ baseUrl: stub.url, profile: null, extraEnv: { CONFORMANCE_API_KEY: 'sk-stub-0123456789' }, fuzzRuns: 3, workers: 2, boundMs: BOUND_MS, label: 'stub-503', extraArgs: ['suites/auth.spec.ts', 'suites/chat.spec.ts', 'suites/streaming.spec.ts'] });
    const r = run.report!;
    const report = r as unknown as { coverage: { mustJudged: number; mustDeclared: number; coreNotJudged: string[] } };
    console.log(`503 stub: verdict ${r.verdict.result}, exit ${run.code}, ${report.coverage.mustJudged} of ${report.coverage.mustDeclared} MUSTs judged, core not judged: ${report.coverage.coreNotJudged.join(', ')}`);
    expect(crashes(r)).toEqual([]);
    expect(r.verdict.result).not.toBe('pass');
    expect(report.coverage.coreNotJudged).toEqual(expect.arrayContaining(['CHAT-004', 'CHAT-005']));
    cleanup(run);
  } finally {
    await stub.close();
  }
});

test('an exhausted budget skips what it could not send, and fails nothing', async () => {
  test.setTimeout(BOUND_MS + 30_000);
  const mock = await startMockServer({ port: 0 });
  try {
    const run = await runSuite({ baseUrl: mock.url, profile: profileWith({ maxRequests: 12 }), fuzzRuns: 3, workers: 1, boundMs: BOUND_MS, label: 'budget-12', extraArgs: ['suites/chat.spec.ts', 'suites/catalog.spec.ts'] });
    const r = run.report!;
    const budgetFailures = r.requirements.filter((q) => q.status === 'fail' || q.status === 'error');
    console.log(`budget of 12 requests: verdict ${r.verdict.result}, exit ${run.code}, ${r.requirements.filter((q) => q.status === 'skip').length} skipped, ${budgetFailures.length} failed or errored`);
    expect(budgetFailures.map((q) => `${q.id} ${q.status}: ${q.reason}`)).toEqual([]);
    expect(r.verdict.mustFailed).toEqual([]);
    expect(run.code).toBe(0);
    expect(r.verdict.result).not.toBe('pass');
    expect(r.requirements.some((q) => q.status === 'skip' && /budget/i.test(q.reason ?? ''))).toBe(true);
    cleanup(run);
  } finally {
    await mock.close();
  }
});

test('a slow but correct target (3 s before every answer) passes: its slowness is not a failure', async () => {
  test.setTimeout(BOUND_MS + 60_000);
  const mock = await startMockServer({ port: 0, variant: ['slow'] });
  try {
    // The catalog test reads every entry back (about fifty requests): the one that timed out at 60 s before.
    const run = await runSuite({ baseUrl: mock.url, profile: profileWith({ maxSearchProbes: 1 }), fuzzRuns: 3, workers: 2, boundMs: BOUND_MS, label: 'slow-3s', extraArgs: ['suites/catalog.spec.ts'] });
    const r = run.report!;
    console.log(`slow target (3 s per answer): verdict ${r.verdict.result}, exit ${run.code}, ${Math.round(run.wallMs / 1000)} s`);
    expect(crashes(r)).toEqual([]);
    expect(r.verdict.mustFailed).toEqual([]);
    expect(r.requirements.filter((q) => q.status === 'error').map((q) => `${q.id}: ${q.reason}`)).toEqual([]);
    expect(run.code).toBe(0);
    cleanup(run);
  } finally {
    await mock.close();
  }
});

test('the free-tier key passes against the clean mock: a key\'s tier is never charged to a feature', async () => {
  test.setTimeout(BOUND_MS + 30_000);
  const mock = await startMockServer({ port: 0 });
  try {
    const run = await runSuite({ baseUrl: mock.url, fuzzRuns: 3, workers: 2, boundMs: BOUND_MS, label: 'free-tier', extraEnv: { CONFORMANCE_API_KEY: MOCK_KEYS.free } });
    const r = run.report!;
    console.log(`free-tier key: verdict ${r.verdict.result}, exit ${run.code}, MUST failed: ${r.verdict.mustFailed.join(', ') || 'none'}`);
    expect(crashes(r)).toEqual([]);
    expect(r.verdict.mustFailed).toEqual([]);
    expect(run.code).toBe(0);
    cleanup(run);
  } finally {
    await mock.close();
  }
});

test('a field null in every stream chunk is one root cause, and the tests it touched judge everything else', async () => {
  test.setTimeout(BOUND_MS + 30_000);
  const mock = await startMockServer({ port: 0, defect: 'stream-finish-reason-null' });
  try {
    const run = await runSuite({ baseUrl: mock.url, fuzzRuns: 3, workers: 1, boundMs: BOUND_MS, label: 'root-cause', extraArgs: ['suites/tools.spec.ts', 'suites/streaming.spec.ts'] });
    const r = run.report! as unknown as {
      verdict: { mustFailed: string[] };
      rootCauses: { id: string; tests: unknown[] }[];
      requirements: { id: string; status: string; reason?: string }[];
    };
    const causes = r.rootCauses.filter((c) => c.id === 'RESP-001');
    console.log(`null finish_reason in every chunk: MUST failed ${r.verdict.mustFailed.join(', ')}; root causes ${r.rootCauses.map((c) => `${c.id} (${c.tests.length} test(s))`).join(', ')}`);
    expect(r.verdict.mustFailed).toEqual(['RESP-001']);
    expect(causes).toHaveLength(1);
    expect(r.rootCauses).toHaveLength(1);
    // The tests that met the nulls still judged everything else they declare: nothing skipped for it.
    expect(r.requirements.filter((q) => q.status === 'skip' && /stopped after|not reached/.test(q.reason ?? '')).map((q) => q.id)).toEqual([]);
    cleanup(run);
  } finally {
    await mock.close();
  }
});

// Evidence is what was judged (issue 29): a finding's exchange is the request its check was given, whatever the
// test sent after it; a 10 MB upload is kept as a bounded, marked excerpt with its size, never whole.
interface EvidenceView {
  status: string;
  message?: string;
  exchange?: { method: string; url: string; status: number; requestBody?: string; curl: string };
}
const evidenceOf = (run: { report?: unknown }, id: string): EvidenceView[] =>
  ((run.report as { requirements: { id: string; evidence?: EvidenceView[] }[] }).requirements.find((q) => q.id === id)?.evidence ?? []);

/** Lists one model and answers GET; a POST without a body is left waiting (the CHAT-013 deviation). */
async function bodilessPostHangs(): Promise<{ url: string; close: () => Promise<void> }> {
  const entry = { id: 'stub-model', name: 'Stub', min_tier: 'free', supports_images: false, supports_caching: false, supports_reasoning: false, supports_global_endpoint: true, is_featured: false };
  const server = http.createServer((req, res) => {
    if (req.method === 'POST' && req.headers['content-length'] === undefined && req.headers['transfer-encoding'] === undefined) return; // waits for a body that never comes
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(req.url === '/v1/models' ? { object: 'list', data: [entry] } : entry));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

test('CHAT-013 on a target that waits for a body: the evidence is the bodiless POST, not the control GET sent after it', async () => {
  test.setTimeout(BOUND_MS + 30_000);
  const stub = await bodilessPostHangs();
  try {
    const run = await runSuite({ baseUrl: stub.url, profile: null, extraEnv: { CONFORMANCE_API_KEY: 'sk-stub-0123456789' }, fuzzRuns: 1, boundMs: BOUND_MS, label: 'chat-013-evidence', extraArgs: ['suites/errors.spec.ts', '--grep', 'no body and no Content-Length'] });
    expect(run.report!.verdict.mustFailed).toContain('CHAT-013');
    const failed = evidenceOf(run, 'CHAT-013').filter((e) => e.status === 'fail');
    expect(failed).toHaveLength(1);
    const x = failed[0]!.exchange!;
    expect(`${x.method} ${new URL(x.url).pathname}`).toBe('POST /v1/chat/completions');
    expect(x.requestBody).toBeUndefined();
    expect(x.curl).toMatch(/-X POST .*\/v1\/chat\/completions/);
    cleanup(run);
  } finally {
    await stub.close();
  }
});

test('LIMIT-001 on a target without a body limit: each finding carries its own upload, as a bounded excerpt with its size', async () => {
  test.setTimeout(BOUND_MS + 30_000);
  const mock = await startMockServer({ port: 0, defect: 'oversized-accepted' });
  try {
    const run = await runSuite({ baseUrl: mock.url, fuzzRuns: 1, boundMs: BOUND_MS, label: 'limit-001-evidence', extraArgs: ['suites/limits.spec.ts', '--grep', 'over 10 MB is refused'] });
    // The valid upload is answered 200 (LIMIT-001 fails on it), the one that is not JSON 400 (LIMIT-002 fails on it).
    expect(run.report!.verdict.mustFailed).toEqual(expect.arrayContaining(['LIMIT-001', 'LIMIT-002']));
    const valid = evidenceOf(run, 'LIMIT-001').find((e) => e.status === 'fail');
    const garbage = evidenceOf(run, 'LIMIT-002').find((e) => e.status === 'fail');
    expect(valid?.message).toMatch(/a valid JSON request of 10551296 bytes was not refused/);
    expect(valid?.exchange?.requestBody).toMatch(/^\{"model":"[^"]+","messages":/);
    expect(garbage?.exchange?.requestBody).toMatch(/^\{"model": not json at all /);
    for (const e of [valid!, garbage!]) {
      const body = e.exchange!.requestBody!;
      expect(body.length).toBeLessThan(20_000);
      expect(body).toMatch(/… \(excerpt: the first \d+ of 10551296 bytes; \d+ more bytes elided\)$/);
    }
    cleanup(run);
  } finally {
    await mock.close();
  }
});

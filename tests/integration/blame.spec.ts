// The right requirement is blamed, or none (issue 17, "The wrong requirement blamed"): each case puts a target
// with one deviation in front of the spec file that used to charge the wrong requirement, and reads the report.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test } from '@playwright/test';
import { startMockServer, type RunningMockServer } from '../../mock/server.ts';
import { cleanup, crashes, runSuite, type SuiteRun } from './support/suite-runner.ts';

const BOUND_MS = 300_000;
test.describe.configure({ mode: 'parallel' });

/** A proxy in front of the mock that answers some requests itself (`override`) and forwards the rest unchanged. */
async function proxyTo(mock: RunningMockServer, override: (req: http.IncomingMessage, body: string) => { status: number; body: string } | undefined): Promise<{ url: string; close: () => Promise<void> }> {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const own = override(req, body);
      if (own) {
        res.writeHead(own.status, { 'content-type': 'application/json' });
        return res.end(own.body);
      }
      const up = http.request(`${mock.url}${req.url}`, { method: req.method, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      up.on('error', () => res.destroy());
      up.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

async function run(baseUrl: string, label: string, files: string[]): Promise<SuiteRun> {
  return runSuite({ baseUrl, fuzzRuns: 3, workers: 1, boundMs: BOUND_MS, label, extraArgs: files });
}

const status = (r: SuiteRun, id: string) => r.report!.requirements.find((q) => q.id === id)?.status;

test('ERR-005 is not charged when the target did not refuse at all (a stream served without a credential)', async () => {
  test.setTimeout(BOUND_MS + 30_000);
  const mock = await startMockServer({ port: 0, defect: 'chat-without-credential' });
  try {
    const r = await run(mock.url, 'blame-err-005', ['suites/streaming.spec.ts', 'suites/auth.spec.ts']);
    expect(crashes(r.report!)).toEqual([]);
    expect(r.report!.verdict.mustFailed).toContain('AUTH-002');
    expect(status(r, 'ERR-005'), 'the refusal never happened, so its shape is not judged').not.toBe('fail');
    cleanup(r);
  } finally {
    await mock.close();
  }
});

test('REQ-013 is not charged for a 413 caused by the body size', async () => {
  test.setTimeout(BOUND_MS + 30_000);
  const mock = await startMockServer({ port: 0, defect: 'body-limit-1mb' });
  try {
    const r = await run(mock.url, 'blame-req-013', ['suites/limits.spec.ts']);
    expect(crashes(r.report!)).toEqual([]);
    expect(r.report!.verdict.mustFailed).toContain('LIMIT-003');
    expect(status(r, 'REQ-013')).not.toBe('fail');
    cleanup(r);
  } finally {
    await mock.close();
  }
});

test('a route that answers GET /v1/models/{id} with the whole list fails CAT-036, not the entry rules', async () => {
  test.setTimeout(BOUND_MS + 30_000);
  const mock = await startMockServer({ port: 0 });
  let list = '';
  const proxy = await proxyTo(mock, (req) => (req.method === 'GET' && /^\/v1\/models\/.+/.test(req.url ?? '') ? { status: 200, body: list } : undefined));
  try {
    list = await (await fetch(`${mock.url}/v1/models`)).text();
    const r = await run(proxy.url, 'blame-cat-036', ['suites/catalog.spec.ts']);
    expect(crashes(r.report!)).toEqual([]);
    expect(r.report!.verdict.mustFailed).toEqual(['CAT-036']);
    for (const id of ['CAT-001', 'CAT-004', 'CAT-005']) expect(status(r, id), id).not.toBe('fail');
    cleanup(r);
  } finally {
    await proxy.close();
    await mock.close();
  }
});

test('a target that refuses tool definitions fails the tool requirements, not CHAT-004', async () => {
  test.setTimeout(BOUND_MS + 30_000);
  const mock = await startMockServer({ port: 0 });
  const proxy = await proxyTo(mock, (req, body) => {
    if (req.method !== 'POST' || !body.includes('"tools"')) return undefined;
    return { status: 400, body: JSON.stringify({ error: { type: 'invalid_request_error', code: 'tools_not_supported', message: 'tools are not supported' } }) };
  });
  try {
    const r = await run(proxy.url, 'blame-chat-004', ['suites/tools.spec.ts']);
    expect(crashes(r.report!)).toEqual([]);
    expect(r.report!.verdict.mustFailed).toEqual(expect.arrayContaining(['TOOL-001']));
    expect(status(r, 'CHAT-004'), 'the completion was refused for its tools, which the tool requirements judge').not.toBe('fail');
    cleanup(r);
  } finally {
    await proxy.close();
    await mock.close();
  }
});

test('TOOL-012 passes on a 4xx whose body is not a section 7 object: the body is ERR-001\'s failure, charged there', async () => {
  test.setTimeout(BOUND_MS + 30_000);
  const mock = await startMockServer({ port: 0 });
  // Tool calls in a message with no tools declared: refused with a 404 whose body is not JSON (as mock-llm does).
  const toolCallsWithoutTools = (body: string) => {
    try {
      const b = JSON.parse(body) as { tools?: unknown; messages?: { tool_calls?: unknown }[] };
      return b.tools === undefined && Array.isArray(b.messages) && b.messages.some((m) => Array.isArray(m?.tool_calls));
    } catch {
      return false;
    }
  };
  const proxy = await proxyTo(mock, (req, body) => (req.method === 'POST' && toolCallsWithoutTools(body) ? { status: 404, body: 'Not Found' } : undefined));
  try {
    // Enough fuzz runs that the fixed seed generates the tools-without-declaration fault among its eighteen.
    const r = await runSuite({ baseUrl: proxy.url, fuzzRuns: 30, workers: 1, boundMs: BOUND_MS, label: 'blame-tool-012', extraArgs: ['suites/tools.spec.ts', 'suites/properties/request-fuzzing.spec.ts'] });
    expect(crashes(r.report!)).toEqual([]);
    expect(status(r, 'TOOL-012'), 'a 404 is a client error: what TOOL-012 states').toBe('pass');
    expect(status(r, 'ERR-001'), 'the body that is not a section 7 error object').toBe('fail');
    cleanup(r);
  } finally {
    await proxy.close();
    await mock.close();
  }
});

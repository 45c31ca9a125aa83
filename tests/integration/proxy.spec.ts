// Issue 14: `chatconform proxy`, the validation proxy. Real clients (the openai SDK, the Vercel AI SDK) talk to
// the mock through it; every exchange is judged by the suite's own checks, each breach under its requirement and
// its party (client or server); streams pass through as they arrive; an upstream that is down gives 502 JSON.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import OpenAI from 'openai';
import { generateText, streamText } from 'ai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { MOCK_KEYS, MOCK_MODELS, startMockServer, type RunningMockServer } from '../../mock/index.ts';
import { startTrafficProxy, type RunningTrafficProxy, type Violation } from '../../proxy/index.ts';
import { decodeSse } from '../../judge/decoding/sse.ts';
import type { MockOptions } from '../../mock/options.ts';
import type { CapturedExchange } from '../../proxy/index.ts';
import { giganticAnswersTarget, hangingTarget } from './support/hostile-targets.ts';
import { CliProcesses, stop } from './support/cli-process.ts';

const cli = new CliProcesses();
test.afterAll(() => cli.stopAll());

interface Rig {
  mock: RunningMockServer;
  proxy: RunningTrafficProxy;
  violations: Violation[];
  logs: string[];
  reportDir: string;
  close(): Promise<void>;
}

async function rig(mockOptions: MockOptions = {}): Promise<Rig> {
  const mock = await startMockServer({ port: 0, ...mockOptions });
  const reportDir = mkdtempSync(path.join(os.tmpdir(), 'chatconform-proxy-'));
  const violations: Violation[] = [];
  const logs: string[] = [];
  const proxy = await startTrafficProxy({ upstream: mock.url, port: 0, reportDir, onViolation: (v) => violations.push(v), log: (l) => logs.push(l) });
  return {
    mock,
    proxy,
    violations,
    logs,
    reportDir,
    close: async () => {
      await proxy.stop().catch(() => undefined);
      await mock.close();
      rmSync(reportDir, { recursive: true, force: true });
    },
  };
}

const openai = (baseURL: string) => new OpenAI({ baseURL: `${baseURL}/v1`, apiKey: MOCK_KEYS.full, maxRetries: 0 });
const aiModel = (baseURL: string, id: string) =>
  createOpenAICompatible({ name: 'mock', baseURL: `${baseURL}/v1`, apiKey: MOCK_KEYS.full, includeUsage: true }).chatModel(id);

const question = [{ role: 'user' as const, content: 'Name three rivers of Europe.' }];

/** What an openai-SDK session sees, without ids and timestamps (they differ on every request). */
async function openaiSession(baseURL: string): Promise<unknown[]> {
  const client = openai(baseURL);
  const out: unknown[] = [];
  const list = await client.models.list();
  out.push(list.data.map((m) => m.id));
  out.push((await client.models.retrieve(MOCK_MODELS.small)).id);
  const done = await client.chat.completions.create({ model: MOCK_MODELS.small, messages: question, max_completion_tokens: 40 });
  out.push(done.choices[0]!.message.content, done.choices[0]!.finish_reason, done.usage);
  const stream = await client.chat.completions.create({ model: MOCK_MODELS.small, messages: question, stream: true, stream_options: { include_usage: true } });
  let text = '';
  let usage: unknown;
  for await (const chunk of stream) {
    text += chunk.choices[0]?.delta.content ?? '';
    if (chunk.usage) usage = chunk.usage;
  }
  out.push(text, usage);
  const tools = await client.chat.completions.create({
    model: MOCK_MODELS.large,
    messages: [{ role: 'user', content: 'What is the weather in Paris? Use get_weather.' }],
    tools: [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }],
    max_completion_tokens: 200,
  });
  out.push(tools.choices[0]!.message.tool_calls?.map((c) => (c.type === 'function' ? [c.function.name, c.function.arguments] : c.type)), tools.choices[0]!.finish_reason);
  return out;
}

/** What an AI SDK session sees. */
async function aiSession(baseURL: string): Promise<unknown[]> {
  const generated = await generateText({ model: aiModel(baseURL, MOCK_MODELS.small), prompt: 'Describe a mountain.', maxOutputTokens: 40 });
  const streamed = streamText({ model: aiModel(baseURL, MOCK_MODELS.small), prompt: 'Describe a lake.' });
  let text = '';
  for await (const part of streamed.textStream) text += part;
  return [generated.text, generated.finishReason, generated.usage.totalTokens, text, await streamed.finishReason, (await streamed.usage).totalTokens];
}

test.describe('clients through the proxy', () => {
  let r: Rig;
  test.beforeAll(async () => {
    r = await rig();
  });
  test.afterAll(async () => {
    await r.close();
  });

  test('the openai SDK and the AI SDK: 0 violations, and the same results as without the proxy', async () => {
    expect(await openaiSession(r.proxy.url)).toEqual(await openaiSession(r.mock.url));
    expect(await aiSession(r.proxy.url)).toEqual(await aiSession(r.mock.url));
    // Judging runs in a worker after each answer: wait for the last judgements.
    await r.proxy.settled();
    expect(r.violations.map((v) => v.line)).toEqual([]);
    const report = r.proxy.report();
    // Judged on what the traffic exercised: requests and answers, catalog and completions.
    expect(report.verdict.mustFailed).toEqual([]);
    expect(r.proxy.traffic.exchanges).toBe(7);
    const passed = (id: string) => report.requirements.find((x) => x.id === id)!;
    for (const id of ['CAT-027', 'CAT-036', 'CHAT-004', 'CHAT-005', 'STREAM-004', 'RESP-019', 'REQ-001', 'REQ-003']) expect(passed(id).status, id).toBe('pass');
    // Per requirement: how many exchanges honoured it.
    expect(passed('REQ-001').records.pass).toBe(5);
  });

  test('a client that sends tool calls without declaring tools is reported as the client\'s fault', async () => {
    const before = r.violations.length;
    const res = await fetch(`${r.proxy.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${MOCK_KEYS.full}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        model: MOCK_MODELS.small,
        messages: [
          { role: 'user', content: 'hi' },
          { role: 'assistant', content: '', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }] },
          { role: 'tool', tool_call_id: 'c1', content: 'ok' },
        ],
      }),
    });
    expect(res.status).toBe(400);
    await res.text();
    await r.proxy.settled();
    const found = r.violations.slice(before);
    expect(found.map((v) => [v.id, v.party, v.status])).toEqual([['TOOL-012', 'client', 'fail']]);
    expect(found[0]!.line).toMatch(/^violation TOOL-012 \(MUST, §4\.3\) by the client: #\d+ POST \/v1\/chat\/completions → 400: .*declares no function tools.* \| replay: curl .*"Authorization: Bearer \$CONFORMANCE_API_KEY"/);
    expect(found[0]!.line).not.toContain(MOCK_KEYS.full);
    // The server refused it as it must: its side of TOOL-012 and TOOL-013 honoured.
    const outcome = r.proxy.traffic.outcomes.at(-1)!;
    const server = outcome.evidence!.checks.filter((c) => c.party === 'server' && (c.id === 'TOOL-012' || c.id === 'TOOL-013'));
    expect(server.length).toBeGreaterThan(0);
    expect(server.every((c) => c.status === 'pass')).toBe(true);
  });

  test('50 streams at once pass through whole, event for event', async () => {
    const body = JSON.stringify({ model: MOCK_MODELS.small, messages: question, stream: true });
    const send = async (base: string) => {
      const res = await fetch(`${base}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${MOCK_KEYS.full}`, 'content-type': 'application/json' }, body });
      expect(res.headers.get('content-type')).toContain('text/event-stream');
      return decodeSse([await res.text()]).map((e) => e.data);
    };
    const direct = await send(r.mock.url);
    const before = r.proxy.traffic.exchanges;
    const through = await Promise.all(Array.from({ length: 50 }, () => send(r.proxy.url)));
    await r.proxy.settled();
    const withoutIds = (events: string[]) => events.map((d) => d.replace(/"id":"[^"]*"/, '').replace(/"created":\d+/, ''));
    for (const events of through) expect(withoutIds(events)).toEqual(withoutIds(direct));
    expect(r.proxy.traffic.exchanges - before).toBe(50);
    expect(r.violations.filter((v) => v.party === 'server')).toEqual([]);
  });

  test('an event stream is not buffered: the first event reaches the client before the upstream ends', async () => {
    // x-mock-chunk-delay-ms spaces the events 150 ms apart: a buffering proxy would deliver them all at the end.
    const res = await fetch(`${r.proxy.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${MOCK_KEYS.full}`, 'content-type': 'application/json', 'x-mock-chunk-delay-ms': '150' },
      body: JSON.stringify({ model: MOCK_MODELS.small, messages: question, stream: true, max_completion_tokens: 12 }),
    });
    const reader = res.body!.getReader();
    const reads: string[] = [];
    for (let x = await reader.read(); !x.done; x = await reader.read()) reads.push(new TextDecoder().decode(x.value));
    // Event by event, as the upstream sent them: the first read holds the first event and not the end; a proxy
    // that buffered the answer would hand it over in one piece, [DONE] included.
    expect(reads[0]).toMatch(/^data: /);
    expect(reads[0]).not.toContain('[DONE]');
    expect(reads.length).toBeGreaterThanOrEqual(5);
    expect(reads.join('')).toContain('data: [DONE]');
  });
});

test.describe('defects through the proxy', () => {
  for (const [defect, id, send] of [
    ['catalog-null-optional', 'CAT-027', (c: OpenAI) => c.models.list()],
    ['tool-arguments-object', 'RESP-019', async (c: OpenAI) => {
      const res = await fetch(`${c.baseURL}/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${MOCK_KEYS.full}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: MOCK_MODELS.large, stream: true, max_completion_tokens: 200, messages: [{ role: 'user', content: 'Use get_weather for Paris.' }], tools: [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }] }),
      });
      await res.text();
    }],
  ] as const) {
    test(`${defect}: reported under ${id}, as the server's fault`, async () => {
      const r = await rig({ defect });
      try {
        await send(openai(r.proxy.url));
        await r.proxy.settled();
        const mine = r.violations.filter((v) => v.id === id);
        expect(mine.length, r.violations.map((v) => v.line).join('\n')).toBeGreaterThan(0);
        expect(mine.every((v) => v.party === 'server' && v.status === 'fail')).toBe(true);
        expect(r.violations.filter((v) => v.party === 'client')).toEqual([]);
        const { report, files } = await r.proxy.stop();
        expect(report.verdict.mustFailed).toContain(id);
        const evidence = report.requirements.find((x) => x.id === id)!.evidence[0]!;
        expect(evidence.party).toBe('server');
        expect(evidence.exchange?.curl).toMatch(/^curl /);
        expect(files.map((f) => path.basename(f)).sort()).toEqual(['badge.svg', 'conformance.html', 'conformance.json', 'junit.xml']);
        expect(readFileSync(path.join(r.reportDir, 'conformance.json'), 'utf8')).not.toContain(MOCK_KEYS.full);
      } finally {
        await r.close();
      }
    });
  }
});

test.describe('faults', () => {
  test('the upstream stops mid-run: the client gets 502 JSON errors, and the proxy serves again when it is back', async () => {
    const r = await rig();
    try {
      const port = r.mock.port;
      const client = openai(r.proxy.url);
      expect((await client.models.list()).data.length).toBeGreaterThan(0);
      await r.mock.close();
      for (let i = 0; i < 3; i++) {
        const res = await fetch(`${r.proxy.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${MOCK_KEYS.full}`, 'content-type': 'application/json' }, body: JSON.stringify({ model: MOCK_MODELS.small, messages: question }) });
        expect(res.status).toBe(502);
        expect(res.headers.get('content-type')).toContain('application/json');
        const body = (await res.json()) as { error: { type: string; code: string; message: string } };
        expect(body.error.code).toBe('upstream_unreachable');
        expect(typeof body.error.message).toBe('string');
      }
      expect(r.logs.filter((l) => /could not be reached.*answered 502/.test(l))).toHaveLength(3);
      // Nothing is charged to anyone for an upstream that was not there.
      expect(r.violations).toEqual([]);
      const again = await startMockServer({ port });
      try {
        const done = await client.chat.completions.create({ model: MOCK_MODELS.small, messages: question });
        expect(done.choices[0]!.message.content).toBeTruthy();
      } finally {
        await again.close();
      }
    } finally {
      await r.close();
    }
  });

  test('an upstream that never answers: 502 upstream_timeout after the bound, and a line in the log', async () => {
    const target = await hangingTarget();
    const reportDir = mkdtempSync(path.join(os.tmpdir(), 'chatconform-proxy-'));
    const logs: string[] = [];
    const proxy = await startTrafficProxy({ upstream: target.url, port: 0, reportDir, upstreamTimeoutMs: 300, onViolation: () => {}, log: (l) => logs.push(l) });
    try {
      const res = await fetch(`${proxy.url}/v1/models`);
      expect(res.status).toBe(502);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('upstream_timeout');
      expect(logs.join('\n')).toMatch(/GET \/v1\/models: the upstream sent nothing for 300 ms; answered 502/);
    } finally {
      await proxy.stop();
      await target.close();
      rmSync(reportDir, { recursive: true, force: true });
    }
  });

  test('a malformed upstream answer passes through unchanged and is reported; bad client traffic never crashes the proxy', async () => {
    const garbage = '{"id": "x", "choices": [ {"message": '; // a 200 "JSON" answer cut in the middle
    const upstream = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(garbage);
      });
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const reportDir = mkdtempSync(path.join(os.tmpdir(), 'chatconform-proxy-'));
    const violations: Violation[] = [];
    const proxy = await startTrafficProxy({ upstream: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`, port: 0, reportDir, onViolation: (v) => violations.push(v), log: () => {} });
    try {
      const res = await fetch(`${proxy.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: 'Bearer sk-some-client-key-12345', 'content-type': 'application/json' }, body: JSON.stringify({ model: 'm', messages: question }) });
      expect(res.status).toBe(200);
      expect(await res.text()).toBe(garbage);
      await proxy.settled();
      expect(violations.some((v) => v.id === 'CHAT-004' && v.party === 'server')).toBe(true);
      expect(violations.map((v) => v.line).join('\n')).not.toContain('sk-some-client-key-12345');
      // Not JSON, not an object, a wrong method, an unknown path: forwarded and answered, the proxy still up.
      for (const body of ['not json', '[]', '{"model": 5, "messages": "x"}']) {
        const bad = await fetch(`${proxy.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
        expect(bad.status).toBe(200);
        await bad.text();
      }
      expect((await fetch(`${proxy.url}/elsewhere`)).status).toBe(200);
      // The absolute form a client sends to an HTTP proxy (HTTP_PROXY) reaches the same path upstream.
      const absolute = await new Promise<number>((resolve, reject) => {
        const req = http.request({ host: '127.0.0.1', port: proxy.port, method: 'GET', path: 'http://api.example.test/v1/models' }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on('error', reject);
        req.end();
      });
      expect(absolute).toBe(200);
      await proxy.settled();
      expect(proxy.traffic.outcomes.at(-1)?.title).toMatch(/ GET \/v1\/models → 200$/);
      expect(violations.some((v) => v.id === 'REQ-001' && v.party === 'client')).toBe(true);
      const { report } = await proxy.stop();
      expect(report.verdict.result).toBe('fail');
    } finally {
      await proxy.stop().catch(() => undefined);
      upstream.close();
      rmSync(reportDir, { recursive: true, force: true });
    }
  });
});

test('large bodies stream through whole; the checks read at most the 10 MB limit of each', async () => {
  const target = await giganticAnswersTarget(30_000_000);
  const reportDir = mkdtempSync(path.join(os.tmpdir(), 'chatconform-proxy-'));
  const seen: CapturedExchange[] = [];
  const proxy = await startTrafficProxy({ upstream: target.url, port: 0, reportDir, onViolation: () => {}, log: () => {}, onExchange: (x) => seen.push(x) });
  const mock = await startMockServer({ port: 0 });
  const toMock = await startTrafficProxy({ upstream: mock.url, port: 0, reportDir, onViolation: () => {}, log: () => {}, onExchange: (x) => seen.push(x) });
  try {
    // A 30 MB answer: the client gets every byte; the proxy keeps 10 MB of it for the checks, and judges nothing.
    const res = await fetch(`${proxy.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${MOCK_KEYS.full}`, 'content-type': 'application/json' }, body: JSON.stringify({ model: 'm', messages: question }) });
    expect((await res.arrayBuffer()).byteLength).toBe(30_000_000);
    await proxy.settled();
    expect(seen.length).toBe(1);
    expect(seen[0]!.responseBytes).toBe(30_000_000);
    expect(seen[0]!.responseBody.length).toBe(10_000_000);
    expect(proxy.traffic.outcomes[0]!.evidence!.checks.filter((c) => c.party === 'server')).toEqual([]);
    // A 12 MB request: streamed to the upstream (the mock refuses it, 413), its body never judged past the limit.
    const big = JSON.stringify({ model: MOCK_MODELS.small, messages: question, pad: 'x'.repeat(12_000_000) });
    const refused = await fetch(`${toMock.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${MOCK_KEYS.full}`, 'content-type': 'application/json' }, body: big });
    expect(refused.status).toBe(413);
    await refused.text();
    await toMock.settled();
    expect(seen.length).toBe(2);
    expect(seen[1]!.requestBody.length).toBeLessThanOrEqual(10_000_000);
    const checks = toMock.traffic.outcomes[0]!.evidence!.checks;
    expect(checks.filter((c) => c.party === 'client')).toEqual([]);
    expect(checks.filter((c) => c.status === 'fail')).toEqual([]);
  } finally {
    await proxy.stop();
    await toMock.stop();
    await mock.close();
    await target.close();
    rmSync(reportDir, { recursive: true, force: true });
  }
});

test('`npm run proxy`: prints its address, reports each violation, and writes the four reports on SIGTERM', async () => {
  const mock = await startMockServer({ port: 0, defect: 'catalog-null-optional' });
  const reportDir = mkdtempSync(path.join(os.tmpdir(), 'chatconform-proxy-cli-'));
  try {
    const proxy = await cli.start(['proxy', '--upstream', mock.url, '--port', '0', '--report-dir', reportDir]);
    const { url } = proxy;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    await (await fetch(`${url}/v1/models`)).text();
    // A generous bound against a hang: the judging worker loads the checks first (seconds on a loaded machine).
    await expect.poll(() => proxy.stdout(), { timeout: 30_000 }).toMatch(/^violation CAT-027 \(MUST, §2[.\d]*\) by the server: #1 GET \/v1\/models → 200: GET \/v1\/models: .*null.* \| replay: curl -sS -N -X GET 'http:\/\/127\.0\.0\.1:\d+\/v1\/models'/m);
    stop(proxy.child);
    expect(await proxy.exited).toBe(1);
    for (const f of ['conformance.json', 'junit.xml', 'conformance.html', 'badge.svg']) expect(existsSync(path.join(reportDir, f)), f).toBe(true);
    const report = JSON.parse(readFileSync(path.join(reportDir, 'conformance.json'), 'utf8')) as { verdict: { result: string; mustFailed: string[] } };
    expect(report.verdict.mustFailed).toEqual(['CAT-027']);
  } finally {
    cli.stopAll();
    await mock.close();
    rmSync(reportDir, { recursive: true, force: true });
  }
});

// Support for the reporter's own tests (tests/unit/report-*.spec.ts, tests/integration/reports-*.spec.ts):
// hand-made outcomes that exercise every rule of the aggregation, and a deliberately broken target. (The suite
// runs as a child through tests/integration/support/suite-runner.ts.)
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { startMockServer } from '../../mock/server.ts';
import { repoRoot } from '../../run/config.ts';
import type { Exchange } from '../../judge/exchange.ts';
import { buildReport, type ConformanceReport, type StopReason } from '../../report/json.ts';
import { requirements as catalog } from '../../spec/requirements/index.ts';
import { aggregate, targetRequirements, type TestOutcome } from '../../report/results.ts';
import type { RunInfo } from '../../report/run-info.ts';
import type { CheckRecord } from '../../judge/checker.ts';
import type { RecordedCase } from '../../report/fold.ts';

/** Every key of the mock's fixture keys: none may appear in any report file. */
export function mockKeys(): string[] {
  const data = JSON.parse(readFileSync(path.join(repoRoot, 'fixtures/mock/keys.json'), 'utf8')) as { keys: { key: string }[] };
  return data.keys.map((k) => k.key);
}

/** Target data a hostile server could send: markup that must render as text. */
export const HOSTILE_HTML = '<img src=x onerror="document.title=\'pwned\'"><script>document.title="pwned"</script><b>bold?</b>';

export const SAMPLE_SECRET = 'sk-sample-secret-0123456789';

function exchange(over: Partial<Exchange> = {}): Exchange {
  const method = over.method ?? 'GET';
  const url = over.url ?? 'http://127.0.0.1:9/v1/models';
  return {
    method,
    path: '/v1/models',
    url,
    requestHeaders: { accept: 'application/json', authorization: '***REDACTED***' },
    requestBytes: 0,
    status: 200,
    responseHeaders: { 'content-type': 'application/json' },
    responseBody: JSON.stringify({ object: 'list', data: [{ id: 'vendor/sample-model', name: null, description: HOSTILE_HTML }] }),
    responseBytes: 120,
    durationMs: 4,
    curl: `curl -sS -N -X ${method} '${url}' -H 'accept: application/json' -H "Authorization: Bearer $CONFORMANCE_API_KEY"${over.requestBody !== undefined ? ` --data-binary '${over.requestBody}'` : ''}`,
    ...over,
  };
}

/** Raw control bytes a target can send: BEL, NUL, an ANSI escape sequence, a C1 byte, a lone surrogate. */
export const CONTROL_BYTES = 'ding\u0007 nul\u0000 \u001b[31mred\u001b[0m c1\u0085 half\ud800';

/** A property test's replay curl: the key variable stands outside the quotes (suites/lib/properties/runner.ts). */
export const REPLAY_CURL = `curl -sS -N -X POST 'http://127.0.0.1:9/v1/chat/completions' -H 'content-type: application/json' -H "Authorization: Bearer "$CONFORMANCE_API_KEY --data-binary '{"model":"m","messages":[{"role":"user","content":"it's"}]}'`;

/**
 * Outcomes covering each rule: a MUST failure with its exchange (and a hostile body), a SHOULD warning,
 * observations, a skip, a crashed test (its unrecorded IDs are errors of the kit, never failures), a failed test
 * whose other IDs were not checked (skips), a timeout (errors), one deviation in two tests and two chunks (one
 * root cause) that leaves another ID unjudged, a property failure with its replay curl, a transport failure
 * after a retry, raw control bytes. Raw secrets are left in on purpose (the reporter must mask them).
 */
export function sampleOutcomes(): TestOutcome[] {
  const file = 'suites/catalog.spec.ts';
  return [
    {
      title: 'GET /v1/models › answers without a credential with the model list',
      file,
      line: 39,
      status: 'judged',
      error: 'Error: CAT-027 (MUST, §2.10) No field is null\n  GET /v1/models: /data/0/name must not be null',
      declared: ['CAT-027', 'CAT-031', 'CAT-032', 'CAT-038', 'VER-001'],
      durationMs: 40,
      evidence: {
        checks: [
          { id: 'VER-001', status: 'pass', exchange: 0 },
          { id: 'CAT-031', status: 'pass', exchange: 0 },
          { id: 'CAT-027', status: 'fail', exchange: 0, message: `GET /v1/models:\n/data/0/name: must not be null: expected a string (a field without a value is omitted, never null)\nsee ${HOSTILE_HTML}` },
          { id: 'CAT-038', status: 'warn', exchange: 0, message: 'GET /v1/models/vendor%2Fsample-model answered 404; an id with a reserved character is not found when percent-encoded' },
        ],
        exchanges: [exchange({ responseHeaders: { 'content-type': 'application/json', 'x-echo': `Bearer ${SAMPLE_SECRET}`, 'x-leak': SAMPLE_SECRET } })],
      },
    },
    {
      title: 'GET /v1/models › records what the catalog uses where the contract is silent',
      file,
      line: 55,
      status: 'judged',
      declared: ['OBS-003', 'OBS-004', 'CAT-005'],
      durationMs: 12,
      evidence: {
        checks: [
          { id: 'CAT-005', status: 'pass', exchange: 0 },
          { id: 'OBS-003', status: 'observed', observed: ['free', 'standard', 'pro', HOSTILE_HTML], message: 'min_tier values', exchange: 0 },
          { id: 'OBS-004', status: 'observed', observed: null, message: 'credit_tier values', exchange: 0 },
        ],
        exchanges: [exchange()],
      },
    },
    {
      title: 'GET /v1/models › a restricted key sees the models it may use',
      file,
      line: 72,
      status: 'skipped',
      skipReason: 'the profile names no restricted key (restrictedKey)',
      declared: ['CAT-034', 'AUTH-007'],
      durationMs: 1,
      evidence: {
        checks: [
          { id: 'CAT-034', status: 'skip', message: 'the profile names no restricted key (restrictedKey)' },
          { id: 'AUTH-007', status: 'skip', message: 'the profile names no restricted key (restrictedKey)' },
        ],
        exchanges: [],
      },
    },
    {
      title: 'chat › a completion with the run key',
      file: 'suites/chat.spec.ts',
      line: 20,
      status: 'unfinished',
      unfinished: 'kit-error',
      error: `TypeError: Cannot read properties of null (reading 'content') with key ${SAMPLE_SECRET}\n    at suites/chat.spec.ts:31:7`,
      declared: ['CHAT-001', 'CHAT-004', 'OBS-018'],
      durationMs: 30,
      evidence: {
        checks: [],
        exchanges: [exchange({ method: 'POST', path: '/v1/chat/completions', url: 'http://127.0.0.1:9/v1/chat/completions', requestBody: `{"model":"m","messages":[{"role":"user","content":"key ${SAMPLE_SECRET}"}]}`, responseBody: '{"choices":[{"message":null}]}' })],
      },
    },
    {
      title: 'streaming › the stream ends with [DONE]',
      file: 'suites/streaming.spec.ts',
      line: 10,
      status: 'unfinished',
      unfinished: 'timeout',
      error: 'Test timeout of 60000ms exceeded.',
      declared: ['STREAM-001'],
      durationMs: 60000,
    },
    {
      title: 'streaming › tool-call chunks',
      file: 'suites/streaming.spec.ts',
      line: 40,
      status: 'judged',
      error: 'Error: RESP-001 (MUST, §2) No field is null\n  chunk 0: /choices/0/finish_reason must not be null',
      declared: ['RESP-001', 'RESP-011', 'STREAM-003'],
      durationMs: 20,
      evidence: {
        checks: [
          { id: 'RESP-001', status: 'fail', exchange: 0, message: 'chunk 0: /choices/0/finish_reason must not be null' },
          { id: 'RESP-001', status: 'fail', exchange: 0, message: 'chunk 3: /choices/0/finish_reason must not be null' },
          { id: 'STREAM-003', status: 'pass', exchange: 0 },
          { id: 'RESP-011', status: 'skip', exchange: 0, message: 'no finish_reason to judge', cause: { id: 'RESP-001', exchange: 0, message: 'the chunks carry finish_reason null' } },
        ],
        exchanges: [exchange({ method: 'POST', path: '/v1/chat/completions', url: 'http://127.0.0.1:9/v1/chat/completions', requestBody: '{"stream":true}', responseHeaders: { 'content-type': 'text/event-stream' }, responseBody: `data: {"choices":[{"delta":{"content":"${CONTROL_BYTES}"},"finish_reason":null}]}\n\n` })],
      },
    },
    {
      title: 'streaming › search chunks',
      file: 'suites/streaming.spec.ts',
      line: 60,
      status: 'judged',
      error: 'Error: RESP-001 (MUST, §2) No field is null\n  chunk 12: /choices/0/finish_reason must not be null',
      declared: ['RESP-001', 'STREAM-002'],
      durationMs: 20,
      evidence: {
        checks: [
          { id: 'RESP-001', status: 'fail', exchange: 1, message: 'chunk 12: /choices/0/finish_reason must not be null' },
          { id: 'STREAM-002', status: 'error', exchange: 0, message: 'no response to judge', cause: { exchange: 0, message: 'socket hang up (reset after a retry on a fresh connection)' } },
        ],
        exchanges: [
          exchange({ method: 'POST', path: '/v1/chat/completions', url: 'http://127.0.0.1:9/v1/chat/completions', status: 0, responseHeaders: {}, responseBody: '', error: 'socket hang up', errorKind: 'reset', transportEvents: [{ kind: 'retried', message: 'reset before any response byte on a kept-alive connection; sent again on a fresh one' }] }),
          exchange({ method: 'POST', path: '/v1/chat/completions', url: 'http://127.0.0.1:9/v1/chat/completions', responseHeaders: { 'content-type': 'text/event-stream' }, responseBody: 'data: {"choices":[{"delta":{},"finish_reason":null}]}\n\n' }),
        ],
      },
    },
    {
      title: 'properties › max_completion_tokens caps every generated request',
      file: 'suites/properties.spec.ts',
      line: 80,
      status: 'judged',
      error: 'Error: REQ-010 (MUST, §2.1) max_completion_tokens caps',
      declared: ['REQ-010'],
      durationMs: 90,
      evidence: {
        checks: [{ id: 'REQ-010', status: 'fail', exchange: 0, message: `completion_tokens 9 exceeds the cap 3\n  replay the request: ${REPLAY_CURL}\n  replay the run: CONFORMANCE_SEED=1234 npm run conformance` }],
        exchanges: [exchange({ method: 'POST', path: '/v1/chat/completions', url: 'http://127.0.0.1:9/v1/chat/completions', requestBody: '{"model":"m"}', curl: REPLAY_CURL })],
      },
    },
    {
      title: 'kit › the catalog is sane',
      file: 'suites/kit.spec.ts',
      line: 5,
      status: 'judged',
      declared: ['CAT-001', 'CAT-002'],
      durationMs: 3,
      evidence: { checks: [{ id: 'CAT-001', status: 'pass' }, { id: 'CAT-001', status: 'pass' }], exchanges: [] },
    },
  ];
}

export function sampleInfo(over: Partial<RunInfo> = {}): RunInfo {
  return {
    kit: { name: 'chatconform', version: '0.1.0' },
    spec: {
      file: 'chat-completion-service.md',
      sha256: 'b'.repeat(64),
      catalogRecords: targetRequirements().length,
      requirements: targetRequirements().filter((r) => r.kind === 'requirement').length,
      observations: targetRequirements().filter((r) => r.kind === 'observation').length,
      kitOnly: catalog.filter((r) => r.check === 'mock-only').length,
    },
    target: { url: 'http://127.0.0.1:9', embeddedMock: false, profile: { name: 'sample', path: 'fixtures/profiles/sample.json' } },
    seed: 1234,
    fuzzRuns: 25,
    ledger: { requests: 17, cost: 0.0125, costedResponses: 3 },
    reportDir: '/nonexistent',
    secrets: [SAMPLE_SECRET],
    sectionTitles: new Map([
      ['1', 'What the service does'],
      ['2', 'Resources and their fields'],
      ['2.10', 'Model catalog entry'],
      ['4', 'Endpoints'],
      ['5', 'Authentication'],
      ['6', 'Events'],
    ]),
    problems: [],
    ...over,
  };
}

/** A whole report from the sample outcomes, built by exactly the code a run uses. */
export function sampleReport(stopReason: StopReason = 'completed', errors: string[] = []): ConformanceReport {
  const outcomes = sampleOutcomes();
  return buildReport({
    info: sampleInfo(),
    results: aggregate(outcomes),
    outcomes,
    startedAt: new Date('2025-06-01T12:00:00Z'),
    durationMs: 61234,
    stopReason,
    errors,
  });
}

export interface BrokenTarget {
  url: string;
  close(): Promise<void>;
}

/**
 * The reference mock behind a proxy that breaks GET /v1/models: the first entry's `name` is null (a MUST of
 * 2.10), its description is markup, and the description echoes the caller's credential back (a hostile
 * target: the reports must mask it). Everything else passes through unchanged.
 */
export async function startBrokenTarget(): Promise<BrokenTarget> {
  const mock = await startMockServer({ port: 0 });
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const headers: Record<string, string> = {};
        for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string' && k !== 'host' && k !== 'content-length') headers[k] = v;
        const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined;
        const upstream = await fetch(`${mock.url}${req.url}`, { method: req.method, headers, ...(body && req.method !== 'GET' && req.method !== 'HEAD' ? { body } : {}), redirect: 'manual' });
        let out = Buffer.from(await upstream.arrayBuffer());
        if (req.method === 'GET' && req.url === '/v1/models' && upstream.status === 200) {
          const list = JSON.parse(out.toString('utf8')) as { data: Record<string, unknown>[] };
          const key = (req.headers.authorization ?? '').replace(/^Bearer\s+/i, '');
          list.data[0]!.name = null;
          list.data[0]!.description = `${HOSTILE_HTML} your key: ${key || '(none)'}`;
          out = Buffer.from(JSON.stringify(list));
        }
        const resHeaders: Record<string, string> = {};
        upstream.headers.forEach((v, k) => {
          if (k !== 'content-length' && k !== 'content-encoding' && k !== 'transfer-encoding' && k !== 'connection') resHeaders[k] = v;
        });
        if (req.headers.authorization) resHeaders['x-echo-authorization'] = req.headers.authorization;
        res.writeHead(upstream.status, resHeaders);
        res.end(out);
      })().catch((err: unknown) => {
        res.writeHead(502, { 'content-type': 'text/plain' });
        res.end(String(err));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await mock.close();
    },
  };
}

/**
 * A case as a run records it (report/fold.ts), judged in `suites/x.spec.ts`: its checks, each finding with a message
 * naming its ID and status. The hand-made input of the fold, merge and plan tests.
 */
export function recordedCase(title: string, checks: Pick<CheckRecord, 'id' | 'status'>[], over: Partial<RecordedCase> = {}): RecordedCase {
  return {
    title,
    file: 'suites/x.spec.ts',
    line: 1,
    status: 'judged',
    declared: [...new Set(checks.map((c) => c.id))],
    durationMs: 1,
    evidence: { checks: checks.map((c) => ({ ...c, ...(c.status !== 'pass' ? { message: `${c.id} ${c.status}` } : {}) })), exchanges: [] },
    ...over,
  };
}

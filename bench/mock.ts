// `npm run bench`: requests/s and latency of the mock beside a bare node:http server answering the same bytes,
// for GET /v1/models, a non-streamed chat and a streamed chat. Both servers run in this process, one at a time,
// with autocannon as the load generator (also in this process), so the ratio is what matters.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import autocannon from 'autocannon';
import { startMockServer } from '../mock/server.ts';
import { MOCK_KEYS, MOCK_MODELS } from '../mock/keys-and-models.ts';

const DURATION_S = Number(process.env.BENCH_DURATION ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);

interface Scenario {
  name: string;
  method: 'GET' | 'POST';
  path: string;
  body?: string;
}

const headers = { authorization: `Bearer ${MOCK_KEYS.full}`, 'content-type': 'application/json' };
const messages = [{ role: 'user', content: 'Benchmark the mock with a short question about rivers and mountains.' }];
const scenarios: Scenario[] = [
  { name: 'GET /v1/models', method: 'GET', path: '/v1/models' },
  { name: 'chat (non-streamed)', method: 'POST', path: '/v1/chat/completions', body: JSON.stringify({ model: MOCK_MODELS.small, messages }) },
  { name: 'chat (streamed)', method: 'POST', path: '/v1/chat/completions', body: JSON.stringify({ model: MOCK_MODELS.small, messages, stream: true, stream_options: { include_usage: true } }) },
];

/** The mock's answer, as the bare server will replay it: status, headers, and the body as separate writes. */
interface Recorded {
  status: number;
  headers: Record<string, string>;
  writes: Buffer[];
}

async function record(base: string, s: Scenario): Promise<Recorded> {
  const res = await fetch(`${base}${s.path}`, { method: s.method, headers, body: s.body });
  const out: Record<string, string> = {};
  res.headers.forEach((v, k) => {
    if (k !== 'content-length' && k !== 'transfer-encoding' && k !== 'date' && k !== 'connection' && k !== 'keep-alive') out[k] = v;
  });
  const text = Buffer.from(await res.arrayBuffer()).toString('utf8');
  // One write per SSE event (as the mock writes them), one write for a JSON body.
  const writes = out['content-type']?.startsWith('text/event-stream')
    ? text.split(/(?<=\n\n)/).map((p) => Buffer.from(p))
    : [Buffer.from(text)];
  return { status: res.status, headers: out, writes };
}

async function startBare(recorded: Recorded): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    req.on('data', () => {});
    req.on('end', () => {
      res.writeHead(recorded.status, recorded.headers);
      for (const w of recorded.writes) res.write(w);
      res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}

interface Figures {
  rps: number;
  p50: number;
  p975: number;
  p99: number;
  errors: number;
  non2xx: number;
}

async function load(base: string, s: Scenario): Promise<Figures> {
  const r = await autocannon({
    url: `${base}${s.path}`,
    method: s.method,
    headers,
    body: s.body,
    connections: CONNECTIONS,
    duration: DURATION_S,
  });
  return { rps: r.requests.average, p50: r.latency.p50, p975: r.latency.p97_5, p99: r.latency.p99, errors: r.errors, non2xx: r.non2xx };
}

const fmt = (n: number, w = 9): string => n.toFixed(n >= 100 ? 0 : 2).padStart(w);

const mock = await startMockServer({ port: 0 });
const rows: string[] = [];
try {
  for (const s of scenarios) {
    const recorded = await record(mock.url, s);
    const bare = await startBare(recorded);
    try {
      const m = await load(mock.url, s);
      const b = await load(bare.url, s);
      const bytes = recorded.writes.reduce((n, w) => n + w.length, 0);
      rows.push(
        `${s.name.padEnd(22)}${'mock'.padEnd(6)}${fmt(m.rps)}${fmt(m.p50)}${fmt(m.p975)}${fmt(m.p99)}   errors ${m.errors}, non-2xx ${m.non2xx}`,
        `${''.padEnd(22)}${'bare'.padEnd(6)}${fmt(b.rps)}${fmt(b.p50)}${fmt(b.p975)}${fmt(b.p99)}   errors ${b.errors}, non-2xx ${b.non2xx}`,
        `${''.padEnd(22)}ratio mock/bare requests/s: ${(m.rps / b.rps).toFixed(3)} (${bytes} body bytes, ${recorded.writes.length} writes)`,
      );
    } finally {
      await bare.close();
    }
  }
} finally {
  await mock.close();
}
console.log(`node ${process.version}; ${CONNECTIONS} connections, ${DURATION_S} s per run; latency in ms`);
console.log(`${'scenario'.padEnd(22)}${'srv'.padEnd(6)}${'req/s'.padStart(9)}${'p50'.padStart(9)}${'p97.5'.padStart(9)}${'p99'.padStart(9)}`);
for (const r of rows) console.log(r);

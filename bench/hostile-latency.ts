// `npx tsx bench/hostile-latency.ts [--only shapes,parallel,replay] [--repo DIR] [--url http://127.0.0.1:P] [--max-mb 10]
// [--sizes 1000000,...] [--shapes a,b] [--parallel 40] [--parallel-bytes 9100000] [--replay-events 1000000]
// [--replay-requests 10]`: how long hostile or heavy requests hold the mock, run on demand; a prober sends
// GET /v1/models back to back on its own connection meanwhile, and its latency is the time another client waited.
// Three parts:
// - shapes (issue 31): each hostile request shape at a few sizes up to the body limit, one at a time: the request's
//   status and answer time, and the prober's worst latency while it was answered;
// - parallel: `--parallel` valid bodies of about `--parallel-bytes` each, sent at once: their statuses, the prober's
//   worst and median latency, and the mock's peak RSS (sampled every 100 ms);
// - replay: `chatconform mock --replay` of a recording of a stream of `--replay-events` events, `--replay-requests`
//   requests for it at once: the prober's worst and median latency, and the peak RSS.
// The target: no request holds other clients for more than 100 ms. Figures are printed, never asserted. Without
// --url it starts the mock (`chatconform mock --port 0`, through tsx) of this checkout, or of `--repo DIR` (another
// checkout, read only: the figures before a change), as a child process, and stops it at the end.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import { Worker } from 'node:worker_threads';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { MOCK_KEYS } from '../mock/keys-and-models.ts';
import { procStatus, servingPid } from './proc.ts';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1]! : fallback;
}
const GIVEN_URL = process.argv.includes('--url') ? arg('url', '') : undefined;
const REPO = path.resolve(arg('repo', fileURLToPath(new URL('../', import.meta.url))));
const PARTS = new Set(arg('only', 'shapes,parallel,replay').split(','));
const PARALLEL = Number(arg('parallel', '40'));
const PARALLEL_BYTES = Number(arg('parallel-bytes', '9100000'));
const REPLAY_EVENTS = Number(arg('replay-events', '1000000'));
const REPLAY_REQUESTS = Number(arg('replay-requests', '10'));
const MAX_BYTES = Number(arg('max-mb', '10')) * 1_000_000 - 64 * 1024;
const ONLY = process.argv.includes('--shapes') ? new Set(arg('shapes', '').split(',')) : undefined;
/** A request still unanswered after this is reported as a hang, and the run moves on. */
const HANG_MS = 300_000;
const TARGET_MS = 100;

/** A request shape: a body of about `bytes` bytes. */
interface Shape {
  name: string;
  make(bytes: number): string;
}

/** `n` copies of `item` joined by commas, n chosen so the whole is about `bytes`. */
const repeat = (item: string, bytes: number): string => Array.from({ length: Math.max(1, Math.floor(bytes / (item.length + 1))) }, () => item).join(',');
const chat = (inner: string): string => `{"model":"mini-chat",${inner}}`;

const SHAPES: Shape[] = [
  { name: 'integers-in-messages', make: (b) => chat(`"messages":[${repeat('12345', b)}]`) },
  { name: 'nulls-in-messages', make: (b) => chat(`"messages":[${repeat('null', b)}]`) },
  { name: 'every-field-wrong', make: (b) => chat(`"messages":[${repeat('{"role":1,"content":1,"name":1,"tool_calls":1,"tool_call_id":1,"reasoning_content":1}', b)}]`) },
  { name: 'integers-in-tools', make: (b) => chat(`"messages":[{"role":"user","content":"x"}],"tools":[${repeat('7', b)}]`) },
  { name: 'integers-in-content-parts', make: (b) => chat(`"messages":[{"role":"user","content":[${repeat('7', b)}]}]`) },
  { name: 'integers-in-tool-calls', make: (b) => chat(`"messages":[{"role":"assistant","content":"","tool_calls":[${repeat('7', b)}]}]`) },
  { name: 'many-keys-no-role', make: (b) => chat(`"messages":[{${Array.from({ length: Math.floor(b / 12) }, (_, i) => `"k${i}":1`).join(',')}}]`) },
  { name: 'deep-nesting', make: (b) => chat(`"messages":[{"role":"user","content":"x"}],"x":${'['.repeat(Math.floor(b / 2))}${']'.repeat(Math.floor(b / 2))}`) },
  { name: 'long-string-bad-role', make: (b) => chat(`"messages":[{"role":"${'a'.repeat(b)}","content":5}]`) },
  // Valid but large: the completion is built for them (answered 200).
  { name: 'valid-many-messages', make: (b) => chat(`"messages":[${repeat('{"role":"user","content":"hello there"}', b)}]`) },
  { name: 'valid-many-tools-named', make: (b) => {
    const n = Math.floor(b / 60);
    const names = Array.from({ length: n }, (_, i) => `fn${i}`);
    return chat(`"messages":[{"role":"user","content":"${names.slice(0, 2000).join(' ')}"}],"tools":[${names.map((f) => `{"type":"function","function":{"name":"${f}"}}`).join(',')}]`);
  } },
  { name: 'valid-many-tool-results', make: (b) => {
    const n = Math.floor(b / 200);
    const calls = Array.from({ length: n }, (_, i) => `{"id":"c${i}","type":"function","function":{"name":"f","arguments":"{}"}}`).join(',');
    const results = Array.from({ length: n }, (_, i) => `{"role":"tool","tool_call_id":"c${i}","content":"r"}`).join(',');
    return chat(`"tools":[{"type":"function","function":{"name":"f"}}],"messages":[{"role":"assistant","content":"","tool_calls":[${calls}]},${results},{"role":"user","content":"x"}]`);
  } },
];

/** Body sizes tried for each shape (bytes): by default 1 MB, 5 MB and just under the 10 MB limit. */
const SIZES = process.argv.includes('--sizes') ? arg('sizes', '').split(',').map(Number) : [1_000_000, 5_000_000, MAX_BYTES];

/** One request on its own connection; resolves with status and milliseconds. */
function send(base: string, method: string, target: string, body?: string | Buffer, agent?: http.Agent): Promise<{ status: number; ms: number }> {
  const url = new URL(target, base);
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: url.hostname, port: url.port, method, path: url.pathname, agent: agent ?? false, headers: { authorization: `Bearer ${MOCK_KEYS.full}`, 'content-type': 'application/json', ...(body !== undefined ? { 'content-length': String(Buffer.byteLength(body)) } : {}) } },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - started }));
      },
    );
    req.setTimeout(HANG_MS, () => req.destroy(new Error('hang')));
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * The prober, on a thread of its own: GET /v1/models back to back on one kept-alive connection, each latency noted,
 * until told to stop. Its own event loop, so that what it measures is the mock's wait, not this process's (which
 * meanwhile sends hundreds of megabytes of bodies, or reads the answers).
 */
const PROBER = `
const { parentPort, workerData } = require('node:worker_threads');
const http = require('node:http');
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
const all = [];
let stop = false;
parentPort.on('message', () => (stop = true));
const once = () => new Promise((resolve, reject) => {
  const started = performance.now();
  const req = http.get(workerData.url + '/v1/models', { agent, headers: { authorization: workerData.auth } }, (res) => {
    res.resume();
    res.on('end', () => resolve(performance.now() - started));
  });
  req.on('error', reject);
});
(async () => {
  let failed = 0;
  while (!stop) {
    const started = performance.now();
    try {
      all.push(await once());
    } catch {
      // The connection was cut: the wait until then counts, and the next request opens another.
      all.push(performance.now() - started);
      failed++;
    }
  }
  agent.destroy();
  parentPort.postMessage({ all, failed });
})();
`;

interface ProbeFigures {
  worst: number;
  p50: number;
  count: number;
  /** requests whose connection was cut */
  failed: number;
}

/** Starts the prober; `stop` ends it and gives its worst and median latency. */
function probe(base: string): { stop(): Promise<ProbeFigures> } {
  const worker = new Worker(PROBER, { eval: true, workerData: { url: base, auth: `Bearer ${MOCK_KEYS.full}` } });
  const figures = new Promise<ProbeFigures>((resolve, reject) => {
    worker.once('message', ({ all, failed }: { all: number[]; failed: number }) => {
      all.sort((a, b) => a - b);
      resolve({ worst: all.at(-1) ?? NaN, p50: all[Math.floor(all.length / 2)] ?? NaN, count: all.length, failed });
      void worker.terminate();
    });
    worker.once('error', reject);
  });
  return {
    stop: () => {
      worker.postMessage('stop');
      return figures;
    },
  };
}

interface Mock {
  url: string;
  /** the process that serves (not its launcher: cli/mock-relaunch.ts), when this script started it */
  pid?: number;
  stop(): void;
}

/** The highest RSS of `pid` sampled every 100 ms until the returned function is called (MB; NaN without a pid). */
function sampleRss(pid: number | undefined): () => number {
  if (pid === undefined) return () => NaN;
  let peak = 0;
  const read = (): void => {
    try {
      peak = Math.max(peak, procStatus(pid, 'VmRSS'));
    } catch {
      // exited
    }
  };
  read();
  const timer = setInterval(read, 100);
  return () => {
    clearInterval(timer);
    read();
    return peak;
  };
}

async function startMock(extra: string[] = []): Promise<Mock> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'cli/main.ts', 'mock', '--port', '0', ...extra], { cwd: REPO, stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /mock listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`the mock exited (${code}) before listening: ${out}`)));
  });
  return { url, pid: servingPid(child.pid!), stop: () => child.kill('SIGTERM') };
}

const pad = (s: string, w: number): string => s.padEnd(w);
const num = (n: number, w = 8): string => (Number.isFinite(n) ? n.toFixed(0) : '-').padStart(w);

/** Warms the mock (compiles the validators, the first completion) and prints the prober's latency alone. */
async function warm(mock: Mock): Promise<void> {
  for (let i = 0; i < 20; i++) await send(mock.url, 'POST', '/v1/chat/completions', chat('"messages":[{"role":"user","content":"hi"}]'));
  const idle = probe(mock.url);
  await new Promise((r) => setTimeout(r, 1000));
  const f = await idle.stop();
  console.log(`mock ${mock.url} (${REPO}); GET /v1/models alone: worst ${f.worst.toFixed(1)} ms, median ${f.p50.toFixed(1)} ms over ${f.count} requests in 1 s`);
}

async function shapes(mock: Mock): Promise<void> {
  console.log(`${pad('shape', 28)} ${'bytes'.padStart(10)} status ${'answer ms'.padStart(10)} ${'worst GET /v1/models ms'.padStart(24)}  (target: ${TARGET_MS} ms)`);
  let worstOverall = 0;
  for (const shape of SHAPES) {
    if (ONLY && !ONLY.has(shape.name)) continue;
    for (const size of SIZES) {
      const body = shape.make(size);
      const bytes = Buffer.byteLength(body);
      if (bytes > MAX_BYTES + 64 * 1024) continue;
      const prober = probe(mock.url);
      let line: string;
      try {
        const { status, ms } = await send(mock.url, 'POST', '/v1/chat/completions', body);
        const { worst } = await prober.stop();
        worstOverall = Math.max(worstOverall, worst);
        line = `${String(status).padStart(6)} ${num(ms, 10)} ${num(worst, 24)}${worst > TARGET_MS ? '  over' : ''}`;
      } catch (err) {
        await prober.stop().catch(() => undefined);
        line = `  ${(err as Error).message}`;
      }
      console.log(`${pad(shape.name, 28)} ${String(bytes).padStart(10)} ${line}`);
    }
  }
  console.log(`worst GET /v1/models latency while a hostile request was answered: ${worstOverall.toFixed(0)} ms (target ${TARGET_MS} ms)`);
}

/** `n` requests sent at once, each on its own connection, while the prober runs; prints what they got and the prober's figures. */
async function atOnce(mock: Mock, label: string, n: number, request: () => Promise<{ status: number; ms: number }>): Promise<void> {
  const rss = sampleRss(mock.pid);
  const prober = probe(mock.url);
  const started = performance.now();
  // EPIPE: the mock answered (a refusal) and closed the connection (the bench sends Connection: close) before the
  // whole body was sent.
  const answers = await Promise.all(Array.from({ length: n }, () => request().catch((err: Error) => ({ status: /EPIPE|ECONNRESET/.test(err.message) ? 'closed before the body was sent' : err.message, ms: NaN }))));
  const wall = performance.now() - started;
  const p = await prober.stop();
  const peak = rss();
  const statuses = new Map<number | string, number>();
  for (const a of answers) statuses.set(a.status, (statuses.get(a.status) ?? 0) + 1);
  const times = answers.map((a) => a.ms).filter(Number.isFinite).sort((a, b) => a - b);
  console.log(`${label}: statuses ${[...statuses].map(([s, c]) => `${s} x${c}`).join(', ')}; all answered in ${wall.toFixed(0)} ms (slowest ${num(times.at(-1) ?? NaN, 0)} ms)`);
  console.log(`  GET /v1/models meanwhile: worst ${p.worst.toFixed(0)} ms, median ${p.p50.toFixed(1)} ms over ${p.count} requests${p.failed > 0 ? ` (${p.failed} cut)` : ''} (target ${TARGET_MS} ms); mock peak RSS ${Number.isFinite(peak) ? `${peak.toFixed(0)} MB` : '- (not started here)'}`);
}

async function parallel(mock: Mock): Promise<void> {
  const body = Buffer.from(SHAPES.find((x) => x.name === 'valid-many-messages')!.make(PARALLEL_BYTES));
  await atOnce(mock, `${PARALLEL} valid bodies of ${body.byteLength} bytes at once`, PARALLEL, () => send(mock.url, 'POST', '/v1/chat/completions', body));
}

/** A folder a replay serves: the catalog, and one completion streamed as `events` events. */
function recordingOf(events: number): { dir: string; request: string } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'chatconform-hostile-replay-'));
  const recordedAt = new Date(0).toISOString();
  const request = { model: 'mini-chat', messages: [{ role: 'user', content: 'a long stream' }], stream: true };
  const catalog = { object: 'list', data: [{ id: 'mini-chat', object: 'model', created: 0, owned_by: 'acme' }] };
  writeFileSync(path.join(dir, '000001-get-v1-models.json'), JSON.stringify({ format: 'chatconform-recording/1', recordedAt, request: { method: 'GET', path: '/v1/models', headers: {} }, response: { status: 200, headers: { 'content-type': 'application/json' }, body: catalog } }));
  // Small events: a million of them must fit in one recording file (RECORDING_FILE_LIMIT, 40 MB).
  const chunk = (i: number): string => `{"i":${i}}`;
  const lines = Array.from({ length: events }, (_, i) => JSON.stringify({ data: i === events - 1 ? '[DONE]' : chunk(i) }));
  const file = `{"format":"chatconform-recording/1","recordedAt":"${recordedAt}","request":${JSON.stringify({ method: 'POST', path: '/v1/chat/completions', headers: {}, body: request })},"response":{"status":200,"headers":{"content-type":"text/event-stream"},"complete":true,"events":[${lines.join(',')}]}}`;
  writeFileSync(path.join(dir, '000002-post-v1-chat-completions.json'), file);
  return { dir, request: JSON.stringify(request) };
}

async function replay(): Promise<void> {
  const { dir, request } = recordingOf(REPLAY_EVENTS);
  const started = performance.now();
  const mock = await startMock(['--replay', dir]);
  try {
    console.log(`replay of a ${REPLAY_EVENTS}-event stream: the mock listened after ${(performance.now() - started).toFixed(0)} ms`);
    await atOnce(mock, `${REPLAY_REQUESTS} requests for it at once`, REPLAY_REQUESTS, () => send(mock.url, 'POST', '/v1/chat/completions', request));
  } finally {
    mock.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  if (PARTS.has('shapes') || PARTS.has('parallel')) {
    const mock = GIVEN_URL !== undefined ? { url: GIVEN_URL, stop: () => {} } : await startMock();
    try {
      await warm(mock);
      if (PARTS.has('shapes')) await shapes(mock);
      if (PARTS.has('parallel')) await parallel(mock);
    } finally {
      mock.stop();
    }
  }
  // The replay needs a mock of its own (--replay); with --url it is left out.
  if (PARTS.has('replay') && GIVEN_URL === undefined) await replay();
}

await main();

// `npx tsx bench/hostile-latency.ts [--url http://127.0.0.1:P] [--max-mb 10] [--sizes 1000000,...] [--shapes a,b]`: how long hostile
// requests of up to 10 MB hold the mock (issue 31), run on demand. For each hostile request shape at a few sizes up
// to the body limit, it sends the request while a prober sends GET /v1/models back to back on its own connection,
// and prints the request's status and answer time and the worst GET /v1/models latency while it was being answered
// (the time another client waited). The target of issue 31: no request under 10 MB holds other clients for more
// than 100 ms. Figures are printed, never asserted. Without --url it starts the mock (`chatconform mock --port 0`,
// through tsx) as a child process and stops it at the end.
import { spawn } from 'node:child_process';
import http from 'node:http';
import { fileURLToPath } from 'node:url';
import { MOCK_KEYS } from '../mock/keys-and-models.ts';

const repoRoot = fileURLToPath(new URL('../', import.meta.url));

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1]! : fallback;
}
const GIVEN_URL = process.argv.includes('--url') ? arg('url', '') : undefined;
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
function send(base: string, method: string, path: string, body?: string, agent?: http.Agent): Promise<{ status: number; ms: number }> {
  const url = new URL(path, base);
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

/** GET /v1/models back to back on one kept-alive connection until `stop`; the worst latency seen. */
async function probe(base: string, stop: { done: boolean }): Promise<{ worst: number; count: number }> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  let worst = 0;
  let count = 0;
  while (!stop.done) {
    const { ms } = await send(base, 'GET', '/v1/models', undefined, agent);
    worst = Math.max(worst, ms);
    count++;
  }
  agent.destroy();
  return { worst, count };
}

async function startMock(): Promise<{ url: string; stop(): void }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'cli/main.ts', 'mock', '--port', '0'], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /mock listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`the mock exited (${code}) before listening: ${out}`)));
  });
  return { url, stop: () => child.kill('SIGTERM') };
}

const pad = (s: string, w: number): string => s.padEnd(w);
const num = (n: number, w = 8): string => (Number.isFinite(n) ? n.toFixed(0) : '-').padStart(w);

async function main(): Promise<void> {
  const mock = GIVEN_URL !== undefined ? { url: GIVEN_URL, stop: () => {} } : await startMock();
  try {
    // Warm up: compile the validators, the first completion.
    for (let i = 0; i < 20; i++) await send(mock.url, 'POST', '/v1/chat/completions', chat('"messages":[{"role":"user","content":"hi"}]'));
    const idle = { done: false };
    const idleRun = probe(mock.url, idle);
    await new Promise((r) => setTimeout(r, 1000));
    idle.done = true;
    const idleFigures = await idleRun;
    console.log(`mock ${mock.url}; GET /v1/models alone: worst ${idleFigures.worst.toFixed(1)} ms over ${idleFigures.count} requests in 1 s`);
    console.log(`${pad('shape', 28)} ${'bytes'.padStart(10)} status ${'answer ms'.padStart(10)} ${'worst GET /v1/models ms'.padStart(24)}  (target: ${TARGET_MS} ms)`);
    let worstOverall = 0;
    for (const shape of SHAPES) {
      if (ONLY && !ONLY.has(shape.name)) continue;
      for (const size of SIZES) {
        const body = shape.make(size);
        const bytes = Buffer.byteLength(body);
        if (bytes > MAX_BYTES + 64 * 1024) continue;
        const stop = { done: false };
        const prober = probe(mock.url, stop);
        let line: string;
        try {
          const { status, ms } = await send(mock.url, 'POST', '/v1/chat/completions', body);
          stop.done = true;
          const { worst } = await prober;
          worstOverall = Math.max(worstOverall, worst);
          line = `${String(status).padStart(6)} ${num(ms, 10)} ${num(worst, 24)}${worst > TARGET_MS ? '  over' : ''}`;
        } catch (err) {
          stop.done = true;
          await prober.catch(() => undefined);
          line = `  ${(err as Error).message}`;
        }
        console.log(`${pad(shape.name, 28)} ${String(bytes).padStart(10)} ${line}`);
      }
    }
    console.log(`worst GET /v1/models latency while a hostile request was answered: ${worstOverall.toFixed(0)} ms (target ${TARGET_MS} ms)`);
  } finally {
    mock.stop();
  }
}

await main();

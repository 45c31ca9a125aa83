// `npx tsx bench/fuzz-mock.ts --count 10000 --seed N [--concurrency 8] [--url http://127.0.0.1:P] [--no-cutoffs]`:
// fault injection against the mock, run on demand. A seeded generator of its own sends `count` requests over raw
// sockets: nested objects and arrays (deep ones too), hostile tool schemas, odd headers, broken framing (short and
// long Content-Length, bad chunking, pipelining, garbage) and random bytes. It prints the count per status, every
// 500, hang (no answer within 15 s) or crash, the mock's peak RSS, and the cut-off times of a slow-header client, a
// stalled body and a slow body under the default bounds. Without --url it starts the mock as a child process
// (`cli/mock-main.ts --port 0`) so that its RSS and a crash can be seen.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import { MOCK_KEYS, MOCK_MODELS } from '../mock/keys-and-models.ts';
import { prng } from '../mock/engine/tokens.ts';

const repoRoot = fileURLToPath(new URL('../', import.meta.url));
const HANG_MS = 15_000;

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1]! : fallback;
}
const COUNT = Number(arg('count', '10000'));
const SEED = Number(arg('seed', String(Date.now() % 2 ** 31)));
const CONCURRENCY = Number(arg('concurrency', '8'));
const GIVEN_URL = process.argv.includes('--url') ? arg('url', '') : undefined;
const CUTOFFS = !process.argv.includes('--no-cutoffs');

class Gen {
  constructor(readonly rnd: () => number) {}
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.rnd() * (hi - lo + 1));
  }
  pick<T>(xs: readonly T[]): T {
    return xs[Math.floor(this.rnd() * xs.length)]!;
  }
  chance(p: number): boolean {
    return this.rnd() < p;
  }
  string(): string {
    return this.pick([
      () => 'hi',
      () => '',
      () => 'x'.repeat(this.int(0, 5000)),
      () => '\u{1F600}中文\u0000\uD800',
      () => String.fromCharCode(...Array.from({ length: this.int(1, 40) }, () => this.int(0, 0xffff))),
      () => 'call f and g',
    ])();
  }
  scalar(): unknown {
    return this.pick([() => null, () => true, () => this.int(-1e9, 1e9), () => this.rnd() * 1e308, () => -0, () => this.string(), () => 1e21, () => 0.1])();
  }
  /** A random JSON value, nesting up to `depth`. */
  value(depth: number): unknown {
    if (depth <= 0 || this.chance(0.35)) return this.scalar();
    if (this.chance(0.5)) return Array.from({ length: this.int(0, 4) }, () => this.value(depth - 1));
    const o: Record<string, unknown> = {};
    for (let i = this.int(0, 4); i > 0; i--) o[this.pick(['a', 'type', 'function', 'name', '__proto__', 'content', 'role', this.string().slice(0, 8)])] = this.value(depth - 1);
    return o;
  }
  /** Text of a value nested `n` deep (built as text: JSON.stringify would recurse). */
  deepText(n: number): string {
    return this.chance(0.5) ? `${'{"a":'.repeat(n)}1${'}'.repeat(n)}` : `${'['.repeat(n)}1${']'.repeat(n)}`;
  }
  schema(depth: number): unknown {
    const leaf = (): Record<string, unknown> =>
      this.pick([
        () => ({ type: 'string', minLength: this.pick([0, 3, 5000, 1e9]) }),
        () => ({ type: 'array', minItems: this.pick([0, 2, 300, 1e8]), items: depth > 0 ? this.schema(depth - 1) : {} }),
        () => ({ type: 'integer', minimum: this.int(-10, 10), maximum: this.int(-10, 10), multipleOf: this.pick([1, 3, 7]) }),
        () => ({ enum: Array.from({ length: this.pick([0, 1, 3, 5000]) }, (_, i) => `m${i}`) }),
        () => ({ type: 'string', pattern: '^(a+)+$'.repeat(this.int(1, 100)) }),
        () => ({ anyOf: Array.from({ length: this.int(1, 8) }, () => (depth > 0 ? this.schema(depth - 1) : { type: 'null' })) }),
        () => ({ $ref: this.pick(['#', '#/$defs/n', '#/nope', 'http://x']) }),
        () => this.value(3),
      ])() as Record<string, unknown>;
    return leaf();
  }
  chatBody(): string {
    const base: Record<string, unknown> = { model: this.pick([MOCK_MODELS.mini, MOCK_MODELS.small, MOCK_MODELS.large, 'no-such', '']), messages: [{ role: 'user', content: 'hi' }] };
    const mutate = this.int(0, 9);
    if (mutate === 0) base[this.pick(['tool_choice', 'reasoning', 'messages', 'provider', 'web_search_options', 'stream_options'])] = this.value(this.int(1, 8));
    if (mutate === 1) {
      const field = this.pick(['tool_choice', 'reasoning', 'messages', 'tools']);
      return JSON.stringify(base).replace(/}$/, `,"${field}":${this.deepText(this.pick([10, 63, 64, 65, 500, 5000, 100_000]))}}`);
    }
    if (mutate === 2) {
      const hostile = { $defs: { n: { type: 'object', properties: { a: { $ref: '#/$defs/n' } }, required: ['a'] } }, $ref: '#/$defs/n' };
      base.tools = [{ type: 'function', function: { name: this.pick(['f', 'n'.repeat(33_000), '(x+)+$', '[']), parameters: this.chance(0.3) ? hostile : { type: 'object', properties: { v: this.schema(3) } } } }];
    }
    if (mutate === 3) base.messages = this.value(4);
    if (mutate === 4) base.stream = this.pick([true, false, 'yes', null]);
    if (mutate === 5) base.max_tokens = this.pick([-1, 0, 1, 1e12, 1.5, '5']);
    if (mutate === 6) base.tools = [{ type: 'function', function: { name: 'f', parameters: this.schema(4) } }];
    if (mutate === 7) return this.pick(['', '{', 'null', '[]', '"s"', '{"model":', '\u0000', JSON.stringify(base).slice(0, this.int(1, 40))]);
    if (mutate === 8) base.stream = true;
    return JSON.stringify(base);
  }
  headers(): string {
    const h: string[] = [];
    if (this.chance(0.9)) h.push(`Authorization: ${this.pick([`Bearer ${MOCK_KEYS.full}`, `Bearer ${MOCK_KEYS.restricted}`, 'Bearer nope', 'Basic x', ''])}`);
    if (this.chance(0.8)) h.push(`Content-Type: ${this.pick(['application/json', 'text/plain', 'application/json; charset=latin1', ''])}`);
    if (this.chance(0.1)) h.push(`Expect: ${this.pick(['100-continue', 'nothing', '', '200-ok'])}`);
    if (this.chance(0.1)) h.push(`x-mock-${this.pick(['status', 'fail-after', 'chunk-delay-ms', 'framing', 'write-delay-ms'])}: ${this.pick(['0', '503', '99999', 'crlf,bytewise', 'zz', '-1', '1'])}`);
    if (this.chance(0.05)) h.push(`X-Long: ${'v'.repeat(this.pick([100, 8000, 20_000]))}`);
    if (this.chance(0.05)) h.push(this.pick(['Bad Header: x', 'X-Ctl: a\u0001b', ': empty', 'Transfer-Encoding: gzip']));
    return h.map((l) => `${l}\r\n`).join('');
  }
}

interface Case {
  kind: string;
  bytes: Buffer;
  /** half-close after writing (the framing promises bytes that never come) */
  end?: boolean;
  /** answers expected when the framing is sound (1); otherwise unknown (0) */
  answers?: number;
}

function makeCase(g: Gen): Case {
  const path = g.pick(['/v1/chat/completions', '/v1/chat/completions', '/v1/models', `/v1/models/${g.pick(['acme%2Fchat-large', '%E0%A4%A', 'x'.repeat(3000)])}`, '/nope', '/v1/x']);
  const method = path === '/v1/chat/completions' ? g.pick(['POST', 'POST', 'POST', 'GET', 'PUT']) : g.pick(['GET', 'GET', 'POST', 'DELETE']);
  const body = Buffer.from(g.chatBody(), 'utf8');
  const head = (extra: string): string => `${method} ${path} HTTP/1.1\r\nHost: mock\r\n${g.headers()}${extra}\r\n`;
  const framing = g.int(0, 19);
  if (framing === 0) return { kind: 'short-content-length', bytes: Buffer.concat([Buffer.from(head(`Content-Length: ${Math.max(0, body.length - g.int(1, 20))}\r\n`)), body]) };
  if (framing === 1) return { kind: 'long-content-length', bytes: Buffer.concat([Buffer.from(head(`Content-Length: ${body.length + g.int(1, 100)}\r\n`)), body]), end: true };
  if (framing === 2) return { kind: 'chunked', bytes: Buffer.concat([Buffer.from(head('Transfer-Encoding: chunked\r\n')), Buffer.from(`${body.length.toString(16)}\r\n`), body, Buffer.from(g.pick(['\r\n0\r\n\r\n', '\r\nzz\r\n', '\r\n']))]), end: g.chance(0.5) };
  if (framing === 3) {
    const ok = Buffer.from(`GET /v1/models HTTP/1.1\r\nHost: mock\r\n\r\n`);
    return { kind: 'pipelined+garbage', bytes: Buffer.concat([ok, ok, Buffer.from(g.pick(['GARBAGE\r\n\r\n', '\u0000\u0001\u0002', 'GET / HTTP/9.9\r\n\r\n']))]) };
  }
  if (framing === 4) return { kind: 'random-bytes', bytes: Buffer.from(Array.from({ length: g.int(1, 300) }, () => g.int(0, 255))) };
  if (framing === 5) return { kind: 'duplicate-content-length', bytes: Buffer.concat([Buffer.from(head(`Content-Length: ${body.length}\r\nContent-Length: ${body.length + 1}\r\n`)), body]) };
  return { kind: 'body', bytes: Buffer.concat([Buffer.from(head(`Content-Length: ${body.length}\r\n`)), body]), answers: 1 };
}

/** Whether `text` holds a complete final (non-1xx) response, framed by Content-Length or ending a chunked body. */
function finalAnswerComplete(text: string): boolean {
  let at = 0;
  for (;;) {
    const start = text.indexOf('HTTP/1.1 ', at);
    const headEnd = text.indexOf('\r\n\r\n', start);
    if (start < 0 || headEnd < 0) return false;
    const head = text.slice(start, headEnd).toLowerCase();
    if (head.startsWith('http/1.1 1')) {
      at = headEnd + 4;
      continue;
    }
    const length = /\r\ncontent-length: *(\d+)/.exec(head);
    if (length) return text.length - (headEnd + 4) >= Number(length[1]);
    return /\r\ntransfer-encoding: *chunked/.test(head) ? text.endsWith('0\r\n\r\n') : false;
  }
}

interface Outcome {
  statuses: number[];
  hang: boolean;
}

/** Sends one case and collects the status of every response until the server closes or goes quiet. */
function send(port: number, c: Case): Promise<Outcome> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    let text = '';
    let settled = false;
    let quiet: ReturnType<typeof setTimeout> | undefined;
    const finish = (hang: boolean): void => {
      if (settled) return;
      settled = true;
      clearTimeout(hangTimer);
      clearTimeout(quiet);
      socket.destroy();
      const statuses = [...text.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => Number(m[1]));
      resolve({ statuses, hang: hang && statuses.length === 0 });
    };
    const hangTimer = setTimeout(() => finish(true), HANG_MS);
    socket.on('error', () => finish(false));
    socket.on('close', () => finish(false));
    socket.on('data', (d) => {
      text += d.toString('latin1');
      // One framed request, one final answer: settle as soon as it is complete. Otherwise (pipelining, broken
      // framing) settle once the answers stop coming or the server closes.
      if (c.answers === 1 && finalAnswerComplete(text)) return finish(false);
      clearTimeout(quiet);
      quiet = setTimeout(() => finish(false), 300);
    });
    socket.once('connect', () => {
      socket.write(c.bytes);
      if (c.end) socket.end();
    });
  });
}

interface Mock {
  url: string;
  pid?: number;
  child?: ChildProcess;
}

async function startMock(): Promise<Mock> {
  if (GIVEN_URL) return { url: GIVEN_URL };
  const child = spawn(process.execPath, ['--import', 'tsx', 'cli/mock-main.ts', '--port', '0'], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d) => {
      out += d;
      const m = /mock listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`the mock exited (${code})`)));
  });
  return { url, pid: child.pid!, child };
}

const peakRssMb = (pid: number): number => Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN) / 1024;

/** How long the default bounds take to cut a slow-header client, a stalled body and a body that drips for ever. */
async function cutoffs(port: number): Promise<Record<string, string>> {
  const timed = (name: string, first: string, drip?: string, every = 1000): Promise<[string, string]> =>
    new Promise((resolve) => {
      const t0 = performance.now();
      const socket = net.connect(port, '127.0.0.1', () => socket.write(first));
      let text = '';
      const timer = drip ? setInterval(() => socket.writable && socket.write(drip), every) : undefined;
      const giveUp = setTimeout(() => socket.destroy(), 90_000);
      socket.on('data', (d) => (text += d));
      socket.on('error', () => {});
      socket.on('close', () => {
        clearInterval(timer);
        clearTimeout(giveUp);
        resolve([name, `${((performance.now() - t0) / 1000).toFixed(1)} s, ${/HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 'no answer'}`]);
      });
    });
  const post = `POST /v1/chat/completions HTTP/1.1\r\nHost: mock\r\nAuthorization: Bearer ${MOCK_KEYS.full}\r\nContent-Type: application/json\r\n`;
  const results = await Promise.all([
    timed('slow headers (one header line a second)', 'GET /v1/models HTTP/1.1\r\nHost: mock\r\n', 'X-Slow: 1\r\n'),
    timed('stalled body (Content-Length 100, 9 bytes sent)', `${post}Content-Length: 100\r\n\r\n{"model":`),
    timed('slow body (a chunk every 5 s)', `${post}Transfer-Encoding: chunked\r\n\r\n1\r\n{\r\n`, '1\r\n \r\n', 5000),
  ]);
  return Object.fromEntries(results);
}

const mock = await startMock();
const port = Number(new URL(mock.url).port);
const g = new Gen(prng(SEED));
const cases = Array.from({ length: COUNT }, () => makeCase(g));
const byStatus = new Map<string, number>();
const byKind = new Map<string, Map<string, number>>();
const bad: string[] = [];
let hangs = 0;
let next = 0;
const t0 = performance.now();
await Promise.all(
  Array.from({ length: CONCURRENCY }, async () => {
    while (next < cases.length) {
      const i = next++;
      const c = cases[i]!;
      const o = await send(port, c);
      const key = o.hang ? 'hang' : o.statuses.length === 0 ? 'closed without answer' : o.statuses.join('+');
      if (o.hang) hangs++;
      if (o.statuses.includes(500)) bad.push(`case ${i} (${c.kind}): 500: ${c.bytes.toString('latin1').slice(0, 200)}`);
      byStatus.set(key, (byStatus.get(key) ?? 0) + 1);
      const k = byKind.get(c.kind) ?? new Map<string, number>();
      k.set(key, (k.get(key) ?? 0) + 1);
      byKind.set(c.kind, k);
    }
  }),
);
const seconds = (performance.now() - t0) / 1000;
const crashed = mock.child !== undefined && mock.child.exitCode !== null;
const alive = await fetch(`${mock.url}/v1/models`).then((r) => r.status, () => 0);

console.log(`fuzz-mock: ${COUNT} requests, seed ${SEED}, concurrency ${CONCURRENCY}, ${seconds.toFixed(1)} s`);
console.log('answers (statuses on one connection, in order):');
for (const [k, n] of [...byStatus].sort((a, b) => b[1] - a[1])) console.log(`  ${k.padEnd(28)} ${n}`);
console.log('by case kind:');
for (const [kind, m] of byKind) console.log(`  ${kind.padEnd(26)} ${[...m].sort((a, b) => b[1] - a[1]).map(([k, n]) => `${k}: ${n}`).join(', ')}`);
console.log(`500s: ${bad.length}   hangs (no answer in ${HANG_MS / 1000} s): ${hangs}   crashed: ${crashed ? 'yes' : 'no'}   GET /v1/models afterwards: ${alive}`);
for (const b of bad.slice(0, 10)) console.log(`  ${b}`);
if (CUTOFFS) {
  console.log('cut-off times under the default bounds (headers 10 s, body idle 10 s, body total 60 s):');
  for (const [name, result] of Object.entries(await cutoffs(port))) console.log(`  ${name.padEnd(48)} ${result}`);
}
if (mock.pid !== undefined) console.log(`peak RSS of the mock: ${peakRssMb(mock.pid).toFixed(0)} MB`);
mock.child?.kill('SIGTERM');
process.exitCode = bad.length > 0 || hangs > 0 || crashed || alive !== 200 ? 1 : 0;

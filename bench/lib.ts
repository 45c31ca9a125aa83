// What the bench's scripts share (bench/mock.ts, bench/ladder.ts): the bench's requests, its child servers
// (compiled JavaScript in their own processes, with their CPU time and memory read from /proc), the load generator
// (autocannon, in the calling process) and the rounds in which targets take turns.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import autocannon from 'autocannon';
import { MOCK_KEYS, MOCK_MODELS } from '../mock/keys-and-models.ts';
import { batches } from '../mock/transport/fast-writer.ts';
import type { RecordedAnswer } from './bare-server.ts';
import { ROOT } from './build.ts';
import { cpuMicros, openFds, procStatus, servingPid } from './proc.ts';

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
export const DURATION_S = Number(process.env.BENCH_DURATION ?? 4);
export const WARMUP_S = Number(process.env.BENCH_WARMUP ?? 2);

export interface Scenario {
  name: string;
  method: 'GET' | 'POST';
  path: string;
  body?: string;
  stream?: boolean;
}

export const headers = { authorization: `Bearer ${MOCK_KEYS.full}`, 'content-type': 'application/json' };
export const messages = [{ role: 'user', content: 'Benchmark the mock with a short question about rivers and mountains.' }];
export const scenarios: Scenario[] = [
  { name: 'GET /v1/models', method: 'GET', path: '/v1/models' },
  { name: 'chat', method: 'POST', path: '/v1/chat/completions', body: JSON.stringify({ model: MOCK_MODELS.small, messages }) },
  {
    name: 'chat, streamed',
    method: 'POST',
    path: '/v1/chat/completions',
    body: JSON.stringify({ model: MOCK_MODELS.small, messages, stream: true, stream_options: { include_usage: true } }),
    stream: true,
  },
];

/** The CPUs this process may run on (/proc/self/status, Cpus_allowed_list: "0-3,6"). */
function allowedCpus(): number[] {
  const list = /^Cpus_allowed_list:\s*(\S+)/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? '';
  return list.split(',').filter(Boolean).flatMap((part) => {
    const [a, b = a] = part.split('-').map(Number);
    return Array.from({ length: b! - a! + 1 }, (_, i) => a! + i);
  });
}

/**
 * The load generator on a CPU of its own, the servers on the others (BENCH_PIN=0: no pinning); this process, the
 * load generator, is pinned as the module loads, and every server `startChild` starts. Why: on two shared
 * vCPUs, with the load generator and the server scheduled on either, a target's rate swung up to 2x from one round
 * to the next; pinned, a target's CPU per request moves a few percent between rounds. Every target is pinned
 * alike, so no ratio favours one. Needs `taskset` (util-linux) and two CPUs; otherwise nothing is pinned.
 */
export const pinning = ((): { load: number; servers: string } | undefined => {
  if (process.env.BENCH_PIN === '0') return undefined;
  const cpus = allowedCpus();
  if (cpus.length < 2) return undefined;
  const pinned = spawnSync('taskset', ['-a', '-p', '-c', String(cpus[0]), String(process.pid)], { stdio: 'ignore' });
  if (pinned.status !== 0) return undefined;
  return { load: cpus[0]!, servers: cpus.slice(1).join(',') };
})();

/** How the run is pinned, for the report. */
export const pinLine = (): string =>
  pinning
    ? `pinned (taskset): the load generator on CPU ${pinning.load}, every server on CPU ${pinning.servers} (BENCH_PIN=0: not pinned)`
    : 'not pinned: the load generator and the servers share every CPU (BENCH_PIN=0, or no taskset, or one CPU)';

export interface Child {
  name: string;
  url: string;
  /** the process that serves */
  pid: number;
  /** the process started, when it only launched the one that serves (cli/mock-relaunch.ts) */
  launcherPid?: number;
  /** highest VmRSS seen by the sampler, MB */
  sampledPeakMb(): number;
  stop(): Promise<void>;
}

export { cpuMicros, openFds, procStatus, servingPid };

export async function freePort(): Promise<number> {
  const s = http.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

/** Starts a child; its URL from the line it prints, or from `url` once GET `ready` answers. */
export async function startChild(name: string, args: string[], opts: { printed?: RegExp; url?: string; ready?: string; env?: NodeJS.ProcessEnv }): Promise<Child> {
  // taskset execs node in the same process: the pid stays the server's.
  const [command, argv] = pinning ? ['taskset', ['-c', pinning.servers, process.execPath, ...args]] : [process.execPath, args];
  const child: ChildProcess = spawn(command, argv, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...opts.env } });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out = (out + d.toString()).slice(-4096)));
  child.stderr!.on('data', (d: Buffer) => (out = (out + d.toString()).slice(-4096)));
  const deadline = Date.now() + 20_000;
  let url: string | undefined;
  while (Date.now() < deadline && child.exitCode === null) {
    if (opts.printed) url = opts.printed.exec(out)?.[1];
    else if (opts.url && (await fetch(`${opts.url}${opts.ready ?? '/'}`).then((r) => r.ok, () => false))) url = opts.url;
    if (url) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  if (!url) {
    child.kill('SIGKILL');
    throw new Error(`${name} did not start: ${out}`);
  }
  // The process that serves: `chatconform mock` started without a young-generation cap runs itself again with one
  // (cli/mock-relaunch.ts) and waits; its RSS and CPU are the relaunched one's.
  const pid = servingPid(child.pid!);
  let peak = 0;
  const sampler = setInterval(() => {
    try {
      peak = Math.max(peak, procStatus(pid, 'VmRSS'));
    } catch {
      // exited
    }
  }, 100);
  return {
    name,
    url,
    pid,
    ...(pid !== child.pid ? { launcherPid: child.pid! } : {}),
    sampledPeakMb: () => peak,
    stop: async () => {
      clearInterval(sampler);
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      const t = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(t);
    },
  };
}

/** The mock's answer as the bare server replays it: the body as the writes the mock makes. */
export async function record(base: string, s: Scenario): Promise<RecordedAnswer> {
  const res = await fetch(`${base}${s.path}`, { method: s.method, headers, ...(s.body !== undefined ? { body: s.body } : {}) });
  const out: Record<string, string> = {};
  res.headers.forEach((v, k) => {
    if (!['content-length', 'transfer-encoding', 'date', 'connection', 'keep-alive'].includes(k)) out[k] = v;
  });
  const text = Buffer.from(await res.arrayBuffer()).toString('utf8');
  // The writes the mock makes: an unpaced stream goes out in batches of events (mock/transport/fast-writer.ts).
  const writes = s.stream ? batches(text.split(/(?<=\n\n)/)) : [text];
  return { key: `${s.method} ${s.path} ${s.body === undefined ? 0 : Buffer.byteLength(s.body)}`, status: res.status, headers: out, writes: writes.map((w) => Buffer.from(w).toString('base64')), chunked: s.stream === true };
}

export interface Figures {
  rps: number;
  p50: number;
  p99: number;
  /** CPU time of the server process per request, µs */
  cpu: number;
  non2xx: number;
  errors: number;
}

export async function load(target: Child, s: Scenario, seconds: number): Promise<Figures> {
  const base = target.url;
  const cpu0 = cpuMicros(target.pid);
  const r = await autocannon({
    url: `${base}${s.path}`,
    method: s.method,
    headers,
    ...(s.body !== undefined ? { body: s.body } : {}),
    connections: CONNECTIONS,
    duration: seconds,
  });
  const cpu = (cpuMicros(target.pid) - cpu0) / Math.max(1, r.requests.total);
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, cpu, non2xx: r.non2xx, errors: r.errors };
}

export const median = (xs: number[]): number => {
  const sorted = [...xs].sort((a, b) => a - b);
  const m = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[m]! : (sorted[m - 1]! + sorted[m]!) / 2;
};
/** The median of per-round ratios, with their range: `0.62x (0.55-0.70)`. */
export const ratio = (num: Figures[], den: Figures[]): string => {
  const rs = num.map((f, i) => f.rps / den[i]!.rps);
  return `${median(rs).toFixed(2)}x (${Math.min(...rs).toFixed(2)}-${Math.max(...rs).toFixed(2)})`;
};
export const fmt = (n: number, w = 9): string => (Number.isFinite(n) ? n.toFixed(n >= 100 ? 0 : 1) : '-').padStart(w);

/**
 * Each target's figures for one scenario: a warm-up each, then `count` rounds in which the targets take turns, in
 * a rotated order each round (no target always runs first, or right after another one).
 */
export async function rounds(targets: readonly Child[], s: Scenario, count: number): Promise<Map<string, Figures[]>> {
  const out = new Map<string, Figures[]>(targets.map((t) => [t.name, []]));
  for (const t of targets) await load(t, s, WARMUP_S);
  for (let round = 0; round < count; round++) {
    for (let k = 0; k < targets.length; k++) {
      const t = targets[(round + k) % targets.length]!;
      out.get(t.name)!.push(await load(t, s, DURATION_S));
    }
  }
  return out;
}

/** The autocannon line every report starts with. */
export const loadLine = (count: number): string =>
  `autocannon: ${CONNECTIONS} connections; per scenario ${WARMUP_S} s warm-up each, then ${count} rounds of ${DURATION_S} s with the targets taking turns; ` +
  'medians over the rounds; latency in ms; cpu = CPU time of the server process per request, µs; a ratio is the median of the per-round ratios (their range)';

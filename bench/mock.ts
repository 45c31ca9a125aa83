// `npm run bench`: requests/s and latency (p50, p99) of the mock for GET /v1/models, a non-streamed chat and a
// streamed chat, in one run beside
//   - a bare node:http server replaying the mock's own bytes (bench/bare-server.ts): the ceiling of node:http here,
//   - the bare server again, spending a fixed 10 and 25 µs of CPU on each request (BENCH_CEILING_US): the ratio a
//     server doing that much work per request can reach on this machine at best,
//   - @copilotkit/aimock (a devDependency), when it is installed: a peer mock serving the same requests;
// then 1,000 streams aborted by the client, with the mock's open file descriptors and RSS before and after.
// The targets take turns within each of ROUNDS short rounds (each round in a rotated order), and every figure is
// the median over the rounds; a ratio is the median of the ratios within each round, so a burst of load from
// other processes on a shared machine, which moves all the targets of one round alike, moves the ratio little
// (its spread over the rounds is printed beside it). Beside req/s, the CPU time (user + system) each server
// process spent per request (from /proc/PID/stat): it does not depend on how fast the load generator is.
// Every server is a child process running compiled JavaScript (bench/tsconfig.json -> bench/.out/, never tsx), so
// its RSS can be read from /proc/PID/status (VmRSS sampled, VmHWM = peak) and the load generator (autocannon, in
// this process) does not share its event loop. Figures are printed, never asserted: the machine decides them.
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { MOCK_KEYS, MOCK_MODELS } from '../mock/keys-and-models.ts';
import { MOCK_SEMI_SPACE_FLAG } from '../cli/mock-relaunch.ts';
import type { RecordedAnswer } from './bare-server.ts';
import { buildBench, OUT, ROOT } from './build.ts';
import {
  fmt,
  freePort,
  headers,
  loadLine,
  pinLine,
  median,
  messages,
  openFds,
  procStatus,
  ratio,
  record,
  rounds,
  scenarios,
  startChild,
  type Child,
} from './lib.ts';
const ABORTED_STREAMS = Number(process.env.BENCH_ABORTED_STREAMS ?? 1000);
/** Rounds per scenario, the targets taking turns in each; each figure is the median over the rounds (the machine is shared). */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
/**
 * Node flags of the mock's process, as installed: the binary's shebang (cli/main.ts) starts node with 8 MB
 * semi-spaces, so `chatconform mock` is one process (without the cap V8 grows the young generation to two 16 MB
 * semi-spaces under load: ~190 MB of RSS). BENCH_MOCK_FLAGS replaces them; an empty one (`BENCH_MOCK_FLAGS=' '`)
 * starts the mock with none, as `node dist/cli/main.js mock` would, and it relaunches itself with the cap
 * (cli/mock-relaunch.ts): the figures are then the relaunched process's, its launcher's RSS printed beside them.
 */
const MOCK_NODE_FLAGS = (process.env.BENCH_MOCK_FLAGS ?? MOCK_SEMI_SPACE_FLAG).split(' ').filter(Boolean);

/**
 * The machine's ceiling: the bare server again, spending this many µs of CPU on each request before it answers
 * (bench/bare-server.ts). Its ratio to the bare server is the most a server doing that much work per request can
 * reach here, whatever it is written in; on two shared vCPUs that is far from bare / (bare + work), since the load
 * generator shares them (bench/README.md). BENCH_CEILING_US= leaves these targets out.
 */
const CEILING_US = (process.env.BENCH_CEILING_US ?? '10,25').split(',').filter(Boolean).map(Number);

const AIMOCK_CLI = path.join(ROOT, 'node_modules/@copilotkit/aimock/dist/cli.js');
const AIMOCK_FIXTURES = path.join(ROOT, 'fixtures/third-party/aimock/fixtures.json');

/** `count` streamed requests, each dropped by the client after its first bytes; `concurrency` at a time. */
async function abortStreams(base: string, count: number, concurrency: number): Promise<number> {
  const body = JSON.stringify({ model: MOCK_MODELS.small, messages, stream: true });
  const url = new URL('/v1/chat/completions', base);
  let started = 0;
  let aborted = 0;
  const one = (): Promise<void> =>
    new Promise((resolve) => {
      const req = http.request(url, {
        method: 'POST',
        agent: false,
        // Each event waits 20 ms, so the stream is still open when the client goes away.
        headers: { ...headers, 'x-mock-chunk-delay-ms': '20', 'content-length': Buffer.byteLength(body) },
      });
      req.on('response', (res) => {
        res.once('data', () => {
          aborted++;
          req.destroy();
          resolve();
        });
        res.on('error', () => resolve());
      });
      req.on('error', () => resolve());
      req.end(body);
    });
  const worker = async (): Promise<void> => {
    while (started < count) {
      started++;
      await one();
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return aborted;
}

/** Width of the target column (bare+25us is the longest name). */
const TARGET_W = 11;

buildBench();
const recordedFile = path.join(os.tmpdir(), `chatconform-bench-${process.pid}.json`);
const mock = await startChild('mock', [...MOCK_NODE_FLAGS, path.join(OUT, 'cli/mock-main.js'), '--port', '0'], { printed: /mock listening on (http:\/\/\S+)/ });
const children: Child[] = [mock];
const lines: string[] = [];
try {
  const recorded: RecordedAnswer[] = [];
  for (const s of scenarios) recorded.push(await record(mock.url, s));
  writeFileSync(recordedFile, JSON.stringify(recorded));
  const bare = await startChild('bare', [path.join(OUT, 'bench/bare-server.js'), recordedFile], { printed: /bare listening on (http:\/\/\S+)/ });
  children.push(bare);
  const ceilings: Child[] = [];
  for (const us of CEILING_US) {
    ceilings.push(await startChild(`bare+${us}us`, [path.join(OUT, 'bench/bare-server.js'), recordedFile, String(us)], { printed: /listening on (http:\/\/\S+)/ }));
  }
  children.push(...ceilings);
  let aimock: Child | undefined;
  if (existsSync(AIMOCK_CLI)) {
    const port = await freePort();
    aimock = await startChild(
      'aimock',
      [AIMOCK_CLI, '--host', '127.0.0.1', '--port', String(port), '--fixtures', AIMOCK_FIXTURES, '--log-level', 'silent'],
      { url: `http://127.0.0.1:${port}`, ready: '/health', env: { AIMOCK_API_KEYS: MOCK_KEYS.full } },
    );
    children.push(aimock);
  }
  const targets = [mock, bare, ...ceilings, ...(aimock ? [aimock] : [])];

  lines.push(`mock: node ${[...MOCK_NODE_FLAGS, 'bench/.out/cli/mock-main.js'].join(' ')} (compiled by tsc -p bench/tsconfig.json)`);
  lines.push(`node ${process.version}, ${os.cpus().length} CPUs, load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')} at the start`);
  lines.push(loadLine(ROUNDS), pinLine());
  if (ceilings.length > 0) {
    lines.push(`bare+Nus: the bare server spending N µs of CPU on each request before answering (the machine's ceiling for a server doing that much work)`);
  }
  lines.push(`${'scenario'.padEnd(16)}${'target'.padEnd(TARGET_W)}${'req/s'.padStart(9)}${'p50'.padStart(7)}${'p99'.padStart(7)}${'cpu'.padStart(7)}   ${'vs bare'.padEnd(20)}vs aimock`);
  for (const s of scenarios) {
    const figures = await rounds(targets, s, ROUNDS);
    const b = figures.get('bare')!;
    const a = figures.get('aimock');
    for (const t of targets) {
      const fs = figures.get(t.name)!;
      const vsBare = t.name === 'bare' ? '' : ratio(fs, b);
      const vsAimock = t.name === 'mock' && a ? ratio(fs, a) : '';
      const non2xx = fs.reduce((n, f) => n + f.non2xx, 0);
      const errors = fs.reduce((n, f) => n + f.errors, 0);
      const bad = non2xx + errors > 0 ? `   (non-2xx ${non2xx}, errors ${errors})` : '';
      const m = (k: 'rps' | 'p50' | 'p99' | 'cpu'): number => median(fs.map((f) => f[k]));
      lines.push(
        `${(t === targets[0] ? s.name : '').padEnd(16)}${t.name.padEnd(TARGET_W)}${fmt(m('rps'))}${fmt(m('p50'), 7)}${fmt(m('p99'), 7)}${fmt(m('cpu'), 7)}   ${vsBare.padEnd(20)}${vsAimock}${bad}`,
      );
    }
  }
  for (const t of targets) {
    if (ceilings.includes(t)) continue;
    lines.push(`peak RSS of ${t.name.padEnd(6)} under that load: ${procStatus(t.pid, 'VmHWM').toFixed(0)} MB (VmHWM; highest sampled VmRSS ${t.sampledPeakMb().toFixed(0)} MB)`);
    if (t.launcherPid !== undefined) lines.push(`  and of its launcher (cli/mock-relaunch.ts), which only waits: ${procStatus(t.launcherPid, 'VmHWM').toFixed(0)} MB`);
  }

  // 1,000 streams dropped by the client: the mock's descriptors and memory must come back down.
  const fdsBefore = openFds(mock.pid);
  const rssBefore = procStatus(mock.pid, 'VmRSS');
  const t0 = Date.now();
  const aborted = await abortStreams(mock.url, ABORTED_STREAMS, 50);
  await new Promise((r) => setTimeout(r, 1500));
  const fdsAfter = openFds(mock.pid);
  const rssAfter = procStatus(mock.pid, 'VmRSS');
  const stillAnswers = (await fetch(`${mock.url}/v1/models`)).status;
  lines.push(
    `${aborted} of ${ABORTED_STREAMS} streams aborted by the client in ${((Date.now() - t0) / 1000).toFixed(1)} s: ` +
      `mock open fds ${fdsBefore} -> ${fdsAfter}, RSS ${rssBefore.toFixed(0)} -> ${rssAfter.toFixed(0)} MB, GET /v1/models then ${stillAnswers}`,
  );
} finally {
  for (const c of children) await c.stop();
  rmSync(recordedFile, { force: true });
}
for (const l of lines) console.log(l);

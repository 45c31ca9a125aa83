// `npx tsx bench/proxy-soak.ts [--seconds 75] [--concurrency 8]`: the validation proxy under a steady mix of
// traffic, run on demand (issue 31's closing figures). It starts the mock and the proxy in front of it as child
// processes (the installed binary's way: node with tsx), sends chat answers, streams, catalog reads, refused and
// malformed requests through the proxy on `concurrency` connections for `seconds`, and prints every 5 s and at the
// end: exchanges answered, statuses, the proxy's RSS (sampled every second; its plateau over the second half, its
// peak, VmHWM) and open file descriptors. Figures are printed, never asserted. A proxy that dies or stops
// answering is reported as such.
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { MOCK_KEYS } from '../mock/keys-and-models.ts';
import { openFds, procStatus, startChild } from './lib.ts';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1]! : fallback;
}
const SECONDS = Number(arg('seconds', '75'));
const CONCURRENCY = Number(arg('concurrency', '8'));

interface Kind {
  name: string;
  method: string;
  path: string;
  body?: string;
  key?: string | null;
}
const ask = (content: string, extra = ''): string => `{"model":"mini-chat","messages":[{"role":"user","content":"${content}"}]${extra}}`;
/** The mix, in turn: answers, streams, the catalog, refusals, malformed bodies, a large answer. */
const KINDS: Kind[] = [
  { name: 'chat', method: 'POST', path: '/v1/chat/completions', body: ask('Name three rivers.') },
  { name: 'stream', method: 'POST', path: '/v1/chat/completions', body: ask('Count to twenty.', ',"stream":true,"stream_options":{"include_usage":true}') },
  { name: 'models', method: 'GET', path: '/v1/models' },
  { name: 'model', method: 'GET', path: '/v1/models/mini-chat' },
  { name: 'no key', method: 'POST', path: '/v1/chat/completions', body: ask('hi'), key: null },
  { name: 'throwaway key', method: 'POST', path: '/v1/chat/completions', body: ask('hi'), key: 'sk-throwaway-' },
  { name: 'not JSON', method: 'POST', path: '/v1/chat/completions', body: '{"model":' },
  { name: 'long answer', method: 'POST', path: '/v1/chat/completions', body: ask('Write a long essay.', ',"max_tokens":4000,"stream":true') },
  { name: 'unknown path', method: 'GET', path: '/v1/nothing' },
];

function send(base: string, agent: http.Agent, kind: Kind, n: number): Promise<number> {
  const url = new URL(kind.path, base);
  const key = kind.key === undefined ? MOCK_KEYS.full : kind.key === null ? undefined : `${kind.key}${n}`;
  return new Promise((resolve) => {
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        method: kind.method,
        path: url.pathname,
        agent,
        headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), ...(kind.body !== undefined ? { 'content-type': 'application/json' } : {}) },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', () => resolve(-1));
      },
    );
    req.setTimeout(30_000, () => req.destroy(new Error('no answer in 30 s')));
    req.on('error', () => resolve(-1));
    req.end(kind.body);
  });
}

const work = mkdtempSync(path.join(tmpdir(), 'chatconform-soak-'));
const mock = await startChild('mock', ['--import', 'tsx', 'cli/main.ts', 'mock', '--port', '0'], { printed: /mock listening on (http:\/\/\S+)/ });
const proxy = await startChild('proxy', ['--import', 'tsx', 'cli/main.ts', 'proxy', '--upstream', mock.url, '--port', '0', '--report-dir', path.join(work, 'reports')], {
  printed: /proxy listening on (http:\/\/\S+)/,
});
const statuses = new Map<string, number>();
let exchanges = 0;
let stop = false;
const sample = (): { rss: number; fds: number } => ({ rss: procStatus(proxy.pid, 'VmRSS'), fds: openFds(proxy.pid) });
const first = sample();
let peakRss = first.rss;
let peakFds = first.fds;
/** RSS samples of the run's second half (MB): its plateau. */
const plateau: number[] = [];
console.log(`proxy ${proxy.url} in front of the mock ${mock.url}; ${CONCURRENCY} connections for ${SECONDS} s`);
console.log(`start: RSS ${first.rss.toFixed(1)} MB, ${first.fds} fds${proxy.launcherPid !== undefined ? ` (the proxy ran itself again with its heap flags, cli/mock-relaunch.ts: these are the relaunched process's figures)` : ''}`);
const started = performance.now();
let ticks = 0;
// Sampled every second (the peak), printed every 5 s.
const ticker = setInterval(() => {
  try {
    const s = sample();
    peakRss = Math.max(peakRss, s.rss);
    peakFds = Math.max(peakFds, s.fds);
    const elapsed = (performance.now() - started) / 1000;
    if (elapsed > SECONDS / 2) plateau.push(s.rss);
    if (++ticks % 5 === 0) console.log(`${elapsed.toFixed(0).padStart(4)} s: ${String(exchanges).padStart(7)} exchanges, RSS ${s.rss.toFixed(1)} MB, ${s.fds} fds`);
  } catch {
    console.log('the proxy is gone');
    stop = true;
  }
}, 1000);
await Promise.all(
  Array.from({ length: CONCURRENCY }, async (_, c) => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    for (let n = c; !stop && performance.now() - started < SECONDS * 1000; n += CONCURRENCY) {
      const kind = KINDS[n % KINDS.length]!;
      const status = await send(proxy.url, agent, kind, n);
      exchanges++;
      const k = `${kind.name} ${status === -1 ? 'no answer' : status}`;
      statuses.set(k, (statuses.get(k) ?? 0) + 1);
    }
    agent.destroy();
  }),
);
clearInterval(ticker);
const end = sample();
peakRss = Math.max(peakRss, end.rss);
console.log(`end after ${((performance.now() - started) / 1000).toFixed(0)} s: ${exchanges} exchanges (${(exchanges / SECONDS).toFixed(0)}/s)`);
const hwm = procStatus(proxy.pid, 'VmHWM');
const range = plateau.length > 0 ? `${Math.min(...plateau).toFixed(0)}-${Math.max(...plateau).toFixed(0)} MB` : 'n/a';
console.log(`proxy RSS: start ${first.rss.toFixed(1)} MB, plateau (second half) ${range}, peak ${peakRss.toFixed(1)} MB sampled, ${hwm.toFixed(1)} MB VmHWM, end ${end.rss.toFixed(1)} MB; fds: start ${first.fds}, peak ${peakFds}, end ${end.fds}`);
if (proxy.launcherPid !== undefined) console.log(`its launcher, which only waits: RSS ${procStatus(proxy.launcherPid, 'VmRSS').toFixed(1)} MB`);
console.log([...statuses].sort().map(([k, v]) => `  ${k}: ${v}`).join('\n'));
await proxy.stop();
await mock.stop();
rmSync(work, { recursive: true, force: true });

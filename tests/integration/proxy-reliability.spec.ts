// Issue 31: the validation proxy stays up and keeps its reports. An upstream answer HTTP cannot relay gives the
// client a 502 JSON error and the proxy serves on; a stop by a signal to the process group (Ctrl-C, a CI runner's
// cancel) under `npm run proxy` or the command itself leaves the reports of all the traffic, and a SIGKILL those
// of all but the last few seconds.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { MOCK_SEMI_SPACE_FLAG } from '../../cli/mock-relaunch.ts';
import { startTrafficProxy } from '../../proxy/index.ts';
import { chatconformCommand, CliProcesses, isKitEntry, npmRun, runProcess, stop } from './support/cli-process.ts';

const cli = new CliProcesses();
const npm = new CliProcesses(undefined, npmRun('proxy'));
test.afterAll(() => {
  cli.stopAll();
  npm.stopAll();
});

interface RawUpstream {
  url: string;
  close(): Promise<void>;
}

/** A TCP server that answers each request with the next of `statusLines` (then 200 OK), a small JSON body, and closes. */
async function rawUpstream(statusLines: string[]): Promise<RawUpstream> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    socket.once('data', () => {
      const body = '{"object":"list","data":[]}';
      socket.end(`${statusLines.shift() ?? 'HTTP/1.1 200 OK'}\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\nconnection: close\r\n\r\n${body}`, 'latin1');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

interface ErrorEnvelope {
  error: { type: string; code: string; message: string };
}

test('an upstream status line HTTP cannot relay (DEL or a control byte in the reason, a status below 100) gives 502 JSON; the proxy serves on and writes its report', async () => {
  const bad = ['HTTP/1.1 200 O\x7fK', 'HTTP/1.1 200 O\x01K', 'HTTP/1.1 099 Low', 'HTTP/1.1 000 None'];
  const upstream = await rawUpstream([...bad]);
  const reportDir = mkdtempSync(path.join(os.tmpdir(), 'chatconform-proxy-relay-'));
  try {
    const proxy = await cli.start(['proxy', '--upstream', upstream.url, '--port', '0', '--report-dir', reportDir]);
    for (const line of bad) {
      const res = await fetch(`${proxy.url}/v1/models`);
      expect(res.status, line).toBe(502);
      expect(res.headers.get('content-type')).toContain('application/json');
      const body = (await res.json()) as ErrorEnvelope;
      expect(body.error.type).toBe('upstream_error');
      expect(body.error.code).toBe('upstream_invalid_response');
      expect(typeof body.error.message).toBe('string');
    }
    // Still up: the next answer is relayed as it came.
    const good = await fetch(`${proxy.url}/v1/models`);
    expect(good.status).toBe(200);
    expect(await good.json()).toEqual({ object: 'list', data: [] });
    expect(proxy.stderr()).toMatch(/cannot be relayed \("200 O\\x7fK": .*\); answered 502/);
    stop(proxy.child);
    await proxy.exited;
    // The report holds all five exchanges: the four the proxy could not relay and the one it did.
    const report = JSON.parse(readFileSync(path.join(reportDir, 'conformance.json'), 'utf8')) as { verdict: { selection: string }; run: { tests: { total: number } } };
    expect(report.verdict.selection).toContain(': 5 exchange(s)');
    expect(report.run.tests.total).toBe(5);
    for (const f of ['junit.xml', 'conformance.html', 'badge.svg']) expect(existsSync(path.join(reportDir, f)), f).toBe(true);
  } finally {
    cli.stopAll();
    await upstream.close();
    rmSync(reportDir, { recursive: true, force: true });
  }
});

/**
 * An upstream with a small catalog answer, and a chat answer that is an event stream of about `streamBytes` bytes
 * (thousands of events: judging it keeps the proxy busy for a while after the client has it all).
 */
async function streamingUpstream(streamBytes: number): Promise<RawUpstream> {
  const created = Math.floor(Date.now() / 1000);
  const event = (delta: object, finish: string | null) => `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  const word = event({ content: 'word ' }, null);
  const stream = [event({ role: 'assistant', content: '' }, null), word.repeat(Math.ceil(streamBytes / word.length)), event({}, 'stop'), 'data: [DONE]\n\n'].join('');
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.method === 'POST') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(stream);
      } else {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"object":"list","data":[]}');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Two catalog reads and one large streamed chat, each read whole by the client. */
async function threeExchanges(url: string): Promise<void> {
  for (let i = 0; i < 2; i++) await (await fetch(`${url}/v1/models`)).text();
  const res = await fetch(`${url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'm', stream: true, messages: [{ role: 'user', content: 'hi' }] }) });
  await res.text();
}

interface WrittenReport {
  verdict: { selection: string };
  run: { tests: { total: number } };
}

const written = (dir: string): WrittenReport | undefined => {
  try {
    return JSON.parse(readFileSync(path.join(dir, 'conformance.json'), 'utf8')) as WrittenReport;
  } catch {
    return undefined;
  }
};

// `npm run proxy` is `chatconform proxy`: its arguments follow the command's name.
for (const [how, processes, command, signal] of [
  ['npm run proxy', npm, [], 'SIGINT'],
  ['npm run proxy', npm, [], 'SIGTERM'],
  ['chatconform proxy', cli, ['proxy'], 'SIGINT'],
] as const) {
  test(`${how}, stopped by ${signal} to its process group: the reports hold every exchange`, async () => {
    const upstream = await streamingUpstream(1_000_000);
    const reportDir = mkdtempSync(path.join(os.tmpdir(), 'chatconform-proxy-stop-'));
    try {
      const proxy = await processes.start([...command, '--upstream', upstream.url, '--port', '0', '--report-dir', reportDir]);
      await threeExchanges(proxy.url);
      // At once, while the proxy still judges the large stream (its event loop busy): the moment a parent that
      // relays signals gives up on it and kills it.
      stop(proxy.child, signal);
      await proxy.exited;
      const report = written(reportDir);
      expect(report, `no conformance.json; stderr: ${proxy.stderr()}`).toBeDefined();
      expect(report!.verdict.selection).toContain(': 3 exchange(s)');
      expect(report!.run.tests.total).toBe(3);
      for (const f of ['junit.xml', 'conformance.html', 'badge.svg']) expect(existsSync(path.join(reportDir, f)), f).toBe(true);
    } finally {
      processes.stopAll();
      await upstream.close();
      rmSync(reportDir, { recursive: true, force: true });
    }
  });
}

test('the reports are rewritten while the proxy runs: a SIGKILL leaves those of the traffic before it', async () => {
  const upstream = await streamingUpstream(100_000);
  const reportDir = mkdtempSync(path.join(os.tmpdir(), 'chatconform-proxy-kill-'));
  try {
    const proxy = await cli.start(['proxy', '--upstream', upstream.url, '--port', '0', '--report-dir', reportDir]);
    await threeExchanges(proxy.url);
    // Within a few seconds (the bound here is only against a hang), without any stop.
    await expect.poll(() => written(reportDir)?.run.tests.total, { timeout: 30_000 }).toBe(3);
    stop(proxy.child, 'SIGKILL');
    expect(await proxy.exited).toBeNull();
    expect(written(reportDir)!.verdict.selection).toContain(': 3 exchange(s)');
    // Each file was replaced whole: no temporary folder is left beside them.
    expect(readdirSync(reportDir).sort()).toEqual(['badge.svg', 'conformance.html', 'conformance.json', 'junit.xml']);
  } finally {
    cli.stopAll();
    await upstream.close();
    rmSync(reportDir, { recursive: true, force: true });
  }
});

/** What the closing upstream saw. */
interface ClosingLog {
  connections: number;
  /** Each request as it arrived: its method, body, and whether it was answered. */
  requests: { method: string; body: string; answered: boolean }[];
}

/**
 * An upstream that answers the first request of each connection (kept alive: no `Connection: close`) and closes the
 * connection when a second one comes on it, unanswered: the race of a server closing an idle connection as the
 * next request arrives on it (RFC 9112 9.3.1), made certain. `headFirst`: it sends the status line of the second
 * answer before closing (so the answer had begun).
 */
async function closingUpstream(headFirst = false): Promise<RawUpstream & { log: ClosingLog }> {
  const log: ClosingLog = { connections: 0, requests: [] };
  const served = new WeakSet<net.Socket>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const entry = { method: req.method ?? '', body: Buffer.concat(chunks).toString(), answered: false };
      log.requests.push(entry);
      if (served.has(req.socket)) {
        if (headFirst) req.socket.write('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"ob');
        req.socket.destroy();
        return;
      }
      served.add(req.socket);
      entry.answered = true;
      const body = JSON.stringify({ object: 'list', data: [], echo: entry.body });
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) });
      res.end(body);
    });
  });
  server.on('connection', () => log.connections++);
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    log,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

test.describe('a kept-alive upstream connection closed under a request', () => {
  test('the request is sent once more on a new connection, its body whole: the client never sees the stale connection', async () => {
    const upstream = await closingUpstream();
    const reportDir = mkdtempSync(path.join(os.tmpdir(), 'chatconform-proxy-stale-'));
    const logs: string[] = [];
    const proxy = await startTrafficProxy({ upstream: upstream.url, port: 0, reportDir, onViolation: () => {}, log: (l) => logs.push(l) });
    try {
      const bodies: string[] = [];
      for (let i = 0; i < 4; i++) {
        const body = JSON.stringify({ model: 'm', n: i, pad: 'x'.repeat(i * 50_000) });
        const res = await fetch(`${proxy.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
        expect(res.status, await res.clone().text()).toBe(200);
        bodies.push(((await res.json()) as { echo: string }).echo);
        // Each answer is whole before the next request: the pooled connection is free, and is reused.
      }
      expect(bodies).toEqual([0, 1, 2, 3].map((i) => JSON.stringify({ model: 'm', n: i, pad: 'x'.repeat(i * 50_000) })));
      // Every request after the first came on a reused connection the upstream closed, then once more on a new one.
      const dropped = upstream.log.requests.filter((r) => !r.answered);
      expect(dropped.length).toBeGreaterThan(0);
      expect(upstream.log.requests.filter((r) => r.answered)).toHaveLength(4);
      expect(logs.filter((l) => /closed a kept-alive connection under the request .*sent again on a new one/.test(l))).toHaveLength(dropped.length);
    } finally {
      await proxy.stop();
      await upstream.close();
      rmSync(reportDir, { recursive: true, force: true });
    }
  });

  test('never a retry once the answer has begun: the client sees the cut', async () => {
    const upstream = await closingUpstream(true);
    const reportDir = mkdtempSync(path.join(os.tmpdir(), 'chatconform-proxy-stale-'));
    const proxy = await startTrafficProxy({ upstream: upstream.url, port: 0, reportDir, onViolation: () => {}, log: () => {} });
    try {
      expect((await fetch(`${proxy.url}/v1/models`)).status).toBe(200);
      const cut = await fetch(`${proxy.url}/v1/models`).then(
        async (res) => `${res.status} ${await res.text().then(() => 'whole', () => 'cut')}`,
        () => 'no answer',
      );
      expect(cut).toBe('200 cut');
      // Sent once: the upstream saw the second request one time.
      expect(upstream.log.requests.map((r) => r.answered)).toEqual([true, false]);
    } finally {
      await proxy.stop();
      await upstream.close();
      rmSync(reportDir, { recursive: true, force: true });
    }
  });
});

test('judging a large answer never holds up another client: its answer arrives whole while the large one is still being judged', async () => {
  const upstream = await streamingUpstream(5_000_000);
  const reportDir = mkdtempSync(path.join(os.tmpdir(), 'chatconform-proxy-judging-'));
  const judged: number[] = [];
  const proxy = await startTrafficProxy({ upstream: upstream.url, port: 0, reportDir, onViolation: () => {}, log: () => {}, onExchange: (x) => judged.push(x.seq) });
  try {
    // One small exchange judged first: the judging is up (its start is not what this tests).
    await (await fetch(`${proxy.url}/v1/models`)).text();
    await proxy.settled();
    expect(judged).toEqual([1]);
    // A 5 MB event stream: thousands of events to judge once the client has it all.
    const large = await fetch(`${proxy.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'm', stream: true, messages: [{ role: 'user', content: 'hi' }] }) });
    expect((await large.text()).length).toBeGreaterThan(5_000_000);
    // Another client, now: its answer comes whole before the large one's judgement is done. A proxy that judged
    // in its own thread would not even take this request before the judgement ended (#2 would be judged by now).
    const small = await fetch(`${proxy.url}/v1/models`);
    expect(await small.json()).toEqual({ object: 'list', data: [] });
    expect(judged).toEqual([1]);
    // Then both are judged, in the order they finished.
    await proxy.settled();
    expect(judged).toEqual([1, 2, 3]);
    expect(proxy.traffic.outcomes.map((o) => o.title)).toEqual(['#1 GET /v1/models → 200', '#2 POST /v1/chat/completions → 200', '#3 GET /v1/models → 200']);
  } finally {
    await proxy.stop();
    await upstream.close();
    rmSync(reportDir, { recursive: true, force: true });
  }
});

test('a port in use: one line, exit 3, at once, and no report written (the judging worker once kept the process up)', async () => {
  const busy = net.createServer();
  await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
  const port = (busy.address() as net.AddressInfo).port;
  const reportDir = path.join(mkdtempSync(path.join(os.tmpdir(), 'chatconform-proxy-busy-')), 'reports');
  try {
    const r = await runProcess(...chatconformCommand(['proxy', '--upstream', 'http://127.0.0.1:9', '--port', String(port), '--report-dir', reportDir]), { boundMs: 30_000 });
    expect(r.killed).toBe(false);
    expect(r.code).toBe(3);
    expect(r.stderr).toBe(`error: port ${port} is in use; pick another with --port (0 picks a free one)\n`);
    expect(existsSync(reportDir)).toBe(false);
  } finally {
    busy.close();
    rmSync(path.dirname(reportDir), { recursive: true, force: true });
  }
});

/** The command lines of a process and of every process below it (/proc). */
function commandLines(pid: number): string[][] {
  const lines: string[][] = [];
  const visit = (p: number): void => {
    try {
      lines.push(readFileSync(`/proc/${p}/cmdline`, 'utf8').split('\0').filter(Boolean));
      for (const c of readFileSync(`/proc/${p}/task/${p}/children`, 'utf8').trim().split(/\s+/).filter(Boolean)) visit(Number(c));
    } catch {
      // Gone meanwhile.
    }
  };
  visit(pid);
  return lines;
}

// The proxy's heap: its young generation capped as the mock's is (a soak's RSS peaked at 441 MB, now under 300 MB;
// bench/proxy-soak.ts). `npm run proxy` starts node with the cap; `chatconform proxy` started without it runs itself
// again with it (cli/mock-relaunch.ts).
for (const [how, processes, command] of [
  ['npm run proxy', npm, []],
  ['chatconform proxy', cli, ['proxy']],
] as const) {
  test(`${how} serves from a node started with the young-generation cap`, async () => {
    test.skip(process.platform !== 'linux', 'reads /proc');
    const reportDir = mkdtempSync(path.join(os.tmpdir(), 'chatconform-proxy-heap-'));
    try {
      const proxy = await processes.start([...command, '--upstream', 'http://127.0.0.1:9', '--port', '0', '--report-dir', reportDir]);
      const lines = commandLines(proxy.pid);
      const serving = lines.filter((argv) => argv.includes('proxy') && argv.some(isKitEntry));
      expect(serving.some((argv) => argv.includes(MOCK_SEMI_SPACE_FLAG)), JSON.stringify(lines)).toBe(true);
      await proxy.close();
    } finally {
      processes.stopAll();
      rmSync(reportDir, { recursive: true, force: true });
    }
  });
}

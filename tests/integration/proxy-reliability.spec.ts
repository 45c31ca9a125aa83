// Issue 31: the validation proxy stays up and keeps its reports. An upstream answer HTTP cannot relay gives the
// client a 502 JSON error and the proxy serves on.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { CliProcesses, stop } from './support/cli-process.ts';

const cli = new CliProcesses();
test.afterAll(() => cli.stopAll());

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

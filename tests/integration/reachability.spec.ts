// Issue 32, item 2: reachability first. `chatconform run` asks the target once before any test; a target that
// cannot be reached, or is not this API, ends the run within seconds with one line naming what happened, exit 3,
// and the four reports saying the same; `--wait-for-target` asks again until a late server answers.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { startMockServer } from '../../mock/server.ts';
import { closedPort, listen } from '../support/listen.ts';
import { chatconformCommand, runProcess } from './support/cli-process.ts';
import { forwarder } from './support/hostile-targets.ts';

const dirs: string[] = [];
test.afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** `chatconform run` with these arguments; its exit, its output and its reports. */
async function run(args: string[]): Promise<{ code: number | null; output: string; report: any; junit: string; html: string }> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'chatconform-reach-'));
  dirs.push(dir);
  const r = await runProcess(...chatconformCommand(['run', '--report-dir', dir, ...args]), { boundMs: 240_000 });
  return {
    code: r.code,
    output: r.output,
    report: JSON.parse(readFileSync(path.join(dir, 'conformance.json'), 'utf8')),
    junit: readFileSync(path.join(dir, 'junit.xml'), 'utf8'),
    html: readFileSync(path.join(dir, 'conformance.html'), 'utf8'),
  };
}

async function expectUnreachable(args: string[], line: RegExp): Promise<void> {
  const r = await run(args);
  expect(r.code, r.output).toBe(3);
  expect(r.output).toMatch(line);
  expect(r.output).not.toMatch(/\n\s+at /); // no stack trace
  // No test ran: the run ended at the one check.
  expect(r.report.run.tests.total, r.output).toBe(0);
  expect(r.report.verdict).toMatchObject({ result: 'incomplete', exitCode: 3, exitStatus: 'failed' });
  expect(r.report.verdict.summary).toMatch(line);
  expect(r.junit).toMatch(line);
  expect(r.html).toMatch(line);
}

test('a refused connection ends the run at once: one line naming it, exit 3, the reports say the same', async () => {
  test.setTimeout(300_000);
  const port = await closedPort();
  await expectUnreachable(['--base-url', `http://127.0.0.1:${port}`], new RegExp(`the target cannot be reached: connection refused at 127\\.0\\.0\\.1:${port}`));
});

test('a host name that does not resolve, and a server that answers with an HTML page, end the run likewise', async () => {
  test.setTimeout(300_000);
  await expectUnreachable(['--base-url', 'http://no-such-host.invalid'], /the target cannot be reached: the host name no-such-host\.invalid does not resolve \(DNS\)/);
  const page = await listen(http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>Welcome</title>')));
  try {
    await expectUnreachable(['--base-url', page.url], /the target cannot be reached: http:\/\/127\.0\.0\.1:\d+\/v1\/models answers HTTP 200 with an HTML page, not this API/);
  } finally {
    await page.close();
  }
});

test('--wait-for-target asks again until a server that is still starting answers, then the run goes on', async () => {
  test.setTimeout(300_000);
  // A server still starting: its first two answers are the front page of the gateway in front of it, then it
  // passes every request on to the mock.
  const mock = await startMockServer({ port: 0 });
  const forward = forwarder(new URL(mock.url), new http.Agent({ keepAlive: true }));
  let asked = 0;
  const starting = await listen(
    http.createServer((req, res) => {
      if (++asked <= 2) return void res.writeHead(503, { 'content-type': 'text/html' }).end('<html><body>Starting...</body></html>');
      forward(req, res);
    }),
  );
  try {
    const r = await run(['--base-url', starting.url, '--wait-for-target', '60', '--profile', 'mock', '--requirement', 'CAT-031']);
    expect(r.output).toMatch(/waiting up to 60 s for the target \(.*answers HTTP 503 with an HTML page, not this API/);
    expect(r.code, r.output).toBe(0);
    expect(r.report.verdict.exitCode).toBe(0);
    expect(r.report.run.tests.total).toBeGreaterThan(0);
    expect(asked).toBeGreaterThan(2);
  } finally {
    await starting.close();
    await mock.close();
  }
});

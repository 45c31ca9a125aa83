// Reachability first (issue 32, item 2; issue 50, point 4). `chatconform run` asks the target before any test; a
// target that cannot be reached, that is not this API (an HTML page) or that answers 404 everywhere ends the run
// within seconds with one line naming what happened and what to do, exit 3, no table and no report (a run started
// without `chatconform run`, through the global setup, still writes the reports: exit-codes.spec.ts);
// `--wait-for-target` asks again until a late server answers.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
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

/** `chatconform run` with these arguments; its exit, its output and its report, if it wrote one. */
async function run(args: string[]): Promise<{ code: number | null; output: string; stderr: string; report: any }> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'chatconform-reach-'));
  dirs.push(dir);
  const r = await runProcess(...chatconformCommand(['run', '--report-dir', path.join(dir, 'reports'), ...args]), { boundMs: 240_000 });
  const file = path.join(dir, 'reports', 'conformance.json');
  return { code: r.code, output: r.output, stderr: r.stderr, report: existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : undefined };
}

/** The run ends before any test: the one line, exit 3, no stack, no table, no report. */
async function expectOneLine(args: string[], line: RegExp): Promise<void> {
  const r = await run(args);
  expect(r.code, r.output).toBe(3);
  expect(r.stderr.trim().split('\n'), r.output).toEqual([expect.stringMatching(line)]);
  expect(r.output).not.toMatch(/\n\s+at /);
  expect(r.output).not.toMatch(/MUST|untested|chatconform conformance:/);
  expect(r.report, r.output).toBeUndefined();
}

test('a refused connection ends the run at once: one line naming it and the hint, exit 3', async () => {
  test.setTimeout(300_000);
  const port = await closedPort();
  await expectOneLine(['--base-url', `http://127.0.0.1:${port}`], new RegExp(`^error: the target cannot be reached: connection refused at 127\\.0\\.0\\.1:${port}: is the server running at http://127\\.0\\.0\\.1:${port}\\? for a server still starting, add --wait-for-target 60$`));
});

test('a host name that does not resolve, an HTML page and 404 everywhere end the run likewise, each in its words', async () => {
  test.setTimeout(300_000);
  await expectOneLine(['--base-url', 'http://no-such-host.invalid'], /^error: the target cannot be reached: the host name no-such-host\.invalid does not resolve \(DNS\): check the host of --base-url$/);
  const page = await listen(http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>Welcome</title>')));
  const nowhere = await listen(http.createServer((_req, res) => res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"no route"}}')));
  try {
    await expectOneLine(['--base-url', page.url], /^error: the target answers, but not as this API: http:\/\/127\.0\.0\.1:\d+\/v1\/models answers HTTP 200 with an HTML page: give the API's root as --base-url \(the kit adds \/v1 to every path\)$/);
    await expectOneLine(['--base-url', `${nowhere.url}/llm`], /^error: the target answers 404 to both http:\/\/127\.0\.0\.1:\d+\/llm\/v1\/models and http:\/\/127\.0\.0\.1:\d+\/llm\/v1\/chat\/completions: no API of this contract is there; give the API's root as --base-url/);
  } finally {
    await page.close();
    await nowhere.close();
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
    expect(r.output).toMatch(/waiting up to 60 s for the target \(http:\/\/127\.0\.0\.1:\d+\/v1\/models answers HTTP 503 with an HTML page\)/);
    expect(r.code, r.output).toBe(0);
    expect(r.report?.verdict.exitCode).toBe(0);
    expect(r.report.run.tests.total).toBeGreaterThan(0);
    expect(asked).toBeGreaterThan(2);
  } finally {
    await starting.close();
    await mock.close();
  }
});

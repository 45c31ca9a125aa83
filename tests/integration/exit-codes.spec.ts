// One exit-code rule for `npm run conformance` and `chatconform run` (issue 31): a target that never answers kept a
// CI gate green through `npm run conformance` (exit 0, INCOMPLETE) while `chatconform run` exited 3, and
// conformance.json said "exitStatus": "passed" (a field of version 1) beside "exitCode": 3. Both commands now exit 3 for a dead target
// (`chatconform run` in one line before any test, the suite's own run with the report saying so) and 0 for a live
// mock that passes, and the report's exit fields agree. An interrupt is exit 3 however the kit is started (issue 50,
// point 9): directly, through `npm run` (whose shell would die at Ctrl-C and make npm exit 130 without `exec`), and
// before the suite starts.
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { repoRoot } from '../../run/config.ts';
import { startMockServer, type RunningMockServer } from '../../mock/server.ts';
import { MOCK_KEYS } from '../../mock/keys-and-models.ts';
import { closedPort, listen } from '../support/listen.ts';
import { forwarder } from './support/hostile-targets.ts';
import { chatconformCommand } from './support/cli-process.ts';

interface Ran {
  code: number;
  output: string;
  report: { verdict: { result: string; exitCode: number; summary: string } };
}

const base = () => Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('CONFORMANCE_')));

/** Runs a command in the repository with a clean CONFORMANCE_* environment; returns its exit code and report, if any. */
function runIn(command: string, args: string[], env: Record<string, string>, reportDir: string): Promise<Ran & { stderr: string }> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd: repoRoot, env: { ...base(), ...env, CONFORMANCE_REPORT_DIR: reportDir }, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      const code = err ? ((err as { code?: number }).code ?? -1) : 0;
      const file = path.join(reportDir, 'conformance.json');
      const report = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Ran['report']) : undefined;
      resolve({ code: typeof code === 'number' ? code : -1, output: `${stdout}\n${stderr}`.slice(-3000), stderr, report: report! });
    });
  });
}

/**
 * Starts a command as a terminal starts a job (the leader of its own process group), waits until `ready()` holds
 * (polled), then sends SIGINT to the whole group, as Ctrl-C does; resolves with how it ended and what it printed.
 */
function interrupt(command: string, args: string[], env: Record<string, string>, ready: (output: string) => boolean): Promise<{ code: number | null; signal: NodeJS.Signals | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: repoRoot, env: { ...base(), ...env }, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const bound = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), 240_000);
    const poll = setInterval(() => {
      if (!ready(output)) return;
      clearInterval(poll);
      process.kill(-child.pid!, 'SIGINT');
    }, 100);
    const read = (d: Buffer) => void (output += d.toString('utf8'));
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    child.once('error', reject);
    child.once('close', (code, signal) => {
      clearTimeout(bound);
      clearInterval(poll);
      resolve({ code, signal, output: output.slice(-3000) });
    });
  });
}

/** The suite narrowed to one catalog requirement: enough to tell an answering target from a dead one. */
const SELECT = { CONFORMANCE_REQUIREMENTS: 'CAT-031', CONFORMANCE_REQUEST_TIMEOUT_MS: '2000', CONFORMANCE_API_KEY: MOCK_KEYS.full, CONFORMANCE_WORKERS: '1' };

function npmRunConformance(baseUrl: string, reportDir: string): ReturnType<typeof runIn> {
  return runIn('npm', ['run', '--silent', 'conformance'], { ...SELECT, CONFORMANCE_BASE_URL: baseUrl }, reportDir);
}

function chatconformRun(baseUrl: string, reportDir: string): ReturnType<typeof runIn> {
  return runIn(...chatconformCommand(['run', '--base-url', baseUrl]), SELECT, reportDir);
}

let scratch: string;
test.beforeAll(() => {
  scratch = mkdtempSync(path.join(os.tmpdir(), 'chatconform-exit-codes-'));
});
test.afterAll(() => rmSync(scratch, { recursive: true, force: true }));

test('a dead target: npm run conformance and chatconform run both exit 3; the suite\'s report says so, chatconform run says it in one line before any test', async () => {
  test.setTimeout(300_000);
  const url = `http://127.0.0.1:${await closedPort()}`;
  const suite = await npmRunConformance(url, path.join(scratch, 'dead-npm'));
  expect(suite.code, suite.output).toBe(3);
  expect(suite.report.verdict).toMatchObject({ exitCode: 3 });
  // The global setup's one check finds it (run/reachability.ts).
  expect(suite.report.verdict.summary).toMatch(/^the target cannot be reached: connection refused at 127\.0\.0\.1:\d+/);
  const cli = await chatconformRun(url, path.join(scratch, 'dead-chatconform'));
  expect(cli.code, cli.output).toBe(3);
  expect(cli.stderr.trim()).toMatch(/^error: the target cannot be reached: connection refused at 127\.0\.0\.1:\d+: is the server running at .*--wait-for-target 60$/);
  expect(cli.report).toBeUndefined();
});

test('a live mock: npm run conformance and chatconform run both exit 0, as the report says', async () => {
  test.setTimeout(300_000);
  let mock: RunningMockServer | undefined;
  try {
    mock = await startMockServer({ host: '127.0.0.1', port: 0 });
    for (const [name, run] of [['npm run conformance', npmRunConformance], ['chatconform run', chatconformRun]] as const) {
      const r = await run(mock.url, path.join(scratch, `live-${name.split(' ')[0]}`));
      expect(r.code, `${name}\n${r.output}`).toBe(0);
      expect(r.report.verdict).toMatchObject({ exitCode: 0 });
    }
  } finally {
    await mock?.close();
  }
});

test('Ctrl-C is exit 3 however the suite is started: directly, through npm run conformance, and before the suite starts', async () => {
  test.setTimeout(600_000);
  const dir = path.join(scratch, 'interrupted');
  // The mock behind a counter: Ctrl-C once the tests are under way (discovery sends a few dozen requests first).
  const mock = await startMockServer({ host: '127.0.0.1', port: 0 });
  const forward = forwarder(new URL(mock.url), new http.Agent({ keepAlive: true }));
  let served = 0;
  const counted = await listen(http.createServer((req, res) => void (served++, forward(req, res))));
  try {
    const under = (start: number) => () => served >= start + 80;
    const target = { CONFORMANCE_BASE_URL: counted.url, CONFORMANCE_PROFILE: 'mock', CONFORMANCE_WORKERS: '1' };
    let start = served;
    const npm = await interrupt('npm', ['run', '--silent', 'conformance'], { ...target, CONFORMANCE_REPORT_DIR: `${dir}-npm` }, under(start));
    expect({ code: npm.code, signal: npm.signal }, npm.output).toEqual({ code: 3, signal: null });
    start = served;
    const direct = await interrupt(...chatconformCommand(['run']), { ...target, CONFORMANCE_REPORT_DIR: `${dir}-direct` }, under(start));
    expect({ code: direct.code, signal: direct.signal }, direct.output).toEqual({ code: 3, signal: null });
    for (const d of [`${dir}-npm`, `${dir}-direct`]) {
      const report = JSON.parse(readFileSync(path.join(d, 'conformance.json'), 'utf8'));
      expect(report.verdict.exitCode).toBe(3);
      expect(report.run.stopReason).toBe('interrupted');
    }
  } finally {
    await counted.close();
    await mock.close();
  }
  // While it waits for a target that is not there yet: nothing ran, one line, exit 3.
  const port = await closedPort();
  const waiting = await interrupt(...chatconformCommand(['run', '--base-url', `http://127.0.0.1:${port}`, '--wait-for-target', '120', '--report-dir', `${dir}-waiting`]), {}, (out) => /waiting up to 120 s for the target/.test(out));
  expect({ code: waiting.code, signal: waiting.signal }, waiting.output).toEqual({ code: 3, signal: null });
  expect(waiting.output).toMatch(/chatconform: interrupted \(SIGINT\) before the suite started; nothing was judged/);
});

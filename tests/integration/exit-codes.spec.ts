// One exit-code rule for `npm run conformance` and `chatconform run` (issue 31): a target that never answers kept a
// CI gate green through `npm run conformance` (exit 0, INCOMPLETE) while `chatconform run` exited 3, and
// conformance.json said "exitStatus": "passed" beside "exitCode": 3. Both commands now exit with the report's
// exitCode (3 for a dead target, 0 for a live mock that passes), and the report's exit fields agree with it.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { repoRoot } from '../../run/config.ts';
import { startMockServer, type RunningMockServer } from '../../mock/server.ts';
import { MOCK_KEYS } from '../../mock/keys-and-models.ts';
import { closedPort } from '../support/listen.ts';
import { chatconformCommand } from './support/cli-process.ts';

interface Ran {
  code: number;
  output: string;
  report: { verdict: { result: string; exitStatus: string; exitCode: number; summary: string } };
}

/** Runs a command in the repository with a clean CONFORMANCE_* environment; returns its exit code and report. */
function runIn(command: string, args: string[], env: Record<string, string>, reportDir: string): Promise<Ran> {
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('CONFORMANCE_')));
  return new Promise((resolve) => {
    execFile(command, args, { cwd: repoRoot, env: { ...base, ...env, CONFORMANCE_REPORT_DIR: reportDir }, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      const code = err ? ((err as { code?: number }).code ?? -1) : 0;
      const report = JSON.parse(readFileSync(path.join(reportDir, 'conformance.json'), 'utf8')) as Ran['report'];
      resolve({ code: typeof code === 'number' ? code : -1, output: `${stdout}\n${stderr}`.slice(-3000), report });
    });
  });
}

/** The suite narrowed to one catalog requirement: enough to tell an answering target from a dead one. */
const SELECT = { CONFORMANCE_REQUIREMENTS: 'CAT-031', CONFORMANCE_REQUEST_TIMEOUT_MS: '2000', CONFORMANCE_API_KEY: MOCK_KEYS.full, CONFORMANCE_WORKERS: '1' };

function npmRunConformance(baseUrl: string, reportDir: string): Promise<Ran> {
  return runIn('npm', ['run', '--silent', 'conformance'], { ...SELECT, CONFORMANCE_BASE_URL: baseUrl }, reportDir);
}

function chatconformRun(baseUrl: string, reportDir: string): Promise<Ran> {
  return runIn(...chatconformCommand(['run', '--base-url', baseUrl]), SELECT, reportDir);
}

let scratch: string;
test.beforeAll(() => {
  scratch = mkdtempSync(path.join(os.tmpdir(), 'chatconform-exit-codes-'));
});
test.afterAll(() => rmSync(scratch, { recursive: true, force: true }));

test('a dead target: npm run conformance and chatconform run both exit 3, and the report says so', async () => {
  test.setTimeout(300_000);
  const url = `http://127.0.0.1:${await closedPort()}`;
  for (const [name, run] of [['npm run conformance', npmRunConformance], ['chatconform run', chatconformRun]] as const) {
    const r = await run(url, path.join(scratch, `dead-${name.split(' ')[0]}`));
    expect(r.code, `${name}\n${r.output}`).toBe(3);
    expect(r.report.verdict).toMatchObject({ exitCode: 3, exitStatus: 'failed' });
    // The one check before the tests finds it (run/reachability.ts).
    expect(r.report.verdict.summary).toMatch(/^the target cannot be reached: connection refused at 127\.0\.0\.1:\d+/);
  }
});

test('a live mock: npm run conformance and chatconform run both exit 0, as the report says', async () => {
  test.setTimeout(300_000);
  let mock: RunningMockServer | undefined;
  try {
    mock = await startMockServer({ host: '127.0.0.1', port: 0 });
    for (const [name, run] of [['npm run conformance', npmRunConformance], ['chatconform run', chatconformRun]] as const) {
      const r = await run(mock.url, path.join(scratch, `live-${name.split(' ')[0]}`));
      expect(r.code, `${name}\n${r.output}`).toBe(0);
      expect(r.report.verdict).toMatchObject({ exitCode: 0, exitStatus: 'passed' });
    }
  } finally {
    await mock?.close();
  }
});

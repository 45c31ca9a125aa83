// `chatconform client` end to end: the command spawned as a user runs it, on the Python reference adapter (standard
// library only: every scenario a pass, exit 0, the four reports; CI runs it, python3 is on its machine) and on a
// flawed client (its one failure: exit 1); bad command lines exit 2 before anything runs.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { SCENARIOS } from '../../client/scenarios.ts';
import { repoRoot } from '../../run/config.ts';
import { chatconformCommand } from './support/cli-process.ts';

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

function chatconformClient(args: string[]): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const [command, argv] = chatconformCommand(['client', ...args]);
    const child = spawn(command, argv, { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

let scratch: string;
test.beforeAll(() => {
  scratch = mkdtempSync(path.join(os.tmpdir(), 'chatconform-client-'));
});
test.afterAll(() => rmSync(scratch, { recursive: true, force: true }));

test('a client in a second language, Python with its standard library alone, passes every scenario: exit 0 and the four reports', async () => {
  test.setTimeout(180_000);
  const dir = path.join(scratch, 'python');
  const ran = await chatconformClient(['--report-dir', dir, '--', 'python3', 'examples/clients/stdlib.py']);
  expect(ran.code, ran.stdout + ran.stderr).toBe(0);
  for (const f of ['conformance.json', 'junit.xml', 'conformance.html', 'badge.svg']) expect(existsSync(path.join(dir, f)), f).toBe(true);
  const report = JSON.parse(readFileSync(path.join(dir, 'conformance.json'), 'utf8'));
  expect(report.subject).toEqual({ kind: 'client', command: 'python3 examples/clients/stdlib.py' });
  expect(report.verdict).toMatchObject({ result: 'pass', exitCode: 0, mustFailed: [] });
  expect(report.scenarios.filter((s: { status: string }) => s.status !== 'pass')).toEqual([]);
  expect(report.scenarios).toHaveLength(SCENARIOS.length);
  expect(ran.stdout).toContain('PASS');
});

test('a flawed client (ignores the in-stream error) fails STREAM-018 only: exit 1', async () => {
  test.setTimeout(120_000);
  const dir = path.join(scratch, 'flawed');
  const ran = await chatconformClient(['--scenario', 'stream-plain,stream-error', '--report-dir', dir, '--', 'node', 'tests/fixtures/clients/flawed.mjs', 'ignore-stream-error']);
  expect(ran.code, ran.stdout + ran.stderr).toBe(1);
  expect(ran.stdout).toMatch(/^fail +stream-error +STREAM-018 +an error event ended the stream/m);
  const report = JSON.parse(readFileSync(path.join(dir, 'conformance.json'), 'utf8'));
  expect(report.subject.command).toBe('node tests/fixtures/clients/flawed.mjs ignore-stream-error');
  expect(report.verdict).toMatchObject({ result: 'fail', exitCode: 1, mustFailed: ['STREAM-018'], selection: 'scenario stream-plain, stream-error' });
});

test('a wrong command line exits 2 with one line; a missing baseline exits 3', async () => {
  const none = await chatconformClient([]);
  expect([none.code, none.stderr]).toEqual([2, 'error: no client: give --command "node my-client.mjs" or -- node my-client.mjs\n']);
  const unknown = await chatconformClient(['--scenario', 'nope', '--command', 'true']);
  expect([unknown.code, unknown.stderr]).toEqual([2, 'error: --scenario: no scenario is called "nope" (chatconform client --list)\n']);
  const both = await chatconformClient(['--command', 'true', '--', 'node', 'x.mjs']);
  expect(both.code).toBe(2);
  const baseline = await chatconformClient(['--command', 'true', '--expected-failures', path.join(scratch, 'missing.yaml')]);
  expect(baseline.code).toBe(3);
  expect(baseline.stderr.trim().split('\n')).toHaveLength(1);
});

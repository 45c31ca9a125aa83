// A new user's setup mistakes, caught by `chatconform run` before any test, each in one line of
// run/setup-messages.ts with no report written: a base URL ending in /v1 (the openai SDK's habit), a --models
// selection of no model and a --model the catalog does not list (exit 2); no key, a wrong key and a report folder
// that cannot be written (exit 3). The config file in use is named; the run header names the key's source and its
// last 4 characters; a report folder that fails at the end still shows the verdict.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { startMockServer, type RunningMockServer } from '../../mock/server.ts';
import { MOCK_KEYS } from '../../mock/keys-and-models.ts';
import { repoRoot } from '../../run/config.ts';
import { chatconformCommand, runProcess } from './support/cli-process.ts';

let mock: RunningMockServer;
let dir: string;
test.beforeAll(async () => {
  mock = await startMockServer({ port: 0 });
  dir = mkdtempSync(path.join(os.tmpdir(), 'chatconform-first-'));
});
test.afterAll(async () => {
  await mock.close();
  rmSync(dir, { recursive: true, force: true });
});

/** This process's environment without any CONFORMANCE_* variable: a user's shell with none set. */
const clean = () => Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('CONFORMANCE_')));

async function run(args: string[], env: NodeJS.ProcessEnv = {}) {
  return runProcess(...chatconformCommand(['run', '--report-dir', path.join(dir, 'reports'), ...args]), { boundMs: 120_000, env: { ...clean(), ...env } });
}

/** The run stopped before any test with exactly this one line on stderr, this exit code, and no report. */
function stoppedWith(r: Awaited<ReturnType<typeof run>>, code: number, line: RegExp): void {
  expect(r.code, r.output).toBe(code);
  expect(r.stderr.trim().split('\n'), r.output).toEqual([expect.stringMatching(line)]);
  expect(existsSync(path.join(dir, 'reports', 'conformance.json'))).toBe(false);
}

test('--base-url ending in /v1: one line saying to drop /v1, exit 2, before any test', async () => {
  const r = await run(['--base-url', `${mock.url}/v1`]);
  expect(r.code, r.output).toBe(2);
  expect(r.stderr).toContain(`--base-url ${mock.url}/v1 ends in /v1, and ${mock.url}/v1/v1/models answers 404 while ${mock.url}/v1/models answers 200: the kit adds /v1 itself, so drop it (--base-url ${mock.url})`);
  expect(r.output).not.toMatch(/\n\s+at /);
  expect(existsSync(path.join(dir, 'reports', 'conformance.json'))).toBe(false);
});

test('--models matching no model of the catalog: exit 2 with one line; the config file in use is named', async () => {
  const config = path.join(dir, 'chatconform.config.json');
  writeFileSync(config, JSON.stringify({ seed: 7 }));
  const r = await run(['--base-url', mock.url, '--models', 'zzz/*'], { CONFORMANCE_CONFIG_FILE: config });
  expect(r.code, r.output).toBe(2);
  expect(r.stderr).toMatch(/--models zzz\/\*: no model of the catalog matches it, so there is no model to judge \(the catalog lists \d+ models\)/);
  expect(r.stderr).toContain(`chatconform: config file ${config}`);
  expect(existsSync(path.join(dir, 'reports', 'conformance.json'))).toBe(false);
});

test('no key, or a key the target refuses: one line naming the cause and the fix, exit 3, before any test', async () => {
  const none = await run(['--base-url', mock.url]);
  stoppedWith(none, 3, /^error: no key: POST http:\/\/127\.0\.0\.1:\d+\/v1\/chat\/completions answered 401 \(missing_api_key\) without one, so every test would fail on it: set CONFORMANCE_API_KEY \(or --api-key, or apiKeyEnv in the config file\)$/);
  const wrong = await run(['--base-url', mock.url], { CONFORMANCE_API_KEY: 'sk-not-a-mock-key-9876wxyz' });
  stoppedWith(wrong, 3, /^error: the run's key \$CONFORMANCE_API_KEY \(\.\.\.wxyz\) is refused: GET http:\/\/127\.0\.0\.1:\d+\/v1\/models answered 401 \(invalid_api_key\), so every test would fail on it: check that it is a valid key of this target$/);
  expect(wrong.output).not.toContain('sk-not-a-mock-key');
});

test('--model the catalog does not list: exit 2 before any test, as --models', async () => {
  const r = await run(['--base-url', mock.url, '--model', 'gpt-4o'], { CONFORMANCE_API_KEY: MOCK_KEYS.full });
  stoppedWith(r, 2, /^error: --model gpt-4o: the target's catalog \(GET \/v1\/models\) lists no such model; it lists \d+ models \(acme\/chat-large, [^)]*\): pin one of them, or leave --model out and the kit picks$/);
});

test('a report folder that cannot be written: one line before anything runs, exit 3', async () => {
  const file = path.join(dir, 'a-file');
  writeFileSync(file, '');
  const r = await runProcess(...chatconformCommand(['run', '--base-url', mock.url, '--report-dir', path.join(file, 'reports')]), { boundMs: 120_000, env: { ...clean(), CONFORMANCE_API_KEY: MOCK_KEYS.full } });
  expect(r.code, r.output).toBe(3);
  expect(r.stderr.trim()).toBe(`error: the report folder ${path.join(file, 'reports')} cannot be written (ENOTDIR: not a directory): give one this user can write with --report-dir; in a container, run as your own user (--user "$(id -u):$(id -g)")`);
});

test('the run header names the key by its source and last 4 characters; reports that cannot be written at the end still show the verdict', async () => {
  test.setTimeout(300_000);
  const r = await run(['--base-url', mock.url, '--requirement', 'CAT-031', '--workers', '1'], { CONFORMANCE_API_KEY: MOCK_KEYS.full });
  expect(r.code, r.output).toBe(0);
  expect(r.stderr).toMatch(/^chatconform: target http:\/\/127\.0\.0\.1:\d+; seed \d+ \(random\); no profile; key: \$CONFORMANCE_API_KEY \(\.\.\.cdef\); scratch /m);
  expect(r.output).not.toContain(MOCK_KEYS.full);
  // The suite run without `chatconform run` (no check before it): the folder fails only when the reports are written.
  const file = path.join(dir, 'another-file');
  writeFileSync(file, '');
  const late = await runProcess(process.execPath, [path.join(repoRoot, 'node_modules/@playwright/test/cli.js'), 'test', '-c', 'suites/conformance.config.ts'], {
    boundMs: 240_000,
    env: { ...clean(), CONFORMANCE_REQUIREMENTS: 'CAT-031', CONFORMANCE_WORKERS: '1', CONFORMANCE_REPORT_DIR: path.join(file, 'reports') },
  });
  expect(late.code, late.output).toBe(3);
  // The verdict (colours aside: the test runner's FORCE_COLOR reaches the child).
  expect(late.stdout.replace(/\u001b\[[0-9;]*m/g, '')).toMatch(/chatconform conformance: PARTIAL — /);
  expect(late.stderr).toMatch(/^chatconform: error: the reports could not be written to .*another-file\/reports: ENOTDIR/m);
  expect(late.output).not.toMatch(/\n\s+at /);
});

// A new user's setup mistakes, caught by `chatconform run` before any test: a base URL ending in /v1 (the openai
// SDK's habit) and a --models selection of no model each end in one line and exit 2 (usage) within seconds, with no
// report written; the config file in use is named.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { startMockServer, type RunningMockServer } from '../../mock/server.ts';
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

async function run(args: string[], env: NodeJS.ProcessEnv = {}) {
  return runProcess(...chatconformCommand(['run', '--report-dir', path.join(dir, 'reports'), ...args]), { boundMs: 120_000, env: { ...process.env, ...env } });
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

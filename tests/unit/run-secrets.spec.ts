// Issue 51, item 1: one set of secrets per run. Every report, attachment and log of a run of many targets is
// redacted with every target's key, profile secrets and headers, and the reference's, never one target's share: a
// target whose server echoes another target's key must not write that key into its own reports.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { OTHER_SECRETS_ENV, runSecrets } from '../../run/run-secrets.ts';
import { targetConfig, TARGETS_FILE_ENV } from '../../run/targets.ts';
import { unitRunConfig } from '../support/run-config.ts';

const folders: string[] = [];
test.afterAll(() => folders.forEach((f) => rmSync(f, { recursive: true, force: true })));

test("one target's secrets are every target's, the reference's and the run's own", () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'chatconform-run-secrets-'));
  folders.push(dir);
  const profile = path.join(dir, 'b.json');
  writeFileSync(profile, JSON.stringify({ apiKey: 'sk-b-profile-000000', secrets: ['b-listed-secret'], headers: { 'X-Gateway': 'b-gateway-value' } }));
  const targets = [
    { name: 'a', baseUrl: 'http://127.0.0.1:1', apiKeyEnv: 'A_KEY' },
    { name: 'b', baseUrl: 'http://127.0.0.1:2', apiKey: 'sk-b-file-0000000', profile },
    { name: 'c', baseUrl: 'http://127.0.0.1:3', apiKeyEnv: 'C_KEY', apiKey: 'sk-c-unused-00000' },
  ];
  const file = path.join(dir, 'targets.json');
  writeFileSync(file, JSON.stringify(targets));
  const env: NodeJS.ProcessEnv = { [TARGETS_FILE_ENV]: file, A_KEY: 'sk-a-env-00000000', C_KEY: 'sk-c-env-00000000', CONFORMANCE_REFERENCE_API_KEY: 'sk-reference-00000' };
  const run = unitRunConfig({ baseUrl: 'http://127.0.0.1:9', apiKey: 'sk-run-key-000000', folders });
  const a = targetConfig(run, targets[0]!, 0, env);
  const secrets = runSecrets(a, env);
  for (const s of ['sk-a-env-00000000', 'sk-b-file-0000000', 'sk-b-profile-000000', 'b-listed-secret', 'b-gateway-value', 'sk-c-env-00000000', 'sk-c-unused-00000', 'sk-reference-00000']) {
    expect(secrets, s).toContain(s);
  }
  // Longest first: a key that contains another is masked whole.
  expect([...secrets].sort((x, y) => y.length - x.length)).toEqual(secrets);
});

test("a reference run of its own (a process of its own) masks the target's credentials it is handed", () => {
  const run = unitRunConfig({ baseUrl: 'http://127.0.0.1:9', apiKey: 'sk-reference-own-0', folders });
  const secrets = runSecrets(run, { [OTHER_SECRETS_ENV]: 'sk-target-key-00000\nx-tenant-value-00' });
  expect(secrets).toEqual(expect.arrayContaining(['sk-reference-own-0', 'sk-target-key-00000', 'x-tenant-value-00']));
});

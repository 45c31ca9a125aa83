// Issue 51, item 1: one set of secrets per run. Every report, attachment and log of a run of many targets is
// redacted with every target's key, profile secrets and headers, and the reference's, never one target's share: a
// target whose server echoes another target's key must not write that key into its own reports.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { runSecrets } from '../../run/run-secrets.ts';
import { PLAN_ENV, PLAN_FILE, type RunPlan } from '../../run/plan.ts';
import { targetConfig, type RunTarget } from '../../run/targets.ts';
import { unitRunConfig } from '../support/run-config.ts';

const folders: string[] = [];
test.afterAll(() => folders.forEach((f) => rmSync(f, { recursive: true, force: true })));

/** A run's plan in a folder of its own (the targets come from the plan: a targets file's, or the reference pair). */
function planFile(dir: string, extra: Partial<RunPlan> & { settings?: RunPlan['settings'] }): string {
  const plan: RunPlan = { settings: {}, given: [], seed: 1, seedDrawn: false, embeddedMock: false, runDir: dir, keySource: 'none', ...extra };
  const file = path.join(dir, PLAN_FILE);
  writeFileSync(file, JSON.stringify(plan));
  return file;
}

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
  const env: NodeJS.ProcessEnv = { [PLAN_ENV]: planFile(dir, { targets: targets as RunTarget[] }), A_KEY: 'sk-a-env-00000000', C_KEY: 'sk-c-env-00000000', CONFORMANCE_REFERENCE_API_KEY: 'sk-reference-00000' };
  const run = unitRunConfig({ baseUrl: 'http://127.0.0.1:9', apiKey: 'sk-run-key-000000', folders });
  const a = targetConfig(run, targets[0]!, 0, env);
  const secrets = runSecrets(a, env);
  for (const s of ['sk-a-env-00000000', 'sk-b-file-0000000', 'sk-b-profile-000000', 'b-listed-secret', 'b-gateway-value', 'sk-c-env-00000000', 'sk-c-unused-00000', 'sk-reference-00000']) {
    expect(secrets, s).toContain(s);
  }
  // Longest first: a key that contains another is masked whole.
  expect([...secrets].sort((x, y) => y.length - x.length)).toEqual(secrets);
});

test("the target beside its reference (one run): the reference's key and the target's are both masked in each one's outputs", () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'chatconform-run-secrets-'));
  folders.push(dir);
  const env: NodeJS.ProcessEnv = {
    [PLAN_ENV]: planFile(dir, { settings: { reference: 'http://127.0.0.1:8' } }),
    CONFORMANCE_API_KEY: 'sk-target-key-00000',
    CONFORMANCE_REFERENCE_API_KEY: 'sk-reference-own-0',
  };
  const run = unitRunConfig({ baseUrl: 'http://127.0.0.1:9', apiKey: 'sk-target-key-00000', folders });
  expect(runSecrets(run, env)).toEqual(expect.arrayContaining(['sk-reference-own-0', 'sk-target-key-00000']));
});

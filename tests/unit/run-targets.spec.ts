// Many targets in one run (run/targets.ts): the targets file is checked before anything runs and kept in the plan,
// the reference is a target beside the run's own, and each target's tests see the run's settings with the target's
// own URL, key, profile, seed, scratch folder and reports folder.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { repoRoot } from '../../run/config.ts';
import { REFERENCE_PAIR, referencePair, targetConfig, targetRunsFile, targetsOf, targetsOfPlan, TARGETS_FILE_ENV, type RunTarget } from '../../run/targets.ts';
import { resolvePlan } from '../../run/plan.ts';
import { unitRunConfig } from '../support/run-config.ts';

const folders: string[] = [];
test.afterAll(() => folders.forEach((f) => rmSync(f, { recursive: true, force: true })));

function targetsFile(content: unknown): NodeJS.ProcessEnv {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'chatconform-targets-'));
  folders.push(dir);
  const file = path.join(dir, 'targets.json');
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return { [TARGETS_FILE_ENV]: file };
}

test('no targets file: a run of one target', () => {
  expect(targetsOf({})).toBeUndefined();
});

test('a targets file that is not a list of named targets with a URL is refused with what is wrong', () => {
  expect(() => targetsOf(targetsFile('{'))).toThrow(/cannot be read as JSON/);
  expect(() => targetsOf(targetsFile([]))).toThrow(/non-empty array/);
  expect(() => targetsOf(targetsFile([{ baseUrl: 'http://127.0.0.1:1' }]))).toThrow(/target 0 needs a name/);
  expect(() => targetsOf(targetsFile([{ name: 'a/../b', baseUrl: 'http://127.0.0.1:1' }]))).toThrow(/needs a name/);
  expect(() => targetsOf(targetsFile([{ name: 'a', baseUrl: 'http://127.0.0.1:1' }, { name: 'a', baseUrl: 'http://127.0.0.1:2' }]))).toThrow(/two targets are named a/);
  expect(() => targetsOf(targetsFile([{ name: 'a' }]))).toThrow(/target a needs a baseUrl/);
  expect(() => targetsOf(targetsFile([{ name: 'a', baseUrl: 'http://x', seed: 1.5 }]))).toThrow(/seed must be an integer/);
  expect(() => targetsOf(targetsFile([{ name: 'a', baseUrl: 'http://x', apiKeyEnv: 'not a variable' }]))).toThrow(/apiKeyEnv/);
  expect(targetsOf(targetsFile([{ name: 'a', baseUrl: 'http://x' }, { name: 'b.2', baseUrl: 'http://y', files: ['suites/chat.spec.ts'] }]))!.map((t) => t.name)).toEqual(['a', 'b.2']);
});

test('target names are plain folder names: ., .., a hidden name and a case twin are refused (issue 51, item 11)', () => {
  // `..` put a target's reports at the top of the report folder, where a one-target run's report is read.
  for (const name of ['.', '..', '...', '.hidden', 'a/b', 'a\\b', '', 'x'.repeat(101)]) {
    expect(() => targetsOf(targetsFile([{ name, baseUrl: 'http://127.0.0.1:1' }])), JSON.stringify(name)).toThrow(/needs a name of letters, digits, '\.', '_' or '-' that is a plain folder name/);
  }
  expect(() => targetsOf(targetsFile([{ name: 'Acme', baseUrl: 'http://x' }, { name: 'acme', baseUrl: 'http://y' }]))).toThrow(/two targets are named acme/);
  expect(targetsOf(targetsFile([{ name: 'a..b', baseUrl: 'http://x' }, { name: '-_1.0', baseUrl: 'http://y' }]))!.map((t) => t.name)).toEqual(['a..b', '-_1.0']);
});

test("a target's tests see its own URL, key (from its variable first), profile, seed, scratch and reports folders", () => {
  const run = unitRunConfig({ baseUrl: 'http://127.0.0.1:1', apiKey: 'sk-run-key-000000', folders }, { seed: 7, models: ['run/pinned'], profilePath: '/nowhere.json' });
  const profile = path.join(repoRoot, 'fixtures/profiles/mock.json');
  const t: RunTarget = { name: 'ref', baseUrl: 'http://127.0.0.1:2/prefix/', apiKey: 'sk-file-key-00000', apiKeyEnv: 'REF_KEY', profile, seed: 9 };
  const c = targetConfig(run, t, 3, { REF_KEY: 'sk-env-key-000000' });
  expect(c).toMatchObject({ baseUrl: 'http://127.0.0.1:2/prefix', apiKey: 'sk-env-key-000000', profilePath: profile, seed: 9, runDir: path.join(run.runDir, 'targets', '3'), reportDir: path.join(run.reportDir, 'targets', 'ref'), fuzzRuns: run.fuzzRuns });
  expect(c.profile.name).toBeTruthy();
  // The run's pinned models are the run's own: the target's come from its profile (the mock's pins none).
  expect(c.models).toBeUndefined();
  expect(targetConfig(run, { ...t, apiKeyEnv: undefined }, 0, {}).apiKey).toBe('sk-file-key-00000');
  // A black box: no profile, only the key it is given; the run's seed when it names none.
  const bare = targetConfig(run, { name: 'bb', baseUrl: 'http://127.0.0.1:3', apiKey: 'sk-bb-key-0000000' }, 1, {});
  expect(bare).toMatchObject({ apiKey: 'sk-bb-key-0000000', seed: 7, profile: {} });
  expect(bare.profilePath).toBeUndefined();
  // A built-in profile by its name, as CONFORMANCE_PROFILE takes it.
  expect(targetConfig(run, { name: 'm', baseUrl: 'http://127.0.0.1:4', profile: 'mock' }, 2, {}).profilePath).toBe(profile);
});

test('a target runs the spec files it names (either extension), every file when it names none', () => {
  const chat = path.join(repoRoot, 'suites/chat.spec.ts');
  expect(targetRunsFile({ name: 'a', baseUrl: 'x' }, chat, repoRoot)).toBe(true);
  expect(targetRunsFile({ name: 'a', baseUrl: 'x', files: ['suites/chat.spec.js'] }, chat, repoRoot)).toBe(true);
  expect(targetRunsFile({ name: 'a', baseUrl: 'x', files: ['./suites/chat.spec.ts'] }, chat, repoRoot)).toBe(true);
  expect(targetRunsFile({ name: 'a', baseUrl: 'x', files: ['suites/catalog.spec.ts'] }, chat, repoRoot)).toBe(false);
});

test("the plan holds the run's targets: a targets file's, read once, or the run's own beside its reference", () => {
  const profile = path.join(repoRoot, 'fixtures/profiles/mock.json');
  const file = targetsFile([{ name: 'a', baseUrl: 'http://127.0.0.1:1' }, { name: 'b', baseUrl: 'http://127.0.0.1:2' }]);
  const { plan } = resolvePlan({ ...file, CONFORMANCE_BASE_URL: 'http://127.0.0.1:3' }, { configFile: false, drawSeed: false });
  expect(plan.targets!.map((t) => t.name)).toEqual(['a', 'b']);
  // Read into the plan: the workers never read the file (nor a variable naming it).
  expect(targetsOfPlan(plan)).toBe(plan.targets);
  expect(targetsOfPlan(resolvePlan({ CONFORMANCE_BASE_URL: 'http://127.0.0.1:3' }, { configFile: false, drawSeed: false }).plan)).toBeUndefined();
  expect(() => resolvePlan({ ...file, CONFORMANCE_REFERENCE_URL: 'http://127.0.0.1:4' }, { configFile: false })).toThrow(/targets file/);
  expect(() => resolvePlan(targetsFile([{ name: 'a' }]), { configFile: false })).toThrow(/needs a baseUrl/);

  const env = { CONFORMANCE_BASE_URL: 'http://gateway.test', CONFORMANCE_HEADERS: 'X-Tenant: acme', CONFORMANCE_MAX_RPS: '2', CONFORMANCE_MODELS: 'gateway/model', CONFORMANCE_REFERENCE_URL: 'http://upstream.test', CONFORMANCE_REFERENCE_PROFILE: profile, CONFORMANCE_REFERENCE_MODEL: 'model', CONFORMANCE_REFERENCE_API_KEY: 'sk-upstream-key-0' };
  const paired = resolvePlan(env, { configFile: false, drawSeed: false }).plan;
  const targets = targetsOfPlan(paired)!;
  expect(targets.map((t) => t.name)).toEqual([REFERENCE_PAIR.reference, REFERENCE_PAIR.self]);
  expect(referencePair(targets)).toEqual({ reference: 0, self: 1 });
  // The reference's own key, profile and model, never the target's headers, throttle or pinned models.
  const run = unitRunConfig({ baseUrl: 'http://gateway.test', apiKey: 'sk-target-key-000', folders }, { headers: { 'x-tenant': 'acme' }, maxRps: 2, models: ['gateway/model'], seed: 7 });
  const ref = targetConfig(run, targets[0]!, 0, env);
  expect(ref).toMatchObject({ baseUrl: 'http://upstream.test', apiKey: 'sk-upstream-key-0', apiKeyVar: 'CONFORMANCE_REFERENCE_API_KEY', profilePath: profile, models: ['model'], seed: 7 });
  expect(ref.headers).toBeUndefined();
  expect(ref.maxRps).toBeUndefined();
  expect(targetConfig(run, targets[1]!, 1, env)).toBe(run);
});

// action.yml, the GitHub Action: its inputs and steps, and its shell steps run for real with a stand-in `npx`
// on PATH, as the runner would run them (bash -e, the step's env with its ${{ }} expressions filled in).
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { parse } from 'yaml';
import { repoRoot } from '../../run/config.ts';

interface Step {
  name?: string;
  id?: string;
  if?: string;
  uses?: string;
  shell?: string;
  run?: string;
  env?: Record<string, string>;
  with?: Record<string, string>;
}
interface Action {
  name: string;
  description: string;
  inputs: Record<string, { description: string; required?: boolean; default?: string }>;
  outputs: Record<string, { value: string }>;
  runs: { using: string; steps: Step[] };
}

const action = parse(readFileSync(path.join(repoRoot, 'action.yml'), 'utf8')) as Action;
const version = (JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { version: string }).version;
const step = (name: string) => {
  const s = action.runs.steps.find((x) => x.name === name);
  if (!s) throw new Error(`action.yml has no step "${name}"`);
  return s;
};

/** The runner's github context, as much of it as the action reads. */
const GITHUB: Record<string, string> = { run_id: '4242' };

/** ${{ inputs.x }} and ${{ steps.run.outputs.x }} filled in, as the runner does before a step runs. */
function expand(text: string, inputs: Record<string, string>, outputs: Record<string, string> = {}): string {
  return text.replace(/\$\{\{\s*(inputs|steps\.run\.outputs|github)\.([\w-]+)\s*\}\}/g, (_, scope: string, name: string) => {
    const value = scope === 'inputs' ? (inputs[name] ?? action.inputs[name]?.default) : scope === 'github' ? GITHUB[name] : outputs[name];
    if (value === undefined) throw new Error(`no value for ${scope}.${name}`);
    return value;
  });
}

/** Runs a shell step of the action with `npx` replaced by a script that records its arguments and environment. */
function runStep(s: Step, inputs: Record<string, string>, opts: { npxExit?: number; outputs?: Record<string, string> } = {}) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'chatconform-action-'));
  const npx = path.join(dir, 'npx');
  writeFileSync(npx, `#!/usr/bin/env bash\nprintf '%s\\n' "$@" > "${dir}/npx-args"\nenv > "${dir}/npx-env"\necho "summary line from npx"\nexit ${opts.npxExit ?? 0}\n`);
  chmodSync(npx, 0o755);
  const env: NodeJS.ProcessEnv = { PATH: `${dir}:${process.env.PATH}`, HOME: dir, GITHUB_OUTPUT: path.join(dir, 'output'), GITHUB_STEP_SUMMARY: path.join(dir, 'summary') };
  for (const [k, v] of Object.entries(s.env ?? {})) env[k] = expand(v, inputs, opts.outputs);
  writeFileSync(env.GITHUB_OUTPUT!, '');
  writeFileSync(env.GITHUB_STEP_SUMMARY!, '');
  const script = path.join(dir, 'step.sh');
  writeFileSync(script, expand(s.run!, inputs, opts.outputs));
  // The runner's bash: `bash --noprofile --norc -eo pipefail {0}`.
  const r = spawnSync('bash', ['--noprofile', '--norc', '-eo', 'pipefail', script], { cwd: dir, env, encoding: 'utf8' });
  const read = (f: string) => {
    try {
      return readFileSync(path.join(dir, f), 'utf8');
    } catch {
      return undefined;
    }
  };
  return { code: r.status, stdout: r.stdout, dir, npxArgs: read('npx-args')?.trimEnd().split('\n'), npxEnv: read('npx-env'), output: read('output'), summary: read('summary') };
}

test('a composite action with the inputs base-url, api-key, profile and report-dir, the gating inputs, and count outputs', () => {
  expect(action.runs.using).toBe('composite');
  for (const name of ['base-url', 'api-key', 'profile', 'report-dir', 'expected-failures', 'fail-on', 'requirement', 'section', 'model']) {
    expect(action.inputs[name], name).toBeDefined();
    expect(action.inputs[name]!.description.length, `${name} is described`).toBeGreaterThan(20);
    expect(action.inputs[name]!.required ?? false, `${name} is optional`).toBe(false);
  }
  expect(action.inputs['api-key']!.default).toBe('');
  // The action runs the kit of its own release unless told otherwise.
  expect(action.inputs.version!.default).toBe(version);
  expect(Number(action.inputs['node-version']!.default)).toBeGreaterThanOrEqual(20);
  expect(action.outputs['exit-code']!.value).toBe('${{ steps.run.outputs.exit-code }}');
  for (const name of ['verdict', 'passed', 'failed', 'warned', 'expected-failures', 'skipped']) expect(action.outputs[name]!.value, name).toBe(`\${{ steps.counts.outputs.${name} }}`);
});

test('its steps: set up Node, run, counts, upload the reports, verdict, the last three even after a failure', () => {
  const steps = action.runs.steps;
  expect(steps.map((s) => s.name)).toEqual(['Set up Node.js', 'Run the conformance suite', 'Read the counts', 'Upload the reports', 'Verdict']);
  expect(step('Set up Node.js').uses).toMatch(/^actions\/setup-node@v\d+$/);
  expect(step('Set up Node.js').with?.['node-version']).toBe('${{ inputs.node-version }}');
  expect(step('Run the conformance suite').id).toBe('run');
  const upload = step('Upload the reports');
  expect(upload.uses).toMatch(/^actions\/upload-artifact@v\d+$/);
  expect(upload.with?.path).toBe('${{ inputs.report-dir }}');
  for (const name of ['Read the counts', 'Upload the reports', 'Verdict']) expect(step(name).if, name).toBe('always()');
  // The credential travels in the environment only: never in a script, where the log would show the command.
  const yaml = readFileSync(path.join(repoRoot, 'action.yml'), 'utf8');
  expect(yaml.match(/inputs\.api-key/g)).toHaveLength(1);
  expect(step('Run the conformance suite').env?.CONFORMANCE_API_KEY).toBe('${{ inputs.api-key }}');
  for (const s of steps) expect(s.run ?? '', s.name).not.toContain('inputs.');
});

test('the run step passes the inputs to npx chatconform run, the key only in the environment, and records the exit code', () => {
  const r = runStep(step('Run the conformance suite'), { 'base-url': 'https://api.example.test/prefix', 'api-key': 'sk-secret-123456', profile: 'profiles/prod.json', 'report-dir': 'out dir', args: '--section 6 --seed 42' }, { npxExit: 1 });
  expect(r.code, r.stdout).toBe(0); // the step itself succeeds: the verdict step decides
  expect(r.npxArgs).toEqual(['--yes', `chatconform@${version}`, 'run', '--report-dir', 'out dir', '--base-url', 'https://api.example.test/prefix', '--profile', 'profiles/prod.json', '--section', '6', '--seed', '42']);
  expect(r.npxEnv).toContain('CONFORMANCE_API_KEY=sk-secret-123456');
  expect(r.npxArgs!.join(' ')).not.toContain('sk-secret');
  expect(r.output).toBe('exit-code=1\n');
});

test('empty inputs are no settings: the embedded mock, no empty key', () => {
  const r = runStep(step('Run the conformance suite'), {});
  expect(r.code).toBe(0);
  expect(r.npxArgs).toEqual(['--yes', `chatconform@${version}`, 'run', '--report-dir', 'chatconform-reports']);
  expect(r.npxEnv).not.toMatch(/^CONFORMANCE_API_KEY=/m);
  expect(r.npxEnv).not.toMatch(/^CONFORMANCE_(EXPECTED_FAILURES|REQUIREMENTS|SECTIONS|MODELS)=/m);
  expect(r.npxEnv).toMatch(/^CONFORMANCE_FAIL_ON=must$/m);
  expect(r.output).toBe('exit-code=0\n');
});

test('the gating inputs reach the run as the variables its flags mirror', () => {
  const r = runStep(step('Run the conformance suite'), { 'expected-failures': '.github/expected.yaml', 'fail-on': 'warn', requirement: 'STREAM-004,AUTH-008', section: '6', model: 'acme/chat-small' });
  for (const line of ['CONFORMANCE_EXPECTED_FAILURES=.github/expected.yaml', 'CONFORMANCE_FAIL_ON=warn', 'CONFORMANCE_REQUIREMENTS=STREAM-004,AUTH-008', 'CONFORMANCE_SECTIONS=6', 'CONFORMANCE_MODELS=acme/chat-small']) expect(r.npxEnv).toContain(line);
});

test('the counts step turns the report into outputs, and says so in the job summary when there is none', () => {
  const s = step('Read the counts');
  const dir = mkdtempSync(path.join(os.tmpdir(), 'chatconform-action-report-'));
  writeFileSync(path.join(dir, 'conformance.json'), JSON.stringify({ verdict: { result: 'pass' }, counts: { pass: 200, fail: 0, warn: 2, 'expected-fail': 1, skip: 3, error: 1, untested: 0 } }));
  const r = runStep(s, { 'report-dir': dir });
  expect(r.code, r.stdout).toBe(0);
  expect(r.output).toBe('verdict=pass\npassed=200\nfailed=0\nwarned=2\nexpected-failures=1\nskipped=4\n');
  const none = runStep(s, { 'report-dir': path.join(dir, 'absent') });
  expect(none.code).toBe(0);
  expect(none.summary).toMatch(/wrote no report/);
});

test('the verdict step fails the job exactly when the run did not exit 0', () => {
  const verdict = step('Verdict');
  expect(runStep(verdict, {}, { outputs: { 'exit-code': '0' } }).code).toBe(0);
  const failed = runStep(verdict, {}, { outputs: { 'exit-code': '1' } });
  expect(failed.code).toBe(1);
  expect(failed.stdout).toMatch(/^::error title=chatconform::A MUST requirement failed/m);
  expect(runStep(verdict, {}, { outputs: { 'exit-code': '2' } }).code).toBe(1);
  expect(runStep(verdict, {}, { outputs: { 'exit-code': '' } }).code).toBe(1);
});

test('the example workflow in docs/github-action.md uses this action with inputs it has', () => {
  const doc = readFileSync(path.join(repoRoot, 'docs/github-action.md'), 'utf8');
  // Every example: the plain run and the sharded matrix with its merge job.
  const blocks = [...doc.matchAll(/```yaml\n([\s\S]*?)```/g)];
  expect(blocks.length, 'docs/github-action.md holds its yaml examples').toBeGreaterThanOrEqual(2);
  const workflows = blocks.map((b) => parse(b[1]!) as { jobs: Record<string, { steps: Step[] }> });
  const uses = workflows.flatMap((w) => Object.values(w.jobs)).flatMap((j) => j.steps).filter((s) => s.uses?.startsWith('chatconform/chatconform@'));
  expect(uses.length).toBeGreaterThan(0);
  for (const s of uses) for (const input of Object.keys(s.with ?? {})) expect(Object.keys(action.inputs), input).toContain(input);
  // The key comes from a secret, never written into the workflow.
  expect(uses.every((s) => !s.with?.['api-key'] || /^\$\{\{ secrets\.\w+ \}\}$/.test(s.with['api-key']))).toBe(true);
  execFileSync('bash', ['-n', '-c', step('Run the conformance suite').run!]);
});

test('shard: the run is one shard, seeded by the workflow run unless args give a seed; merge: the shards joined, nothing run', () => {
  const sharded = runStep(step('Run the conformance suite'), { shard: '2/3', 'report-dir': 'shard-2' });
  expect(sharded.npxArgs).toEqual(['--yes', `chatconform@${version}`, 'run', '--report-dir', 'shard-2']);
  expect(sharded.npxEnv).toMatch(/^CONFORMANCE_SHARD=2\/3$/m);
  expect(sharded.npxEnv).toMatch(/^CONFORMANCE_SEED=4242$/m);
  const unsharded = runStep(step('Run the conformance suite'), {});
  expect(unsharded.npxEnv).not.toMatch(/^CONFORMANCE_(SHARD|SEED)=/m);
  const merged = runStep(step('Run the conformance suite'), { merge: 'shards', 'report-dir': 'merged', args: '--seed 1' }, { npxExit: 1 });
  expect(merged.npxArgs).toEqual(['--yes', `chatconform@${version}`, 'report', 'merge', 'shards', '--report-dir', 'merged']);
  expect(merged.output).toBe('exit-code=1\n');
});

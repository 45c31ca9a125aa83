// The settings of `chatconform run`, declared once (run/settings.ts) and resolved once into the run's plan
// (run/plan.ts): --help, the config-file schema and the Action's inputs are held to the table (README's table is,
// in cli.spec.ts); the plan's order (flag, variable, config file, profile, default), its seed and its file without
// the key; --config; and the headers the kit's transport owns, refused.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { parse } from 'yaml';
import { main } from '../../cli/program.ts';
import { flagTexts } from '../../cli/run.ts';
import { configOfPlan, repoRoot } from '../../run/config.ts';
import { parseHeaderLine } from '../../run/extra-headers.ts';
import { PLAN_ENV, planInput, planOfThisRun, readPlan, resolvePlan, writePlanInNewRunDir } from '../../run/plan.ts';
import { longFlagOf, SETTINGS, type Setting } from '../../run/settings.ts';
import { selectionOf } from '../../run/selection.ts';
import { shardOf } from '../../run/shard.ts';
import { trialsOf } from '../../run/trials.ts';
import { chatconformCommand, runProcess } from './support/cli-process.ts';

const root = mkdtempSync(path.join(os.tmpdir(), 'chatconform-settings-'));
test.afterAll(() => rmSync(root, { recursive: true, force: true }));

async function cli(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(argv, { out: (s) => (out += s), err: (s) => (err += s) });
  return { code, out, err };
}

/** The command as a child process in `cwd`, with `env` over a clean run environment. */
async function child(cwd: string, argv: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; stderr: string }> {
  const base: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('CONFORMANCE_')) base[k] = v;
  const r = await runProcess(...chatconformCommand(argv), { cwd, env: { ...base, ...env } });
  return { code: r.code, stderr: r.stderr };
}

function folder(name: string): string {
  const dir = path.join(root, name);
  mkdirSync(dir, { recursive: true });
  return dir;
}

test('chatconform run --help lists every setting of the table: its flag and its variable', async () => {
  const help = await cli(['run', '--help']);
  expect(help.code).toBe(0);
  const text = help.out.replace(/\s+/g, ' ');
  for (const s of SETTINGS) {
    expect(text, s.name).toContain(longFlagOf(s));
    expect(text, s.name).toContain(`[${s.env}]`);
  }
});

test("a default is the same in the table, in --help and in README's table; a profile field the table names is the profile schema's", () => {
  const readme = readFileSync(path.join(repoRoot, 'README.md'), 'utf8');
  for (const s of SETTINGS as readonly Setting[]) {
    if (s.default === undefined || typeof s.default === 'boolean') continue;
    const row = new RegExp(`^\\| \`${s.env}\` \\| ([^|]*) \\|`, 'm').exec(readme);
    expect(row?.[1], `README's default of ${s.env}`).toContain(String(s.default));
    expect(s.help, `--help of ${s.flag}`).toContain(String(s.default));
  }
  const profile = JSON.parse(readFileSync(path.join(repoRoot, 'spec/schemas/profile.schema.json'), 'utf8')) as { properties: Record<string, { properties?: Record<string, unknown> }> };
  for (const s of SETTINGS as readonly Setting[]) {
    if (!s.profile) continue;
    const [field, sub] = s.profile.split('.') as [string, string | undefined];
    expect(sub === undefined ? profile.properties[field] : profile.properties[field]?.properties?.[sub], `${s.name}: profile ${s.profile}`).toBeDefined();
  }
});

test('the config-file schema has a key for exactly the settings the table gives one, of the same type and bounds', () => {
  const schema = JSON.parse(readFileSync(path.join(repoRoot, 'spec/schemas/config-file.schema.json'), 'utf8')) as { properties: Record<string, Record<string, unknown>> };
  const inFile = (SETTINGS as readonly Setting[]).filter((s) => s.file);
  // The two keys that name a credential's variable (never the credential) are the file's own.
  expect(new Set(Object.keys(schema.properties))).toEqual(new Set(['$schema', 'apiKeyEnv', 'referenceApiKeyEnv', ...inFile.map((s) => s.name)]));
  const types: Record<Setting['kind'], string | undefined> = { url: 'string', string: 'string', path: 'string', profile: 'string', int: 'integer', number: 'number', rate: 'number', list: 'array', headers: 'object', switch: 'boolean', choice: undefined, shard: 'string' };
  for (const s of inFile) {
    const p = schema.properties[s.name]!;
    expect(String(p.description), s.name).toMatch(new RegExp(`^${s.env}[:.]`));
    expect(p.type, s.name).toBe(types[s.kind]);
    if (s.kind === 'int') expect(p.minimum, s.name).toBe(s.min);
    if (s.kind === 'rate') expect([p.minimum, p.maximum], s.name).toEqual([0, 1]);
    if (s.kind === 'choice') expect(p.enum, s.name).toEqual(s.choices);
  }
});

test("the Action's inputs: each setting's input carries it to the run, and every other input is the Action's own", () => {
  const action = parse(readFileSync(path.join(repoRoot, 'action.yml'), 'utf8')) as { inputs: Record<string, unknown>; runs: { steps: { name?: string; env?: Record<string, string>; run?: string }[] } };
  const step = action.runs.steps.find((s) => s.name === 'Run the conformance suite')!;
  const own = new Set(['args', 'merge', 'version', 'node-version', 'artifact-name']);
  const carried = (SETTINGS as readonly Setting[]).filter((s) => s.action);
  expect(new Set(Object.keys(action.inputs))).toEqual(new Set([...own, ...carried.map((s) => s.action!)]));
  for (const s of carried) {
    const [variable] = Object.entries(step.env ?? {}).find(([, v]) => v === `\${{ inputs.${s.action} }}`) ?? [];
    expect(variable, `input ${s.action} reaches the run`).toBeDefined();
    // Either the setting's own variable, or a variable of the step that it turns into the setting's flag.
    if (variable !== s.env) expect(step.run, `input ${s.action}`).toContain(`${longFlagOf(s)} "$${variable}"`);
  }
});

test('the plan: a flag over its variable, the variable over the config file, the file over the profile, the profile over the default', () => {
  const dir = folder('order');
  const profile = path.join(dir, 'profile.json');
  writeFileSync(profile, JSON.stringify({ budget: { fuzzRuns: 7, requestsPerMinute: 60 }, headers: { 'X-Tenant': 'profile', 'X-Region': 'eu' } }));
  writeFileSync(path.join(dir, 'chatconform.config.json'), JSON.stringify({ baseUrl: 'http://127.0.0.1:1', profile: 'profile.json', fuzzRuns: 9, maxRetries: 5, headers: { 'X-Tenant': 'file' } }));
  const env = { CONFORMANCE_MAX_RETRIES: '2', CONFORMANCE_FUZZ_RUNS: '8', CONFORMANCE_API_KEY: 'sk-plan-secret-0123456789' };
  const { plan, secrets } = resolvePlan(env, { cwd: dir, flags: flagTexts({ maxRetries: 1 }) });
  expect(plan.configFile).toBe(path.join(dir, 'chatconform.config.json'));
  expect(plan.settings).toMatchObject({
    baseUrl: 'http://127.0.0.1:1',
    profile,
    maxRetries: 1, // the flag
    fuzzRuns: 8, // the variable
    maxRps: 1, // the profile's requests per minute
    headers: { 'x-tenant': 'file', 'x-region': 'eu' }, // per name: the file's over the profile's
    maxRetryWaitMs: 30_000, // the default
    workers: 2,
  });
  expect(plan.embeddedMock).toBe(false);
  // The key and the given headers (secrets unless declared public) are held apart: handed to the run's processes as
  // credentials, never in the plan.
  expect(secrets).toEqual({ CONFORMANCE_API_KEY: 'sk-plan-secret-0123456789', CONFORMANCE_HEADERS: 'x-tenant: file' });
  const file = writePlanInNewRunDir(plan);
  try {
    expect(readFileSync(file, 'utf8')).not.toContain('sk-plan-secret');
    const config = configOfPlan(readPlan(file), { CONFORMANCE_API_KEY: 'sk-plan-secret-0123456789' });
    expect(config).toMatchObject({ apiKey: 'sk-plan-secret-0123456789', fuzzRuns: 8, maxRps: 1, retry: { maxRetries: 1, maxWaitMs: 30_000 }, seed: plan.seed, runDir: plan.runDir });
  } finally {
    rmSync(plan.runDir, { recursive: true, force: true });
  }
});

test('the seed is fixed when the plan is made: given, or drawn once; no base URL plans the embedded mock with its profile', () => {
  const given = resolvePlan({ CONFORMANCE_SEED: '42' }, { configFile: false }).plan;
  expect([given.seed, given.seedDrawn]).toEqual([42, false]);
  const drawn = resolvePlan({}, { configFile: false }).plan;
  expect(drawn.seedDrawn).toBe(true);
  expect(Number.isSafeInteger(drawn.seed)).toBe(true);
  expect(drawn.embeddedMock).toBe(true);
  expect(drawn.settings.profile).toBe(path.join(repoRoot, 'fixtures/profiles/mock.json'));
  // A bad value of a variable is an error naming it, never a silent default; a URL's password is never echoed.
  expect(() => resolvePlan({ CONFORMANCE_FUZZ_RUNS: 'many' }, { configFile: false })).toThrow(/^CONFORMANCE_FUZZ_RUNS: expected an integer of at least 1 \(got a value of 4 characters, not shown\)$/);
  expect(() => resolvePlan({ CONFORMANCE_BASE_URL: 'http://u:hunter2@host' }, { configFile: false })).toThrow(/^CONFORMANCE_BASE_URL: must not carry credentials; the key has its own variable$/);
});

test('a process with only CONFORMANCE_* variables plans the run once and hands the plan to the processes after it', () => {
  const env: NodeJS.ProcessEnv = { CONFORMANCE_BASE_URL: 'http://127.0.0.1:1', CONFORMANCE_API_KEY: 'sk-only-env-0123456789', CONFORMANCE_MODELS: 'a, b', PATH: '/bin' };
  const plan = planOfThisRun(env);
  try {
    // The plan is the only channel: the processes after it get its path and the key, no setting's variable.
    expect(env).toEqual({ [PLAN_ENV]: path.join(plan.runDir, 'plan.json'), CONFORMANCE_API_KEY: 'sk-only-env-0123456789', PATH: '/bin' });
    expect(plan.settings.models).toEqual(['a', 'b']);
    // A worker inherits that environment and reads the same plan: nothing is resolved twice.
    const again = planOfThisRun({ ...env });
    expect(again).toEqual(plan);
    expect(readFileSync(env[PLAN_ENV]!, 'utf8')).not.toContain('sk-only-env');
  } finally {
    rmSync(plan.runDir, { recursive: true, force: true });
  }
});

test('the selection, the shard and the trials are read from the plan itself: a variable the plan did not take changes nothing', () => {
  const { plan } = resolvePlan({ CONFORMANCE_BASE_URL: 'http://127.0.0.1:1', CONFORMANCE_REQUIREMENTS: 'STREAM-004', CONFORMANCE_SECTIONS: '6', CONFORMANCE_LEVELS: 'must', CONFORMANCE_EXCLUDE_REQUIREMENTS: 'STREAM-013', CONFORMANCE_SHARD: '2/3', CONFORMANCE_TRIALS: '3', CONFORMANCE_MIN_PASS_RATE: '0.5', CONFORMANCE_SEED: '1' }, { configFile: false });
  const file = writePlanInNewRunDir(plan);
  try {
    // A worker's environment with other values than the plan's (a stale variable, a hand-set one): the plan wins.
    const env: NodeJS.ProcessEnv = { [PLAN_ENV]: file, CONFORMANCE_REQUIREMENTS: 'RESP-005', CONFORMANCE_SHARD: '1/2', CONFORMANCE_TRIALS: '9' };
    expect(selectionOf(env)).toEqual({ requirements: ['STREAM-004'], sections: ['6'], levels: ['MUST'], exclude: ['STREAM-013'] });
    expect(shardOf(env)).toEqual({ index: 2, total: 3 });
    expect(trialsOf(env)).toEqual({ k: 3, minPassRate: 0.5 });
    // Without a plan (the CLI's own checks before it writes one) the variables are read by the same table.
    expect(trialsOf({ CONFORMANCE_TRIALS: '2' })).toEqual({ k: 2, minPassRate: 1 });
    expect(() => trialsOf({ CONFORMANCE_TRIALS: '0' })).toThrow(/^CONFORMANCE_TRIALS: expected an integer of at least 1/);
    expect(() => trialsOf({ CONFORMANCE_MIN_PASS_RATE: '0.5' })).toThrow(/set CONFORMANCE_TRIALS too/);
  } finally {
    rmSync(plan.runDir, { recursive: true, force: true });
  }
});

test("a header's value is held apart like the key unless declared public: not in plan.json, still sent by every process that reads the plan", () => {
  const dir = folder('secret-header');
  const profile = path.join(dir, 'profile.json');
  writeFileSync(profile, JSON.stringify({ headers: { 'X-Gateway-Token': 'gw-profile-0123456789', 'X-Api-Key': 'sk-profile-0123456789' } }));
  const env: NodeJS.ProcessEnv = { CONFORMANCE_BASE_URL: 'http://127.0.0.1:1', CONFORMANCE_PROFILE: profile, CONFORMANCE_HEADERS: 'X-Api-Key: sk-header-0123456789\nX-Tenant: acme\nX-Route: route-0123456789', CONFORMANCE_PUBLIC_HEADERS: 'X-Tenant' };
  const plan = planOfThisRun(env);
  try {
    const text = readFileSync(env[PLAN_ENV]!, 'utf8');
    for (const secret of ['gw-profile', 'sk-profile', 'sk-header', 'route-0123456789']) expect(text).not.toContain(secret);
    expect(text).toContain('acme');
    // A worker: the plan's path and the credentials it inherited (the given headers not declared public).
    expect(env.CONFORMANCE_HEADERS).toBe('x-api-key: sk-header-0123456789\nx-route: route-0123456789');
    const worker = readPlan(env[PLAN_ENV]!, env);
    expect(worker.settings.headers).toEqual({ 'x-api-key': 'sk-header-0123456789', 'x-gateway-token': 'gw-profile-0123456789', 'x-tenant': 'acme', 'x-route': 'route-0123456789' });
    expect(configOfPlan(worker, env).headers).toEqual(plan.settings.headers);
  } finally {
    rmSync(plan.runDir, { recursive: true, force: true });
  }
});

test('--config FILE (CONFORMANCE_CONFIG_FILE) is read instead of the working directory\'s; a missing one is one line, exit 3', async () => {
  const dir = folder('named');
  // The working directory's own file does not load: reading it would stop the run with exit 3.
  writeFileSync(path.join(dir, 'chatconform.config.json'), '{ not json');
  const named = path.join(dir, 'ci.yaml');
  writeFileSync(named, 'requirements: [NOPE-001]\n');
  const viaFlag = await child(dir, ['run', '--config', 'ci.yaml']);
  expect(viaFlag.code, viaFlag.stderr).toBe(2);
  expect(viaFlag.stderr.trim()).toBe("error: the run's selection: NOPE-001 is not a requirement ID of the catalog");
  const viaVariable = await child(dir, ['run'], { CONFORMANCE_CONFIG_FILE: named });
  expect(viaVariable.stderr.trim()).toBe("error: the run's selection: NOPE-001 is not a requirement ID of the catalog");
  const absent = path.join(dir, 'absent.yaml');
  const missing = await cli(['run', '--config', absent]);
  expect(missing.code).toBe(3);
  expect(missing.err.trimEnd().split('\n')).toHaveLength(1);
  expect(missing.err.trim()).toBe(`error: config file ${absent}: no such file`);
  expect(existsSync(absent)).toBe(false);
});

test('hop-by-hop and framing headers and Host are refused, by -H, CONFORMANCE_HEADERS and the config file: exit 2, naming the header', async () => {
  for (const name of ['Content-Length', 'transfer-encoding', 'Connection', 'Keep-Alive', 'Proxy-Connection', 'TE', 'Trailer', 'Upgrade', 'Host']) {
    expect(() => parseHeaderLine(`${name}: 5`), name).toThrow(new RegExp(`^${name} is a hop-by-hop or framing header`));
  }
  expect(parseHeaderLine('X-Tenant: acme')).toEqual(['X-Tenant', 'acme']);
  const flag = await cli(['run', '-H', 'Content-Length: 5']);
  expect(flag.code).toBe(2);
  expect(flag.err.trimEnd().split('\n')).toHaveLength(1);
  expect(flag.err).toMatch(/^error: option '-H, --header <line\.\.\.>' argument \(17 characters, not shown\) is invalid\. Content-Length is a hop-by-hop or framing header/);
  const dir = folder('headers');
  const variable = await child(dir, ['run'], { CONFORMANCE_HEADERS: 'X-Tenant: acme\nTransfer-Encoding: chunked' });
  expect(variable.code, variable.stderr).toBe(2);
  expect(variable.stderr.trim()).toMatch(/^error: CONFORMANCE_HEADERS: Transfer-Encoding is a hop-by-hop or framing header[^\n]*$/);
  writeFileSync(path.join(dir, 'chatconform.config.json'), JSON.stringify({ headers: { Host: 'elsewhere.example' } }));
  const file = await child(dir, ['run']);
  expect(file.code, file.stderr).toBe(2);
  expect(file.stderr.trim()).toMatch(/^error: CONFORMANCE_HEADERS: Host is a hop-by-hop or framing header[^\n]*$/);
});

test("a profile's refused header names the profile: a file the run cannot use (exit 3)", async () => {
  const dir = folder('profile-headers');
  const profile = path.join(dir, 'gateway.json');
  writeFileSync(profile, JSON.stringify({ headers: { Connection: 'close' } }));
  const r = await cli(['run', '--base-url', 'http://127.0.0.1:1', '--profile', profile]);
  expect(r.code).toBe(3);
  expect(r.err.trim()).toBe(`error: the target profile ${profile}: Connection is a hop-by-hop or framing header the kit's transport sets itself: it cannot be added to every request`);
});

test('a variable naming a path or a built-in profile is read as the flag is: from the working directory, "mock" the built-in one', () => {
  const env = planInput({ CONFORMANCE_PROFILE: 'mock', CONFORMANCE_REPORT_DIR: 'out', CONFORMANCE_CONFIG_FILE: 'ci.yaml' }, { configFile: false }).texts;
  expect(env.CONFORMANCE_PROFILE).toBe(path.join(repoRoot, 'fixtures/profiles/mock.json'));
  expect(env.CONFORMANCE_REPORT_DIR).toBe(path.resolve('out'));
  expect(env.CONFORMANCE_CONFIG_FILE).toBe(path.resolve('ci.yaml'));
});

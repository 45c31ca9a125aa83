// chatconform.config.json / .yaml (run/config-file.ts): found upwards from the working
// directory, checked against its schema, and filling in only what the environment (and so the flags) left unset.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { applyConfigFile, CONFIG_FILE_VARIABLES, configFileEnv, findConfigFile, readConfigFile } from '../../run/config-file.ts';
import { ENV } from '../../run/config.ts';
import { headerSecrets, headersOfText } from '../../run/extra-headers.ts';
import { SETTINGS } from '../../run/settings.ts';
import { initConfig } from '../../run/init-config.ts';
import { startMockServer } from '../../mock/server.ts';
import { MOCK_KEYS } from '../../mock/keys-and-models.ts';

let root: string;
test.beforeAll(() => {
  root = mkdtempSync(path.join(os.tmpdir(), 'chatconform-config-'));
});
test.afterAll(() => rmSync(root, { recursive: true, force: true }));

test('the nearest file from the working directory up is used; YAML and JSON both read', () => {
  const project = path.join(root, 'project');
  const deep = path.join(project, 'packages', 'client');
  mkdirSync(deep, { recursive: true });
  expect(findConfigFile(deep)).toBeUndefined();
  writeFileSync(path.join(project, 'chatconform.config.yaml'), 'baseUrl: https://api.example.com\nmodels: [acme/chat-small]\n');
  expect(findConfigFile(deep)).toBe(path.join(project, 'chatconform.config.yaml'));
  writeFileSync(path.join(deep, 'chatconform.config.json'), '{"baseUrl": "http://127.0.0.1:8787"}');
  expect(findConfigFile(deep)).toBe(path.join(deep, 'chatconform.config.json'));
  expect(readConfigFile(path.join(project, 'chatconform.config.yaml'))).toEqual({ baseUrl: 'https://api.example.com', models: ['acme/chat-small'] });
});

test('flags and the environment win; paths are read from the file\'s folder; the key comes from the variable it names', () => {
  const file = path.join(root, 'team', 'chatconform.config.json');
  const config = { baseUrl: 'https://api.example.com', profile: 'profiles/acme.json', expectedFailures: 'expected.yaml', failOn: 'warn' as const, sections: ['6', '2.7'], maxRps: 0.5, apiKeyEnv: 'ACME_KEY' };
  expect(configFileEnv(file, config, { CONFORMANCE_BASE_URL: 'http://127.0.0.1:1', ACME_KEY: 'sk-acme' })).toEqual({
    CONFORMANCE_PROFILE: path.join(root, 'team', 'profiles/acme.json'),
    CONFORMANCE_EXPECTED_FAILURES: path.join(root, 'team', 'expected.yaml'),
    CONFORMANCE_FAIL_ON: 'warn',
    CONFORMANCE_SECTIONS: '6,2.7',
    CONFORMANCE_MAX_RPS: '0.5',
    CONFORMANCE_API_KEY: 'sk-acme',
  });
  // A key already in the environment is never replaced.
  expect(configFileEnv(file, config, { CONFORMANCE_API_KEY: 'sk-env', ACME_KEY: 'sk-acme' }).CONFORMANCE_API_KEY).toBeUndefined();
});

test('applyConfigFile fills the environment it is given and says which file it used', () => {
  const dir = path.join(root, 'apply');
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'chatconform.config.json'), JSON.stringify({ seed: 42, workers: 1 }));
  const env: NodeJS.ProcessEnv = { CONFORMANCE_WORKERS: '3' };
  expect(applyConfigFile(env, dir)).toBe(path.join(dir, 'chatconform.config.json'));
  expect(env).toEqual({ CONFORMANCE_WORKERS: '3', CONFORMANCE_SEED: '42' });
});

test('a bad file is refused with its name and the field', () => {
  const bad = path.join(root, 'bad', 'chatconform.config.json');
  mkdirSync(path.dirname(bad), { recursive: true });
  writeFileSync(bad, JSON.stringify({ baseUrl: 'ftp://x', apiKey: 'sk-should-not-be-here', failOn: 'sometimes' }));
  let message = '';
  try {
    readConfigFile(bad);
  } catch (err) {
    message = (err as Error).message;
  }
  expect(message).toContain(`config file ${bad} does not match spec/schemas/config-file.schema.json`);
  expect(message).toMatch(/apiKey/);
  expect(message).toMatch(/\/failOn/);
  writeFileSync(bad, '{ not json');
  expect(() => readConfigFile(bad)).toThrow(/not readable as JSON or YAML/);
});

test('init writes a config file from the catalog alone: base URL, where the key comes from, each model with its capabilities', async () => {
  const mock = await startMockServer({ port: 0 });
  try {
    const { text, models } = await initConfig(`${mock.url}/`, MOCK_KEYS.full);
    expect(models.find((m) => m.id === 'vision-lite')?.capabilities).toContain('images');
    expect(text).toContain(`baseUrl: ${mock.url}\n`);
    expect(text).toContain('apiKeyEnv: CONFORMANCE_API_KEY');
    expect(text).not.toContain(MOCK_KEYS.full);
    expect(text).toMatch(/#\s+reason-pro\s+reasoning/);
    // What it writes is a valid config file.
    const file = path.join(root, 'init', 'chatconform.config.yaml');
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, text);
    expect(readConfigFile(file)).toMatchObject({ baseUrl: mock.url, apiKeyEnv: 'CONFORMANCE_API_KEY' });
  } finally {
    await mock.close();
  }
  await expect(initConfig('http://127.0.0.1:9', undefined, 2_000)).rejects.toThrow(/GET http:\/\/127\.0\.0\.1:9\/v1\/models gave no model list: no response/);
});

test('every setting of `chatconform run` has a key in the file, except the credential and the one-off switches', () => {
  // The key lives only in the variable the file names (apiKeyEnv); the scratch folder and the signing key are one run's choice.
  const notInFile = new Set<string>([ENV.apiKey, ENV.keepScratch, ENV.signKey, ENV.configFile, ENV.events]);
  const fileVariables = new Set(Object.values(CONFIG_FILE_VARIABLES).map((v) => v.env));
  const missing = SETTINGS.filter((s) => !notInFile.has(s.env) && !fileVariables.has(s.env)).map((s) => s.flag);
  expect(missing).toEqual([]);
  const file = path.join(root, 'timeouts', 'chatconform.config.json');
  expect(configFileEnv(file, { idleTimeoutMs: 30_000, maxBodyBytes: 1_000_000 }, {})).toEqual({ CONFORMANCE_IDLE_TIMEOUT_MS: '30000', CONFORMANCE_MAX_BODY_BYTES: '1000000' });
});

test('headers: the config file\'s object, CONFORMANCE_HEADERS lines, the profile\'s; a credential among them is a secret of the run', () => {
  const file = path.join(root, 'headers', 'chatconform.config.json');
  expect(configFileEnv(file, { headers: { 'X-Tenant': 'acme', 'X-Api-Key': 'sk-gateway-123456' } }, {})).toEqual({ CONFORMANCE_HEADERS: 'X-Tenant: acme\nX-Api-Key: sk-gateway-123456' });
  expect(headersOfText('X-Tenant: acme\nX-Route: eu, fast\n')).toEqual({ 'x-tenant': 'acme', 'x-route': 'eu, fast' });
  expect(() => headersOfText('no colon here')).toThrow(/is not a header: write it as 'Name: value'/);
  expect(() => headersOfText('Bad Name: x')).toThrow(/"Bad Name" is not a header name/);
  // Every header the user supplies is a secret of the run, whatever its name, unless declared public (--public-header);
  // a credential-looking name never is.
  expect(headerSecrets({ 'x-tenant': 'acme', 'x-api-key': 'sk-gateway-123456', authorization: 'Bearer tok-abcdef', authentication: 'k-123456' })).toEqual(['acme', 'sk-gateway-123456', 'tok-abcdef', 'k-123456']);
  expect(headerSecrets({ 'x-tenant': 'acme', 'x-api-key': 'sk-gateway-123456', 'x-auth': 'k-123456' }, ['X-Tenant', 'x-api-key', 'x-auth'])).toEqual(['sk-gateway-123456', 'k-123456']);
});

// What `chatconform mock` prints after its first line: the built-in keys (public fixtures) whole, a --keys file's
// keys by name only, a few models, and the commands that point the kit and a client at it.
import { expect, test } from '@playwright/test';
import { bannerLines, keysHelp } from '../../cli/mock-banner.ts';
import { defaultCatalog, defaultKeys } from '../../mock/core/fixture-data.ts';
import { MOCK_KEYS, MOCK_MODELS } from '../../mock/keys-and-models.ts';

const url = 'http://127.0.0.1:8787';

test('the built-in fixtures: the full, free and restricted keys, two models, the run command with the mock profile', () => {
  const text = bannerLines({ url, catalog: defaultCatalog(), keys: defaultKeys(), builtinKeys: true, builtinCatalog: true }).join('\n');
  for (const key of [MOCK_KEYS.full, MOCK_KEYS.free, MOCK_KEYS.restricted]) expect(text).toContain(key);
  expect(text).toContain(MOCK_MODELS.large);
  expect(text).toContain(`chatconform run --base-url ${url} --profile mock`);
  expect(text).toContain(`base URL ${url}/v1`);
  // The deactivated model is not listed, so it is not offered.
  expect(text).not.toContain(MOCK_MODELS.deactivated);
});

test("a --keys file's keys are the user's: named, never printed; the run command takes the key from a variable", () => {
  const keys = { keys: [{ key: 'sk-user-secret-9f8e7d6c5b4a', name: 'ci key', tier: 'pro' }] };
  const lines = bannerLines({ url, prefix: '/api', catalog: defaultCatalog(), keys, builtinKeys: false, builtinCatalog: true });
  const text = lines.join('\n');
  expect(text).not.toContain('sk-user-secret-9f8e7d6c5b4a');
  expect(text).toContain('"ci key"');
  expect(text).toContain(`chatconform run --base-url ${url}/api`);
  expect(text).not.toContain('--profile mock');
});

test('mock --help lists every built-in key with what it may use', () => {
  const help = keysHelp(defaultKeys());
  for (const key of Object.values(MOCK_KEYS)) expect(help).toContain(key);
  expect(help).toContain('acme/chat-small');
});

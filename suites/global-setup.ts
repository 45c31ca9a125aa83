// Runs once before the suite: picks the target (the embedded mock unless CONFORMANCE_BASE_URL is set),
// fixes the seed, opens the run folder, and discovers the catalog. Workers inherit what it sets in the
// environment. Returns the teardown that stops the embedded mock.
import { mkdirSync, mkdtempSync } from 'node:fs';
import path from 'node:path';
import { request } from '@playwright/test';
import { startMockServer } from '../mock/server.ts';
import { ENV, repoRoot, runConfig } from './lib/config.ts';
import { discover, saveDiscovery } from './lib/discovery.ts';
import { budgetOf } from './lib/profile.ts';
import { Target } from './lib/target.ts';

export const MOCK_PROFILE = path.join(repoRoot, 'fixtures/profiles/mock.json');

export default async function globalSetup(): Promise<() => Promise<void>> {
  const env = process.env;
  let stopMock: (() => Promise<void>) | undefined;
  if (!env[ENV.baseUrl]) {
    const mock = await startMockServer({ port: 0 });
    stopMock = () => mock.close();
    env[ENV.baseUrl] = mock.url;
    env[ENV.embeddedMock] = '1';
    env[ENV.profile] ??= MOCK_PROFILE;
  }
  if (!env[ENV.seed] || !Number.isSafeInteger(Number(env[ENV.seed]))) env[ENV.seed] = String(Math.floor(Math.random() * 2 ** 31));
  mkdirSync(path.join(repoRoot, '.tmp'), { recursive: true });
  env[ENV.runDir] = mkdtempSync(path.join(repoRoot, '.tmp', 'run-'));

  const config = runConfig();
  process.stderr.write(`chatconform: target ${config.embeddedMock ? `${config.baseUrl} (embedded mock)` : config.baseUrl}; seed ${config.seed}` +
    (config.profilePath ? `; profile ${path.relative(process.cwd(), config.profilePath)}` : '; no profile') + '\n');

  const context = await request.newContext();
  try {
    const target = new Target(context, config);
    saveDiscovery(config.runDir, await discover(target, config.profile, budgetOf(config.profile).maxSearchProbes));
  } finally {
    await context.dispose();
  }
  return async () => {
    await stopMock?.();
  };
}

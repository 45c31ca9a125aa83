// Runs once before the suite: picks the target (the embedded mock unless CONFORMANCE_BASE_URL is set),
// fixes the seed, opens the run's scratch folder, and discovers the catalog. Workers inherit what it sets in
// the environment. Returns the teardown that stops the embedded mock.
//
// The scratch folder (ledger, discovery.json) lives in the OS temp dir, never in the checkout, and everything
// written there is redacted. It is removed when the runner process exits, after the reporters (which read the
// ledger) are done; CONFORMANCE_KEEP_SCRATCH=1 keeps it.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startMockServer } from '../mock/server.ts';
import { ENV, gateOf, repoRoot, runConfig, secrets } from '../run/config.ts';
import { loadBaseline } from '../report/baseline.ts';
import { discover, saveDiscovery } from './lib/discovery.ts';
import { resolveModelMatrix } from './lib/discovery-matrix.ts';
import { budgetOf } from '../run/profile.ts';
import { Target } from '../run/target.ts';
import { closeIdleConnections } from '../run/http.ts';
import { reachTarget, REACH_TIMEOUT_MS, TargetUnreachable } from '../run/reachability.ts';
import { targetsOf } from '../run/targets.ts';
import { discoverTargets } from './lib/targets-setup.ts';

export const MOCK_PROFILE = path.join(repoRoot, 'fixtures/profiles/mock.json');

export default async function globalSetup(): Promise<() => Promise<void>> {
  const env = process.env;
  let stopMock: (() => Promise<void>) | undefined;
  // A run of many targets: the run's own settings stand for the first target (each test's fixture takes its own).
  const targets = targetsOf(env);
  if (targets && !env[ENV.baseUrl]) env[ENV.baseUrl] = targets[0]!.baseUrl;
  if (!env[ENV.baseUrl]) {
    const mock = await startMockServer({ port: 0 });
    stopMock = () => mock.close();
    env[ENV.baseUrl] = mock.url;
    env[ENV.embeddedMock] = '1';
    env[ENV.profile] ??= MOCK_PROFILE;
  }
  if (!env[ENV.seed] || !Number.isSafeInteger(Number(env[ENV.seed]))) env[ENV.seed] = String(Math.floor(Math.random() * 2 ** 31));
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'chatconform-run-'));
  env[ENV.runDir] = scratch;
  const keep = env[ENV.keepScratch] === '1';
  // 'exit' comes after the reporters' onEnd/onExit (the global teardown runs before them, and they read the ledger).
  process.once('exit', () => {
    if (keep) process.stderr.write(`chatconform: scratch folder kept (masked): ${scratch}\n`);
    else rmSync(scratch, { recursive: true, force: true });
  });

  const config = runConfig();
  // A bad baseline or gate setting stops the run before it sends anything.
  const gate = gateOf();
  if (gate.expectedFailures) loadBaseline(gate.expectedFailures);
  process.stderr.write(`chatconform: target ${config.embeddedMock ? `${config.baseUrl} (embedded mock)` : config.baseUrl}; seed ${config.seed}` +
    (config.profilePath ? `; profile ${path.relative(process.cwd(), config.profilePath)}` : '; no profile') + `; scratch ${scratch}\n`);

  if (targets) {
    process.stderr.write(`chatconform: ${targets.length} targets in one run\n`);
    await discoverTargets(targets);
    return async () => {
      closeIdleConnections();
      await stopMock?.();
    };
  }
  const target = new Target(config);
  // One question before any test: a target that cannot be reached, or is not this API, ends the run here.
  const problem = await reachTarget(() => target.get('/v1/models', { timeoutMs: REACH_TIMEOUT_MS }), config.baseUrl, {
    waitSeconds: config.waitForTargetSeconds ?? 0,
    onWait: (p) => process.stderr.write(`chatconform: waiting up to ${config.waitForTargetSeconds ?? 0} s for the target (${p})\n`),
  });
  if (problem !== undefined) {
    await stopMock?.();
    throw new TargetUnreachable(problem);
  }
  const matrix = (await resolveModelMatrix(env)) ?? [];
  if (matrix.length > 0) process.stderr.write(`chatconform: per-model matrix of ${matrix.length} model(s)\n`);
  saveDiscovery(config.runDir, await discover(target, config.profile, budgetOf(config.profile).maxSearchProbes, config.models, matrix), secrets(config));
  return async () => {
    closeIdleConnections();
    await stopMock?.();
  };
}

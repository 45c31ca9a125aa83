// Runs once before the suite, on the run's plan (run/plan.ts: settings resolved and seed fixed by the config or by
// `chatconform run`): starts the embedded mock when the plan has no target and writes its address into the plan,
// asks the target once, and discovers the catalog. Returns the teardown that stops the embedded mock.
//
// The scratch folder (plan.json, ledger, discovery.json) lives in the OS temp dir, never in the checkout, and
// everything written there is redacted; no credential is in the plan. Whoever opened it removes it when the run
// ends, after the reporters (which read the ledger); CONFORMANCE_KEEP_SCRATCH=1 keeps it.
import path from 'node:path';
import { startMockServer } from '../mock/server.ts';
import { forgetRunConfig, gateOf, runConfig } from '../run/config.ts';
import { runSecrets } from '../run/run-secrets.ts';
import { planOfThisRun, writePlan } from '../run/plan.ts';
import { loadBaseline } from '../report/baseline.ts';
import { discover, saveDiscovery } from './lib/discovery.ts';
import { resolveModelMatrix } from './lib/discovery-matrix.ts';
import { budgetOf } from '../run/profile.ts';
import { Target, type TargetResponse } from '../run/target.ts';
import { closeIdleConnections } from '../run/http.ts';
import { reachTarget, REACH_TIMEOUT_MS } from '../run/reachability.ts';
import { displayPath } from '../run/display-path.ts';
import { describeKey, discoveryKeyRefusal, runKeyOf } from '../run/preflight.ts';
import { targetsOfPlan } from '../run/targets.ts';
import { discoverTargets } from './lib/targets-setup.ts';

export default async function globalSetup(): Promise<() => Promise<void>> {
  const env = process.env;
  // Resolved by the config (or by `chatconform run`) before anything ran: the seed is already fixed.
  const plan = planOfThisRun(env);
  let stopMock: (() => Promise<void>) | undefined;
  // A run of many targets (a targets file, or the target beside its reference): the run's own settings stand for the
  // first target (each test's fixture takes its own).
  const targets = targetsOfPlan(plan);
  const own = targets?.some((t) => t.self) ?? false;
  if (targets && !own && !plan.settings.baseUrl) {
    plan.settings.baseUrl = targets[0]!.baseUrl;
    writePlan(plan);
    forgetRunConfig();
  }
  if (!plan.settings.baseUrl) {
    const mock = await startMockServer({ port: 0 });
    stopMock = () => mock.close();
    // The embedded target's address is the one thing known only now: the plan is rewritten before the workers start.
    plan.settings.baseUrl = mock.url;
    writePlan(plan);
    forgetRunConfig();
  }
  const scratch = plan.runDir;

  const config = runConfig();
  // A bad baseline or gate setting stops the run before it sends anything.
  const gate = gateOf();
  if (gate.expectedFailures) loadBaseline(gate.expectedFailures);
  // The run header names the key's source and last 4 characters: a run with no key, or the wrong one, says so first.
  const key = runKeyOf(plan, config.apiKey || undefined, undefined);
  process.stderr.write(`chatconform: target ${config.embeddedMock ? `${config.baseUrl} (embedded mock)` : config.baseUrl}; seed ${config.seed}${plan.seedDrawn ? ' (random)' : ''}` +
    (config.profilePath ? `; profile ${displayPath(config.profilePath)}` : '; no profile') + `; key: ${describeKey(key)}; scratch ${scratch}\n`);

  // The matrix's models (chosen when the config loaded, beside the plan): every target's discovery probes them.
  const matrix = (await resolveModelMatrix(plan)) ?? [];
  if (targets) {
    process.stderr.write(`chatconform: ${targets.length} targets in one run\n`);
    await discoverTargets(targets, matrix);
    // Without the run's own target among them, there is nothing more to set up.
    if (!own) {
      return async () => {
        closeIdleConnections();
        await stopMock?.();
      };
    }
  }
  const target = new Target(config);
  // One question before any test: a target that cannot be reached, or is not this API, ends the run here.
  let catalog: TargetResponse | undefined;
  const problem = await reachTarget(
    () => target.get('/v1/models', { timeoutMs: REACH_TIMEOUT_MS }),
    config.baseUrl,
    {
      waitSeconds: config.waitForTargetSeconds ?? 0,
      onWait: (p) => process.stderr.write(`chatconform: waiting up to ${config.waitForTargetSeconds ?? 0} s for the target (${p})\n`),
    },
    (answer) => (catalog = answer),
  );
  if (problem !== undefined) {
    await stopMock?.();
    throw problem;
  }
  if (matrix.length > 0) process.stderr.write(`chatconform: per-model matrix of ${matrix.length} model(s)\n`);
  const found = await discover(target, config.profile, budgetOf(config.profile).maxSearchProbes, config.models, matrix);
  // Every request of discovery refused for its key (or for want of one): a setup mistake, not the server's failures.
  const refusal = discoveryKeyRefusal(config.baseUrl, key, catalog!, found.accessProbes ?? []);
  if (refusal) {
    await stopMock?.();
    throw refusal;
  }
  saveDiscovery(config.runDir, found, runSecrets(config));
  return async () => {
    closeIdleConnections();
    await stopMock?.();
  };
}

// The global setup's part in a run of many targets (run/targets.ts): each target gets its scratch folder and its
// discovery, a few at a time. A target that cannot be reached does not end the run: its discovery says why, and its
// tests skip with that reason, while the other targets are judged.
import { mkdirSync } from 'node:fs';
import { runConfig } from '../../run/config.ts';
import { runSecrets } from '../../run/run-secrets.ts';
import { budgetOf } from '../../run/profile.ts';
import { reachTarget, REACH_TIMEOUT_MS } from '../../run/reachability.ts';
import { SetupError } from '../../run/setup-messages.ts';
import { Target } from '../../run/target.ts';
import { targetConfig, type RunTarget } from '../../run/targets.ts';
import { discover, saveDiscovery } from './discovery.ts';

/** Discoveries under way at once: enough to hide each target's latency, few enough to stay polite. */
const AT_ONCE = 4;

/** Sets up every target but the run's own; `matrix` holds the per-model matrix's models (each target is asked about them). */
export async function discoverTargets(targets: readonly RunTarget[], matrix: readonly string[] = []): Promise<void> {
  const run = runConfig();
  let next = 0;
  const lane = async () => {
    for (let i = next++; i < targets.length; i = next++) {
      // The run's own target is set up as a run's always is (suites/global-setup.ts).
      if (targets[i]!.self) continue;
      const config = targetConfig(run, targets[i]!, i);
      mkdirSync(config.runDir, { recursive: true });
      const target = new Target(config);
      const problem = await reachTarget(() => target.get('/v1/models', { timeoutMs: REACH_TIMEOUT_MS }), config.baseUrl, { waitSeconds: config.waitForTargetSeconds ?? 0, onWait: () => {} });
      // The reference of `chatconform run --reference` is what the run's target is read against: without it, no run.
      if (problem !== undefined && targets[i]!.reference) throw new SetupError(problem.id, `the reference ${config.baseUrl}: ${problem.message}`, 3);
      const found = problem !== undefined ? { catalogError: `the target cannot be judged: ${problem.message}`, models: [], searchProbes: [] } : await discover(target, config.profile, budgetOf(config.profile).maxSearchProbes, config.models, matrix);
      saveDiscovery(config.runDir, found, runSecrets(config));
    }
  };
  await Promise.all(Array.from({ length: Math.min(AT_ONCE, targets.length) }, lane));
}

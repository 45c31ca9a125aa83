// The one set of secrets of a run: every credential of every target (its key, its profile's keys and secrets, the
// headers it sends), of the reference, and of the run's own configuration. Every report, attachment, log and scratch
// file of the run is redacted with this whole set, never with one target's share of it: a target's server may echo
// another target's key (a shared gateway, a proxy that logs what it saw), and that key must be masked in this
// target's outputs too.
import { headerSecrets } from './extra-headers.ts';
import { configOfPlan, ENV, profilePathOf, profileSecrets, secrets, type RunConfig } from './config.ts';
import { currentPlan, PLAN_ENV } from './plan.ts';
import { loadProfile } from './profile.ts';
import { REFERENCE_ENV } from './reference.ts';
import { runTargets, TARGETS_FILE_ENV, type RunTarget } from './targets.ts';

/** The run's secrets that do not come from the configuration at hand, read once per process (by targets file). */
let others: { key: string; values: string[] } | undefined;

/** A profile's secrets, and its headers' values unless public; nothing for a profile that does not load (refused elsewhere). */
function profileFileSecrets(file: string | undefined, publicHeaders: readonly string[]): string[] {
  if (!file) return [];
  try {
    const profile = loadProfile(profilePathOf(file));
    return [...profileSecrets(profile), ...headerSecrets(profile.headers ?? {}, publicHeaders)];
  } catch {
    return [];
  }
}

/** Every credential of the run besides `config`'s: the run's own, every target's, the reference's. */
function otherSecrets(env: NodeJS.ProcessEnv): string[] {
  const key = [env[TARGETS_FILE_ENV], env[ENV.apiKey], env[REFERENCE_ENV.apiKey], env[REFERENCE_ENV.profile], env[PLAN_ENV]].join('\u0000');
  if (others?.key === key) return others.values;
  const out: string[] = [env[ENV.apiKey] ?? '', env[REFERENCE_ENV.apiKey] ?? ''];
  const plan = currentPlan(env);
  const publicHeaders = plan?.settings.publicHeaders ?? [];
  if (plan) {
    try {
      out.push(...secrets(configOfPlan(plan, env)));
    } catch {
      // No base URL yet (before the global setup fills the embedded mock's in): the profile and headers alone.
      out.push(...profileFileSecrets(plan.settings.profile, publicHeaders), ...headerSecrets(plan.settings.headers ?? {}, publicHeaders));
    }
    out.push(...profileFileSecrets(plan.settings.referenceProfile, publicHeaders));
  } else {
    out.push(...profileFileSecrets(env[REFERENCE_ENV.profile], publicHeaders));
  }
  let targets: RunTarget[];
  try {
    targets = runTargets(env) ?? [];
  } catch {
    // A targets file that does not read was refused before the run.
    targets = [];
  }
  for (const t of targets) {
    if (t.apiKey) out.push(t.apiKey);
    if (t.apiKeyEnv && env[t.apiKeyEnv]) out.push(env[t.apiKeyEnv]!);
    out.push(...profileFileSecrets(t.profile, publicHeaders));
  }
  others = { key, values: out };
  return out;
}

/**
 * Every credential the run knows, longest first (a key that contains another is masked whole): `config`'s (one
 * target's configuration, or the run's), and every other target's and the reference's. Redaction masks them all.
 */
export function runSecrets(config?: RunConfig, env: NodeJS.ProcessEnv = process.env): string[] {
  const all = [...(config ? secrets(config) : []), ...otherSecrets(env)];
  return [...new Set(all.filter((s) => s.length >= 4))].sort((a, b) => b.length - a.length);
}

// Many targets in one run. A target (its URL, key, profile, seed, and the spec files it runs) is part of a slot of the
// run (run/slots.ts), not a process: every test is declared once per target whose files hold it, in its slot's
// describe block, all in one project, so the same runner and the same workers serve every target. The targets come
// from the run's plan: a targets file's, or the run's own beside its reference (`chatconform run --reference`). Each
// target keeps its own scratch folder (discovery, ledger, budget) and its own reports. A new target costs its tests,
// never a runner, a global setup or a worker; a target that hangs or floods holds only its own tests (their own
// timeouts and budget).
import path from 'node:path';
import { loadProfile } from './profile.ts';
import { profilePathOf, type RunConfig } from './config.ts';
import { currentPlan, type RunPlan } from './plan.ts';
import { REFERENCE_ENV } from './reference.ts';
import { SLOT_ANNOTATION } from './slots.ts';
import type { RunTarget } from './targets-file.ts';

export { isTargetName, TARGETS_FILE_ENV, targetsOf, type RunTarget } from './targets-file.ts';

/** The names of the two targets of a run beside its reference (`chatconform run --reference`): their blocks' titles. */
export const REFERENCE_PAIR = { reference: 'reference', self: 'target' } as const;

/**
 * The run's targets by its plan: the targets file's, or the run's own beside its reference (its URL, key variable,
 * profile and model: nothing of the run's own target); undefined for a run of one target.
 */
export function targetsOfPlan(plan: RunPlan | undefined): RunTarget[] | undefined {
  if (plan?.targets) return plan.targets;
  const url = plan?.settings.reference;
  if (!plan || !url) return undefined;
  const reference: RunTarget = {
    name: REFERENCE_PAIR.reference,
    reference: true,
    baseUrl: url,
    apiKeyEnv: REFERENCE_ENV.apiKey,
    ...(plan.settings.referenceProfile ? { profile: plan.settings.referenceProfile } : {}),
    ...(plan.settings.referenceModel ? { models: [plan.settings.referenceModel] } : {}),
  };
  return [reference, { name: REFERENCE_PAIR.self, self: true }];
}

let read: { plan: RunPlan | undefined; targets: RunTarget[] | undefined } | undefined;
/** The targets of this process's run (its plan's), worked out once per plan: the fixtures ask for each test and the reporter for each case. */
export function runTargets(env: NodeJS.ProcessEnv = process.env): RunTarget[] | undefined {
  const plan = currentPlan(env);
  if (!read || read.plan !== plan) read = { plan, targets: targetsOfPlan(plan) };
  return read.targets;
}

/** The annotation naming the target a test is declared for (its slot's). */
export const TARGET_ANNOTATION = SLOT_ANNOTATION.target;

/** The index of the target a test is declared for, from its annotations; 0 when it names none (a run of one target). */
export function targetIndexOfAnnotations(annotations: readonly { type: string; description?: string }[], targets: readonly RunTarget[]): number {
  const name = annotations.find((a) => a.type === TARGET_ANNOTATION)?.description;
  if (name === undefined) return 0;
  const i = targets.findIndex((t) => t.name === name);
  return i < 0 ? -1 : i;
}

/** A target's scratch folder inside the run's. */
export function targetRunDir(runDir: string, index: number): string {
  return path.join(runDir, 'targets', String(index));
}

/** Where a target's four reports go. */
export function targetReportDir(reportDir: string, target: RunTarget): string {
  return path.join(reportDir, 'targets', target.name);
}

/** The run's configuration as one target's tests see it. */
export function targetConfig(run: RunConfig, target: RunTarget, index: number, env: NodeJS.ProcessEnv = process.env): RunConfig {
  if (target.self) return run;
  // A path, or the name of a built-in profile (`mock`), as CONFORMANCE_PROFILE takes it.
  const profilePath = target.profile ? profilePathOf(target.profile) : undefined;
  const profile = loadProfile(profilePath);
  // The run's own profile and pinned models are the run's; the target's come from its own profile. A reference
  // takes nothing of the run's that is about the run's own target: its headers and throttle.
  const { profilePath: _runProfile, models: _runModels, apiKeyVar: _runKeyVar, ...rest } = run;
  if (target.reference) {
    delete rest.headers;
    delete rest.maxRps;
    const rpm = profile.budget?.requestsPerMinute;
    if (rpm !== undefined && rpm > 0) rest.maxRps = rpm / 60;
    if (profile.headers && Object.keys(profile.headers).length > 0) rest.headers = Object.fromEntries(Object.entries(profile.headers).map(([k, v]) => [k.toLowerCase(), v]));
  }
  const models = target.models ?? profile.models;
  return {
    ...rest,
    baseUrl: target.baseUrl!.replace(/\/+$/, ''),
    apiKey: (target.apiKeyEnv ? env[target.apiKeyEnv] : undefined) ?? target.apiKey ?? profile.apiKey ?? '',
    // The replay curls name the variable the key was read from, so they run as printed in the same shell.
    ...(target.apiKeyEnv && env[target.apiKeyEnv] !== undefined ? { apiKeyVar: target.apiKeyEnv } : {}),
    profile,
    ...(profilePath ? { profilePath } : {}),
    ...(models && models.length > 0 ? { models: [...models] } : {}),
    reportDir: targetReportDir(run.reportDir, target),
    runDir: targetRunDir(run.runDir, index),
    seed: target.seed ?? run.seed,
    embeddedMock: false,
  };
}

/** A run of the run's own target beside a reference (`chatconform run --reference`): their indexes, else undefined. */
export function referencePair(targets: readonly RunTarget[]): { reference: number; self: number } | undefined {
  if (targets.length !== 2) return undefined;
  const reference = targets.findIndex((t) => t.reference);
  const self = targets.findIndex((t) => t.self);
  return reference >= 0 && self >= 0 ? { reference, self } : undefined;
}

/** Whether `file` (a spec file's absolute path) is one the target runs; `root` is the kit's root. */
export function targetRunsFile(target: RunTarget, file: string, root: string): boolean {
  if (!target.files) return true;
  const bare = (f: string) => f.replace(/\\/g, '/').replace(/^\.\//, '').replace(/\.(ts|js)$/, '');
  const own = bare(path.relative(root, file));
  return target.files.some((f) => bare(f) === own);
}

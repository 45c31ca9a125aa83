// The run's plan: every setting of run/settings.ts resolved once (flag, then variable, then config file, then
// profile, then default), the seed fixed before anything runs, written to the run's folder as plan.json. Every
// process of the run reads that file (CONFORMANCE_PLAN names it): the Playwright config, the global setup, the
// workers (runConfig()) and the reporter. The credentials are held apart: they stay in the processes' environment
// and are never written to plan.json (nor anywhere on disk).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { applyConfigFile } from './config-file.ts';
import { BUILTIN_PROFILES, defaultReportDir, ENV, profilePathOf } from './config.ts';
import { headersOfText, headersText, isPublicHeader } from './extra-headers.ts';
import { loadProfile, type Profile } from './profile.ts';
import { REFERENCE_ENV } from './reference.ts';
import { parseSetting, setting, SettingError, SETTINGS, settingText, type Setting, type SettingName, type SettingValues } from './settings.ts';
import { TARGETS_FILE_ENV, targetsOf, type RunTarget } from './targets-file.ts';

/** The variable naming the plan file, set for every process of the run. */
export const PLAN_ENV = 'CONFORMANCE_PLAN';
export const PLAN_FILE = 'plan.json';

/** The variables that hold credentials: read from the environment, never written into the plan. */
const secretVariables = (): string[] => [ENV.apiKey, REFERENCE_ENV.apiKey];

export interface RunPlan {
  /** Every setting's value: what was given, else the profile's, else the default. Never a credential. */
  settings: Omit<SettingValues, 'apiKey'>;
  /** The settings given by a flag, a variable or the config file (the rest are the profile's or defaults). */
  given: SettingName[];
  /** Fixed before anything runs: given, or drawn at random (and printed) so a reference run and its target share it. */
  seed: number;
  seedDrawn: boolean;
  /** True when no base URL was given: the global setup starts the embedded mock and fills `settings.baseUrl` in. */
  embeddedMock: boolean;
  /** The run's scratch folder (ledger, discovery, this plan); empty until the plan is written. */
  runDir: string;
  /** The config file read, if any. */
  configFile?: string;
  /** The targets of a run of several (CONFORMANCE_TARGETS_FILE, read once here): every process of the run reads them here. */
  targets?: RunTarget[];
  /**
   * Headers whose value is a secret (every one not declared public): plan.json holds their names only, the values stay where
   * they were given (CONFORMANCE_HEADERS in the environment, or the profile).
   */
  heldApartHeaders?: string[];
}

export interface ResolveOptions {
  cwd?: string;
  /** Read a config file (default true); a reference plan derived from its target's does not read it again. */
  configFile?: boolean;
  /** Draw a seed when none is given (default true); outside a run a missing seed stays 0. */
  drawSeed?: boolean;
}

/** The profile file of a plan: the one given, else the mock's own for the embedded mock. */
export function planProfilePath(values: SettingValues, embeddedMock: boolean): string | undefined {
  return values.profile ?? (embeddedMock ? BUILTIN_PROFILES.mock : undefined);
}

/**
 * Resolves every setting once. `env` holds the flags already written over their variables (cli/run.ts); the config
 * file fills in what neither set. Returns the plan and the credentials, which the caller keeps in the environment.
 */
export function resolvePlan(env: NodeJS.ProcessEnv, opts: ResolveOptions = {}): { plan: RunPlan; secrets: Record<string, string> } {
  const merged: NodeJS.ProcessEnv = { ...env };
  const configFile = opts.configFile === false ? undefined : applyConfigFile(merged, opts.cwd ?? process.cwd());
  const values: SettingValues = {};
  const given: SettingName[] = [];
  for (const s of SETTINGS) {
    const raw = merged[s.env];
    if (raw === undefined || raw === '' || s.name === 'apiKey') continue;
    const value = parseSetting(s, raw, profilePathOf);
    // A list of nothing (`CONFORMANCE_MODELS=' , '`) sets nothing.
    if (Array.isArray(value) && value.length === 0) continue;
    (values as Record<string, unknown>)[s.name] = value;
    given.push(s.name);
  }
  const embeddedMock = values.baseUrl === undefined;
  const profilePath = planProfilePath(values, embeddedMock);
  if (profilePath) values.profile = profilePath;
  const profile = profilePath ? loadProfile(profilePath) : {};
  try {
    fillFromProfile(values, profile);
  } catch (err) {
    // Its headers: a profile is a file, and one that cannot be used stops the run (exit 3), named.
    throw new Error(`the target profile ${profilePath}: ${(err as Error).message}`);
  }
  for (const s of SETTINGS as readonly Setting[]) if (s.default !== undefined && (values as Record<string, unknown>)[s.name] === undefined) (values as Record<string, unknown>)[s.name] = s.default;
  values.reportDir ??= defaultReportDir();
  const drawn = values.seed === undefined && opts.drawSeed !== false;
  const seed = values.seed ?? (drawn ? Math.floor(Math.random() * 2 ** 31) : 0);
  values.seed = seed;
  const secrets: Record<string, string> = {};
  for (const name of secretVariables()) if (merged[name]) secrets[name] = merged[name]!;
  const plan: RunPlan = { settings: values, given, seed, seedDrawn: drawn, embeddedMock, runDir: '' };
  if (configFile) plan.configFile = configFile;
  const targets = targetsOf(merged);
  if (targets && values.reference) throw new SettingError(`${TARGETS_FILE_ENV} and ${setting('reference').env}: a run beside its reference is a run of two targets; name the reference in the targets file (reference: true) instead`);
  if (targets) plan.targets = targets;
  return { plan, secrets };
}

/** What a profile sets when nothing above it did (the `profile` column of the table). */
function fillFromProfile(values: SettingValues, profile: Profile): void {
  const budget = profile.budget ?? {};
  if (values.fuzzRuns === undefined && budget.fuzzRuns !== undefined) values.fuzzRuns = budget.fuzzRuns;
  if (values.maxRps === undefined && budget.requestsPerMinute !== undefined) values.maxRps = budget.requestsPerMinute / 60;
  if (values.maxRequestsPerModel === undefined && budget.maxRequestsPerModel !== undefined) values.maxRequestsPerModel = budget.maxRequestsPerModel;
  if (values.models === undefined && profile.models && profile.models.length > 0) values.models = [...new Set(profile.models)];
  if (values.modelMatrix === undefined && profile.modelMatrix && profile.modelMatrix.length > 0) values.modelMatrix = [...profile.modelMatrix];
  // Headers merge per name: the profile's under the given ones.
  if (profile.headers) values.headers = { ...headersOfText(headersText(profile.headers)), ...(values.headers ?? {}) };
}

/**
 * The variables of what the plan was given, and its seed: for the modules that read a variable (the selection, the
 * shard, the trials, the reporter's gate) and for a child run, so every one of them sees the plan's values.
 */
export function planVariables(plan: RunPlan): Record<string, string> {
  const out: Record<string, string> = {};
  for (const s of SETTINGS) {
    const value = (plan.settings as Record<string, unknown>)[s.name];
    if (value === undefined || !(plan.given as string[]).includes(s.name)) continue;
    // Headers: the given ones only (the profile's are the plan's, not a variable's).
    out[s.env] = settingText(s, value);
  }
  out[ENV.seed] = String(plan.seed);
  if (plan.settings.baseUrl) out[ENV.baseUrl] = plan.settings.baseUrl;
  if (plan.embeddedMock && plan.settings.baseUrl) out[ENV.embeddedMock] = '1';
  if (plan.runDir) {
    out[ENV.runDir] = plan.runDir;
    out[PLAN_ENV] = path.join(plan.runDir, PLAN_FILE);
  }
  return out;
}

/** Opens a fresh scratch folder for the plan (in the OS temp dir, never the checkout) and writes the plan into it. */
export function writePlanInNewRunDir(plan: RunPlan): string {
  plan.runDir = mkdtempSync(path.join(os.tmpdir(), 'chatconform-run-'));
  return writePlan(plan);
}

/** Writes (or rewrites) plan.json in the plan's run folder, credential headers' values held apart; returns its path. */
export function writePlan(plan: RunPlan): string {
  readPlans.clear();
  const file = path.join(plan.runDir, PLAN_FILE);
  const headers = plan.settings.headers ?? {};
  // Every header not declared public is a secret of the run (run/extra-headers.ts).
  const heldApart = Object.keys(headers).filter((n) => !isPublicHeader(n, plan.settings.publicHeaders));
  const written: RunPlan = heldApart.length === 0 ? plan : { ...plan, settings: { ...plan.settings, headers: Object.fromEntries(Object.entries(headers).filter(([n]) => !heldApart.includes(n))) }, heldApartHeaders: heldApart };
  writeFileSync(file, `${JSON.stringify(written, null, 2)}\n`, { mode: 0o600 });
  return file;
}

/** A plan read back, its credential headers' values taken from where they were given (the variable wins, as it did). */
export function readPlan(file: string, env: NodeJS.ProcessEnv = process.env): RunPlan {
  let plan: RunPlan;
  try {
    plan = JSON.parse(readFileSync(file, 'utf8')) as RunPlan;
  } catch (err) {
    throw new Error(`${PLAN_ENV}: the run's plan ${file} cannot be read (${(err as Error).message.split('\n')[0]})`);
  }
  if (plan.heldApartHeaders?.length) {
    const given = headersOfText(env[ENV.headers]);
    const profile = plan.settings.profile ? headersOfText(headersText(loadProfile(plan.settings.profile).headers ?? {})) : {};
    const headers = { ...plan.settings.headers };
    for (const name of plan.heldApartHeaders) {
      const value = given[name] ?? profile[name];
      if (value !== undefined) headers[name] = value;
    }
    plan.settings.headers = headers;
    delete plan.heldApartHeaders;
  }
  return plan;
}

// Plans this process has read, by file (writePlan forgets them): the selection, the shard and the trials are asked
// for by every test.
const readPlans = new Map<string, RunPlan>();

/**
 * One setting of this process's run: its plan's value (CONFORMANCE_PLAN), else the setting's variable parsed by the
 * table (a caller before the plan is written: the CLI's own checks, a unit test), else undefined.
 */
export function runSetting<N extends SettingName>(name: N, env: NodeJS.ProcessEnv = process.env): SettingValues[N] | undefined {
  const plan = currentPlan(env);
  if (plan) return (plan.settings as SettingValues)[name];
  const s = setting(name);
  const raw = env[s.env];
  return raw === undefined || raw === '' ? undefined : (parseSetting(s, raw) as SettingValues[N]);
}

/** The plan this process runs by: the one CONFORMANCE_PLAN names (read once), else undefined. */
export function currentPlan(env: NodeJS.ProcessEnv = process.env): RunPlan | undefined {
  const file = env[PLAN_ENV];
  if (!file) return undefined;
  let plan = readPlans.get(file);
  if (!plan) readPlans.set(file, (plan = readPlan(file, env)));
  return plan;
}

/**
 * The plan of a process that may be the first of its run (`npx playwright test -c suites/conformance.config.ts`
 * with only CONFORMANCE_* variables): the one CONFORMANCE_PLAN names, else resolved now, written to a fresh run
 * folder and announced in `env` (its variables, the credentials, its path) so the workers read the same plan. The
 * folder is removed when this process exits, unless kept.
 */
export function planOfThisRun(env: NodeJS.ProcessEnv = process.env): RunPlan {
  const existing = currentPlan(env);
  if (existing) return existing;
  const { plan, secrets } = resolvePlan(env);
  writePlanInNewRunDir(plan);
  removeAtExit(plan);
  Object.assign(env, planVariables(plan), secrets);
  return plan;
}

/** Removes the run folder when the process exits (after the reporters, which read the ledger), unless kept. */
export function removeAtExit(plan: RunPlan): void {
  process.once('exit', () => disposeRunDir(plan));
}

/** The run is over: its folder is removed, or kept (--keep-scratch) and named. */
export function disposeRunDir(plan: RunPlan): void {
  if (!plan.runDir) return;
  if (plan.settings.keepScratch) process.stderr.write(`chatconform: scratch folder kept (masked): ${plan.runDir}\n`);
  else rmSync(plan.runDir, { recursive: true, force: true });
}

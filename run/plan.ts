// The run's plan: every setting of run/settings.ts resolved once (flag, then variable, then config file, then
// profile, then default), the seed fixed before anything runs, written to the run's folder as plan.json. The plan is
// the only channel to the run's processes: the Playwright config, the global setup, the workers (runConfig()) and the
// reporter read that file, and their environment names it (CONFORMANCE_PLAN) and holds the credentials, which are
// never written to plan.json (nor anywhere on disk), and none of the settings' variables (runEnvironment).
//
// run/'s imports point one way: kit-paths, settings <- config-file <- plan <- config, selection, trials, shard, ...
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { applyConfigFile, readConfigFile } from './config-file.ts';
import { BUILTIN_PROFILES, defaultReportDir, profilePathOf } from './kit-paths.ts';
import { headersOfText, headersText, isPublicHeader } from './extra-headers.ts';
import { loadProfile, type Profile } from './profile.ts';
import { REFERENCE_ENV } from './reference.ts';
import type { RerunOf } from './rerun.ts';
import { ENV, parseSetting, setting, SettingError, SETTINGS, type Setting, type SettingName, type SettingValues } from './settings.ts';
import { TARGETS_FILE_ENV, targetsOf, type RunTarget } from './targets-file.ts';

/** The variable naming the plan file, set for every process of the run. */
export const PLAN_ENV = 'CONFORMANCE_PLAN';
export const PLAN_FILE = 'plan.json';

/**
 * Every variable the plan is made from (the settings', the reference's, the targets file's) and the ones earlier
 * versions of the kit set for their processes: none of them reaches a process of the run, which reads its plan.
 */
export const INPUT_VARIABLES: readonly string[] = [
  ...SETTINGS.map((s) => s.env),
  ...Object.values(REFERENCE_ENV),
  TARGETS_FILE_ENV,
  PLAN_ENV,
  'CONFORMANCE_RUN_DIR',
  'CONFORMANCE_EMBEDDED_MOCK',
  'CONFORMANCE_RERUN_OF',
];

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
  /** Where the run's key comes from, as the run header names it (`$CONFORMANCE_API_KEY`, `--api-key`, ...); never the key. */
  keySource: string;
  /** The targets of a run of several (CONFORMANCE_TARGETS_FILE, read once here): every process of the run reads them here. */
  targets?: RunTarget[];
  /** A reference run's conformance.json to pair the target's report with (CONFORMANCE_REFERENCE_REPORT, resolved). */
  referenceReport?: string;
  /** `--last-failed` / `--rerun FILE`: the run it reruns (its report records it). */
  rerun?: RerunOf;
  /**
   * Headers whose value is a secret (every one not declared public): plan.json holds their names only, the values stay
   * where they were given (the credentials handed to the run's processes, or the profile).
   */
  heldApartHeaders?: string[];
}

/** What a plan is made from: the settings' texts by variable, in this process only (never a child's environment). */
export interface PlanInput {
  /** The caller's variables, the flags written over them, the config file's settings under both. */
  texts: NodeJS.ProcessEnv;
  /** The config file read, if any. */
  configFile?: string;
  /** Where a given key came from (`--api-key`, `$CONFORMANCE_API_KEY`, the config file's `$VAR`); undefined: none was given. */
  keySource?: string;
}

export interface ResolveOptions {
  cwd?: string;
  /** Read a config file (default true); a reference plan derived from its target's does not read it again. */
  configFile?: boolean;
  /** Draw a seed when none is given (default true); outside a run a missing seed stays 0. */
  drawSeed?: boolean;
  /** The command line's settings, as text by variable: they win over the variables. */
  flags?: Record<string, string>;
}

/** The profile file of a plan: the one given, else the mock's own for the embedded mock. */
export function planProfilePath(values: SettingValues, embeddedMock: boolean): string | undefined {
  return values.profile ?? (embeddedMock ? BUILTIN_PROFILES.mock : undefined);
}

/** The plan's input: the flags over the caller's variables, the config file's settings under both. */
export function planInput(env: NodeJS.ProcessEnv, opts: Pick<ResolveOptions, 'cwd' | 'configFile' | 'flags'> = {}): PlanInput {
  const flags = opts.flags ?? {};
  const texts: NodeJS.ProcessEnv = { ...env, ...flags };
  // A plan is made here, never taken from a run that started this process.
  delete texts[PLAN_ENV];
  const configFile = opts.configFile === false ? undefined : applyConfigFile(texts, opts.cwd ?? process.cwd());
  // Paths are the caller's, relative to where they ran the command; a profile may be a built-in one's name.
  for (const s of SETTINGS as readonly Setting[]) {
    const text = texts[s.env];
    if (text && (s.kind === 'path' || s.kind === 'profile')) texts[s.env] = s.kind === 'path' ? path.resolve(text) : profilePathOf(text);
  }
  const key = ENV.apiKey;
  const keySource = flags[key]
    ? '--api-key'
    : env[key]
      ? `$${key}`
      : texts[key] && configFile
        ? `$${readConfigFile(configFile).apiKeyEnv ?? key} (config file)`
        : undefined;
  return { texts, ...(configFile ? { configFile } : {}), ...(keySource ? { keySource } : {}) };
}

/**
 * Resolves every setting once. `env` holds the caller's variables (and `opts.flags` the command line's settings);
 * the config file fills in what neither set. Returns the plan and the credentials, which the caller hands to the
 * run's processes in their environment (runEnvironment).
 */
export function resolvePlan(env: NodeJS.ProcessEnv, opts: ResolveOptions = {}): { plan: RunPlan; secrets: Record<string, string> } {
  return planOfInput(planInput(env, opts), opts);
}

/** The plan of an input planInput made (and the CLI's own steps completed: a rerun's seed, its report folder). */
export function planOfInput(input: PlanInput, opts: Pick<ResolveOptions, 'drawSeed'> = {}): { plan: RunPlan; secrets: Record<string, string> } {
  const merged = input.texts;
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
  for (const name of [ENV.apiKey, REFERENCE_ENV.apiKey]) if (merged[name]) secrets[name] = merged[name]!;
  // The given headers that are secrets (every one not declared public) reach the run's processes as credentials do,
  // never through plan.json.
  const credentialHeaders = Object.entries(headersOfText(merged[ENV.headers])).filter(([name]) => !isPublicHeader(name, values.publicHeaders));
  if (credentialHeaders.length > 0) secrets[ENV.headers] = headersText(Object.fromEntries(credentialHeaders));
  const keySource = merged[ENV.apiKey] ? (input.keySource ?? `$${ENV.apiKey}`) : profile.apiKey ? `the profile's apiKey (${path.basename(profilePath!)})` : 'none';
  const plan: RunPlan = { settings: values, given, seed, seedDrawn: drawn, embeddedMock, runDir: '', keySource };
  if (input.configFile) plan.configFile = input.configFile;
  const targets = targetsOf(merged);
  if (targets && values.reference) throw new SettingError(`${TARGETS_FILE_ENV} and ${setting('reference').env}: a run beside its reference is a run of two targets; name the reference in the targets file (reference: true) instead`);
  if (targets) plan.targets = targets;
  if (merged[REFERENCE_ENV.report]) plan.referenceReport = path.resolve(merged[REFERENCE_ENV.report]!);
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

/** The plan file of a written plan. */
export function planFileOf(plan: RunPlan, name: string = PLAN_FILE): string {
  return path.join(plan.runDir, name);
}

/**
 * The environment of a process of the run: the caller's, without any variable the plan was made from, with the
 * plan's path and the credentials. Nothing else of the run travels as a variable.
 */
export function runEnvironment(planFile: string, secrets: Record<string, string>, base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return { ...withoutInputVariables(base), ...secrets, [PLAN_ENV]: planFile };
}

/** `base` without the variables a plan is made from (INPUT_VARIABLES); the credentials stay. */
export function withoutInputVariables(base: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...base };
  for (const name of INPUT_VARIABLES) if (name !== ENV.apiKey && name !== REFERENCE_ENV.apiKey) delete env[name];
  return env;
}

/** Opens a fresh scratch folder for the plan (in the OS temp dir, never the checkout) and writes the plan into it. */
export function writePlanInNewRunDir(plan: RunPlan): string {
  plan.runDir = mkdtempSync(path.join(os.tmpdir(), 'chatconform-run-'));
  return writePlan(plan);
}

/**
 * Writes (or rewrites) the plan in its run folder, credential headers' values held apart; returns its path. `name`:
 * another plan of the same run (the listing of the whole suite for a shard).
 */
export function writePlan(plan: RunPlan, name: string = PLAN_FILE): string {
  readPlans.clear();
  const file = planFileOf(plan, name);
  const headers = plan.settings.headers ?? {};
  // Every header not declared public is a secret of the run (run/extra-headers.ts).
  const heldApart = Object.keys(headers).filter((n) => !isPublicHeader(n, plan.settings.publicHeaders));
  const written: RunPlan = heldApart.length === 0 ? plan : { ...plan, settings: { ...plan.settings, headers: Object.fromEntries(Object.entries(headers).filter(([n]) => !heldApart.includes(n))) }, heldApartHeaders: heldApart };
  writeFileSync(file, `${JSON.stringify(written, null, 2)}\n`, { mode: 0o600 });
  return file;
}

/** A plan read back, its credential headers' values taken from where they were given (the credentials handed over win, as they did). */
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
 * table (a caller before the plan is made: the CLI's own checks of its input, a unit test), else undefined.
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
 * with only CONFORMANCE_* variables): the one CONFORMANCE_PLAN names, else resolved now and written to a fresh run
 * folder; then `env` becomes the run's (runEnvironment: the plan's path and the credentials, no setting's variable),
 * so the workers read the same plan. The folder is removed when this process exits, unless kept.
 */
export function planOfThisRun(env: NodeJS.ProcessEnv = process.env): RunPlan {
  const existing = currentPlan(env);
  if (existing) return existing;
  const { plan, secrets } = resolvePlan(env);
  const file = writePlanInNewRunDir(plan);
  removeAtExit(plan);
  const handed = runEnvironment(file, secrets, env);
  for (const name of Object.keys(env)) if (!(name in handed)) delete env[name];
  Object.assign(env, handed);
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

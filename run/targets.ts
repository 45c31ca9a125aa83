// Many targets in one run. A target (its URL, key, profile, seed, and the spec files it runs) is a test-scoped
// option of the suite, not a process: every test is declared once per target whose files hold it, in a describe
// block named by the target and annotated with it (suites/lib/test-fixtures.ts), all in one project, so the same
// runner and the same workers serve every target (a repetition of repeatEach, like a project, would start workers of
// its own). Each target keeps its own scratch folder (discovery, ledger, budget) and its own reports. A new target
// costs its tests, never a runner, a global setup or a worker; a target that hangs or floods holds only its own
// tests (their own timeouts and budget).
import { readJsonFile } from '../spec/file-reader.ts';
import path from 'node:path';
import { loadProfile } from './profile.ts';
import { profilePathOf, type RunConfig } from './config.ts';

/** The file that lists a run's targets (JSON, an array of RunTarget); set by whoever starts such a run. */
export const TARGETS_FILE_ENV = 'CONFORMANCE_TARGETS_FILE';

export interface RunTarget {
  /** Unique in the run: names the target's reports folder (`<report dir>/targets/<name>/`). */
  name: string;
  /** Required but for the run's own target (`self`). */
  baseUrl?: string;
  /**
   * The run's own target: its settings are the run's (URL or the embedded mock, key, profile, headers), its scratch
   * folder and reports the run's. No other field but `name`.
   */
  self?: boolean;
  /**
   * A reference: its settings are its own only, none of the run's (headers, throttle, pinned models); its throttle
   * and budget are its profile's. `chatconform run --reference` runs one beside the run's own target.
   */
  reference?: boolean;
  /** The models the target is pinned to (default its profile's `models`). */
  models?: string[];
  /** The bearer credential; default the profile's `apiKey`. Never written to any output. */
  apiKey?: string;
  /** The variable that holds the credential (a targets file need not hold a key): wins over `apiKey`. */
  apiKeyEnv?: string;
  /** The target's profile file; none: a black box. */
  profile?: string;
  /** The target's seed; default the run's. */
  seed?: number;
  /**
   * The spec files this target runs, relative to the kit's root (`suites/chat.spec.ts`); default every file. Its
   * report is then partial, as a run given those files would be.
   */
  files?: string[];
}

/**
 * Whether a target's name is a plain folder name: it names the target's report folder (`<report dir>/targets/<name>/`),
 * so `.`, `..` (the report folder itself, or its parent, where a one-target run's report is read) and any hidden name
 * are refused, as is anything but letters, digits, '.', '_' and '-'.
 */
export function isTargetName(name: unknown): name is string {
  return typeof name === 'string' && /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,99}$/.test(name);
}

/** The run's targets, or undefined for a run of one target (the usual run, configured by CONFORMANCE_BASE_URL). */
export function targetsOf(env: NodeJS.ProcessEnv = process.env): RunTarget[] | undefined {
  const file = env[TARGETS_FILE_ENV];
  if (!file) return undefined;
  let parsed: unknown;
  try {
    parsed = readJsonFile(file, TARGETS_FILE_ENV);
  } catch (err) {
    // The kit's one reader: a regular file within its bound, never echoed.
    throw new Error(`${TARGETS_FILE_ENV}: ${file} cannot be read as JSON: ${(err as Error).message.slice(`${TARGETS_FILE_ENV} ${file}: `.length)}`);
  }
  if (!Array.isArray(parsed) || parsed.length === 0) throw new Error(`${TARGETS_FILE_ENV}: ${file} must hold a non-empty array of targets`);
  const names = new Set<string>();
  return parsed.map((t: unknown, i) => {
    const o = (t ?? {}) as Partial<RunTarget>;
    if (!isTargetName(o.name)) throw new Error(`${TARGETS_FILE_ENV}: target ${i} needs a name of letters, digits, '.', '_' or '-' that is a plain folder name (not '.' or '..', not starting with '.')`);
    // Case apart: two names one folder on a case-insensitive disk.
    if (names.has(o.name.toLowerCase())) throw new Error(`${TARGETS_FILE_ENV}: two targets are named ${o.name}`);
    names.add(o.name.toLowerCase());
    if (o.self === true) {
      if (Object.keys(o).some((k) => k !== 'name' && k !== 'self')) throw new Error(`${TARGETS_FILE_ENV}: target ${o.name} is the run's own (self): it takes the run's settings and no other field`);
      return o as RunTarget;
    }
    if (typeof o.baseUrl !== 'string' || o.baseUrl === '') throw new Error(`${TARGETS_FILE_ENV}: target ${o.name} needs a baseUrl`);
    if (o.models !== undefined && (!Array.isArray(o.models) || !o.models.every((m) => typeof m === 'string'))) throw new Error(`${TARGETS_FILE_ENV}: target ${o.name}: models must be a list of ids`);
    if (o.apiKeyEnv !== undefined && (typeof o.apiKeyEnv !== 'string' || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(o.apiKeyEnv))) throw new Error(`${TARGETS_FILE_ENV}: target ${o.name}: apiKeyEnv must name a variable`);
    if (o.seed !== undefined && !Number.isSafeInteger(o.seed)) throw new Error(`${TARGETS_FILE_ENV}: target ${o.name}: seed must be an integer`);
    if (o.files !== undefined && (!Array.isArray(o.files) || !o.files.every((f) => typeof f === 'string'))) throw new Error(`${TARGETS_FILE_ENV}: target ${o.name}: files must be a list of paths`);
    return o as RunTarget;
  });
}

let read: { file: string | undefined; targets: RunTarget[] | undefined } | undefined;
/**
 * The run's targets, read once per process (the file does not change during a run): the fixtures ask for each test
 * and the reporter for each case.
 */
export function runTargets(env: NodeJS.ProcessEnv = process.env): RunTarget[] | undefined {
  const file = env[TARGETS_FILE_ENV];
  if (!read || read.file !== file) read = { file, targets: targetsOf(env) };
  return read.targets;
}

/** The annotation naming the target a test is declared for. */
export const TARGET_ANNOTATION = 'target';

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

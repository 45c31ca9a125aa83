// Many targets in one run. A target (its URL, key, profile, seed, and the spec files it runs) is a test-scoped
// option of the suite, not a process: the runner repeats every test once per target (Playwright's repeatEach), the
// same workers serve them all, and each target keeps its own scratch folder (discovery, ledger, budget) and its own
// reports. A new target costs its tests, never a runner, a global setup or a worker; a target that hangs or floods
// holds only its own tests (their own timeouts and budget).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { loadProfile } from './profile.ts';
import { profilePathOf, type RunConfig } from './config.ts';

/** The file that lists a run's targets (JSON, an array of RunTarget); set by whoever starts such a run. */
export const TARGETS_FILE_ENV = 'CONFORMANCE_TARGETS_FILE';

export interface RunTarget {
  /** Unique in the run: names the target's reports folder (`<report dir>/targets/<name>/`). */
  name: string;
  baseUrl: string;
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

/** The run's targets, or undefined for a run of one target (the usual run, configured by CONFORMANCE_BASE_URL). */
export function targetsOf(env: NodeJS.ProcessEnv = process.env): RunTarget[] | undefined {
  const file = env[TARGETS_FILE_ENV];
  if (!file) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new Error(`${TARGETS_FILE_ENV}: ${file} cannot be read as JSON: ${(err as Error).message.split('\n')[0]}`);
  }
  if (!Array.isArray(parsed) || parsed.length === 0) throw new Error(`${TARGETS_FILE_ENV}: ${file} must hold a non-empty array of targets`);
  const names = new Set<string>();
  return parsed.map((t: unknown, i) => {
    const o = (t ?? {}) as Partial<RunTarget>;
    if (typeof o.name !== 'string' || !/^[A-Za-z0-9._-]{1,100}$/.test(o.name)) throw new Error(`${TARGETS_FILE_ENV}: target ${i} needs a name of letters, digits, '.', '_' or '-'`);
    if (names.has(o.name)) throw new Error(`${TARGETS_FILE_ENV}: two targets are named ${o.name}`);
    names.add(o.name);
    if (typeof o.baseUrl !== 'string') throw new Error(`${TARGETS_FILE_ENV}: target ${o.name} needs a baseUrl`);
    if (o.apiKeyEnv !== undefined && (typeof o.apiKeyEnv !== 'string' || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(o.apiKeyEnv))) throw new Error(`${TARGETS_FILE_ENV}: target ${o.name}: apiKeyEnv must name a variable`);
    if (o.seed !== undefined && !Number.isSafeInteger(o.seed)) throw new Error(`${TARGETS_FILE_ENV}: target ${o.name}: seed must be an integer`);
    if (o.files !== undefined && (!Array.isArray(o.files) || !o.files.every((f) => typeof f === 'string'))) throw new Error(`${TARGETS_FILE_ENV}: target ${o.name}: files must be a list of paths`);
    return o as RunTarget;
  });
}

/** The annotation of a test left out for a target: the target does not run its file (the reporter drops it). */
export const OUTSIDE_TARGET_ANNOTATION = 'outside-target';

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
  // A path, or the name of a built-in profile (`mock`), as CONFORMANCE_PROFILE takes it.
  const profilePath = target.profile ? profilePathOf(target.profile) : undefined;
  const profile = loadProfile(profilePath);
  // The run's own profile and pinned models are the run's; the target's come from its own profile.
  const { profilePath: _runProfile, models: _runModels, ...rest } = run;
  return {
    ...rest,
    baseUrl: target.baseUrl.replace(/\/+$/, ''),
    apiKey: (target.apiKeyEnv ? env[target.apiKeyEnv] : undefined) ?? target.apiKey ?? profile.apiKey ?? '',
    profile,
    ...(profilePath ? { profilePath } : {}),
    ...(profile.models && profile.models.length > 0 ? { models: [...profile.models] } : {}),
    reportDir: targetReportDir(run.reportDir, target),
    runDir: targetRunDir(run.runDir, index),
    seed: target.seed ?? run.seed,
    embeddedMock: false,
  };
}

/** Whether `file` (a spec file's absolute path) is one the target runs; `root` is the kit's root. */
export function targetRunsFile(target: RunTarget, file: string, root: string): boolean {
  if (!target.files) return true;
  const bare = (f: string) => f.replace(/\\/g, '/').replace(/^\.\//, '').replace(/\.(ts|js)$/, '');
  const own = bare(path.relative(root, file));
  return target.files.some((f) => bare(f) === own);
}

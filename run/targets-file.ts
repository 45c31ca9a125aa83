// The targets file (CONFORMANCE_TARGETS_FILE): a JSON list of the targets one run judges, read once when the run is
// planned (run/plan.ts keeps them in the plan, where every process of the run reads them) and checked before anything
// runs. What a target's tests see of it is run/targets.ts.
import { readJsonFile } from '../spec/file-reader.ts';

/** The file that lists a run's targets (JSON, an array of RunTarget): the user's; the kit reads it into the plan. */
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

/** The targets file's targets, or undefined when none is given (a run of one target, configured by CONFORMANCE_BASE_URL). */
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

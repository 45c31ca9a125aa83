// The targets file (CONFORMANCE_TARGETS_FILE): a JSON list of the targets one run judges, read once when the run is
// planned (run/plan.ts keeps them in the plan, where every process of the run reads them) and checked before anything
// runs. What a target's tests see of it is run/targets.ts.
import { readFileSync } from 'node:fs';

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

/** The targets file's targets, or undefined when none is given (a run of one target, configured by CONFORMANCE_BASE_URL). */
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

// The target profile (CONFORMANCE_PROFILE): what a target can be asked beyond the black box.
// Its JSON Schema is spec/schemas/profile.schema.json; the README documents every field.
import { readJsonFile } from '../spec/file-reader.ts';
import { formatIssues, validate } from '../spec/validator.ts';

export interface Profile {
  name?: string;
  description?: string;
  /** Fallback credential when CONFORMANCE_API_KEY is unset (mock profiles only; never commit a real key). */
  apiKey?: string;
  /** A key limited to an explicit list of models (section 5). */
  restrictedKey?: { key: string; allowedModels: string[] };
  /** A key whose account tier is below the min_tier of the listed models. */
  lowTierKey?: { key: string; deniedModels: string[] };
  /** A model that is in the catalog but deactivated (403 model_not_found). */
  deactivatedModel?: string;
  /** A listed model that cannot currently be served (503 model_unavailable). */
  unavailableModel?: string;
  /** The only models the run may ask for completions (certify one model; CONFORMANCE_MODELS wins). */
  models?: string[];
  /** The per-model matrix: `all`, or ids and globs such as `acme/*` (CONFORMANCE_MODEL_MATRIX wins). */
  modelMatrix?: string[];
  /** Headers added to every request (a gateway's tenant or routing header); CONFORMANCE_HEADERS wins per name. */
  headers?: Record<string, string>;
  /** Whether the target honours the mock's scenario headers (x-mock-*). */
  scenarioHeaders?: boolean;
  /** Routing behaviour the target declares: allowFallbacks true = allow_fallbacks false without a ranked route is refused. */
  routing?: { allowFallbacks?: boolean };
  webSearch?: {
    /** Models known to serve hosted search; when absent the suite probes. */
    models?: string[];
    /** Models known not to serve hosted search. */
    unsupportedModels?: string[];
  };
  budget?: {
    /** Most requests the run may send. */
    maxRequests?: number;
    /** Largest token cap any request may carry. */
    maxTokensPerRequest?: number;
    /** Most the run may spend, in the target's cost unit (sum of usage.cost). */
    maxCost?: number;
    /** Default number of runs per property when CONFORMANCE_FUZZ_RUNS is unset. */
    fuzzRuns?: number;
    /** How many models the suite may probe for hosted search. */
    maxSearchProbes?: number;
    /** Most requests per minute of the whole run, all workers together (CONFORMANCE_MAX_RPS wins). */
    requestsPerMinute?: number;
    /** Most requests one model of the matrix may take (CONFORMANCE_MAX_REQUESTS_PER_MODEL wins); none by default. */
    maxRequestsPerModel?: number;
  };
  /** Further strings to mask in every output. */
  secrets?: string[];
}

export const DEFAULT_BUDGET = {
  maxRequests: 2000,
  // Room for a whole tool call; requests that name no cap carry a smaller one (DEFAULT_CAP in target.ts).
  maxTokensPerRequest: 256,
  maxCost: 1,
  fuzzRuns: 25,
  maxSearchProbes: 4,
} as const;

export function loadProfile(file: string | undefined): Profile {
  if (!file) return {};
  // The kit's one reader: a regular file within its bound; its text (keys) never echoed in a refusal.
  const data = readJsonFile(file, 'the target profile');
  const result = validate('profile', data);
  if (!result.valid) throw new Error(`the target profile ${file} is invalid:\n${formatIssues(result.errors, { values: false })}`);
  return data as Profile;
}

/** The budget with its defaults; the rate limit has none (unthrottled). */
export type Budget = Required<Omit<NonNullable<Profile['budget']>, 'requestsPerMinute' | 'maxRequestsPerModel'>> & { requestsPerMinute?: number; maxRequestsPerModel?: number };

export function budgetOf(p: Profile): Budget {
  return { ...DEFAULT_BUDGET, ...(p.budget ?? {}) };
}

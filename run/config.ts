// The run's configuration: environment first, then the target profile, then defaults.
// Every value a person can set is read here and nowhere else.
import { headerSecrets, headersOfText, headersText } from './extra-headers.ts';
import { existsSync, readFileSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_IDLE_TIMEOUT_MS, DEFAULT_MAX_BODY_BYTES, DEFAULT_REQUEST_TIMEOUT_MS } from './http.ts';
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from './transient.ts';
import { loadProfile, type Profile } from './profile.ts';

export interface RunConfig {
  /** Origin plus optional path prefix, without a trailing slash; the suite appends `/v1/...`. */
  baseUrl: string;
  apiKey: string;
  profile: Profile;
  profilePath?: string;
  reportDir: string;
  /** Scratch folder shared by the workers of one run (ledger, discovered catalog). */
  runDir: string;
  seed: number;
  fuzzRuns: number;
  /**
   * The overall bound on one request, for the whole exchange (retry included): generous, so a slow stream that
   * keeps arriving completes; a target that never stops sending still never hangs the run.
   */
  requestTimeoutMs: number;
  /** The longest wait for the next byte (the head, then each part of the body); at most `requestTimeoutMs`. Default 15000. */
  idleTimeoutMs?: number;
  /** Largest response body read (an event stream likewise); past it the read stops with "response larger than N bytes". */
  maxBodyBytes: number;
  /** Keep the scratch folder (masked) after the run instead of removing it. */
  keepScratch: boolean;
  /** True when the run started the embedded mock itself. */
  embeddedMock: boolean;
  /** How a transient refusal (429, 503 with Retry-After) of a request that is not about it is retried. */
  retry: RetryPolicy;
  /** Most requests per second of the whole run (all workers); undefined: no throttle. */
  maxRps?: number;
  /** Headers added to every request (the profile's `headers`, then CONFORMANCE_HEADERS over them), names in lower case. */
  headers?: Record<string, string>;
  /** How long the run waits for an unreachable target before its first test (0: it asks once). */
  waitForTargetSeconds?: number;
  /** The models the run is pinned to; undefined: discovery picks among all listed models. */
  models?: string[];
  /** The per-model matrix: the model this test's project judges (set by the suite's `config` fixture, never by env). */
  matrixModel?: string;
  /** Most requests one model of the matrix may take (CONFORMANCE_MAX_REQUESTS_PER_MODEL, the profile's budget). */
  maxRequestsPerModel?: number;
}

export const ENV = {
  baseUrl: 'CONFORMANCE_BASE_URL',
  apiKey: 'CONFORMANCE_API_KEY',
  profile: 'CONFORMANCE_PROFILE',
  reportDir: 'CONFORMANCE_REPORT_DIR',
  seed: 'CONFORMANCE_SEED',
  fuzzRuns: 'CONFORMANCE_FUZZ_RUNS',
  requestTimeoutMs: 'CONFORMANCE_REQUEST_TIMEOUT_MS',
  idleTimeoutMs: 'CONFORMANCE_IDLE_TIMEOUT_MS',
  maxBodyBytes: 'CONFORMANCE_MAX_BODY_BYTES',
  keepScratch: 'CONFORMANCE_KEEP_SCRATCH',
  maxRetries: 'CONFORMANCE_MAX_RETRIES',
  maxRetryWaitMs: 'CONFORMANCE_MAX_RETRY_WAIT_MS',
  maxRps: 'CONFORMANCE_MAX_RPS',
  waitForTarget: 'CONFORMANCE_WAIT_FOR_TARGET',
  /** One `Name: value` per line. */
  headers: 'CONFORMANCE_HEADERS',
  expectedFailures: 'CONFORMANCE_EXPECTED_FAILURES',
  models: 'CONFORMANCE_MODELS',
  failOn: 'CONFORMANCE_FAIL_ON',
  /** The per-model matrix: `all`, or ids and globs (`acme/*`), comma-separated. */
  modelMatrix: 'CONFORMANCE_MODEL_MATRIX',
  maxRequestsPerModel: 'CONFORMANCE_MAX_REQUESTS_PER_MODEL',
  /** How many models of the matrix may fail before the run fails (default 0: any failing model fails it). */
  maxFailingModels: 'CONFORMANCE_MAX_FAILING_MODELS',
  /** `--certify`: the ed25519 private key (PEM file) the bundle's manifest is signed with. */
  signKey: 'CONFORMANCE_SIGN_KEY',
  /** `--shard i/n`: run one shard of the suite (Playwright's sharding); `chatconform report merge` joins them. */
  shard: 'CONFORMANCE_SHARD',
  // Set by the global setup for the workers; not meant to be set by people.
  runDir: 'CONFORMANCE_RUN_DIR',
  embeddedMock: 'CONFORMANCE_EMBEDDED_MOCK',
} as const;

/**
 * The root of the kit's tree (spec/, suites/, mock/, fixtures/): the repository when it runs from its TypeScript
 * sources, the package's dist/ when it runs compiled from an install.
 */
export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** True when running from the compiled package (dist/ holds no package.json; the checkout's root does). */
export const compiledKit = !existsSync(path.join(repoRoot, 'package.json'));

/** The kit's package.json: beside the sources in a checkout, one level above dist/ in an install. */
export function kitPackage(): { name: string; version: string } {
  const file = path.join(compiledKit ? path.dirname(repoRoot) : repoRoot, 'package.json');
  try {
    const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
    return { name: pkg.name ?? 'chatconform', version: pkg.version ?? '0.0.0' };
  } catch {
    return { name: 'chatconform', version: '0.0.0' };
  }
}

/**
 * Reports go to `reports/` in the checkout (what `npm run conformance` has always done), and to `./reports` in
 * the caller's working directory when installed: never inside node_modules.
 */
/** The report folder a run writes to: CONFORMANCE_REPORT_DIR, else the default. */
export function reportDirOf(env: NodeJS.ProcessEnv = process.env): string {
  return path.resolve(env[ENV.reportDir] ?? defaultReportDir());
}

export function defaultReportDir(): string {
  return compiledKit ? path.resolve('reports') : path.join(repoRoot, 'reports');
}

/** Profiles that ship with the kit, by name: `--profile mock` is the reference mock's own. */
export const BUILTIN_PROFILES: Readonly<Record<string, string>> = { mock: path.join(repoRoot, 'fixtures/profiles/mock.json') };

/** The profile file a CONFORMANCE_PROFILE value names: a path, or the name of a built-in profile unless a file has that name. */
export function profilePathOf(value: string): string {
  const file = path.resolve(value);
  const builtin = BUILTIN_PROFILES[value];
  // A folder named like a profile (a project's own mock/) is not a profile file.
  return builtin && !(existsSync(file) && statSync(file).isFile()) ? builtin : file;
}

let cached: RunConfig | undefined;

/** The configuration as the workers see it, after the global setup has filled in the embedded target. */
export function runConfig(): RunConfig {
  if (cached) return cached;
  const env = process.env;
  const baseUrl = env[ENV.baseUrl];
  if (!baseUrl) throw new Error(`${ENV.baseUrl} is not set (the global setup sets it when it starts the embedded mock)`);
  const profilePath = env[ENV.profile] ? profilePathOf(env[ENV.profile]!) : undefined;
  const profile = loadProfile(profilePath);
  const seed = Number(env[ENV.seed]);
  cached = {
    baseUrl: normaliseBaseUrl(baseUrl),
    apiKey: env[ENV.apiKey] ?? profile.apiKey ?? '',
    profile,
    reportDir: reportDirOf(env),
    // Outside a run (no global setup) a fixed name in the OS temp dir; never in the checkout.
    runDir: env[ENV.runDir] ?? path.join(os.tmpdir(), 'chatconform-run'),
    seed: Number.isSafeInteger(seed) ? seed : 0,
    fuzzRuns: intAtLeast(1, env[ENV.fuzzRuns], profile.budget?.fuzzRuns ?? 25),
    requestTimeoutMs: intAtLeast(1, env[ENV.requestTimeoutMs], DEFAULT_REQUEST_TIMEOUT_MS),
    idleTimeoutMs: intAtLeast(1, env[ENV.idleTimeoutMs], DEFAULT_IDLE_TIMEOUT_MS),
    maxBodyBytes: intAtLeast(1, env[ENV.maxBodyBytes], DEFAULT_MAX_BODY_BYTES),
    keepScratch: env[ENV.keepScratch] === '1',
    waitForTargetSeconds: intAtLeast(0, env[ENV.waitForTarget], 0),
    embeddedMock: env[ENV.embeddedMock] === '1',
    retry: {
      maxRetries: intAtLeast(0, env[ENV.maxRetries], DEFAULT_RETRY_POLICY.maxRetries),
      maxWaitMs: intAtLeast(0, env[ENV.maxRetryWaitMs], DEFAULT_RETRY_POLICY.maxWaitMs),
    },
  };
  const headers = { ...headersOfText(headersText(profile.headers ?? {})), ...headersOfText(env[ENV.headers]) };
  if (Object.keys(headers).length > 0) cached.headers = headers;
  const maxRps = maxRpsOf(env[ENV.maxRps], profile.budget?.requestsPerMinute);
  if (maxRps !== undefined) cached.maxRps = maxRps;
  const models = pinnedModelsOf(env[ENV.models], profile.models);
  if (models) cached.models = models;
  const perModel = intAtLeast(1, env[ENV.maxRequestsPerModel], profile.budget?.maxRequestsPerModel ?? 0);
  if (perModel > 0) cached.maxRequestsPerModel = perModel;
  if (profilePath) cached.profilePath = profilePath;
  return cached;
}

export function normaliseBaseUrl(raw: string): string {
  const u = new URL(raw);
  if (u.username || u.password) throw new Error(`${ENV.baseUrl} must not carry credentials; use ${ENV.apiKey}`);
  return `${u.origin}${u.pathname.replace(/\/+$/, '')}`;
}


/** The pinned models: CONFORMANCE_MODELS (comma-separated ids), else the profile's `models` allow-list. */
export function pinnedModelsOf(raw: string | undefined, profileModels: readonly string[] | undefined): string[] | undefined {
  const fromEnv = (raw ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  if (fromEnv.length > 0) return [...new Set(fromEnv)];
  return profileModels && profileModels.length > 0 ? [...new Set(profileModels)] : undefined;
}

/** The run's rate: CONFORMANCE_MAX_RPS (requests per second, decimals allowed), else the profile's requests per minute. */
export function maxRpsOf(raw: string | undefined, requestsPerMinute: number | undefined): number | undefined {
  if (raw !== undefined && raw !== '') {
    const n = Number(raw);
    if (!Number.isFinite(n) || n <= 0) throw new Error(`${ENV.maxRps} must be a number of requests per second above 0 (got "${raw}")`);
    return n;
  }
  return requestsPerMinute !== undefined ? requestsPerMinute / 60 : undefined;
}

/** An integer setting of at least `min`, or the fallback when it is unset or not one. */
function intAtLeast(min: number, raw: string | undefined, fallback: number): number {
  const n = Number(raw);
  return raw !== undefined && raw !== '' && Number.isSafeInteger(n) && n >= min ? n : fallback;
}

/** What decides the exit code beyond a MUST failure: a baseline of expected failures, and whether warnings fail. */
export interface Gate {
  /** Path of the expected-failures file (YAML or JSON), resolved. */
  expectedFailures?: string;
  failOn: 'must' | 'warn' | 'target-only';
}

/** The run's gate from the environment; a bad CONFORMANCE_FAIL_ON is a clear error. */
export function gateOf(env: NodeJS.ProcessEnv = process.env): Gate {
  const raw = env[ENV.failOn];
  if (raw !== undefined && raw !== '' && raw !== 'must' && raw !== 'warn' && raw !== 'target-only') throw new Error(`${ENV.failOn} must be "must", "warn" or "target-only" (got "${raw}")`);
  const file = env[ENV.expectedFailures];
  return { failOn: raw === 'warn' || raw === 'target-only' ? raw : 'must', ...(file ? { expectedFailures: path.resolve(file) } : {}) };
}

/** Every credential the run knows: the key, and every key the profile names. Redaction masks them all. */
export function secrets(config: RunConfig): string[] {
  const all = [config.apiKey, ...profileSecrets(config.profile), ...headerSecrets(config.headers ?? {})];
  return [...new Set(all.filter((s) => s.length >= 4))].sort((a, b) => b.length - a.length);
}

/** The credentials a profile holds: its keys and its listed secrets. */
export function profileSecrets(p: Profile): string[] {
  const out: string[] = [];
  if (p.apiKey) out.push(p.apiKey);
  if (p.restrictedKey) out.push(p.restrictedKey.key);
  if (p.lowTierKey) out.push(p.lowTierKey.key);
  for (const s of p.secrets ?? []) out.push(s);
  return out;
}

export function readJsonFile<T>(file: string): T {
  return JSON.parse(readFileSync(file, 'utf8')) as T;
}

/**
 * The configuration read now, outside the cache: for the runner's process before its global setup (the per-model
 * matrix reads the catalog while the config loads), which must not fix what the global setup fills in later.
 */
export function freshRunConfig(): RunConfig {
  cached = undefined;
  try {
    return runConfig();
  } finally {
    cached = undefined;
  }
}

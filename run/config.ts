// The run's configuration as a test sees it (RunConfig), built from the run's plan (run/plan.ts, which resolves the
// settings of run/settings.ts once). Above the plan in run/'s imports: kit-paths <- settings <- config-file <- plan
// <- config.
import { headerSecrets } from './extra-headers.ts';
import { defaultReportDir } from './kit-paths.ts';
import { currentPlan, resolvePlan, runSetting, type RunPlan } from './plan.ts';
import { ENV, setting, type SettingName, type SettingValues } from './settings.ts';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { RetryPolicy } from './transient.ts';
import { loadProfile, type Profile } from './profile.ts';
import type { FailOn } from './gate-readings.ts';

export interface RunConfig {
  /** Origin plus optional path prefix, without a trailing slash; the suite appends `/v1/...`. */
  baseUrl: string;
  apiKey: string;
  /** The variable the key was read from, named in the replay curls (default CONFORMANCE_API_KEY). */
  apiKeyVar?: string;
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
  /** The headers among them whose values may be shown (--public-header); every other value is a secret of the run. */
  publicHeaders?: string[];
  /** How long the run waits for an unreachable target before its first test (0: it asks once). */
  waitForTargetSeconds?: number;
  /** The models the run is pinned to; undefined: discovery picks among all listed models. */
  models?: string[];
  /** The per-model matrix: the model this test's project judges (set by the suite's `config` fixture, never by env). */
  matrixModel?: string;
  /** Most requests one model of the matrix may take (CONFORMANCE_MAX_REQUESTS_PER_MODEL, the profile's budget). */
  maxRequestsPerModel?: number;
}

/** The run's processes read the plan; ENV names the variables a person sets (run/settings.ts). */
export { ENV } from './settings.ts';
export { BUILTIN_PROFILES, compiledKit, defaultReportDir, kitPackage, profilePathOf, repoRoot } from './kit-paths.ts';

/** The report folder of the command in this process: CONFORMANCE_REPORT_DIR, else the default (a run's processes read their plan's). */
export function reportDirOf(env: NodeJS.ProcessEnv = process.env): string {
  return path.resolve(env[ENV.reportDir] ?? defaultReportDir());
}

let cached: RunConfig | undefined;

/**
 * The configuration as the workers see it: the run's plan (CONFORMANCE_PLAN, run/plan.ts), after the global setup
 * has filled in the embedded target, with the key from the environment. Outside a run (no plan) the plan is
 * resolved from the environment for this call, and nothing is written.
 */
export function runConfig(): RunConfig {
  if (cached) return cached;
  const env = process.env;
  const plan = currentPlan(env) ?? resolvePlan(env, { drawSeed: false, configFile: false }).plan;
  cached = configOfPlan(plan, env);
  return cached;
}

/** The RunConfig of a plan; the credential is the environment's (never in the plan), else the profile's. */
export function configOfPlan(plan: RunPlan, env: NodeJS.ProcessEnv = process.env): RunConfig {
  const v = plan.settings;
  // The plan holds every default; the table's stands in only for a plan another version of the kit wrote.
  const or = <K extends SettingName>(name: K) => (v[name as keyof typeof v] ?? setting(name).default) as NonNullable<SettingValues[K]>;
  const baseUrl = v.baseUrl;
  if (!baseUrl) throw new Error(`the run's plan has no base URL (the global setup fills it in when it starts the embedded mock)`);
  const profilePath = v.profile;
  const profile = loadProfile(profilePath);
  const config: RunConfig = {
    baseUrl: normaliseBaseUrl(baseUrl),
    apiKey: env[ENV.apiKey] ?? profile.apiKey ?? '',
    profile,
    reportDir: v.reportDir ?? defaultReportDir(),
    // Outside a run (no global setup) a fixed name in the OS temp dir; never in the checkout.
    runDir: plan.runDir || path.join(os.tmpdir(), 'chatconform-run'),
    seed: plan.seed,
    fuzzRuns: or('fuzzRuns'),
    requestTimeoutMs: or('requestTimeoutMs'),
    idleTimeoutMs: or('idleTimeoutMs'),
    maxBodyBytes: or('maxBodyBytes'),
    keepScratch: or('keepScratch'),
    waitForTargetSeconds: or('waitForTarget'),
    embeddedMock: plan.embeddedMock && v.baseUrl !== undefined,
    retry: { maxRetries: or('maxRetries'), maxWaitMs: or('maxRetryWaitMs') },
  };
  if (v.headers && Object.keys(v.headers).length > 0) config.headers = v.headers;
  if (v.publicHeaders && v.publicHeaders.length > 0) config.publicHeaders = v.publicHeaders;
  if (v.maxRps !== undefined) config.maxRps = v.maxRps;
  if (v.models) config.models = v.models;
  if (v.maxRequestsPerModel !== undefined) config.maxRequestsPerModel = v.maxRequestsPerModel;
  if (profilePath) config.profilePath = profilePath;
  return config;
}

/** Forgets the configuration read so far: the global setup rewrote the plan (the embedded mock's address). */
export function forgetRunConfig(): void {
  cached = undefined;
}

export function normaliseBaseUrl(raw: string): string {
  const u = new URL(raw);
  if (u.username || u.password) throw new Error(`${ENV.baseUrl} must not carry credentials; use ${ENV.apiKey}`);
  return `${u.origin}${u.pathname.replace(/\/+$/, '')}`;
}


/** What decides the exit code beyond a MUST failure: a baseline of expected failures, and whether warnings fail. */
export interface Gate {
  /** Path of the expected-failures file (YAML or JSON), resolved. */
  expectedFailures?: string;
  failOn: FailOn;
}

/** The run's gate (its plan's, else the variables, parsed by the table); a bad CONFORMANCE_FAIL_ON is a clear error. */
export function gateOf(env: NodeJS.ProcessEnv = process.env): Gate {
  const file = runSetting('expectedFailures', env);
  return { failOn: (runSetting('failOn', env) ?? setting('failOn').default) as Gate['failOn'], ...(file ? { expectedFailures: file } : {}) };
}

/**
 * Every credential one target's configuration holds: the key, every key the profile names, every header value not
 * declared public. The run's whole set (every target's, the reference's) is run/run-secrets.ts's `runSecrets`.
 */
export function secrets(config: RunConfig): string[] {
  const all = [config.apiKey, ...profileSecrets(config.profile), ...headerSecrets(config.headers ?? {}, config.publicHeaders)];
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

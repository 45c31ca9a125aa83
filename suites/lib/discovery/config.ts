// The run's configuration: environment first, then the target profile, then defaults.
// Every value a person can set is read here and nowhere else.
import { existsSync, readFileSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_MAX_BODY_BYTES } from '../transport/http.ts';
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
  /** Per-request timeout, for the whole exchange; a target that does not answer in time never hangs the run. */
  requestTimeoutMs: number;
  /** Largest response body read (an event stream likewise); past it the read stops with "response larger than N bytes". */
  maxBodyBytes: number;
  /** Keep the scratch folder (masked) after the run instead of removing it. */
  keepScratch: boolean;
  /** True when the run started the embedded mock itself. */
  embeddedMock: boolean;
}

export const ENV = {
  baseUrl: 'CONFORMANCE_BASE_URL',
  apiKey: 'CONFORMANCE_API_KEY',
  profile: 'CONFORMANCE_PROFILE',
  reportDir: 'CONFORMANCE_REPORT_DIR',
  seed: 'CONFORMANCE_SEED',
  fuzzRuns: 'CONFORMANCE_FUZZ_RUNS',
  requestTimeoutMs: 'CONFORMANCE_REQUEST_TIMEOUT_MS',
  maxBodyBytes: 'CONFORMANCE_MAX_BODY_BYTES',
  keepScratch: 'CONFORMANCE_KEEP_SCRATCH',
  // Set by the global setup for the workers; not meant to be set by people.
  runDir: 'CONFORMANCE_RUN_DIR',
  embeddedMock: 'CONFORMANCE_EMBEDDED_MOCK',
} as const;

/**
 * The root of the kit's tree (spec/, suites/, mock/, fixtures/): the repository when it runs from its TypeScript
 * sources, the package's dist/ when it runs compiled from an install.
 */
export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

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
    reportDir: path.resolve(env[ENV.reportDir] ?? defaultReportDir()),
    // Outside a run (no global setup) a fixed name in the OS temp dir; never in the checkout.
    runDir: env[ENV.runDir] ?? path.join(os.tmpdir(), 'chatconform-run'),
    seed: Number.isSafeInteger(seed) ? seed : 0,
    fuzzRuns: positiveInt(env[ENV.fuzzRuns], profile.budget?.fuzzRuns ?? 25),
    requestTimeoutMs: positiveInt(env[ENV.requestTimeoutMs], 15_000),
    maxBodyBytes: positiveInt(env[ENV.maxBodyBytes], DEFAULT_MAX_BODY_BYTES),
    keepScratch: env[ENV.keepScratch] === '1',
    embeddedMock: env[ENV.embeddedMock] === '1',
  };
  if (profilePath) cached.profilePath = profilePath;
  return cached;
}

export function normaliseBaseUrl(raw: string): string {
  const u = new URL(raw);
  if (u.username || u.password) throw new Error(`${ENV.baseUrl} must not carry credentials; use ${ENV.apiKey}`);
  return `${u.origin}${u.pathname.replace(/\/+$/, '')}`;
}

function positiveInt(raw: string | undefined, fallback: number): number {
  const n = Number(raw);
  return raw !== undefined && raw !== '' && Number.isSafeInteger(n) && n > 0 ? n : fallback;
}

/** Every credential the run knows: the key, and every key the profile names. Redaction masks them all. */
export function secrets(config: RunConfig): string[] {
  const all = [config.apiKey, ...profileSecrets(config.profile)];
  return [...new Set(all.filter((s) => s.length >= 4))].sort((a, b) => b.length - a.length);
}

function profileSecrets(p: Profile): string[] {
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

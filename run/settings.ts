// Every setting of `chatconform run`, declared once (OCI conformance's config.go is the model): its flag, its
// CONFORMANCE_* variable, its config-file key, the profile field that may also set it, its default, how a value is
// parsed and checked, and its help line. The CLI builds its options from this table, run/plan.ts resolves it into
// the run's plan, and unit tests hold README's table, the config-file schema and the Action's inputs to it.
// The root of run/'s settings: it imports no module of run/ that reads a run (plan, config), so they all may use it.
import path from 'node:path';
import { headersOfText } from './extra-headers.ts';
import { DEFAULT_IDLE_TIMEOUT_MS, DEFAULT_MAX_BODY_BYTES, DEFAULT_REQUEST_TIMEOUT_MS } from './http.ts';
import { DEFAULT_RETRY_POLICY } from './transient.ts';
import { FAIL_ON_CHOICES } from './gate-readings.ts';

/** How a setting's text (a variable, a flag) becomes its value. */
export type SettingKind = 'url' | 'string' | 'path' | 'profile' | 'int' | 'number' | 'rate' | 'list' | 'headers' | 'switch' | 'choice' | 'shard';

export interface Setting {
  /** Its name in the plan and, when `file` is true, in the config file. */
  name: string;
  /** The commander flag; its long name's camelCase is the option's attribute. */
  flag: string;
  env: string;
  kind: SettingKind;
  /** The config file has a key of this name (the credential and one run's switches have none). */
  file: boolean;
  /** The profile field that sets it when neither a flag, the variable nor the config file does. */
  profile?: string;
  /** Its value when nothing sets it (a profile-derived or computed default is resolved by run/plan.ts). */
  default?: number | string | boolean;
  /** Least value of an `int`. */
  min?: number;
  choices?: readonly string[];
  help: string;
  /** The GitHub Action's input that carries it (action.yml), if any. */
  action?: string;
  /** A repeatable flag whose values are joined with this instead of a comma (a header may hold commas). */
  separator?: string;
}

export const SETTINGS = [
  { name: 'baseUrl', flag: '--base-url <url>', env: 'CONFORMANCE_BASE_URL', kind: 'url', file: true, action: 'base-url', help: 'the target (origin plus optional path prefix); default: start the embedded mock' },
  { name: 'apiKey', flag: '--api-key <key>', env: 'CONFORMANCE_API_KEY', kind: 'string', file: false, profile: 'apiKey', action: 'api-key', help: 'bearer credential (prefer the variable: a flag shows in the process list); never written to any output' },
  { name: 'profile', flag: '--profile <file>', env: 'CONFORMANCE_PROFILE', kind: 'profile', file: true, action: 'profile', help: "target profile: a JSON file, or a built-in one by name (mock: the reference mock's own); default: mock for the embedded mock" },
  { name: 'configFile', flag: '--config <file>', env: 'CONFORMANCE_CONFIG_FILE', kind: 'path', file: false, help: 'read this config file instead of looking for chatconform.config.json/.yaml/.yml in the working directory and its parents' },
  { name: 'reportDir', flag: '--report-dir <dir>', env: 'CONFORMANCE_REPORT_DIR', kind: 'path', file: true, action: 'report-dir', help: 'where the four reports are written (default ./reports)' },
  { name: 'seed', flag: '--seed <n>', env: 'CONFORMANCE_SEED', kind: 'int', min: 0, file: true, help: 'seed of the property tests (default random, printed; a reference run shares it)' },
  { name: 'fuzzRuns', flag: '--fuzz-runs <n>', env: 'CONFORMANCE_FUZZ_RUNS', kind: 'int', min: 1, file: true, profile: 'budget.fuzzRuns', default: 25, help: "runs per property (default the profile's budget.fuzzRuns, else 25)" },
  { name: 'requestTimeoutMs', flag: '--request-timeout-ms <n>', env: 'CONFORMANCE_REQUEST_TIMEOUT_MS', kind: 'int', min: 1, file: true, default: DEFAULT_REQUEST_TIMEOUT_MS, help: `overall bound on one request, retry included, even while its answer is still arriving (default ${DEFAULT_REQUEST_TIMEOUT_MS})` },
  { name: 'idleTimeoutMs', flag: '--idle-timeout-ms <n>', env: 'CONFORMANCE_IDLE_TIMEOUT_MS', kind: 'int', min: 1, file: true, default: DEFAULT_IDLE_TIMEOUT_MS, help: `longest wait for the next byte of an answer, head or body (default ${DEFAULT_IDLE_TIMEOUT_MS}; at most the request timeout)` },
  { name: 'waitForTarget', flag: '--wait-for-target <seconds>', env: 'CONFORMANCE_WAIT_FOR_TARGET', kind: 'int', min: 0, file: true, default: 0, action: 'wait-for-target', help: 'ask an unreachable target again, once a second, for up to this long before the first test (for a server started in the background; default 0: ask once, and end the run at once if it cannot be reached)' },
  { name: 'headers', flag: '-H, --header <line...>', env: 'CONFORMANCE_HEADERS', kind: 'headers', file: true, profile: 'headers', separator: '\n', help: "add this header to every request of the run: 'Name: value' (repeatable; also CONFORMANCE_HEADERS, one per line, and the config file's and the profile's headers); its value is masked in every output unless --public-header names it; hop-by-hop and framing headers (Content-Length, Transfer-Encoding, Connection, Host, ...) are the kit's own and refused" },
  { name: 'publicHeaders', flag: '--public-header <name...>', env: 'CONFORMANCE_PUBLIC_HEADERS', kind: 'list', file: true, help: "a header of --header (or CONFORMANCE_HEADERS, the config file's, the profile's) whose value may be shown: every other header's value is a secret of the run, masked in every output (repeatable, or comma-separated)" },
  { name: 'maxBodyBytes', flag: '--max-body-bytes <n>', env: 'CONFORMANCE_MAX_BODY_BYTES', kind: 'int', min: 1, file: true, default: DEFAULT_MAX_BODY_BYTES, help: `most bytes read of one response (default ${DEFAULT_MAX_BODY_BYTES})` },
  { name: 'events', flag: '--events <file>', env: 'CONFORMANCE_EVENTS', kind: 'path', file: false, help: "append the run's events to this file as they happen, one JSON line each (the run's start, each finished test as the verdict folds it, redacted, the end): for a watcher such as chatconform ui" },
  { name: 'keepScratch', flag: '--keep-scratch', env: 'CONFORMANCE_KEEP_SCRATCH', kind: 'switch', file: false, default: false, help: "keep the run's scratch folder (masked) and print its path" },
  { name: 'workers', flag: '--workers <n>', env: 'CONFORMANCE_WORKERS', kind: 'int', min: 1, file: true, default: 2, help: 'parallel test workers (default 2)' },
  { name: 'shard', flag: '--shard <i/n>', env: 'CONFORMANCE_SHARD', kind: 'shard', file: true, action: 'shard', help: "run shard i of n of the suite (Playwright's sharding; give the same --seed to every shard): a partial report plus Playwright's blob report in <report-dir>/blob-report; `chatconform report merge` joins the n shards" },
  { name: 'maxRetries', flag: '--max-retries <n>', env: 'CONFORMANCE_MAX_RETRIES', kind: 'int', min: 0, file: true, default: DEFAULT_RETRY_POLICY.maxRetries, help: `retries of a 429 (or a 503 with Retry-After) on a request not about it (default ${DEFAULT_RETRY_POLICY.maxRetries})` },
  { name: 'maxRetryWaitMs', flag: '--max-retry-wait-ms <n>', env: 'CONFORMANCE_MAX_RETRY_WAIT_MS', kind: 'int', min: 0, file: true, default: DEFAULT_RETRY_POLICY.maxWaitMs, help: `most time one request waits over its retries (default ${DEFAULT_RETRY_POLICY.maxWaitMs})` },
  { name: 'maxRps', flag: '--max-rps <n>', env: 'CONFORMANCE_MAX_RPS', kind: 'number', file: true, profile: 'budget.requestsPerMinute', help: "most requests per second of the whole run, all workers together (default: the profile's budget.requestsPerMinute / 60, else none)" },
  { name: 'expectedFailures', flag: '--expected-failures <file>', env: 'CONFORMANCE_EXPECTED_FAILURES', kind: 'path', file: true, action: 'expected-failures', help: 'a baseline (YAML or JSON) of requirement IDs known to fail: they do not fail the run; one that passes makes it stale' },
  { name: 'failOn', flag: '--fail-on <level>', env: 'CONFORMANCE_FAIL_ON', kind: 'choice', choices: FAIL_ON_CHOICES, file: true, default: 'must', action: 'fail-on', help: "must (default): a MUST failure fails the run, except one resting on the kit's reading of a gap of the contract; strict: those too; warn: a SHOULD/MAY warning too; target-only (with --reference): only a MUST failure the reference does not share" },
  { name: 'models', flag: '--model <id...>', env: 'CONFORMANCE_MODELS', kind: 'list', file: true, profile: 'models', action: 'model', help: 'pin the run to these models (repeatable, or comma-separated)' },
  { name: 'modelMatrix', flag: '--models <selection...>', env: 'CONFORMANCE_MODEL_MATRIX', kind: 'list', file: true, profile: 'modelMatrix', help: 'a per-model matrix: judge each chosen model with the model-dependent tests (chat, streaming, tools, reasoning, search, images), the rest once: all, or ids and globs such as acme/* (* within one / segment, ** across them; repeatable, or comma-separated)' },
  { name: 'maxRequestsPerModel', flag: '--max-requests-per-model <n>', env: 'CONFORMANCE_MAX_REQUESTS_PER_MODEL', kind: 'int', min: 1, file: true, profile: 'budget.maxRequestsPerModel', help: "with --models: most requests one model may take (default: the profile's budget.maxRequestsPerModel, else only the run's budget)" },
  { name: 'maxFailingModels', flag: '--max-failing-models <n>', env: 'CONFORMANCE_MAX_FAILING_MODELS', kind: 'int', min: 0, file: true, default: 0, help: 'with --models: how many models may fail before the run fails (default 0: any failing model fails the run); a model-independent MUST failure always fails it' },
  { name: 'requirements', flag: '--requirement <ID...>', env: 'CONFORMANCE_REQUIREMENTS', kind: 'list', file: true, action: 'requirement', help: 'run only the tests that check these requirements (a partial run)' },
  { name: 'sections', flag: '--section <N...>', env: 'CONFORMANCE_SECTIONS', kind: 'list', file: true, action: 'section', help: 'run only the tests that check the requirements of these sections (6 takes 6.x too)' },
  { name: 'levels', flag: '--level <L...>', env: 'CONFORMANCE_LEVELS', kind: 'list', file: true, help: 'run only the tests that check requirements of these levels (MUST, SHOULD, MAY)' },
  { name: 'signKey', flag: '--sign-key <file>', env: 'CONFORMANCE_SIGN_KEY', kind: 'path', file: false, help: "with --certify: sign the bundle's SHA256SUMS with this ed25519 private key (PEM); `chatconform verify --verify-key` checks it" },
  { name: 'excludeRequirements', flag: '--exclude-requirement <ID...>', env: 'CONFORMANCE_EXCLUDE_REQUIREMENTS', kind: 'list', file: true, help: 'leave out the tests that check these requirements' },
  { name: 'reference', flag: '--reference <url>', env: 'CONFORMANCE_REFERENCE_URL', kind: 'url', file: true, help: 'also run the same tests (same seed and selection) against this reference (the upstream a gateway forwards to, or the provider migrated from), in the same run, with its own key (CONFORMANCE_REFERENCE_API_KEY), budget and reports; each requirement then shows the reference\'s status and whose failure it is' },
  { name: 'referenceProfile', flag: '--reference-profile <file>', env: 'CONFORMANCE_REFERENCE_PROFILE', kind: 'profile', file: true, help: "the reference's profile (its budget and rate limits), a file or a built-in one's name" },
  { name: 'referenceModel', flag: '--reference-model <id>', env: 'CONFORMANCE_REFERENCE_MODEL', kind: 'string', file: true, help: "the reference's id of the model, where the ids differ (the reference run is pinned to it)" },
  { name: 'trials', flag: '--trials <k>', env: 'CONFORMANCE_TRIALS', kind: 'int', min: 1, file: true, help: 'run each model-dependent test (a tool call produced, a forced function, reasoning present, a search performed) k times, each trial a fresh request; its requirements are judged on their pass rate' },
  { name: 'minPassRate', flag: '--min-pass-rate <R>', env: 'CONFORMANCE_MIN_PASS_RATE', kind: 'rate', file: true, help: 'with --trials: the pass rate (0..1) a model-dependent requirement needs (default 1)' },
] as const satisfies readonly Setting[];

export type SettingName = (typeof SETTINGS)[number]['name'];

interface KindValue {
  url: string;
  string: string;
  path: string;
  profile: string;
  int: number;
  number: number;
  rate: number;
  list: string[];
  headers: Record<string, string>;
  switch: boolean;
  choice: string;
  shard: string;
}

/** Every setting's value, typed by its kind; a setting nothing set and without a default is absent. */
export type SettingValues = { -readonly [S in (typeof SETTINGS)[number] as S['name']]?: KindValue[S['kind']] };

/** Each setting's variable by its name: the user's input (the kit hands its own processes the plan, run/plan.ts). */
export const ENV = Object.fromEntries(SETTINGS.map((s) => [s.name, s.env])) as { [S in (typeof SETTINGS)[number] as S['name']]: S['env'] };

/** One shard of a run (`--shard i/n`): 1-based, as Playwright counts. */
export interface Shard {
  index: number;
  total: number;
}

/** "2/3" → { index: 2, total: 3 }; throws a one-line error on anything else (the `shard` kind's parse). */
export function parseShard(raw: string): Shard {
  const m = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(raw);
  const index = Number(m?.[1]);
  const total = Number(m?.[2]);
  if (!m || !Number.isSafeInteger(index) || !Number.isSafeInteger(total) || total < 1 || index < 1 || index > total) {
    throw new Error(`expected a shard as i/n with 1 <= i <= n (e.g. 2/3), got "${raw}"`);
  }
  return { index, total };
}

export function shardLabel(s: Shard): string {
  return `${s.index}/${s.total}`;
}

/** The setting of this name. */
export function setting(name: SettingName): Setting {
  return SETTINGS.find((s) => s.name === name)!;
}

/** The commander attribute of a flag: its long name in camelCase (`--max-rps` → maxRps, `-H, --header` → header). */
export function attributeOf(s: Setting): string {
  const long = /--([a-z][a-z0-9-]*)/.exec(s.flag)![1]!;
  return long.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
}

/** The long flag (`--header` for `-H, --header <line...>`). */
export function longFlagOf(s: Setting): string {
  return /--[a-z][a-z0-9-]*/.exec(s.flag)![0];
}

/** A setting's text is not a value of its kind; the message names the setting's variable. */
export class SettingError extends Error {}

/** A setting's value from its text (a variable, a joined flag): strict, so a typo never silently falls back to a default. */
export function parseSetting(s: Setting, raw: string, resolveProfile: (value: string) => string = (v) => path.resolve(v)): unknown {
  // The value itself is never echoed: a key pasted into the wrong setting must not land in a CI log.
  const fail = (what: string): never => {
    throw new SettingError(`${s.env}: ${what} (got ${describeRaw(raw)})`);
  };
  switch (s.kind) {
    case 'url': {
      // Never echoed: a URL may carry a password.
      let url: URL | undefined;
      try {
        url = new URL(raw);
      } catch {
        throw new SettingError(`${s.env}: not a URL`);
      }
      if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new SettingError(`${s.env}: expected an http:// or https:// URL, got ${url.protocol}`);
      if (url.username || url.password) throw new SettingError(`${s.env}: must not carry credentials; the key has its own variable`);
      return raw;
    }
    case 'string':
      return raw;
    case 'path':
      return path.resolve(raw);
    case 'profile':
      return resolveProfile(raw);
    case 'int': {
      const n = Number(raw);
      if (!/^\s*-?\d+\s*$/.test(raw) || !Number.isSafeInteger(n) || n < (s.min ?? 0)) fail(`expected an integer of at least ${s.min ?? 0}`);
      return n;
    }
    case 'number': {
      const n = Number(raw);
      if (raw.trim() === '' || !Number.isFinite(n) || n <= 0) fail('expected a number above 0');
      return n;
    }
    case 'rate': {
      const n = Number(raw);
      if (raw.trim() === '' || !Number.isFinite(n) || n < 0 || n > 1) fail('expected a number from 0 to 1');
      return n;
    }
    case 'list':
      return [...new Set(raw.split(/[\s,]+/).map((v) => v.trim()).filter(Boolean))];
    case 'headers':
      try {
        return headersOfText(raw);
      } catch (err) {
        return fail((err as Error).message);
      }
    case 'switch':
      return raw === '1' || raw === 'true';
    case 'choice':
      if (!s.choices!.includes(raw)) fail(`expected one of ${s.choices!.join(', ')}`);
      return raw;
    case 'shard':
      try {
        return shardLabel(parseShard(raw));
      } catch (err) {
        return fail((err as Error).message.replace(/, got .*$/, ''));
      }
  }
}

/** What a refused value was, without its text: its kind and length. */
export function describeRaw(raw: string): string {
  if (raw.trim() === '') return 'an empty value';
  return `a value of ${raw.length} character${raw.length === 1 ? '' : 's'}, not shown`;
}

/** A value as its variable carries it: lists comma-joined, headers one `Name: value` per line, a switch as 1. */
export function settingText(s: Setting, value: unknown): string {
  if (Array.isArray(value)) return value.join(',');
  if (typeof value === 'boolean') return value ? '1' : '';
  if (typeof value === 'object' && value !== null) return Object.entries(value as Record<string, string>).map(([n, v]) => `${n}: ${v}`).join('\n');
  return String(value);
}

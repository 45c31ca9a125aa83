// `chatconform run`: the conformance suite against --base-url (or the embedded mock), as Playwright's CLI in a
// child process with the environment the flags build. Every CONFORMANCE_* variable is also a flag (the flag wins);
// chatconform.config.json/.yaml fills in what neither set. Bad input is refused before anything starts (exit 2, or
// 3 for a file that does not load); then the exit code is the one the report states (0, 1, or 3).
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import { ENV, gateOf, normaliseBaseUrl, profilePathOf, reportDirOf } from '../run/config.ts';
import { applyConfigFile } from '../run/config-file.ts';
import { headersOfText, isPublicHeader, parseHeaderLine } from '../run/extra-headers.ts';
import { REDACTION_MASK } from '../spec/redact.ts';
import { runSecrets } from '../run/run-secrets.ts';
import { loadProfile } from '../run/profile.ts';
import { parseShard, shardLabel, shardOf } from '../run/shard.ts';
import { describeSelection, SELECTION_ENV, selectionOf, selectionStatements, selectionTakesTests } from '../run/selection.ts';
import { loadBaseline } from '../report/baseline.ts';
import { certifyProblems, kitCommit, loadSigningKey, writeBundle } from '../report/bundle.ts';
import type { ConformanceReport } from '../report/json.ts';
import { CONFORMANCE_CONFIG, KIT_ROOT, playwrightCli } from './kit-files.ts';
import { formatListing, listSuite } from './selection.ts';
import { collectList, ConfigError, EXIT, EXIT_CODES_TEXT, integerFrom, positiveNumber, UsageError } from './usage.ts';
import { checkRerunListing, prepareRerun, writeTestList } from './rerun.ts';
import { REFERENCE_ENV, referenceReportDir } from '../run/reference.ts';
import { targetsOfPlan } from '../run/targets.ts';
import { preflight } from '../run/reachability.ts';
import { trialsOf } from '../run/trials.ts';
import { disposeRunDir, planVariables, resolvePlan, writePlanInNewRunDir, type RunPlan } from '../run/plan.ts';
import { attributeOf, longFlagOf, SettingError, SETTINGS, type Setting, type SettingKind } from '../run/settings.ts';

/** A rate from 0 to 1 (--min-pass-rate). */
function rate(raw: string): number {
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(n) || n < 0 || n > 1) throw new InvalidArgumentError('expected a number from 0 to 1');
  return n;
}

const list = collectList();

/** A repeatable `Name: value` (a value may hold commas: never split). */
function headerLines(raw: string, previous: string[] | undefined): string[] {
  try {
    parseHeaderLine(raw);
  } catch (err) {
    throw new InvalidArgumentError((err as Error).message);
  }
  return [...(previous ?? []), raw];
}

/** `--shard i/n`, checked as given (run/shard.ts). */
function shardArgument(raw: string): string {
  try {
    return shardLabel(parseShard(raw));
  } catch (err) {
    throw new InvalidArgumentError((err as Error).message);
  }
}

/** A header as the bundle's command records it: its value masked unless declared public (as in every output). */
function maskedHeaderLine(line: string, publicNames: readonly string[]): string {
  const [name, value] = parseHeaderLine(line);
  return `${name}: ${isPublicHeader(name, publicNames) ? value : REDACTION_MASK}`;
}

/** How commander reads a flag of each kind (run/settings.ts); the kinds without one take the text as given. */
const FLAG_PARSERS: Partial<Record<SettingKind, (s: Setting) => (raw: string, previous: never) => unknown>> = {
  int: (s) => integerFrom(s.min ?? 0),
  number: () => positiveNumber,
  rate: () => rate,
  list: () => list,
  headers: () => headerLines,
  shard: () => shardArgument,
};

/** The option of one setting: its flag, its help line naming its variable, its parser. */
export function optionOf(s: Setting): Option {
  const option = new Option(s.flag, `${s.help} [${s.env}]`);
  const parser = FLAG_PARSERS[s.kind];
  if (parser) option.argParser(parser(s) as (raw: string, previous: unknown) => unknown);
  if (s.choices) option.choices(s.choices);
  return option;
}

type RunFlags = {
  grep?: string;
  list?: boolean;
  certify?: boolean;
  bundleDir?: string;
  lastFailed?: boolean;
  rerun?: string;
  /** Each setting's flag, by its commander attribute (attributeOf). */
  [attribute: string]: string | number | boolean | string[] | undefined;
};

const EXIT_HELP = `
Certification: --certify writes chatconform-bundle/ and its .tar.gz (the reports, the profile without secrets,
bundle.json, SHA256SUMS). With --sign-key FILE (an ed25519 private key in PEM, e.g. from
\`openssl genpkey -algorithm ed25519 -out certifier.pem\`) SHA256SUMS is signed into SHA256SUMS.sig; publish the
public key (\`openssl pkey -in certifier.pem -pubout -out certifier.pub.pem\`) and check a bundle with
\`chatconform verify BUNDLE --verify-key certifier.pub.pem\`. Unsigned, a bundle is only checksummed: anyone can
regenerate its SHA256SUMS.

${EXIT_CODES_TEXT}`;

export function runCommand(done: (code: number) => void): Command {
  const cmd = new Command('run').description('run the conformance suite against --base-url, or against the embedded mock when none is given');
  for (const s of SETTINGS) cmd.addOption(optionOf(s));
  cmd
    .option('--grep <regex>', 'run only the tests whose title matches (a partial run)')
    .option('--list', 'print the tests that would run, with the requirements they declare, and run nothing')
    .option('--certify', 'a certification run: the whole suite, a profile, no budget below the defaults; writes a verifiable bundle')
    .option('--last-failed', 'run again only the tests in which a requirement failed (or could not be judged) in the report of the report dir, with its seed: a partial run, whose reports go to <report-dir>/rerun/ (the earlier report stays)')
    .option('--rerun <report>', 'the same, from this conformance.json')
    .option('--bundle-dir <dir>', 'where --certify writes the bundle folder and its .tar.gz (default ./chatconform-bundle)')
    .addHelpText('after', EXIT_HELP)
    .action(async (flags: RunFlags) => {
      done(await run(flags));
    });
  return cmd;
}

/** The child's environment: the caller's, with each flag given written over its variable. */
export function environmentFor(flags: RunFlags, base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...base };
  for (const s of SETTINGS as readonly Setting[]) {
    const value = flags[attributeOf(s)];
    if (value !== undefined && value !== false) env[s.env] = value === true ? '1' : Array.isArray(value) ? value.join(s.separator ?? ',') : String(value);
    // Paths are the caller's, relative to where they ran the command; a profile may be a built-in one's name.
    const text = env[s.env];
    if (text) env[s.env] = s.kind === 'path' ? path.resolve(text) : s.kind === 'profile' ? profilePathOf(text) : text;
  }
  return env;
}

/**
 * Refuses what would only fail later, inside the run: a bad target URL, a selection of unknown IDs, a bad --grep
 * (usage errors, exit 2); a profile, baseline or config file that does not load (configuration errors, exit 3).
 */
export function validate(env: NodeJS.ProcessEnv, flags: RunFlags): void {
  const baseUrl = env[ENV.baseUrl];
  if (baseUrl) {
    let url: URL;
    try {
      url = new URL(baseUrl);
      normaliseBaseUrl(baseUrl);
    } catch (err) {
      throw new UsageError(`--base-url: ${err instanceof TypeError ? `not a URL: ${JSON.stringify(baseUrl.replace(/\/\/[^@/]*@/, '//***@'))}` : (err as Error).message.replace(ENV.baseUrl, 'the base URL')}`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`--base-url: expected an http:// or https:// URL, got ${url.protocol}`);
  }
  try {
    selectionOf(env);
    gateOf(env);
    trialsOf(env);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  let sharded = false;
  try {
    sharded = shardOf(env) !== undefined;
  } catch (err) {
    throw new UsageError(`${ENV.shard}: ${(err as Error).message}`);
  }
  // Every shard must draw the same property cases: a random seed per shard would make the merge refuse them.
  if (sharded && !env[ENV.seed]) throw new UsageError('--shard: give --seed too (the same for every shard of the run; `chatconform report merge` refuses shards of different seeds)');
  if (sharded && flags.certify) throw new UsageError('--certify judges the whole suite in one run; a shard is a partial run');
  validateReference(env);
  try {
    headersOfText(env[ENV.headers]);
  } catch (err) {
    throw new UsageError(`${ENV.headers}: ${(err as Error).message}`);
  }
  if (flags.grep !== undefined) {
    try {
      new RegExp(flags.grep);
    } catch (err) {
      throw new UsageError(`--grep: ${(err as Error).message}`);
    }
  }
  const profile = env[ENV.profile];
  if (profile) {
    if (!existsSync(profile)) throw new ConfigError(`--profile: ${profile} does not exist`);
    try {
      loadProfile(profile);
    } catch (err) {
      throw new ConfigError(`--profile: ${(err as Error).message.split('\n')[0]}`);
    }
  }
  const baseline = env[ENV.expectedFailures];
  if (baseline) {
    try {
      loadBaseline(baseline);
    } catch (err) {
      throw new ConfigError(`--expected-failures: ${(err as Error).message}`);
    }
  }
}

/** --reference: an http(s) URL, a profile that loads; --fail-on target-only and the reference's own settings need it. */
function validateReference(env: NodeJS.ProcessEnv): void {
  const url = env[REFERENCE_ENV.url];
  if (!url) {
    if (env[ENV.failOn] === 'target-only') throw new UsageError('--fail-on target-only gates on what the target adds to its reference: give --reference');
    for (const name of [REFERENCE_ENV.profile, REFERENCE_ENV.model]) if (env[name]) throw new UsageError(`${name} sets the reference run: give --reference too`);
    return;
  }
  try {
    const u = new URL(url);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error(`expected an http:// or https:// URL, got ${u.protocol}`);
    normaliseBaseUrl(url);
  } catch (err) {
    throw new UsageError(`--reference: ${err instanceof TypeError ? 'not a URL' : (err as Error).message.replace(ENV.baseUrl, 'the reference URL').replace(ENV.apiKey, REFERENCE_ENV.apiKey)}`);
  }
  const profile = env[REFERENCE_ENV.profile];
  if (profile) {
    try {
      loadProfile(profile);
    } catch (err) {
      throw new ConfigError(`--reference-profile: ${(err as Error).message.split('\n')[0]}`);
    }
  }
}

/** The plan of `env` (run/plan.ts); a setting that is not a value of its kind is a usage error, a profile that does not load is not. */
function planOf(env: NodeJS.ProcessEnv, configFile: boolean): ReturnType<typeof resolvePlan> {
  try {
    return resolvePlan(env, { configFile });
  } catch (err) {
    if (err instanceof SettingError) throw new UsageError(err.message);
    throw new ConfigError((err as Error).message.split('\n')[0]);
  }
}

/** `--certify` refuses a run that would certify less than the whole suite. */
function checkCertifiable(env: NodeJS.ProcessEnv, plan: RunPlan, flags: RunFlags): void {
  const sel = selectionOf(env);
  // The profile given (the embedded mock's own does not certify anything), and the plan's fuzz runs (the profile's budget, else the default).
  const profilePath = plan.given.includes('profile') ? plan.settings.profile : undefined;
  const problems = certifyProblems({
    ...(sel ? { selection: describeSelection(sel) } : flags.grep !== undefined ? { selection: `--grep ${flags.grep}` } : {}),
    ...(profilePath ? { profilePath } : {}),
    profile: profilePath ? loadProfile(profilePath) : {},
    fuzzRuns: plan.settings.fuzzRuns ?? 25,
  });
  if (problems.length > 0) throw new UsageError(`--certify: ${problems.join('; ')}`);
}

/** The command as given, for the bundle: every flag, the key never (it comes from the environment). */
export function commandLine(flags: RunFlags): string {
  const parts = ['chatconform', 'run'];
  for (const s of SETTINGS as readonly Setting[]) {
    const value = flags[attributeOf(s)];
    if (value === undefined || value === false) continue;
    // The long name: a flag with a short alias (`-H, --header`) is recorded by its long one.
    const name = longFlagOf(s);
    if (s.name === 'apiKey') parts.push(name, '"$CONFORMANCE_API_KEY"');
    else if (s.kind === 'headers') for (const line of value as string[]) parts.push(name, JSON.stringify(maskedHeaderLine(line, (flags.publicHeader as string[] | undefined) ?? [])));
    else if (value === true) parts.push(name);
    else parts.push(name, JSON.stringify(Array.isArray(value) ? value.join(',') : String(value)));
  }
  if (flags.grep !== undefined) parts.push('--grep', JSON.stringify(flags.grep));
  if (flags.certify) parts.push('--certify');
  if (flags.bundleDir) parts.push('--bundle-dir', JSON.stringify(flags.bundleDir));
  return parts.join(' ');
}

const noTestChecks = (what: string) => `${what}: no test of the suite checks it (the kit's own mock-only requirements are judged by its own tests)`;

export async function run(flags: RunFlags): Promise<number> {
  const env = environmentFor(flags);
  let configFile: string | undefined;
  try {
    configFile = applyConfigFile(env);
  } catch (err) {
    throw new ConfigError((err as Error).message);
  }
  const rerun = flags.lastFailed || flags.rerun !== undefined ? prepareRerun(env, flags) : undefined;
  if ((flags.lastFailed || flags.rerun !== undefined) && !rerun) return EXIT.ok;
  validate(env, flags);
  // Resolved once (the config file was applied above): the seed is fixed here, and the reference, targets and trials
  // are the plan's (the run's slots: run/slots.ts).
  const { plan, secrets } = planOf(env, false);
  const targets = targetsOfPlan(plan);
  const slots = { ...(targets ? { targets: targets.map((t) => t.name) } : {}), ...(plan.settings.trials ? { trials: plan.settings.trials } : {}) };
  // A rerun's tests are named under every slot of this run they may be declared in.
  if (rerun) writeTestList(rerun, slots);
  if (flags.certify) checkCertifiable(env, plan, flags);
  // The key is read before the run: a certification must not run for an hour and then fail to sign.
  if (flags.signKey !== undefined && !flags.certify) throw new UsageError('--sign-key signs a certification bundle: give --certify too');
  let signKey: ReturnType<typeof loadSigningKey> | undefined;
  if (flags.certify && env[ENV.signKey]) {
    try {
      signKey = loadSigningKey(env[ENV.signKey]!);
    } catch (err) {
      throw new ConfigError(`--sign-key: ${(err as Error).message}`);
    }
  }
  const grep = [...(flags.grep !== undefined ? ['--grep', flags.grep] : []), ...(rerun?.args ?? [])];
  const sel = selectionOf(env);
  // Whether the selection takes a test: the catalog tells for a plain requirement selection (the usual partial run),
  // Playwright's listing for the rest.
  const takes = sel && grep.length === 0 ? selectionTakesTests(sel) : undefined;
  if (takes === false && !flags.list) throw new UsageError(noTestChecks(describeSelection(sel!)));
  if (flags.list || (sel && takes === undefined) || grep.length > 0) {
    // The filter is checked against the whole suite: a shard may hold none of its tests and still be one of n.
    const whole = { ...env };
    delete whole[ENV.shard];
    const tests = listSuite(flags.list ? env : whole, grep);
    if (rerun) checkRerunListing(rerun, tests, slots);
    if (flags.list) {
      process.stdout.write(formatListing(tests));
      if (sel) process.stdout.write(`requirements selected (${describeSelection(sel)}):\n${selectionStatements(sel).map((l) => `  ${l}`).join('\n')}\n`);
      return EXIT.ok;
    }
    // A filter that matches nothing is the caller's mistake, not a run to report (Playwright would say "no tests").
    if (tests.length === 0) {
      throw new UsageError(noTestChecks(grep.length > 0 ? `--grep ${flags.grep}` : describeSelection(sel!)));
    }
  }
  // The file in use is named once the run starts (a refusal stays one line): a setting nobody typed is traceable.
  if (configFile) {
    const rel = path.relative(process.cwd(), configFile);
    process.stderr.write(`chatconform: config file ${rel.startsWith('..') || path.isAbsolute(rel) ? configFile : rel}\n`);
  }
  await checkTargetFirst(plan, secrets);
  writePlanInNewRunDir(plan);
  const runEnv: NodeJS.ProcessEnv = { ...env, ...secrets, ...planVariables(plan) };
  // The reference beside the target in one run: the same runner, workers, seed and selection serve both.
  if (plan.settings.reference) process.stdout.write(`chatconform: the target beside its reference ${plan.settings.reference} in one run (the reference's reports in ${referenceReportDir(reportDirOf(env))})\n`);
  // Playwright's own output folder holds nothing the reports need: a temp folder, never the caller's tree or node_modules.
  const output = mkdtempSync(path.join(os.tmpdir(), 'chatconform-playwright-'));
  const started = Date.now();
  try {
    await spawnPlaywright(['test', '-c', CONFORMANCE_CONFIG, '--output', output, ...grep], runEnv);
  } finally {
    rmSync(output, { recursive: true, force: true });
    disposeRunDir(plan);
  }
  const reportDir = reportDirOf(env);
  const report = readReport(reportDir, started);
  // No report of this run: the kit could not even judge (a crash before the reporter): a runtime error.
  if (!report) return EXIT.config;
  if (flags.certify) {
    const profilePath = env[ENV.profile]!;
    const { dir, tarball } = await writeBundle({
      reportDir,
      bundleDir: path.resolve(flags.bundleDir ?? 'chatconform-bundle'),
      report,
      profile: loadProfile(profilePath),
      secrets: runSecrets(undefined, env),
      command: commandLine(flags),
      catalogText: readFileSync(path.join(KIT_ROOT, 'spec/requirements/requirements.json'), 'utf8'),
      ...commitOf(KIT_ROOT),
      ...(signKey ? { signKey } : {}),
    });
    process.stdout.write(`certification bundle: ${dir} and ${tarball} (${signKey ? 'signed; chatconform verify --verify-key PUBLIC.pem checks it' : 'checksummed, unsigned (--sign-key signs it); chatconform verify checks it'})\n`);
  }
  return report.verdict.exitCode;
}

/**
 * Before any test (run/reachability.ts preflight): a setup mistake (a base URL ending in /v1, a --models selection of
 * no model) is a usage error; a target it waited for is not waited for again by the suite.
 */
async function checkTargetFirst(plan: RunPlan, secrets: Record<string, string>): Promise<void> {
  const baseUrl = plan.settings.baseUrl;
  // A targets file's targets are each reached by the global setup (one that cannot be reached does not end the run).
  if (plan.embeddedMock || baseUrl === undefined || plan.targets) return;
  const key = secrets[ENV.apiKey];
  const headers = { ...(plan.settings.headers ?? {}), ...(key ? { authorization: `Bearer ${key}` } : {}) };
  const say = (line: string) => process.stderr.write(`${line}\n`);
  const found = await preflight({ baseUrl, headers, waitSeconds: plan.settings.waitForTarget ?? 0, ...(plan.settings.modelMatrix ? { modelSelection: plan.settings.modelMatrix } : {}), say });
  if (found.usage !== undefined) throw new UsageError(found.usage);
  if (found.waited) plan.settings.waitForTarget = 0;
}

/** The kit's commit (a checkout's git, or the package's build-info.json), when known. */
function commitOf(root: string): { commit?: string } {
  const commit = kitCommit(root);
  return commit ? { commit } : {};
}

/** This run's conformance.json (written after `since`), or undefined. */
function readReport(dir: string, since: number): ConformanceReport | undefined {
  const file = path.join(dir, 'conformance.json');
  try {
    if (statSync(file).mtimeMs < since - 1000) return undefined;
    return JSON.parse(readFileSync(file, 'utf8')) as ConformanceReport;
  } catch {
    return undefined;
  }
}

function spawnPlaywright(args: string[], env: NodeJS.ProcessEnv): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [playwrightCli(), ...args], { env, stdio: 'inherit' });
    // Ctrl-C reaches the runner by itself (same process group): it stops its workers and still writes the reports of
    // what ran; this process only waits for it. A SIGTERM sent to this process alone is passed on.
    const wait = () => undefined;
    const forward = () => child.kill('SIGTERM');
    process.on('SIGINT', wait);
    process.on('SIGTERM', forward);
    child.on('error', reject);
    child.on('close', (code) => {
      process.off('SIGINT', wait);
      process.off('SIGTERM', forward);
      resolve(code);
    });
  });
}

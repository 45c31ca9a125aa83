// `chatconform run`: the conformance suite against --base-url (or the embedded mock), as Playwright's CLI in a
// child process with the environment the flags build. Every CONFORMANCE_* variable is also a flag (the flag wins).
// Bad input is refused (exit 2) before anything starts; then the exit code is the suite's: 0 exactly when no MUST
// failed, 1 when one did.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Command, Option } from 'commander';
import { BUILTIN_PROFILES, ENV, normaliseBaseUrl, profilePathOf } from '../suites/lib/discovery/config.ts';
import { loadProfile } from '../suites/lib/discovery/profile.ts';
import { CONFORMANCE_CONFIG, playwrightCli } from './kit-files.ts';
import { checkIds, formatListing, grepFor, idsOfSections, listSuite, matching, testsFor } from './selection.ts';
import { EXIT, integerFrom, UsageError } from './usage.ts';

/** CONFORMANCE_WORKERS is read by the Playwright config, not by the run configuration. */
export const WORKERS_ENV = 'CONFORMANCE_WORKERS';

/** Each setting a person can give: its flag (commander's attribute name) and its environment variable. */
export const RUN_SETTINGS = [
  { flag: '--base-url <url>', key: 'baseUrl', env: ENV.baseUrl, help: 'the target (origin plus optional path prefix); default: start the embedded mock' },
  { flag: '--api-key <key>', key: 'apiKey', env: ENV.apiKey, help: 'bearer credential (prefer the variable: a flag shows in the process list); never written to any output' },
  { flag: '--profile <file>', key: 'profile', env: ENV.profile, help: `target profile: a JSON file, or a built-in one by name (${Object.keys(BUILTIN_PROFILES).join(', ')}: the reference mock's own); default: mock for the embedded mock` },
  { flag: '--report-dir <dir>', key: 'reportDir', env: ENV.reportDir, help: 'where the four reports are written (default ./reports)' },
  { flag: '--seed <n>', key: 'seed', env: ENV.seed, help: 'seed of the property tests (default random, printed)', parse: integerFrom(0) },
  { flag: '--fuzz-runs <n>', key: 'fuzzRuns', env: ENV.fuzzRuns, help: 'runs per property (default the profile\'s budget.fuzzRuns, else 25)', parse: integerFrom(1) },
  { flag: '--request-timeout-ms <n>', key: 'requestTimeoutMs', env: ENV.requestTimeoutMs, help: 'per-request timeout (default 15000)', parse: integerFrom(1) },
  { flag: '--max-body-bytes <n>', key: 'maxBodyBytes', env: ENV.maxBodyBytes, help: 'most bytes read of one response (default 16777216)', parse: integerFrom(1) },
  { flag: '--keep-scratch', key: 'keepScratch', env: ENV.keepScratch, help: 'keep the run\'s scratch folder (masked) and print its path' },
  { flag: '--workers <n>', key: 'workers', env: WORKERS_ENV, help: 'parallel test workers (default 2)', parse: integerFrom(1) },
] as const;

type RunFlags = {
  requirement?: string[];
  section?: string[];
  grep?: string;
  list?: boolean;
} & Partial<Record<(typeof RUN_SETTINGS)[number]['key'], string | number | boolean>>;

export function runCommand(done: (code: number) => void): Command {
  const cmd = new Command('run').description('run the conformance suite against --base-url, or against the embedded mock when none is given');
  for (const s of RUN_SETTINGS) {
    const option = new Option(s.flag, `${s.help} [${s.env}]`);
    if ('parse' in s) option.argParser(s.parse);
    cmd.addOption(option);
  }
  cmd
    .option('--requirement <ID...>', 'run only the tests that judge these requirements')
    .option('--section <N...>', 'run only the tests that judge the requirements of these spec sections (6 takes 6.x too)')
    .option('--grep <regex>', 'run only the tests whose title matches')
    .option('--list', 'print the tests (and the requirements they declare) that would run, and run nothing')
    .addHelpText('after', '\nExit status: 0 when no MUST requirement failed, 1 when one did, 2 for a usage error.')
    .action(async (flags: RunFlags) => {
      done(await run(flags));
    });
  return cmd;
}

/** The child's environment: the caller's, with each flag given written over its variable. */
export function environmentFor(flags: RunFlags, base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...base };
  for (const s of RUN_SETTINGS) {
    const value = flags[s.key];
    if (value === undefined || value === false) continue;
    env[s.env] = value === true ? '1' : String(value);
  }
  // Paths are the caller's, relative to where they ran the command; a profile may be a built-in one's name.
  if (env[ENV.reportDir]) env[ENV.reportDir] = path.resolve(env[ENV.reportDir]!);
  if (env[ENV.profile]) env[ENV.profile] = profilePathOf(env[ENV.profile]!);
  return env;
}

/** Refuses what would only fail later, inside the run: a bad target URL, a profile that does not load, a bad --grep. */
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
  const profile = env[ENV.profile];
  if (profile) {
    if (!existsSync(profile)) throw new UsageError(`--profile: ${profile} does not exist`);
    try {
      loadProfile(profile);
    } catch (err) {
      throw new UsageError(`--profile: ${(err as Error).message.split('\n')[0]}`);
    }
  }
  if (flags.grep !== undefined) {
    try {
      new RegExp(flags.grep);
    } catch (err) {
      throw new UsageError(`--grep: ${(err as Error).message}`);
    }
  }
}

/** The Playwright filters for the run: a grep of the subset's titles, or the caller's grep. */
function filtersFor(flags: RunFlags, env: NodeJS.ProcessEnv): { args: string[]; listing?: string } {
  const ids = [...(flags.requirement ?? []), ...(flags.section ? idsOfSections(flags.section) : [])];
  checkIds(flags.requirement ?? []);
  if (ids.length === 0) {
    if (flags.grep === undefined) return { args: [], ...(flags.list ? { listing: formatListing(listSuite(env)) } : {}) };
    // A grep that matches nothing is the caller's mistake, not a run to report (Playwright would exit 1: "no tests").
    const grep = ['--grep', flags.grep];
    const tests = listSuite(env, grep);
    if (tests.length === 0) throw new UsageError(`--grep ${flags.grep}: no test title matches`);
    return { args: grep, ...(flags.list ? { listing: formatListing(tests) } : {}) };
  }
  let tests = testsFor(ids, listSuite(env));
  if (flags.grep !== undefined) tests = matching(tests, new RegExp(flags.grep));
  const asked = [...(flags.requirement ?? []), ...(flags.section ?? []).map((s) => `section ${s}`)].join(', ');
  if (tests.length === 0) {
    throw new UsageError(`no test of the suite judges ${asked}${flags.grep !== undefined ? ` with a title matching ${flags.grep}` : ''} (the kit's own mock-only requirements are judged by its own tests)`);
  }
  return { args: ['--grep', grepFor(tests)], ...(flags.list ? { listing: formatListing(tests) } : {}) };
}

export async function run(flags: RunFlags): Promise<number> {
  const env = environmentFor(flags);
  validate(env, flags);
  const { args, listing } = filtersFor(flags, env);
  if (listing !== undefined) {
    process.stdout.write(listing);
    return EXIT.ok;
  }
  // Playwright's own output folder holds nothing the reports need: a temp folder, never the caller's tree or node_modules.
  const output = mkdtempSync(path.join(os.tmpdir(), 'chatconform-playwright-'));
  try {
    const code = await spawnPlaywright(['test', '-c', CONFORMANCE_CONFIG, '--output', output, ...args], env);
    return code === 0 ? EXIT.ok : EXIT.mustFailed;
  } finally {
    rmSync(output, { recursive: true, force: true });
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

// `chatconform run`: the conformance suite against --base-url (or the embedded mock), as Playwright's CLI in a child
// process that reads the run's plan. Every CONFORMANCE_* variable is also a flag (the flag wins); chatconform.config
// .json/.yaml fills in what neither set (run/plan.ts). Bad input is refused before anything starts (exit 2, or 3 for
// a file that does not load); a setup mistake the target shows is named in one line before any test
// (run/preflight.ts); then the exit code is the one the report states (0, 1, or 3).
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import { ENV } from '../run/config.ts';
import { parseHeaderLine } from '../run/extra-headers.ts';
import { loadProfile } from '../run/profile.ts';
import { parseShard, shardLabel } from '../run/shard.ts';
import { describeSelection, selectionOf, selectionStatements, selectionTakesTests } from '../run/selection.ts';
import type { ConformanceReport } from '../report/json.ts';
import { formatListing, listSuite } from './selection.ts';
import { collectList, ConfigError, EXIT, EXIT_CODES_TEXT, integerFrom, positiveNumber, UsageError } from './usage.ts';
import { checkRerunListing, prepareRerun, writeTestList } from './rerun.ts';
import { referenceReportDir } from '../run/reference.ts';
import { targetsOfPlan } from '../run/targets.ts';
import { preflightPlan, runKeyOf } from '../run/preflight.ts';
import { checkReportDirWritable } from '../run/report-dir.ts';
import { disposeRunDir, planInput, planOfInput, runEnvironment, writePlan, writePlanInNewRunDir, type PlanInput } from '../run/plan.ts';
import { attributeOf, SettingError, SETTINGS, type Setting, type SettingKind } from '../run/settings.ts';
import { validate } from './run-input.ts';
import { prepareCertification, writeCertification } from './certify.ts';
import { interruptsEndTheCommand, runSuite, type Interrupts } from './suite-process.ts';

/** A rate from 0 to 1 (--min-pass-rate). */
function rate(raw: string): number {
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(n) || n < 0 || n > 1) throw new InvalidArgumentError('expected a number from 0 to 1');
  return n;
}

/** A repeatable `Name: value` (a value may hold commas: never split). */
function headerLines(raw: string, previous: string[] | undefined): string[] {
  try {
    parseHeaderLine(raw);
  } catch (err) {
    throw new InvalidArgumentError((err as Error).message);
  }
  return [...(previous ?? []), raw];
}

/** `--shard i/n`, checked as given. */
function shardArgument(raw: string): string {
  try {
    return shardLabel(parseShard(raw));
  } catch (err) {
    throw new InvalidArgumentError((err as Error).message);
  }
}

/** How commander reads a flag of each kind (run/settings.ts); the kinds without one take the text as given. */
const FLAG_PARSERS: Partial<Record<SettingKind, (s: Setting) => (raw: string, previous: never) => unknown>> = {
  int: (s) => integerFrom(s.min ?? 0),
  number: () => positiveNumber,
  rate: () => rate,
  list: () => collectList(),
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

Setup messages (the key, the model, the report folder, the target): docs/troubleshooting.md.

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

/** The command line's settings as text, by variable (a list comma-joined, headers one per line, a switch as 1): the plan's top layer. */
export function flagTexts(flags: RunFlags): Record<string, string> {
  const out: Record<string, string> = {};
  for (const s of SETTINGS as readonly Setting[]) {
    const value = flags[attributeOf(s)];
    if (value !== undefined && value !== false) out[s.env] = value === true ? '1' : Array.isArray(value) ? value.join(s.separator ?? ',') : String(value);
  }
  return out;
}

/** The plan of the input; a setting that is not a value of its kind is a usage error, a profile that does not load is not. */
function planOf(input: PlanInput): ReturnType<typeof planOfInput> {
  try {
    return planOfInput(input);
  } catch (err) {
    if (err instanceof SettingError) throw new UsageError(err.message);
    throw new ConfigError((err as Error).message.split('\n')[0]);
  }
}

const noTestChecks = (what: string) => `${what}: no test of the suite checks it (the kit's own mock-only requirements are judged by its own tests)`;
const say = (line: string) => process.stderr.write(`${line}\n`);

export async function run(flags: RunFlags): Promise<number> {
  // Ctrl-C before the suite starts (a wait for the target, the preflight) ends the command with exit 3 too.
  const interrupts = interruptsEndTheCommand();
  try {
    return await planAndRun(flags, interrupts);
  } finally {
    interrupts.release();
  }
}

async function planAndRun(flags: RunFlags, interrupts: Interrupts): Promise<number> {
  let input: PlanInput;
  try {
    input = planInput(process.env, { flags: flagTexts(flags) });
  } catch (err) {
    throw new ConfigError((err as Error).message);
  }
  const rerun = flags.lastFailed || flags.rerun !== undefined ? prepareRerun(input.texts, flags) : undefined;
  if ((flags.lastFailed || flags.rerun !== undefined) && !rerun) return EXIT.ok;
  validate(input.texts, flags);
  // Resolved once: the seed is fixed here, and the reference, targets and trials are the plan's (run/slots.ts).
  const { plan, secrets } = planOf(input);
  if (rerun) plan.rerun = rerun.of;
  const targets = targetsOfPlan(plan);
  const slots = { ...(targets ? { targets: targets.map((t) => t.name) } : {}), ...(plan.settings.trials ? { trials: plan.settings.trials } : {}) };
  // A rerun's tests are named under every slot of this run they may be declared in.
  if (rerun) writeTestList(rerun, slots);
  const sel = selectionOf(input.texts);
  const certification = prepareCertification(plan, sel, flags);
  const grep = [...(flags.grep !== undefined ? ['--grep', flags.grep] : []), ...(rerun?.args ?? [])];
  // Whether the selection takes a test: the catalog tells for a plain requirement selection (the usual partial run),
  // Playwright's listing for the rest.
  const takes = sel && grep.length === 0 ? selectionTakesTests(sel) : undefined;
  if (takes === false && !flags.list) throw new UsageError(noTestChecks(describeSelection(sel!)));
  const planFile = writePlanInNewRunDir(plan);
  interrupts.before(() => disposeRunDir(plan));
  try {
    if (flags.list || (sel && takes === undefined) || grep.length > 0) {
      // The filter is checked against the whole suite: a shard may hold none of its tests and still be one of n.
      const { shard, ...unsharded } = plan.settings;
      const whole = flags.list || !shard ? planFile : writePlan({ ...plan, settings: unsharded }, 'plan-whole.json');
      const tests = listSuite(runEnvironment(whole, secrets), grep);
      if (rerun) checkRerunListing(rerun, tests, slots);
      if (flags.list) {
        process.stdout.write(formatListing(tests));
        if (sel) process.stdout.write(`requirements selected (${describeSelection(sel)}):\n${selectionStatements(sel).map((l) => `  ${l}`).join('\n')}\n`);
        return EXIT.ok;
      }
      // A filter that matches nothing is the caller's mistake, not a run to report (Playwright would say "no tests").
      if (tests.length === 0) throw new UsageError(noTestChecks(grep.length > 0 ? `--grep ${flags.grep}` : describeSelection(sel!)));
    }
    // The file in use is named once the run starts (a refusal stays one line): a setting nobody typed is traceable.
    if (plan.configFile) {
      const rel = path.relative(process.cwd(), plan.configFile);
      say(`chatconform: config file ${rel.startsWith('..') || path.isAbsolute(rel) ? plan.configFile : rel}`);
    }
    const reportDir = plan.settings.reportDir!;
    checkReportDirWritable(reportDir);
    const profileKey = plan.settings.profile ? loadProfile(plan.settings.profile).apiKey : undefined;
    await preflightPlan(plan, runKeyOf(plan, secrets[ENV.apiKey], profileKey), say);
    // The preflight may have waited for the target: the suite need not wait again.
    writePlan(plan);
    // The reference beside the target in one run: the same runner, workers, seed and selection serve both.
    if (plan.settings.reference) process.stdout.write(`chatconform: the target beside its reference ${plan.settings.reference} in one run (the reference's reports in ${referenceReportDir(reportDir)})\n`);
    const started = Date.now();
    interrupts.release();
    await runSuite(grep, runEnvironment(planFile, secrets));
    const report = readReport(reportDir, started);
    // No report of this run: the kit could not even judge (a crash before the reporter): a runtime error.
    if (!report) return EXIT.config;
    if (certification) await writeCertification(certification, report, reportDir, secrets[ENV.apiKey], flags);
    return report.verdict.exitCode;
  } finally {
    disposeRunDir(plan);
  }
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

// The `chatconform` command as people script against it: every setting is a flag, bad input is one line and
// exit 2 before anything runs, --help and --version exit 0, and a subset run selects the tests that judge what
// was asked for. Errors and help are read in-process (cli/program.ts takes its output streams); what a command
// prints on stdout is read from the command run as a child, as a user runs it.
import { existsSync, readFileSync, truncateSync, writeFileSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import net from 'node:net';
import { main } from '../../cli/program.ts';
import { EXIT_CODES_TEXT } from '../../cli/usage.ts';
import { RECORDING_FILE_LIMIT } from '../../mock/replay/recording.ts';
import { listen } from '../support/listen.ts';
import { flagTexts } from '../../cli/run.ts';
import { commandLine } from '../../cli/certify.ts';
import { planInput } from '../../run/plan.ts';
import { SETTINGS } from '../../run/settings.ts';
import { BUILTIN_PROFILES, ENV, repoRoot } from '../../run/config.ts';
import { SELECTION_ENV } from '../../run/selection.ts';
import { REFERENCE_ENV } from '../../run/reference.ts';
import { TRIALS_ENV } from '../../run/trials.ts';
import { requirements } from '../../spec/requirements/index.ts';
import { sampleReport } from '../support/reports.ts';
import { chatconformCommand, runProcess } from './support/cli-process.ts';

async function cli(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(argv, { out: (s) => (out += s), err: (s) => (err += s) });
  return { code, out, err };
}

/** The command as a child process, from the sources (the packaging test runs the installed one). */
async function child(argv: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return childIn(repoRoot, argv);
}

async function childIn(cwd: string, argv: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  // From any working directory (a config file is looked for there): the sources, or the installed kit under CHATCONFORM_KIT=installed.
  const { code, stdout, stderr } = await runProcess(...chatconformCommand(argv), { cwd, env: { ...process.env, CONFORMANCE_BASE_URL: '' } });
  return { code, stdout, stderr };
}

test('every CONFORMANCE_* variable the README documents is also a flag of chatconform run', () => {
  const documented = [...readFileSync(path.join(repoRoot, 'README.md'), 'utf8').matchAll(/^\| `(CONFORMANCE_[A-Z_]+)` \|/gm)].map((m) => m[1]!);
  expect(documented.length).toBeGreaterThanOrEqual(10);
  // The reference's key is never a flag (a flag shows in the process list); its report is set by the run itself.
  const reference = [REFERENCE_ENV.url, REFERENCE_ENV.profile, REFERENCE_ENV.model];
  const people = [...Object.values(ENV), ...Object.values(SELECTION_ENV), ...reference, ...Object.values(TRIALS_ENV)];
  // README's table is the settings table (run/settings.ts), row for row: a setting missing from it fails here.
  expect(new Set(documented)).toEqual(new Set(SETTINGS.map((s) => s.env)));
  expect(documented).toHaveLength(SETTINGS.length);
  // The modules' own names for the variables are the table's.
  expect(new Set(SETTINGS.map((s) => s.env))).toEqual(new Set(people));
});

/** The plan's input of these flags over these variables (run/plan.ts), no config file. */
const inputOf = (flags: Parameters<typeof flagTexts>[0], env: NodeJS.ProcessEnv) => planInput(env, { flags: flagTexts(flags), configFile: false }).texts;

test('a flag is written over its variable; paths resolve against the working directory; "mock" names the built-in profile', () => {
  const env = inputOf({ baseUrl: 'http://127.0.0.1:1', seed: 7, keepScratch: true, reportDir: 'out', profile: 'mock' }, { CONFORMANCE_BASE_URL: 'http://elsewhere', CONFORMANCE_SEED: '1', CONFORMANCE_API_KEY: 'sk-from-env' });
  expect(env.CONFORMANCE_BASE_URL).toBe('http://127.0.0.1:1');
  expect(env.CONFORMANCE_SEED).toBe('7');
  expect(env.CONFORMANCE_KEEP_SCRATCH).toBe('1');
  expect(env.CONFORMANCE_API_KEY).toBe('sk-from-env');
  expect(env.CONFORMANCE_REPORT_DIR).toBe(path.resolve('out'));
  expect(env.CONFORMANCE_PROFILE).toBe(BUILTIN_PROFILES.mock);
});

test('the command a bundle records: every flag as given, the key only as the variable that holds it', () => {
  const line = commandLine({ baseUrl: 'https://api.example.com', apiKey: 'sk-live-secret-0123456789', profile: 'acme.json', model: ['a/b', 'c'], seed: 7, certify: true });
  expect(line).toBe('chatconform run --base-url "https://api.example.com" --api-key "$CONFORMANCE_API_KEY" --profile "acme.json" --seed "7" --model "a/b,c" --certify');
  expect(line).not.toContain('sk-live');
  // Headers: by the long flag, one per header, every value masked but a public header's (a credential's always).
  expect(commandLine({ header: ['X-Gateway-Key: gw-secret-123456', 'X-Tenant: acme, eu'] })).toBe('chatconform run --header "X-Gateway-Key: ***REDACTED***" --header "X-Tenant: ***REDACTED***"');
  expect(commandLine({ header: ['X-Gateway-Key: gw-secret-123456', 'X-Tenant: acme, eu'], publicHeader: ['x-tenant', 'X-Gateway-Key'] })).toBe(
    'chatconform run --header "X-Gateway-Key: ***REDACTED***" --header "X-Tenant: acme, eu" --public-header "x-tenant,X-Gateway-Key"',
  );
});

test('gating flags write their variables: lists joined, paths resolved', () => {
  const env = inputOf({ requirement: ['STREAM-004', 'AUTH-008'], level: ['MUST'], model: ['acme/chat-small'], expectedFailures: 'base.yaml', failOn: 'warn', maxRps: 0.5 }, {});
  expect(env).toMatchObject({
    CONFORMANCE_REQUIREMENTS: 'STREAM-004,AUTH-008',
    CONFORMANCE_LEVELS: 'MUST',
    CONFORMANCE_MODELS: 'acme/chat-small',
    CONFORMANCE_EXPECTED_FAILURES: path.resolve('base.yaml'),
    CONFORMANCE_FAIL_ON: 'warn',
    CONFORMANCE_MAX_RPS: '0.5',
  });
});

test('a file, a port or recordings the command cannot use: one line on stderr, exit 3, the same on every subcommand', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'chatconform-cli-env-'));
  const busy = await listen(net.createServer());
  const port = new URL(busy.url).port;
  const absent = path.join(dir, 'absent.json');
  // A script past the recordings' bound (40 MB), sparse: refused from its size, never read.
  const huge = path.join(dir, 'huge.json');
  writeFileSync(huge, '');
  truncateSync(huge, RECORDING_FILE_LIMIT + 1);
  const cases: [string[], RegExp][] = [
    [['verify', path.join(dir, 'no-bundle')], /^error: .*no-bundle: no such bundle$/],
    [['mock', '--port', '0', '--script', huge], /^error: --script .*huge\.json: larger than [\d.]+ MiB, the most the kit reads of it: refused$/],
    [['baseline', absent], /^error: .*absent\.json: no such file$/],
    [['report', 'compare', absent, absent], /^error: .*absent\.json: no such file$/],
    [['report', 'summary', absent], /^error: .*absent\.json: no such file$/],
    [['mock', '--port', '0', '--catalog', absent], /^error: --catalog .*absent\.json: no such file$/],
    [['mock', '--port', '0', '--replay', path.join(dir, 'nowhere')], /^error: --replay .*no such directory/],
    [['mock', '--port', port], new RegExp(`^error: port ${port} is in use; pick another with --port \\(0 picks a free one\\)$`)],
    [['proxy', '--port', port, '--upstream', 'http://127.0.0.1:1'], new RegExp(`^error: port ${port} is in use; pick another with --port`)],
  ];
  try {
    for (const [argv, message] of cases) {
      const r = await cli(argv);
      expect(r.code, `${argv.join(' ')}: ${r.err}`).toBe(3);
      expect(r.err.trimEnd().split('\n'), `${argv.join(' ')}: one line`).toHaveLength(1);
      expect(r.err.trimEnd(), argv.join(' ')).toMatch(message);
    }
  } finally {
    await busy.close();
  }
});

test('chatconform --help prints the one exit-code table, and README shows the same codes', async () => {
  const help = await cli(['--help']);
  expect(help.code).toBe(0);
  expect(help.out).toContain(EXIT_CODES_TEXT);
  const readme = readFileSync(path.join(repoRoot, 'README.md'), 'utf8');
  expect(readme).toContain(EXIT_CODES_TEXT);
});

test('bad input: one line on stderr, exit 2, nothing run', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'chatconform-cli-'));
  const badProfile = path.join(dir, 'profile.json');
  writeFileSync(badProfile, JSON.stringify({ budget: { maxRequests: 'many' } }));
  const cases: [string[], RegExp][] = [
    [['run', '--no-such-flag'], /^error: unknown option '--no-such-flag'$/],
    [['run', '--seed', 'abc'], /^error: option '--seed <n>' argument \(3 characters, not shown\) is invalid\. expected an integer/],
    [['run', '--fuzz-runs', '0'], /--fuzz-runs <n>.*expected an integer of at least 1/],
    [['run', '--base-url'], /^error: option '--base-url <url>' argument missing$/],
    [['run', '--base-url', 'ftp://host'], /^error: --base-url: expected an http:\/\/ or https:\/\/ URL/],
    [['run', '--base-url', 'not a url'], /^error: --base-url: not a URL/],
    [['run', '--base-url', 'http://user:secret@host'], /^error: --base-url: the base URL must not carry credentials/],
    [['run', '--requirement', 'NOPE-001'], /^error: the run's selection: NOPE-001 is not a requirement ID of the catalog$/],
    [['run', '--section', '99'], /^error: the run's selection: section 99 has no requirement/],
    [['run', '--section', '3.9'], /^error: the run's selection: section 3\.9 has no requirement/],
    [['run', '--level', 'OFTEN'], /^error: the run's selection: level OFTEN is not one of MUST, SHOULD, MAY$/],
    [['run', '--fail-on', 'never'], /^error: option '--fail-on <level>' argument \(5 characters, not shown\) is invalid\. Allowed choices are must, strict, warn, target-only\.$/],
    [['run', '--fail-on', 'target-only'], /^error: --fail-on target-only gates on what the target adds to its reference: give --reference$/],
    [['run', '--reference', 'ftp://host'], /^error: --reference: expected an http:\/\/ or https:\/\/ URL/],
    [['run', '--reference-model', 'm'], /^error: CONFORMANCE_REFERENCE_MODEL sets the reference run: give --reference too$/],
    [['run', '--trials', '0'], /--trials <k>.*expected an integer of at least 1/],
    [['run', '--trials', '3', '--min-pass-rate', '1.5'], /--min-pass-rate <R>.*expected a number from 0 to 1/],
    [['run', '--max-rps', '0'], /^error: option '--max-rps <n>' argument \(1 character, not shown\) is invalid\. expected a number above 0$/],
    [['run', '--certify', '--requirement', 'STREAM-004'], /^error: --certify: a certification judges the whole suite; this run selects requirement STREAM-004; a certification needs a target profile/],
    [['run', '--grep', '('], /^error: --grep: Invalid regular expression/],
    [['mock', '--port', '70000'], /^error: option '-p, --port <n>' argument '70000' is invalid\. expected an integer from 0 to 65535$/],
    [['mock', '--defect', 'no-such-defect'], /unknown defect "no-such-defect"; --list-defects lists them$/],
    [['mock', '--variant', 'nope'], /unknown variant "nope"/],
    [['mock', '--port', '0', '--cors', '*', '--cors-control'], /^error: --cors-control opens the control API to the --cors origin; with any origin \(\*\) every web page could drive the mock/],
    [['mock', '--port', '0', '--cors', '--cors-control'], /^error: --cors-control .* with any origin \(\*\)/],
    [['requirements', '--id', 'CAT-999'], /^error: unknown requirement ID CAT-999/],
    [['report', 'compare', 'only-one.json'], /^error: missing required argument 'new'$/],
    [['nonsense'], /^error: unknown command 'nonsense'/],
    [['openapi', 'extra'], /^error: too many arguments for 'openapi'/],
  ];
  for (const [argv, message] of cases) {
    const r = await cli(argv);
    expect(r.code, `${argv.join(' ')}: ${r.err}`).toBe(2);
    expect(r.err.trimEnd().split('\n'), `${argv.join(' ')}: one line`).toHaveLength(1);
    expect(r.err.trimEnd(), argv.join(' ')).toMatch(message);
    expect(r.out, argv.join(' ')).toBe('');
  }
  // No credential from the URL is echoed back.
  expect((await cli(['run', '--base-url', 'http://user:secret@host'])).err).not.toContain('secret');
});

test('configuration errors: a profile, baseline or config file that does not load is one line and exit 3', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'chatconform-cli-config-'));
  const badProfile = path.join(dir, 'profile.json');
  writeFileSync(badProfile, JSON.stringify({ budget: { maxRequests: 'many' } }));
  const badBaseline = path.join(dir, 'expected.yaml');
  writeFileSync(badBaseline, 'expectedFailures:\n  - id: NOPE-001\n    reason: x\n');
  const cases: [string[], RegExp][] = [
    [['run', '--profile', path.join(dir, 'absent.json')], /^error: --profile: .*absent\.json does not exist$/],
    [['run', '--profile', badProfile], /^error: --profile: the target profile .* is invalid/],
    [['run', '--expected-failures', badBaseline], /^error: --expected-failures: expected failures .*expected\.yaml: NOPE-001 is not a requirement of the catalog/],
  ];
  for (const [argv, message] of cases) {
    const r = await cli(argv);
    expect(r.code, `${argv.join(' ')}: ${r.err}`).toBe(3);
    expect(r.err.trimEnd().split('\n'), `${argv.join(' ')}: one line`).toHaveLength(1);
    expect(r.err.trimEnd(), argv.join(' ')).toMatch(message);
  }
  // A config file found beside the project that does not load.
  writeFileSync(path.join(dir, 'chatconform.config.json'), JSON.stringify({ failOn: 'sometimes' }));
  const found = await childIn(dir, ['run']);
  expect(found.code).toBe(3);
  expect(found.stderr.trim()).toMatch(/^error: config file .*chatconform\.config\.json does not match spec\/schemas\/config-file\.schema\.json: \/failOn/);
});

test('a target that never answers is a runtime error: exit 3, said in one line before any test', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'chatconform-cli-notarget-'));
  const r = await child(['run', '--base-url', 'http://127.0.0.1:9', '--requirement', 'CAT-031', '--report-dir', dir, '--request-timeout-ms', '2000']);
  expect(r.code, r.stderr + r.stdout.slice(-2000)).toBe(3);
  // The one check before the tests finds it (run/preflight.ts): no table, no report.
  expect(r.stderr.trim()).toMatch(/^error: the target cannot be reached: connection refused at 127\.0\.0\.1:9: [^\n]*--wait-for-target 60$/);
  expect(existsSync(path.join(dir, 'conformance.json'))).toBe(false);
});

test('--version prints the package version; --help works on every command and exits 0', async () => {
  const version = (JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { version: string }).version;
  expect(await cli(['--version'])).toEqual({ code: 0, out: `${version}\n`, err: '' });
  for (const argv of [['--help'], ['run', '--help'], ['mock', '--help'], ['report', '--help'], ['report', 'compare', '--help'], ['report', 'summary', '--help'], ['requirements', '--help'], ['openapi', '--help']]) {
    const r = await cli(argv);
    expect(r.code, argv.join(' ')).toBe(0);
    expect(r.out, argv.join(' ')).toMatch(/^Usage: chatconform /);
  }
  expect((await cli(['run', '--help'])).out).toContain(EXIT_CODES_TEXT);
  for (const argv of [['baseline', '--help'], ['verify', '--help'], ['init', '--help']]) expect((await cli(argv)).code, argv.join(' ')).toBe(0);
});

test('run --list prints the tests a subset would run, with their requirement IDs, and contacts no target', async () => {
  const listed = await child(['run', '--list', '--requirement', 'STREAM-004']);
  expect(listed.code, listed.stderr).toBe(0);
  // A test is listed with the IDs it declares and the judges it calls, which can record the selected ID too.
  expect(listed.stdout).toMatch(/^streaming\.spec\.ts:\d+ {2}stream true › a streamed completion is an SSE stream whose chunks assemble into the answer {2}\[REQ-005, STREAM-013, \+\d+ through judgeStream\]$/m);
  // The streamed tool calls judge STREAM-004 as they read their stream: a selection of it runs them.
  expect(listed.stdout).toMatch(/^tools\.spec\.ts:\d+ {2}streamed tool calls › /m);
  expect(listed.stdout).not.toMatch(/catalog\.spec\.ts/);
  expect(listed.stdout).toMatch(/^\d+ tests? in [3-9] file\(s\)$/m);
  expect(listed.stdout).toMatch(/^requirements selected \(requirement STREAM-004\):\n {2}STREAM-004 \(MUST, §6\) /m);
  // A grep is a regular expression over the title (these tests carry no tag): `$` leaves out the combined framings.
  const narrowed = await child(['run', '--list', '--section', '6', '--grep', 'x-mock-framing: crlf$']);
  expect(narrowed.stdout.trim().split('\n').slice(0, 2)).toEqual([expect.stringMatching(/x-mock-framing: crlf {2}\[/), '1 test in 1 file(s)']);
  expect(narrowed.stderr).not.toMatch(/chatconform: target/);
  // A refusal is read in-process (its one line is the command's stderr): one process fewer, the listing is the cost.
  const none = await cli(['run', '--grep', 'no test is called this']);
  expect(none.code).toBe(2);
  expect(none.err.trim()).toBe('error: --grep no test is called this: no test of the suite checks it (the kit\'s own mock-only requirements are judged by its own tests)');
});

test('requirements --id prints the record whole; --search finds records by their words', async () => {
  const rec = await child(['requirements', '--id', 'STREAM-004']);
  expect(rec.code).toBe(0);
  expect(rec.stdout).toMatch(/^STREAM-004 {2}MUST\nsection {3}6 Events\n/);
  const search = await child(['requirements', '--search', 'DONE', 'sentinel']);
  expect(search.stdout).toMatch(/^STREAM-004 /m);
  expect(search.stdout).toMatch(/^\d+ of \d+ records \(contract chat-completion-service\.md, sha256 [0-9a-f]{12}…\)$/m);
});

test('report summary reprints a run\'s terminal summary; report compare of a run with itself finds no regression', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'chatconform-cli-report-'));
  const file = path.join(dir, 'conformance.json');
  writeFileSync(file, JSON.stringify(sampleReport()));
  const summary = await child(['report', 'summary', file]);
  expect(summary.code, summary.stderr).toBe(0);
  expect(summary.stdout).toMatch(/^chatconform conformance: FAIL — /);
  expect(summary.stdout).toContain('Root causes');
  const same = await child(['report', 'compare', file, file]);
  expect(same.code, same.stderr).toBe(0);
  expect(same.stdout).toContain('Regressed (0):');
  const notAReport = path.join(dir, 'other.json');
  writeFileSync(notAReport, '{"verdict": 1}');
  const bad = await child(['report', 'summary', notAReport]);
  expect(bad.code).toBe(3);
  expect(bad.stderr.trim()).toMatch(/^error: .*other\.json is not a conformance report \(spec\/schemas\/conformance-report\.schema\.json\): .+$/);
});

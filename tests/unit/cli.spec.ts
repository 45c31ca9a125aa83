// The `chatconform` command as people script against it: every setting is a flag, bad input is one line and
// exit 2 before anything runs, --help and --version exit 0, and a subset run selects the tests that judge what
// was asked for. Errors and help are read in-process (cli/program.ts takes its output streams); what a command
// prints on stdout is read from the command run as a child, as a user runs it.
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect, test } from '@playwright/test';
import { main } from '../../cli/program.ts';
import { RUN_SETTINGS, environmentFor, WORKERS_ENV } from '../../cli/run.ts';
import { grepFor, idsOfSections, testsFor, type ListedTest } from '../../cli/selection.ts';
import { BUILTIN_PROFILES, ENV, repoRoot } from '../../suites/lib/discovery/config.ts';
import { requirements } from '../../spec/requirements/index.ts';
import { sampleReport } from '../../suites/reporter/testing.ts';

async function cli(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(argv, { out: (s) => (out += s), err: (s) => (err += s) });
  return { code, out, err };
}

const run = promisify(execFile);
/** The command as a child process, from the sources (the packaging test runs the installed one). */
async function child(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', 'cli/main.ts', ...argv], { cwd: repoRoot, env: { ...process.env, CONFORMANCE_BASE_URL: '' }, maxBuffer: 16 * 1024 * 1024 });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const x = e as { code: number; stdout: string; stderr: string };
    return { code: x.code, stdout: x.stdout, stderr: x.stderr };
  }
}

test('every CONFORMANCE_* variable the README documents is also a flag of chatconform run', () => {
  const documented = [...readFileSync(path.join(repoRoot, 'README.md'), 'utf8').matchAll(/^\| `(CONFORMANCE_[A-Z_]+)` \|/gm)].map((m) => m[1]!);
  expect(documented.length).toBeGreaterThanOrEqual(10);
  const people = [...Object.values(ENV).filter((v) => v !== ENV.runDir && v !== ENV.embeddedMock), WORKERS_ENV];
  expect(new Set(documented)).toEqual(new Set(people));
  expect(RUN_SETTINGS.map((s) => s.env).sort()).toEqual([...people].sort());
});

test('a flag is written over its variable; paths resolve against the working directory; "mock" names the built-in profile', () => {
  const env = environmentFor({ baseUrl: 'http://127.0.0.1:1', seed: 7, keepScratch: true, reportDir: 'out', profile: 'mock' }, { CONFORMANCE_BASE_URL: 'http://elsewhere', CONFORMANCE_SEED: '1', CONFORMANCE_API_KEY: 'sk-from-env' });
  expect(env.CONFORMANCE_BASE_URL).toBe('http://127.0.0.1:1');
  expect(env.CONFORMANCE_SEED).toBe('7');
  expect(env.CONFORMANCE_KEEP_SCRATCH).toBe('1');
  expect(env.CONFORMANCE_API_KEY).toBe('sk-from-env');
  expect(env.CONFORMANCE_REPORT_DIR).toBe(path.resolve('out'));
  expect(env.CONFORMANCE_PROFILE).toBe(BUILTIN_PROFILES.mock);
});

test('bad input: one line on stderr, exit 2, nothing run', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'chatconform-cli-'));
  const badProfile = path.join(dir, 'profile.json');
  writeFileSync(badProfile, JSON.stringify({ budget: { maxRequests: 'many' } }));
  const cases: [string[], RegExp][] = [
    [['run', '--no-such-flag'], /^error: unknown option '--no-such-flag'$/],
    [['run', '--seed', 'abc'], /^error: option '--seed <n>' argument 'abc' is invalid\. expected an integer/],
    [['run', '--fuzz-runs', '0'], /--fuzz-runs <n>.*expected an integer of at least 1/],
    [['run', '--base-url'], /^error: option '--base-url <url>' argument missing$/],
    [['run', '--base-url', 'ftp://host'], /^error: --base-url: expected an http:\/\/ or https:\/\/ URL/],
    [['run', '--base-url', 'not a url'], /^error: --base-url: not a URL/],
    [['run', '--base-url', 'http://user:secret@host'], /^error: --base-url: the base URL must not carry credentials/],
    [['run', '--profile', path.join(dir, 'absent.json')], /^error: --profile: .*absent\.json does not exist$/],
    [['run', '--profile', badProfile], /^error: --profile: the target profile .* is invalid/],
    [['run', '--requirement', 'NOPE-001'], /^error: unknown requirement ID NOPE-001/],
    [['run', '--section', '99'], /^error: --section 99: expected a section number/],
    [['run', '--section', '3.9'], /^error: --section 3\.9: no requirement of the catalog is in that section$/],
    [['run', '--grep', '('], /^error: --grep: Invalid regular expression/],
    [['mock', '--port', '70000'], /^error: option '-p, --port <n>' argument '70000' is invalid\. expected an integer from 0 to 65535$/],
    [['mock', '--defect', 'no-such-defect'], /unknown defect "no-such-defect"; --list-defects lists them$/],
    [['mock', '--variant', 'nope'], /unknown variant "nope"/],
    [['requirements', '--id', 'CAT-999'], /^error: unknown requirement ID CAT-999/],
    [['report', 'compare', 'only-one.json'], /^error: missing required argument 'new'$/],
    [['report', 'compare', path.join(dir, 'a.json'), path.join(dir, 'b.json')], /^error: cannot read .*a\.json/],
    [['nonsense'], /^error: unknown command 'nonsense'/],
    [['openapi', 'extra'], /^error: too many arguments for 'openapi'/],
  ];
  for (const [argv, message] of cases) {
    const r = await cli(argv);
    expect(r.code, argv.join(' ')).toBe(2);
    expect(r.err.trimEnd().split('\n'), `${argv.join(' ')}: one line`).toHaveLength(1);
    expect(r.err.trimEnd(), argv.join(' ')).toMatch(message);
    expect(r.out, argv.join(' ')).toBe('');
  }
  // No credential from the URL is echoed back.
  expect((await cli(['run', '--base-url', 'http://user:secret@host'])).err).not.toContain('secret');
});

test('--version prints the package version; --help works on every command and exits 0', async () => {
  const version = (JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { version: string }).version;
  expect(await cli(['--version'])).toEqual({ code: 0, out: `${version}\n`, err: '' });
  for (const argv of [['--help'], ['run', '--help'], ['mock', '--help'], ['report', '--help'], ['report', 'compare', '--help'], ['report', 'summary', '--help'], ['requirements', '--help'], ['openapi', '--help']]) {
    const r = await cli(argv);
    expect(r.code, argv.join(' ')).toBe(0);
    expect(r.out, argv.join(' ')).toMatch(/^Usage: chatconform /);
  }
  expect((await cli(['run', '--help'])).out).toContain('Exit status: 0 when no MUST requirement failed, 1 when one did, 2 for a usage error.');
});

test('a subset is the tests that declare the IDs, or the primary ID; a check-judged ID takes the tests of its kind', () => {
  const t = (title: string, ...ids: string[]): ListedTest => ({ file: 'x.spec.ts', line: 1, title, ids });
  const suite = [t('d › streams', 'REQ-005'), t('lists', 'CAT-031'), t('reads back', 'AUTH-005', 'CAT-036'), t('caps', 'REQ-011')];
  expect(testsFor(['REQ-011'], suite).map((x) => x.title)).toEqual(['caps']);
  // STREAM-004 ([DONE] ends the stream) is judged on every stream by a registered check; no test declares it.
  expect(testsFor(['STREAM-004'], suite).map((x) => x.title)).toEqual(['d › streams']);
  // CAT-035 restates AUTH-005: it is judged, and selected, under its primary.
  expect(testsFor(['CAT-035'], suite).map((x) => x.title)).toEqual(['reads back']);
  expect(idsOfSections(['6']).length).toBe(requirements.filter((r) => r.section === '6' || r.section.startsWith('6.')).length);
  expect(idsOfSections(['2.7']).every((id) => requirements.find((r) => r.id === id)!.section === '2.7')).toBe(true);
  const grep = new RegExp(grepFor([t('d › a (b) [c]'), t('plain')]));
  expect(grep.test(' x.spec.ts d a (b) [c]')).toBe(true);
  expect(grep.test(' x.spec.ts d a (b) [c] more')).toBe(false);
  expect(grep.test(' x.spec.ts plain')).toBe(true);
});

test('run --list prints the tests a subset would run, with their requirement IDs, and contacts no target', async () => {
  const listed = await child(['run', '--list', '--requirement', 'STREAM-004']);
  expect(listed.code, listed.stderr).toBe(0);
  expect(listed.stdout).toMatch(/^streaming\.spec\.ts:\d+ {2}stream true › a streamed completion is an SSE stream whose chunks assemble into the answer {2}\[REQ-005, STREAM-013\]$/m);
  expect(listed.stdout).not.toMatch(/catalog\.spec\.ts/);
  expect(listed.stdout).toMatch(/^\d+ tests? in \d+ file\(s\)$/m);
  const narrowed = await child(['run', '--list', '--section', '6', '--grep', 'x-mock-framing: crlf$']);
  expect(narrowed.stdout.trim().split('\n')).toEqual([expect.stringMatching(/x-mock-framing: crlf {2}\[/), '1 test in 1 file(s)']);
  expect(narrowed.stderr).not.toMatch(/chatconform: target/);
  const none = await child(['run', '--grep', 'no test is called this']);
  expect(none.code).toBe(2);
  expect(none.stderr.trim()).toBe('error: --grep no test is called this: no test title matches');
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
  expect(bad.code).toBe(2);
  expect(bad.stderr.trim()).toMatch(/^error: .*other\.json is not a conformance report \(spec\/schemas\/conformance-report\.schema\.json\): .+$/);
});

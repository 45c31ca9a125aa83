// Issue 6, points 1-3: the conformance suite run for real (a child `playwright test` with its own report
// folder) writes the four reports, conformance.json validates, the exit code follows the MUST failures, and
// no mock key appears in any file: against the embedded mock, and against a broken, hostile target that
// echoes the caller's key back (issue 18 point 7: without a false "credential reached the writer" alarm).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test, type TestInfo } from '@playwright/test';
import { formatIssues, validate } from '../../spec/validator.ts';
import { repoRoot } from '../../run/config.ts';
import type { ConformanceReport } from '../../report/json.ts';
import { esc } from '../../report/html.ts';
import { mockKeys, startBrokenTarget } from '../support/reports.ts';
import { BLOB_DIR } from '../../report/merge.ts';
import { cleanup, MOCK_PROFILE, PLAYWRIGHT_CLI, runSuite } from './support/suite-runner.ts';

const FILES = ['conformance.json', 'junit.xml', 'conformance.html', 'badge.svg'];
const SEED = '20250601';

test.describe.configure({ mode: 'parallel' });
test.setTimeout(240_000);

/** Under the test's own output folder: the reports stay as artifacts, and the next run clears them. */
function tempDir(testInfo: TestInfo, name: string): string {
  const dir = testInfo.outputPath(name);
  mkdirSync(dir, { recursive: true });
  return dir;
}

function readReport(dir: string): ConformanceReport {
  for (const f of FILES) expect(existsSync(path.join(dir, f)), `${f} written`).toBe(true);
  const report = JSON.parse(readFileSync(path.join(dir, 'conformance.json'), 'utf8')) as ConformanceReport;
  const result = validate('conformance-report', report);
  expect(result.errors, formatIssues(result.errors)).toEqual([]);
  return report;
}

function expectNoKey(dir: string): void {
  const keys = mockKeys();
  expect(keys.length).toBeGreaterThan(0);
  for (const f of readdirSync(dir, { withFileTypes: true }).filter((e) => e.isFile()).map((e) => e.name)) {
    const text = readFileSync(path.join(dir, f), 'utf8');
    for (const key of keys) expect(text.includes(key), `${f} contains the mock key ${key.slice(0, 8)}…`).toBe(false);
  }
}

/**
 * The blob report of a shard is Playwright's zip: read back by Playwright itself (its JSON reporter), every test
 * error, output and inline attachment it holds is searched, base64 bodies decoded.
 */
function expectNoKeyInBlob(blob: string): void {
  expect(readdirSync(blob).some((f) => f.endsWith('.zip'))).toBe(true);
  const replayed = spawnSync(process.execPath, [PLAYWRIGHT_CLI, 'merge-reports', '--reporter', 'json', blob], { cwd: repoRoot, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  expect(replayed.status, replayed.stderr).toBe(0);
  const json = replayed.stdout;
  expect(json).toContain('CAT-027');
  const bodies = [...json.matchAll(/"body":\s*"([A-Za-z0-9+/=]+)"/g)].map((m) => Buffer.from(m[1]!, 'base64').toString('utf8'));
  for (const key of mockKeys()) {
    expect(json.includes(key), `the blob report holds the mock key ${key.slice(0, 8)}…`).toBe(false);
    expect(bodies.some((b) => b.includes(key)), `an attachment of the blob report holds the mock key ${key.slice(0, 8)}…`).toBe(false);
  }
}

/** The writers' alarm (suites/reporter.ts), which must fire only when a secret really reached a writer. */
const LEAK_ALARM = /a credential reached the .* writer unredacted/;

test('against the embedded mock, two spec files: four files, a valid report, no key anywhere, exit 0, and INCOMPLETE (no stream was judged)', async ({}, testInfo) => {
  const reportDir = tempDir(testInfo, 'report');
  const run = await runSuite({
    // The embedded mock, the kit's own fuzz runs and workers: a user's run of two files.
    files: ['suites/catalog.spec.ts', 'suites/auth.spec.ts'],
    seed: SEED,
    fuzzRuns: null,
    workers: null,
    reportDir,
    outputDir: tempDir(testInfo, 'suite-output'),
    boundMs: 120_000,
    label: 'reports-embedded',
  });
  cleanup(run);
  await testInfo.attach('suite output', { body: `${run.stdout}\n--- stderr ---\n${run.stderr}`, contentType: 'text/plain' });
  const report = readReport(reportDir);
  expectNoKey(reportDir);

  expect(report.target).toMatchObject({ embeddedMock: true, profile: { path: 'fixtures/profiles/mock.json' } });
  expect(report.target.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  expect(report.run.seed).toBe(Number(SEED));
  expect(report.run.requests).toBeGreaterThan(0);
  expect(report.run.tests.total).toBeGreaterThan(0);
  expect(report.spec.catalogRecords).toBe(report.requirements.length);
  expect(run.code).toBe(report.verdict.mustFailed.length === 0 ? 0 : 1);
  expect(report.verdict.exitCode).toBe(run.code);
  // The reference mock passes what these two files check …
  expect(report.verdict.mustFailed).toEqual([]);
  expect(report.rootCauses).toEqual([]);
  // … but they judge no stream: a partial run proves too little for a pass.
  expect(report.verdict.result).toBe('incomplete');
  expect(report.coverage.coreNotJudged).toEqual(['CHAT-005']);
  expect(report.coverage.mustJudged).toBeGreaterThan(0);
  // The kit's own records are not in a target's report.
  expect(report.requirements.some((r) => r.check === 'mock-only')).toBe(false);
  expect(report.spec.kitOnly).toBeGreaterThan(0);
  const catalog = report.requirements.find((r) => r.id === 'CAT-001')!;
  expect(catalog.status).toBe('pass');
  expect(catalog.tests.length).toBeGreaterThan(0);
  // Requirements of the files not run are reported, as untested.
  expect(report.counts.untested).toBeGreaterThan(0);

  expect(run.stdout).toMatch(/chatconform conformance: INCOMPLETE/);
  expect(run.stdout).toMatch(/INCOMPLETE — NOT A PASS: \d+ of \d+ MUST requirements judged \([\d.]+ %\); core requirements not judged: CHAT-005/);
  expect(run.stdout).toMatch(/section\s+pass\s+fail\s+warn\s+error\s+expected-fail\s+skip\s+observed\s+untested/);
  expect(run.stdout).toContain(`seed ${SEED}`);
  expect(run.stdout).toContain(`reports in ${path.relative(repoRoot, reportDir)}/: conformance.json, junit.xml, conformance.html, badge.svg`);
  expect(readFileSync(path.join(reportDir, 'badge.svg'), 'utf8')).toMatch(/conformance: incomplete: \d+% judged/);
  expect(run.stderr).not.toMatch(LEAK_ALARM);
});

test('against a broken target that echoes the key, as a shard: MUST failures, exit 1, curls in the HTML, still no key anywhere, its blob report included', async ({}, testInfo) => {
  const target = await startBrokenTarget();
  try {
    const reportDir = tempDir(testInfo, 'report');
    const run = await runSuite({
      baseUrl: target.url,
      profile: MOCK_PROFILE,
      files: ['suites/catalog.spec.ts'],
      seed: SEED,
      fuzzRuns: null,
      workers: null,
      reportDir,
      outputDir: tempDir(testInfo, 'suite-output'),
      boundMs: 120_000,
      label: 'reports-broken',
      // As one shard of one: the Playwright blob report a sharded CI job uploads is written too, and searched below.
      extraEnv: { CONFORMANCE_SHARD: '1/1' },
    });
    cleanup(run);
    await testInfo.attach('suite output', { body: `${run.stdout}\n--- stderr ---\n${run.stderr}`, contentType: 'text/plain' });
    const report = readReport(reportDir);
    expectNoKey(reportDir);

    expect(run.code).toBe(1);
    expect(report.verdict).toMatchObject({ result: 'fail', exitCode: 1 });
    expect(report.target).toMatchObject({ url: target.url, embeddedMock: false });
    expect(report.verdict.mustFailed).toContain('CAT-027');
    const nulls = report.requirements.find((r) => r.id === 'CAT-027')!;
    expect(nulls.reason).toMatch(/\/data\/0\/name: must not be null/);
    const evidence = nulls.evidence.find((e) => e.exchange)!;
    expect(evidence.exchange).toMatchObject({ method: 'GET', status: 200 });
    expect(evidence.exchange!.url).toBe(`${target.url}/v1/models`);
    expect(evidence.exchange!.curl).toMatch(/^curl -sS -N -X GET '.*\/v1\/models'/);
    // The target's markup travels as data (JSON-encoded in the body) …
    expect(evidence.exchange!.responseBody).toContain('<b>bold?</b>');

    const html = readFileSync(path.join(reportDir, 'conformance.html'), 'utf8');
    expect(html).toContain(esc(evidence.exchange!.curl));
    // … and is escaped in the page.
    expect(html).not.toContain('<b>bold?</b>');
    expect(html).toContain(esc('<b>bold?</b>'));
    const junit = readFileSync(path.join(reportDir, 'junit.xml'), 'utf8');
    expect(junit).toMatch(/<testcase classname="2" name="CAT-027: [^"]*" time="0">[\s\S]*?<failure message="[^"]*must not be null/);
    expect(junit).toContain('replay: curl -sS');

    expect(run.stdout).toMatch(/chatconform conformance: FAIL/);
    expect(run.stdout).toMatch(/MUST failures \(\d+\):[\s\S]*CAT-027/);
    // The deviation leads, once, as a root cause with its replay curl in the data.
    const cause = report.rootCauses.find((c) => c.id === 'CAT-027')!;
    expect(cause).toMatchObject({ status: 'fail', tier: 'core' });
    expect(cause.exchange!.curl).toBe(evidence.exchange!.curl);
    expect(run.stdout).toMatch(/Root causes \(\d+\), by impact:[\s\S]*FAIL CAT-027/);
    expect(run.stdout.indexOf('Root causes')).toBeLessThan(run.stdout.indexOf('MUST failures'));
    // The kit's own terminal: its progress lines (short, marked, no tags) then the verdict; never Playwright's pass
    // count or ticks beside the FAIL.
    const progress = run.stdout.split('\n').filter((l) => /^chatconform +\d+\/\d+ tests · /.test(l));
    expect(progress.length, run.stdout).toBeGreaterThan(0);
    for (const line of progress) expect(line.length, line).toBeLessThan(120);
    expect(progress.at(-1)).toMatch(/^chatconform +(\d+)\/\1 tests · \d+ requirements judged: PASS \d+ FAIL [1-9]\d* WARN \d+ · SKIP \d+ · \d+m?\d*s · failed .*CAT-027/);
    expect(run.stdout.indexOf(progress.at(-1)!)).toBeLessThan(run.stdout.indexOf('chatconform conformance: FAIL'));
    expect(run.stdout).not.toMatch(/^\s*\d+ passed\b|✓|@[A-Z]+-\d{3}/m);
    // The target echoed the key into every answer; the reports hold none of it, and no alarm is raised.
    expect(run.stderr).not.toMatch(LEAK_ALARM);
    expect(readFileSync(path.join(reportDir, 'badge.svg'), 'utf8')).toMatch(/\d+ MUST failed/);
    expectNoKeyInBlob(path.join(reportDir, BLOB_DIR));
  } finally {
    await target.close();
  }
});


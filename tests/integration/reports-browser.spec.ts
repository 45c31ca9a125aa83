// Issue 6, point 5: conformance.html seen in a real browser (Debian's Chromium, launched by Playwright).
// The page loads nothing but itself, runs its script under its own CSP, renders the matrix, filters by
// status and level, expands a failure to its request, response and curl, and shows hostile markup as text.
// Screenshots are kept as artifacts.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect, test, type TestInfo } from '@playwright/test';
import { chromium, type Browser, type Page } from 'playwright';
import { writeReports } from '../../report/write.ts';
import { buildReport, type ConformanceReport } from '../../report/json.ts';
import { aggregate, targetRequirements } from '../../report/results.ts';
import { HOSTILE_HTML, REPLAY_CURL, SAMPLE_SECRET, sampleInfo, sampleReport, startBrokenTarget } from '../support/reports.ts';
import { cleanup, MOCK_PROFILE, runSuite } from './support/suite-runner.ts';

/** What a target's report lists: the catalog without its mock-only records. */
const requirements = targetRequirements();

const CHROMIUM = '/usr/bin/chromium';

test.skip(!existsSync(CHROMIUM), `Debian's Chromium is not installed at ${CHROMIUM} (apt-get install -y chromium; .ci/run installs it)`);
test.setTimeout(240_000);
test.describe.configure({ mode: 'parallel' });

let browser: Browser;
test.beforeAll(async () => {
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--headless', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
});
test.afterAll(async () => {
  await browser?.close();
});

interface Opened {
  page: Page;
  /** Every URL the page asked for (only the file itself may appear), and every console error or CSP violation. */
  requests: string[];
  problems: string[];
}

async function open(file: string): Promise<Opened> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const requests: string[] = [];
  const problems: string[] = [];
  page.on('request', (r) => requests.push(r.url()));
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error' || /Content Security Policy/i.test(m.text())) problems.push(`console ${m.type()}: ${m.text()}`);
  });
  await page.goto(pathToFileURL(file).href);
  return { page, requests, problems };
}

function expectSelfContained(o: Opened, file: string): void {
  expect(o.requests).toEqual([pathToFileURL(file).href]);
  expect(o.problems).toEqual([]);
}

async function screenshot(testInfo: TestInfo, page: Page, name: string, opts: { fullPage?: boolean; locator?: ReturnType<Page['locator']> } = {}): Promise<void> {
  const file = testInfo.outputPath(`${name}.png`);
  if (opts.locator) await opts.locator.screenshot({ path: file });
  else await page.screenshot({ path: file, fullPage: opts.fullPage ?? false });
  await testInfo.attach(name, { path: file, contentType: 'image/png' });
}

const visible = (page: Page) => page.locator('details.req:visible');

test('hand-made report: root causes first, matrix, filters, an expanded failure with its evidence, hostile markup as text', async ({}, testInfo) => {
  const report = sampleReport();
  const dir = testInfo.outputPath('report');
  writeReports(report, dir, [SAMPLE_SECRET]);
  const file = path.join(dir, 'conformance.html');
  const o = await open(file);
  const { page } = o;

  // Verdict banner with the coverage and the transport, then the root causes, ranked, before the matrix.
  await expect(page.locator('#verdict')).toContainText('FAIL');
  await expect(page.locator('#verdict')).toContainText('3 MUST requirements failed');
  await expect(page.locator('#verdict .coverage')).toHaveText(`Coverage: 8 of 16 MUST requirements judged (50 %) · 5 of ${report.verdict.requirementsTotal} requirements pass`);
  await expect(page.locator('#verdict .what')).toHaveText('3 MUST requirements failed');
  await expect(page.locator('#verdict .transport')).toContainText('1 of 7 exchanges failed at the transport level');
  const causes = page.locator('#root-causes li.rc');
  await expect(causes).toHaveCount(4);
  await expect(causes.locator('.rc-head a code')).toHaveText(['REQ-010', 'RESP-001', 'CAT-027', 'CAT-038']);
  const y = async (sel: string) => (await page.locator(sel).boundingBox())!.y;
  expect(await y('#root-causes')).toBeLessThan(await y('#matrix'));
  // The property failure's replay curl reads whole, with the key variable.
  await expect(causes.first().locator('pre.curl-text')).toHaveText(REPLAY_CURL);
  await expect(causes.nth(1)).toContainText('Left unjudged because of it (1): RESP-011');
  await screenshot(testInfo, page, 'report-top');
  const topRows = page.locator('#matrix-table tbody tr.top');
  await expect(topRows).toHaveCount(report.sections.length);
  const section2 = topRows.filter({ hasText: '§2' }).first();
  await expect(section2.locator('td.c-fail')).toHaveText('3');
  await expect(page.locator('#matrix-table tr.sum td.total')).toHaveText(String(requirements.length));
  await expect(page.locator('#matrix-table tr.sum td.c-error')).toHaveText('5');

  // Filters: status, level, search, the tiles.
  await expect(page.locator('#shown')).toHaveText(`${requirements.length} of ${requirements.length} shown`);
  for (const s of ['warn', 'error', 'pass', 'observed', 'skip', 'untested']) await page.locator(`input[name=status][value=${s}]`).uncheck();
  await expect(visible(page)).toHaveCount(3);
  await expect(page.locator('#shown')).toHaveText(`3 of ${requirements.length} shown`);
  await expect(page.locator('section.group:visible')).toHaveCount(1); // §2 only: empty sections hide
  await page.locator('input[name=level][value=MUST]').uncheck();
  await expect(visible(page)).toHaveCount(0);
  await page.locator('input[name=level][value=MUST]').check();
  await page.locator('input[name=status][value=error]').check();
  await expect(visible(page)).toHaveCount(8); // + the five the kit could not judge
  await expect(page.locator('details.req:visible[data-status=error]')).toHaveCount(5);
  await page.locator('input[name=status][value=error]').uncheck();
  await page.locator('input[name=status][value=warn]').check();
  await expect(visible(page)).toHaveCount(4);
  await page.locator('input[name=level][value=MUST]').uncheck();
  await expect(visible(page)).toHaveCount(1); // the SHOULD warning
  await page.locator('input[name=level][value=MUST]').check();
  await page.locator('#q').fill('cat-027');
  await expect(visible(page)).toHaveCount(1);
  await page.locator('#q').fill('');
  await page.locator('button.tile[data-only-status=untested]').click();
  await expect(visible(page)).toHaveCount(report.counts.untested);
  await expect(page.locator('details.req:visible[data-status=untested]')).toHaveCount(report.counts.untested);

  // A failure, reached from the MUST list (which also brings back a filtered-out requirement), expands to its evidence.
  const failure = page.locator('#req-CAT-027');
  await expect(failure).toBeHidden();
  await expect(failure.locator('.exchange')).toBeHidden();
  await page.locator('#must-failures a[href="#req-CAT-027"]').click();
  await expect(failure).toBeVisible();
  await expect(failure).toHaveJSProperty('open', true);
  const ev = failure.locator('.ev-fail').first();
  await expect(ev.locator('.msg')).toContainText('/data/0/name: must not be null');
  await expect(ev.locator('.exchange .half').first()).toContainText('GET http://127.0.0.1:9/v1/models');
  await expect(ev.locator('.exchange .half').nth(1)).toContainText('HTTP 200');
  await expect(ev.locator('.exchange .half').nth(1)).toContainText('"name": null');
  await expect(ev.locator('pre.curl-text')).toHaveText(/^curl -sS -N -X GET 'http:\/\/127\.0\.0\.1:9\/v1\/models' .*"Authorization: Bearer \$CONFORMANCE_API_KEY"$/);
  // The target's markup is text: shown verbatim, never parsed.
  await expect(ev.locator('.msg')).toContainText(HOSTILE_HTML);
  await expect(failure.locator('img, script')).toHaveCount(0);
  await expect(failure.locator('b', { hasText: /^bold\?$/ })).toHaveCount(0);
  expect(await page.title()).not.toBe('pwned');
  await expect(page.locator('body')).not.toContainText(SAMPLE_SECRET);
  await screenshot(testInfo, page, 'failure-expanded', { locator: failure });

  // Collapsing and the observations and skip tables.
  await failure.locator('summary').click();
  await expect(failure.locator('.exchange')).toBeHidden();
  await expect(page.locator('#observations')).toContainText('min_tier values');
  await expect(page.locator('#skips')).toContainText('the profile names no restricted key');
  await expect(page.locator('#skips')).toContainText('the kit could not judge: the test timed out');
  // What the kit could not judge shows the transport failure behind it, never as the target's failure.
  await page.locator('#skips a[href="#req-STREAM-002"]').click();
  const kit = page.locator('#req-STREAM-002');
  await expect(kit).toHaveJSProperty('open', true);
  await expect(kit.locator('.reason')).toContainText('The kit could not judge: socket hang up');
  await expect(kit.locator('.ev-error .exchange .half').nth(1)).toContainText('transport: retried: reset before any response byte');
  await expect(kit.locator('.ev-error .exchange .half').nth(1)).toContainText('no response (reset): socket hang up');
  await screenshot(testInfo, page, 'kit-error-expanded', { locator: kit });
  expectSelfContained(o, file);
  await page.close();
});

test('an incomplete run says so in the banner, loudly, with the coverage; the badge is grey', async ({}, testInfo) => {
  // The 503 stub's shape: the model list judged, every completion skipped as unavailable.
  const outcomes = [
    { title: 'catalog', file: 'suites/catalog.spec.ts', line: 1, status: 'judged' as const, declared: ['CAT-031', 'CAT-032'], durationMs: 1, evidence: { checks: [{ id: 'CAT-031', status: 'pass' as const }, { id: 'CAT-032', status: 'pass' as const }], exchanges: [] } },
    { title: 'chat', file: 'suites/chat.spec.ts', line: 1, status: 'skipped' as const, skipReason: 'model_unavailable (503)', declared: ['CHAT-004', 'CHAT-005'], durationMs: 1 },
  ];
  const report = buildReport({ info: sampleInfo(), results: aggregate(outcomes), outcomes, startedAt: new Date(), durationMs: 1, stopReason: 'completed', errors: [] });
  const dir = testInfo.outputPath('report');
  writeReports(report, dir, [SAMPLE_SECRET]);
  const file = path.join(dir, 'conformance.html');
  const o = await open(file);
  const { page } = o;
  await expect(page.locator('#verdict .verdict')).toHaveText('INCOMPLETE');
  await expect(page.locator('#verdict .loud')).toHaveText('INCOMPLETE — NOT A PASS: 2 of 4 MUST requirements judged (50 %); core requirements not judged: CHAT-004, CHAT-005');
  await expect(page.locator('#verdict')).toHaveCSS('background-color', 'rgb(87, 96, 106)');
  await expect(page.locator('#root-causes')).toContainText('No requirement failed or warned.');
  await screenshot(testInfo, page, 'incomplete-top');
  expect(readFileSync(path.join(dir, 'badge.svg'), 'utf8')).toMatch(/aria-label="conformance: incomplete: 50% judged"[\s\S]*#757575/);
  expectSelfContained(o, file);
  await page.close();
});

test('a run against a broken target: its failures with their curls, in the browser', async ({}, testInfo) => {
  const target = await startBrokenTarget();
  let report: ConformanceReport;
  const reportDir = testInfo.outputPath('report');
  try {
    const run = await runSuite({
      baseUrl: target.url,
      profile: MOCK_PROFILE,
      files: ['suites/catalog.spec.ts'],
      seed: 7,
      fuzzRuns: null,
      workers: null,
      reportDir,
      outputDir: testInfo.outputPath('suite-output'),
      boundMs: 120_000,
      label: 'reports-browser',
    });
    cleanup(run);
    expect(run.code, run.stdout + run.stderr).toBe(1);
    report = JSON.parse(readFileSync(path.join(reportDir, 'conformance.json'), 'utf8')) as ConformanceReport;
  } finally {
    await target.close();
  }
  const file = path.join(reportDir, 'conformance.html');
  const o = await open(file);
  const { page } = o;
  await expect(page.locator('#verdict')).toContainText('FAIL');
  await screenshot(testInfo, page, 'broken-target-top');
  const firstFailure = report.verdict.mustFailed[0]!;
  await page.locator(`#must-failures a[href="#req-${firstFailure}"]`).click();
  const failure = page.locator(`#req-${firstFailure}`);
  await expect(failure.locator('pre.curl-text').first()).toBeVisible();
  await expect(failure.locator('pre.curl-text').first()).toContainText(`curl -sS -N -X GET '${target.url}/v1/models`);
  await expect(failure.locator('.exchange').first()).toContainText('HTTP 200');
  await expect(failure.locator('img, script')).toHaveCount(0);
  await expect(failure.locator('.exchange').first()).toContainText('<b>bold?</b>');
  await screenshot(testInfo, page, 'broken-target-failure', { locator: failure });
  expectSelfContained(o, file);
  await page.close();
});

// Issue 52, point 5: `chatconform ui` in a real browser (Debian's Chromium, launched by Playwright; no browser
// download). The page runs section 6 against `mock --defect stream-no-done` with a key typed in, sees STREAM-004 fail
// while the run is still going, opens it (the statement, the section, the stream's events), copies its curl, reruns it
// against a clean mock and sees it pass, and compares the two runs; the typed key is then found in no file of the
// report folder or the scratch folder, nor in the server's output, nor in the browser's storage. A request without the
// token, from another site's page or under another host name (DNS rebinding) is refused. A hand-made report with
// hostile strings shows them as text; a client run shows its scenarios with what the client was asked, sent and
// reported. Screenshots of each state are attached (and copied to CHATCONFORM_UI_SCREENSHOTS when set: docs/ui/).
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { expect, test, type TestInfo } from '@playwright/test';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright';
import { writeReports } from '../../report/write.ts';
import { repoRoot } from '../../run/config.ts';
import { HOSTILE_HTML, SAMPLE_SECRET, sampleReport } from '../support/reports.ts';
import { CLI, CliProcesses, direct, startProcess, type Started } from './support/cli-process.ts';

const CHROMIUM = '/usr/bin/chromium';
const ARGS = ['--no-sandbox', '--headless', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
/** The key typed into the page: both mocks accept it (their keys file), so it travels in every request of the runs. */
const TYPED_KEY = 'sk-typed-in-the-page-5c1e7a9d0b3f4e21';

test.skip(!existsSync(CHROMIUM), `Debian's Chromium is not installed at ${CHROMIUM} (apt-get install -y chromium; .ci/run installs it)`);
test.setTimeout(480_000);

const mocks = new CliProcesses();
let defect: Started;
let clean: Started;
let ui: Started;
let browser: Browser;
let folder: { reports: string; scratch: string };

test.beforeAll(async ({}, testInfo) => {
  const root = testInfo.outputPath('ui');
  folder = { reports: path.join(root, 'reports'), scratch: path.join(root, 'tmp') };
  mkdirSync(folder.scratch, { recursive: true });
  const fixtures = JSON.parse(readFileSync(path.join(repoRoot, 'fixtures/mock/keys.json'), 'utf8')) as { keys: unknown[] };
  const keys = path.join(root, 'keys.json');
  writeFileSync(keys, JSON.stringify({ keys: [...fixtures.keys, { key: TYPED_KEY, name: 'typed in the page', tier: 'pro' }] }));
  [defect, clean] = await Promise.all([mocks.start(['mock', '--port', '0', '--defect', 'stream-no-done', '--keys', keys]), mocks.start(['mock', '--port', '0', '--keys', keys])]);
  // The server and the runs it starts put their scratch files under TMPDIR: this test's folder, searched at the end.
  ui = await startProcess(...splitCommand(direct(CLI, ['ui', '--port', '0', '--report-dir', folder.reports])), {
    env: { ...process.env, TMPDIR: folder.scratch, CONFORMANCE_API_KEY: '' },
    ready: (out) => /^ui listening on (http:\/\/\S+)/m.exec(out)?.[1],
  });
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
});
test.afterAll(async () => {
  await browser?.close();
  await ui?.close();
  mocks.stopAll();
});

function splitCommand(line: readonly string[]): [string, string[]] {
  return [line[0]!, line.slice(1)];
}

/** A screenshot attached to the test; with `docs` (the main states), also copied to CHATCONFORM_UI_SCREENSHOTS. */
async function shoot(testInfo: TestInfo, page: Page, name: string, docs = true): Promise<void> {
  const file = testInfo.outputPath(`${name}.png`);
  // From the top of the page and of the setup column; the evidence panel from its own top.
  await page.evaluate(() => {
    window.scrollTo(0, 0);
    for (const el of document.querySelectorAll('.setup, #evidence')) el.scrollTop = 0;
  });
  await page.screenshot({ path: file });
  await testInfo.attach(name, { path: file, contentType: 'image/png' });
  const folder = process.env.CHATCONFORM_UI_SCREENSHOTS;
  if (docs && folder) {
    mkdirSync(folder, { recursive: true });
    copyFileSync(file, path.join(folder, `${name}.png`));
  }
}

interface Opened {
  context: BrowserContext;
  page: Page;
  problems: string[];
  /** Every URL the page asked for. */
  requests: string[];
}

async function open(): Promise<Opened> {
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(ui.url).origin });
  const page = await context.newPage();
  const problems: string[] = [];
  const requests: string[] = [];
  page.on('request', (r) => requests.push(r.url()));
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error' || /Content Security Policy/i.test(m.text())) problems.push(`console ${m.type()}: ${m.text()}`);
  });
  const started = Date.now();
  await page.goto(ui.url);
  await page.locator('body[data-ready="1"]').waitFor();
  const paint = await page.evaluate(() => performance.getEntriesByName('first-contentful-paint')[0]?.startTime);
  test.info().annotations.push({ type: 'page ready', description: `first contentful paint ${Math.round(paint ?? -1)} ms; ${Date.now() - started} ms from navigation to the page wired to its API` });
  return { context, page, problems, requests };
}

/** Every file under `dir` whose bytes hold `needle`. */
function filesHolding(dir: string, needle: string): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const name of readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
    const file = path.join(dir, name);
    if (statSync(file).isFile() && readFileSync(file).includes(needle)) out.push(file);
  }
  return out;
}

test('section 6 against stream-no-done: STREAM-004 fails live, its evidence and curl, rerun against the clean mock passes, the two runs compared; the typed key is nowhere', async ({}, testInfo) => {
  const { context, page, problems, requests } = await open();
  await page.fill('#base-url', defect.url);
  await page.fill('#profile', 'mock');
  await page.check('input[name=key-from][value=typed]');
  await page.fill('#key-typed', TYPED_KEY);
  // Section 6, and TOOL-009: the defect drops [DONE] after streamed tool calls, which the tools tests stream. (Until
  // the selection takes every test that can judge an ID, section 6 alone does not run them.)
  await page.locator('#tree input[data-section="6"]').check();
  await page.fill('#filter-text', 'TOOL-009');
  await page.locator('#tree input[data-requirement="TOOL-009"]').check();
  await expect(page.locator('#selection-summary')).toHaveText('only §6, TOOL-009');
  await page.fill('#filter-text', '');
  await page.locator('#tree details[data-section="6"] > summary').click();
  await shoot(testInfo, page, 'ui-1-target-and-selection');

  // Whether STREAM-004's row turned fail while the run was still going (no verdict yet, Stop still offered).
  await page.evaluate(() => {
    const w = window as unknown as { failedLive?: boolean };
    new MutationObserver(() => {
      const row = document.querySelector('tr[data-id="STREAM-004"]');
      if (w.failedLive === undefined && row?.getAttribute('data-status') === 'fail') {
        w.failedLive = document.getElementById('verdict')!.textContent === '' && !(document.getElementById('stop') as HTMLButtonElement).disabled;
      }
    }).observe(document.getElementById('rows')!, { subtree: true, attributes: true, childList: true });
  });
  const clicked = Date.now();
  await page.click('#run');
  await page.locator('#rows tr:not([data-status="pending"])').first().waitFor({ timeout: 180_000 });
  testInfo.annotations.push({ type: 'first result', description: `${Date.now() - clicked} ms from clicking Run to the first requirement's status` });
  await expect(page.locator('#progress-text')).toContainText('MUST failure');
  await shoot(testInfo, page, 'ui-2-live-run');
  await page.locator('tr[data-id="STREAM-004"][data-status="fail"]').waitFor({ timeout: 180_000 });
  expect(await page.evaluate(() => (window as unknown as { failedLive?: boolean }).failedLive)).toBe(true);
  await expect(page.locator('#verdict')).toContainText('FAIL', { timeout: 180_000 });
  await expect(page.locator('#causes .cause[data-id="STREAM-004"]')).toBeVisible();
  await shoot(testInfo, page, 'ui-3-verdict-and-root-causes');

  // The evidence: the statement and its section, the stream's events, the curl (key as a variable), copied.
  await page.click('tr[data-id="STREAM-004"]');
  const panel = page.locator('#evidence');
  await expect(panel).toBeVisible();
  await expect(panel.locator('.statement')).toContainText('[DONE]');
  await expect(panel.locator('.meta')).toContainText('MUST · §6 Events');
  await expect(panel).toContainText('Stream events');
  const curl = (await panel.locator('.curl-text').first().textContent())!;
  expect(curl).toMatch(/^curl /);
  expect(curl).toContain('$CONFORMANCE_API_KEY');
  expect(curl).not.toContain(TYPED_KEY);
  await panel.locator('button.copy').first().click();
  await expect(panel.locator('button.copy').first()).toHaveText('Copied');
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(curl);
  await shoot(testInfo, page, 'ui-4-evidence');

  // The clean mock: the same requirement rerun from its panel, with the key still typed in.
  const first = (await page.locator('#run-head').textContent())!;
  await page.fill('#base-url', clean.url);
  await page.click('#ev-rerun');
  await expect(page.locator('#run-head')).toContainText('--requirement=STREAM-004');
  await page.locator('tr[data-id="STREAM-004"][data-status="pass"]').waitFor({ timeout: 180_000 });
  await expect(page.locator('#verdict')).not.toBeEmpty({ timeout: 180_000 });
  expect(first).not.toContain('--requirement=STREAM-004');
  await shoot(testInfo, page, 'ui-5-rerun-passes');

  // Compared with the previous run (the one chosen by default): STREAM-004 improved.
  await page.click('#compare');
  await expect(page.locator('#compare-result')).toContainText('Improved');
  await expect(page.locator('#compare-result li', { hasText: 'STREAM-004' })).toContainText('fail → pass');
  await shoot(testInfo, page, 'ui-6-compare');

  await page.click('button[data-tab=history]');
  await expect(page.locator('#history tr')).toHaveCount(2);
  await shoot(testInfo, page, 'ui-7-history');

  // The defect run opened from the history, its failed tests rerun (`--rerun` of its report) against the clean mock:
  // the tools test where STREAM-004 failed passes now; the rerun's reports are in its rerun/ folder.
  await page.locator('#history tr').last().locator('button').click();
  await expect(page.locator('tr[data-id="STREAM-004"]')).toHaveAttribute('data-status', 'fail');
  await page.click('#rerun-failed');
  await expect(page.locator('#run-head')).toContainText('--rerun=');
  await expect(page.locator('#verdict')).not.toBeEmpty({ timeout: 240_000 });
  await expect(page.locator('tr[data-id="STREAM-004"]')).toHaveAttribute('data-status', 'pass');
  await expect(page.locator('#verdict')).toContainText(/a rerun of the \d+ test/);
  await page.click('button[data-tab=history]');
  await expect(page.locator('#history tr')).toHaveCount(3);
  await expect(page.locator('#history tr').first()).toHaveAttribute('data-key', /^ui\/[\d-]+\/rerun$/);

  // Nothing from elsewhere, nothing against the CSP, nothing in the browser's storage.
  expect(problems).toEqual([]);
  const origin = new URL(ui.url).origin;
  expect(requests.filter((u) => !u.startsWith(`${ui.url}`))).toEqual([]);
  expect(await page.evaluate(() => [localStorage.length, sessionStorage.length, document.cookie])).toEqual([0, 0, '']);
  expect((await context.cookies(origin)).length).toBe(0);
  // The key typed in: in no report, no scratch file (the server's and the runs'), not in the server's output nor the runs'.
  const runs = (await (await page.request.get(`${ui.url}api/runs`)).json()) as { id: string }[];
  expect(runs.length).toBe(3);
  for (const r of runs) expect(await (await page.request.get(`${ui.url}api/runs/${r.id}/output`)).text()).not.toContain(TYPED_KEY);
  expect(filesHolding(folder.reports, TYPED_KEY)).toEqual([]);
  expect(filesHolding(folder.scratch, TYPED_KEY)).toEqual([]);
  expect(ui.output()).not.toContain(TYPED_KEY);
  // The run did use it: the reports name the requests it authorised, masked.
  expect(filesHolding(folder.reports, 'REDACTED').length).toBeGreaterThan(0);
  await context.close();
});

test('Stop ends a run of the whole suite against the embedded mock and keeps what it judged', async ({}, testInfo) => {
  const { context, page, problems } = await open();
  await page.check('input[name=key-from][value=none]');
  await expect(page.locator('#selection-summary')).toHaveText('the whole suite');
  await page.click('#run');
  await page.locator('#rows tr:not([data-status="pending"])').first().waitFor({ timeout: 180_000 });
  await page.click('#stop');
  await expect(page.locator('#stop')).toBeDisabled();
  await expect(page.locator('#verdict')).not.toBeEmpty({ timeout: 120_000 });
  await shoot(testInfo, page, 'ui-9-stopped');
  const [stopped] = (await (await page.request.get(`${ui.url}api/runs`)).json()) as { key: string; exitCode: number; verdict: string }[];
  const report = JSON.parse(readFileSync(path.join(folder.reports, stopped!.key, 'conformance.json'), 'utf8')) as { run: { stopReason: string; tests: { total: number; judged: number } }; requirements: { id: string; status: string }[] };
  expect(report.run.stopReason).toBe('interrupted');
  expect(stopped!.exitCode).toBe(3);
  // What it judged before the stop is kept, in the report and on the page.
  expect(report.run.tests.judged).toBeGreaterThan(0);
  const passed = report.requirements.filter((r) => r.status === 'pass').map((r) => r.id);
  expect(passed.length).toBeGreaterThan(0);
  await expect(page.locator(`tr[data-id="${passed[0]}"]`)).toHaveAttribute('data-status', 'pass');
  expect(problems).toEqual([]);
  await context.close();
});

test('a request without the token, from another site, or under another host name is refused', async ({}, testInfo) => {
  const { context, page } = await open();
  const { port } = new URL(ui.url);
  const runsNow = async () => ((await (await page.request.get(`${ui.url}api/runs`)).json()) as unknown[]).length;
  const before = await runsNow();
  // No token: the page is not served.
  const bare = await page.goto(`http://127.0.0.1:${port}/`);
  expect(bare!.status()).toBe(403);
  await expect(page.locator('body')).toContainText('token');

  // Another site's page that knows the URL (the token included) tries to read the state, start a run and post a form.
  const site = http.createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(`<!doctype html><form id="f" method="POST" enctype="text/plain" action="${ui.url}api/runs"><input name='{"a":"' value='"}'></form>`);
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', () => resolve()));
  try {
    const other = await context.newPage();
    // Another port is another origin (and, to the browser, the same site: Sec-Fetch-Site says same-site).
    await other.goto(`http://localhost:${(site.address() as { port: number }).port}/`);
    const attempts = await other.evaluate(async (url) => {
      const tries: Record<string, string> = {};
      const attempt = async (name: string, f: () => Promise<Response>) => {
        try {
          tries[name] = String((await f()).status);
        } catch (err) {
          tries[name] = `refused: ${(err as Error).name}`;
        }
      };
      await attempt('read', () => fetch(`${url}api/state`));
      await attempt('read no-cors', () => fetch(`${url}api/state`, { mode: 'no-cors' }));
      await attempt('start', () => fetch(`${url}api/runs`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }));
      await attempt('start text', () => fetch(`${url}api/runs`, { method: 'POST', mode: 'no-cors', body: '{}' }));
      return tries;
    }, ui.url);
    // The page of the other origin reads no answer (the server sends no CORS header) and starts nothing (below).
    expect(attempts.read).toBe('refused: TypeError');
    expect(attempts.start).toBe('refused: TypeError');
    // A form posted across sites (no preflight): the navigation shows the server's refusal.
    const [posted] = await Promise.all([other.waitForNavigation(), other.locator('#f').evaluate((f) => (f as HTMLFormElement).submit())]);
    expect(posted!.status()).toBe(403);
    await expect(other.locator('body')).toContainText('cross-origin requests are refused');
  } finally {
    site.close();
  }
  expect(await runsNow()).toBe(before);

  // DNS rebinding: a host name of the attacker's that resolves to 127.0.0.1 reaches the port, and is refused.
  const rebinding = await chromium.launch({ executablePath: CHROMIUM, args: [...ARGS, '--host-resolver-rules=MAP rebind.attacker.test 127.0.0.1'] });
  try {
    const p = await rebinding.newPage();
    const r = await p.goto(ui.url.replace('127.0.0.1', 'rebind.attacker.test'));
    expect(r!.status()).toBe(403);
    await expect(p.locator('body')).toContainText('answers only requests addressed to it');
    await shoot(testInfo, p, 'ui-refused-rebinding', false);
  } finally {
    await rebinding.close();
  }
  await context.close();
});

test('a report with hostile strings shows them as text; a client run shows each scenario with what the client was asked, sent and reported', async ({}, testInfo) => {
  writeReports(sampleReport(), path.join(folder.reports, 'hand-made'), [SAMPLE_SECRET]);
  const { context, page, problems } = await open();
  await page.click('button[data-tab=history]');
  await page.locator('#history tr[data-key="hand-made"] button').click();
  await page.click('tr[data-id="CAT-027"]');
  await expect(page.locator('#evidence .message').first()).toContainText(HOSTILE_HTML);
  expect(await page.title()).toBe('chatconform ui');
  expect(await page.locator('#evidence img, #evidence script, #evidence b:text("bold?")').count()).toBe(0);
  await page.click('#ev-close');

  await page.click('button[data-tab=client]');
  await page.fill('#client-command', `node ${path.join(repoRoot, 'examples/clients/fetch.mjs')}`);
  for (const id of ['catalog-plain', 'stream-error']) await page.check(`#scenario-list input[data-scenario="${id}"]`);
  await page.click('#client-run');
  await expect(page.locator('#client-verdict')).not.toBeEmpty({ timeout: 120_000 });
  await expect(page.locator('#scenarios tr')).toHaveCount(2);
  const row = page.locator('#scenarios tr[data-scenario="stream-error"]');
  await row.locator('details summary').click();
  await expect(row.locator('details')).toContainText('Asked');
  await expect(row.locator('details')).toContainText('POST /');
  await expect(row.locator('details')).toContainText('Reported');
  await shoot(testInfo, page, 'ui-8-client-run');
  expect(problems).toEqual([]);
  await context.close();
});

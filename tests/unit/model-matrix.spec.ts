// The per-model matrix (--models): which models a selection chooses, the projects it makes, each model's row of
// conformance.json, how --max-failing-models gates the run, the per-model budget, and the matrix in the HTML and
// the terminal, on hand-made outcomes and reports.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { chooseModels, modelSelectionOf, needsCatalog, matrixProblem, MAX_MATRIX_MODELS, MAX_MODEL_ID_CHARS } from '../../run/model-matrix.ts';
import { configFileEnv } from '../../run/config-file.ts';
import { flagTexts } from '../../cli/run.ts';
import { BudgetExhausted, Ledger, modelRequests } from '../../run/ledger.ts';
import { discoveryFor, isModelIndependentSpec, modelSkipReason, MODEL_INDEPENDENT_SPECS } from '../../suites/lib/discovery-matrix.ts';
import { repoRoot } from '../../run/config.ts';
import type { Discovery } from '../../suites/lib/discovery.ts';
import { modelResultOf, type ModelResult } from '../../report/models.ts';
import { buildReport, validateReport } from '../../report/json.ts';
import { aggregate, type TestOutcome } from '../../report/results.ts';
import { renderHtml } from '../../report/html.ts';
import { renderSummary } from '../../report/terminal.ts';
import { sampleInfo } from '../support/reports.ts';

const LISTED = ['acme/chat-large', 'acme/chat-small', 'mini-chat', 'reason-pro', 'acme/chat-large-preview'];

test('a selection chooses all listed models, a list as given, a glob in catalog order', () => {
  expect(chooseModels(['all'], LISTED)).toEqual(LISTED);
  expect(chooseModels(['acme/*'], LISTED)).toEqual(['acme/chat-large', 'acme/chat-small', 'acme/chat-large-preview']);
  expect(chooseModels(['acme/chat-?????'], LISTED)).toEqual(['acme/chat-large', 'acme/chat-small']);
  // An id as given, even one the catalog does not list (its row says why it was skipped); no duplicates.
  expect(chooseModels(['mini-chat', 'nope', 'mini-chat', '*-chat'], LISTED)).toEqual(['mini-chat', 'nope']);
  // A glob's dot is a dot, not any character.
  expect(chooseModels(['acme.chat*'], ['acme.chat-1', 'acmeXchat-2'])).toEqual(['acme.chat-1']);
  expect(needsCatalog(['a', 'b'])).toBe(false);
  expect(needsCatalog(['a', 'all'])).toBe(true);
});

test('--models, CONFORMANCE_MODEL_MATRIX, the config file and the profile name the selection, in that order', () => {
  expect(flagTexts({ models: ['all'] }).CONFORMANCE_MODEL_MATRIX).toBe('all');
  expect(flagTexts({ models: ['acme/*', 'mini-chat'], maxRequestsPerModel: 40, maxFailingModels: 1 })).toMatchObject({
    CONFORMANCE_MODEL_MATRIX: 'acme/*,mini-chat',
    CONFORMANCE_MAX_REQUESTS_PER_MODEL: '40',
    CONFORMANCE_MAX_FAILING_MODELS: '1',
  });
  expect(configFileEnv('/x/chatconform.config.json', { modelMatrix: ['acme/*'], maxRequestsPerModel: 9, maxFailingModels: 2 }, {})).toEqual({
    CONFORMANCE_MODEL_MATRIX: 'acme/*',
    CONFORMANCE_MAX_REQUESTS_PER_MODEL: '9',
    CONFORMANCE_MAX_FAILING_MODELS: '2',
  });
  expect(modelSelectionOf(' a , b ', ['all'])).toEqual(['a', 'b']);
  expect(modelSelectionOf(undefined, ['all'])).toEqual(['all']);
  expect(modelSelectionOf('', undefined)).toBeUndefined();
});

test('a matrix runs the model-independent files once and the others once per model', () => {
  const suites = path.join(repoRoot, 'suites');
  expect([...MODEL_INDEPENDENT_SPECS]).toEqual(['catalog', 'auth', 'errors', 'limits', 'routing']);
  // A shared file, compiled or not (its tests tagged model-dependent still run per model: run/slots.ts).
  for (const file of MODEL_INDEPENDENT_SPECS) {
    expect(isModelIndependentSpec(path.join(suites, `${file}.spec.ts`)), file).toBe(true);
    expect(isModelIndependentSpec(path.join(suites, `${file}.spec.js`)), file).toBe(true);
  }
  for (const file of ['chat', 'streaming', 'tools', 'reasoning', 'web-search', 'images', 'properties/streaming', 'properties/errors']) expect(isModelIndependentSpec(path.join(suites, `${file}.spec.ts`)), file).toBe(false);
});

test("a model the run's key may not use, or the catalog does not list, is skipped with the reason; a usable one is pinned", () => {
  const d: Discovery = {
    models: [{ id: 'ok' }, { id: 'refused' }, { id: 'busy' }],
    searchProbes: [{ model: 'ok', result: 'capable', status: 200 }, { model: 'busy', result: 'other', status: 503 }],
    accessProbes: [{ model: 'ok', status: 200 }, { model: 'refused', status: 403, code: 'model_not_allowed' }, { model: 'busy', status: 503, code: 'model_unavailable' }, { model: 'gone', status: 404, code: 'unknown_model' }],
  };
  expect(modelSkipReason(d, {}, 'ok')).toBeUndefined();
  expect(modelSkipReason(d, {}, 'refused')).toBe("model skipped: refused: the run's key may not use it (a one-token completion naming it: HTTP 403 model_not_allowed)");
  expect(modelSkipReason(d, {}, 'busy')).toContain('it cannot be served now (a one-token completion naming it: HTTP 503 model_unavailable)');
  expect(modelSkipReason(d, {}, 'gone')).toContain('the catalog does not list it (a one-token completion naming it: HTTP 404 unknown_model)');
  const pinned = discoveryFor(d, 'ok');
  expect(pinned.pinned).toEqual(['ok']);
  expect(pinned.searchProbes).toEqual([{ model: 'ok', result: 'capable', status: 200 }]);
});

test('the per-model budget refuses a model past its requests and leaves the others their own', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'chatconform-ledger-'));
  try {
    const a = Ledger.in(dir, { maxRequests: 100, maxCost: 1, model: 'acme/a', maxRequestsPerModel: 2 });
    const b = Ledger.in(dir, { maxRequests: 100, maxCost: 1, model: 'b', maxRequestsPerModel: 2 });
    a.reserve();
    a.reserve();
    expect(() => a.reserve()).toThrow(BudgetExhausted);
    expect(() => a.reserve()).toThrow('request budget of model acme/a spent (2 of 2)');
    b.reserve();
    expect(modelRequests(dir)).toEqual({ 'acme/a': 2, b: 1 });
    // The run's total counts every model's requests.
    expect(a.totals().requests).toBe(3);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

function outcome(title: string, checks: { id: string; status: 'pass' | 'fail' | 'skip' }[], over: Partial<TestOutcome> = {}): TestOutcome {
  return {
    title,
    file: 'suites/chat.spec.ts',
    line: 1,
    status: 'judged',
    declared: checks.map((c) => c.id),
    durationMs: 1,
    evidence: { checks: checks.map((c) => ({ ...c, ...(c.status === 'fail' ? { message: `${c.id} broken` } : {}) })), exchanges: [] },
    ...over,
  };
}

const SHARED = [outcome('catalog › lists', [{ id: 'CAT-031', status: 'pass' }, { id: 'CAT-032', status: 'pass' }])];
const GOOD = [outcome('good › chat', [{ id: 'CHAT-004', status: 'pass' }, { id: 'CHAT-005', status: 'pass' }])];
const BAD = [outcome('bad › chat', [{ id: 'CHAT-004', status: 'pass' }, { id: 'CHAT-005', status: 'fail' }])];
const SKIPPED = [outcome('refused › chat', [], { status: 'skipped', declared: ['CHAT-004'], skipReason: 'model skipped: refused: HTTP 403', evidence: { checks: [], exchanges: [] } })];

function matrixReport(maxFailingModels: number, independent: TestOutcome[] = SHARED) {
  const models: ModelResult[] = [
    modelResultOf({ id: 'good', outcomes: GOOD, requests: 7 }),
    modelResultOf({ id: 'bad', outcomes: BAD, requests: 9 }),
    modelResultOf({ id: 'refused', outcomes: SKIPPED, requests: 0, skipReason: "the run's key may not use it (HTTP 403 model_not_allowed)" }),
  ];
  const outcomes = [...independent, ...GOOD, ...BAD, ...SKIPPED];
  const independentMustFailed = aggregate(independent).filter((r) => r.level === 'MUST' && r.status === 'fail').map((r) => r.id);
  return buildReport({
    info: sampleInfo(),
    results: aggregate(outcomes),
    outcomes,
    matrix: { models, independentMustFailed, maxFailingModels },
    startedAt: new Date(0),
    durationMs: 5,
    stopReason: 'completed',
    errors: [],
  });
}

test("each model's row: its verdict, coverage, counts, requests and the requirements it fails; the run's record folds them", () => {
  const report = matrixReport(0);
  expect(validateReport(report)).toEqual([]);
  const [good, bad, refused] = report.models!;
  expect(good).toMatchObject({ id: 'good', verdict: 'pass', requests: 7, mustFailed: [], failed: [], coverage: { mustJudged: 2, coreNotJudged: [] } });
  expect(good!.counts.pass).toBe(2);
  expect(good!.sections).toEqual([{ section: '4.3', status: 'pass' }]);
  expect(bad).toMatchObject({ id: 'bad', verdict: 'fail', mustFailed: ['CHAT-005'], failed: ['CHAT-005'], sections: [{ section: '4.3', status: 'fail' }] });
  expect(refused).toMatchObject({ id: 'refused', verdict: 'skipped', reason: "the run's key may not use it (HTTP 403 model_not_allowed)" });
  // One record per requirement for the run: it fails when any model fails it.
  expect(report.requirements.find((r) => r.id === 'CHAT-005')!.status).toBe('fail');
  expect(report.verdict).toMatchObject({ result: 'fail', exitCode: 1 });
  expect(report.verdict.summary).toContain('1 of 3 models pass, 1 fail, 1 skipped');
});

test('--max-failing-models: failing models within it do not fail the run; more do; a model-independent MUST always does', () => {
  const within = matrixReport(1);
  expect(within.verdict.exitCode).toBe(0);
  expect(within.verdict.mustFailed).toEqual(['CHAT-005']);
  expect(within.verdict.summary).toContain('1 fail (within the 1 allowed)');
  expect(matrixReport(0).verdict.exitCode).toBe(1);
  const brokenCatalog = [outcome('catalog › lists', [{ id: 'CAT-031', status: 'fail' }, { id: 'CAT-032', status: 'pass' }])];
  expect(matrixReport(1, brokenCatalog).verdict.exitCode).toBe(1);
});

test('the HTML has the model x section matrix, each cell coloured, a failure linked to its requirement; the terminal a line per model', () => {
  const report = matrixReport(0);
  const html = renderHtml(report);
  const table = /<table class="matrix models-matrix"[\s\S]*?<\/table>/.exec(html)?.[0] ?? '';
  expect(table).toContain('§4.3</th>');
  expect(table).toMatch(/<a href="#model-0">good<\/a><\/th><td><span class="pill s-pass">pass<\/span><\/td><td class="mc s-pass">pass<\/td>/);
  expect(table).toMatch(/<a href="#model-1">bad<\/a><\/th><td><span class="pill s-fail">fail<\/span><\/td><td class="mc s-fail"><a href="#req-CHAT-005" title="CHAT-005">fail<\/a><\/td>/);
  expect(html).toContain('<li id="model-2"><b>refused</b> <span class="pill s-skip">skip</span> — the run&#39;s key may not use it');
  expect(html).toContain('id="req-CHAT-005"');
  const text = renderSummary(report, []);
  expect(text).toContain('models: 1 of 3 models pass, 1 fail, 1 skipped');
  const lines = text.split('\n');
  // Failures first.
  const bad = lines.findIndex((l) => /FAIL bad +fails CHAT-005 · 9 requests/.test(l));
  const good = lines.findIndex((l) => /PASS good +2 of 2 MUST judged · 7 requests/.test(l));
  expect(bad).toBeGreaterThan(-1);
  expect(good).toBeGreaterThan(bad);
  expect(text).toMatch(/SKIP refused +the run's key may not use it/);
});

test('a matrix of no model, of more models than a run judges one by one, or with an id too long is refused in one line', () => {
  expect(matrixProblem([], ['zzz/*'])).toBe('--models zzz/*: no model of the catalog matches it, so there is no model to judge');
  expect(matrixProblem(Array.from({ length: MAX_MATRIX_MODELS }, (_, i) => `m${i}`))).toBeUndefined();
  expect(matrixProblem(Array.from({ length: MAX_MATRIX_MODELS + 1 }, (_, i) => `m${i}`))).toMatch(/^--models chose 1001 models; a run judges at most 1000/);
  expect(matrixProblem(['a', 'x'.repeat(MAX_MODEL_ID_CHARS)])).toBeUndefined();
  expect(matrixProblem(['a', 'x'.repeat(MAX_MODEL_ID_CHARS + 1)])).toMatch(/a chosen model id is 257 characters long/);
});

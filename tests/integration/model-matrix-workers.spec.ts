// A chosen model is a repetition of the model-dependent tests, not a project: one worker serves every model (a
// project, or a repeatEach index, per model made Playwright start a worker per model), each test still judges its
// own model (its requests in its model's budget, its title and row in the report), and the model-independent tests
// run once. So with the reference and trials beside the models: one worker serves every slot (target x model x trial).
import { expect, test } from '@playwright/test';
import { cleanup, MOCK_PROFILE, runSuite } from './support/suite-runner.ts';
import { testsOfJsonReport } from './support/playwright-json.ts';
import { useMock } from './support/use-mock.ts';

const mock = useMock(test);

const MODELS = ['acme/chat-small', 'reason-pro', 'tiny-thinker'];

test('one worker serves every model of a --models run; each model still gets its own tests and row', async () => {
  test.setTimeout(240_000);
  const run = await runSuite({
    baseUrl: mock.url,
    files: ['suites/reasoning.spec.ts', 'suites/routing.spec.ts'],
    extraEnv: { CONFORMANCE_MODEL_MATRIX: MODELS.join(',') },
    // Playwright's JSON reporter on stdout beside the conformance reporter (its reports go to the run's folder).
    extraArgs: ['--reporter=json,./suites/reporter.ts'],
    boundMs: 200_000,
    label: 'model-matrix-workers',
    keepChars: 64 * 1024 * 1024,
  });
  try {
    const ran = testsOfJsonReport(run.stdout).map((t) => ({ ...t, model: t.annotations.find((a) => a.type === 'model')?.description }));
    // One worker asked for, one worker for the whole run: no worker per model.
    expect(new Set(ran.map((r) => r.workerIndex)), 'the worker of every test, every model').toEqual(new Set([0]));
    const reasoning = ran.filter((r) => r.file === 'reasoning.spec.ts');
    expect(reasoning.length).toBeGreaterThan(MODELS.length);
    for (const m of MODELS) expect(reasoning.filter((r) => r.model === m).length, m).toBe(reasoning.length / MODELS.length);
    // The model-independent file's tests once, without a model.
    const routing = ran.filter((r) => r.file === 'routing.spec.ts');
    expect(routing.length).toBeGreaterThan(0);
    expect(routing.every((r) => r.model === undefined)).toBe(true);

    const report = run.report as unknown as { models: { id: string; verdict: string; tests: { total: number }; requests?: number }[]; requirements: { id: string; tests: { title: string }[] }[] };
    expect(report.models.map((m) => m.id)).toEqual(MODELS);
    for (const m of report.models) expect(m.tests.total, m.id).toBe(reasoning.length / MODELS.length);
    expect(report.models.find((m) => m.id === 'reason-pro')).toMatchObject({ verdict: 'pass' });
    expect(report.models.find((m) => m.id === 'reason-pro')!.requests).toBeGreaterThan(0);
    // The report's titles as before: the model first, then the test's own describe blocks and title.
    const rsn = report.requirements.find((r) => r.id === 'RSN-003')!;
    expect(rsn.tests.map((t) => t.title.split(' › ')[0]).sort()).toEqual(expect.arrayContaining(MODELS));
    expect(rsn.tests.every((t) => t.title.split(' › ').filter((p) => MODELS.includes(p)).length === 1)).toBe(true);
  } finally {
    cleanup(run);
  }
});

test('one worker serves every slot of a run of a reference, two models and two trials', async () => {
  test.setTimeout(240_000);
  const models = MODELS.slice(1);
  const run = await runSuite({
    baseUrl: mock.url,
    files: ['suites/reasoning.spec.ts', 'suites/routing.spec.ts'],
    extraEnv: { CONFORMANCE_MODEL_MATRIX: models.join(','), CONFORMANCE_TRIALS: '2', CONFORMANCE_REFERENCE_URL: mock.url, CONFORMANCE_REFERENCE_PROFILE: MOCK_PROFILE },
    // One model-dependent test and one model-independent one keep the run short.
    extraArgs: ['--reporter=json,./suites/reporter.ts', '--grep', 'include_reasoning true on a reasoning entry|provider, an empty preference object'],
    boundMs: 200_000,
    label: 'slots-workers',
    keepChars: 64 * 1024 * 1024,
  });
  try {
    const ran = testsOfJsonReport(run.stdout).map((t) => ({ ...t, slot: ['target', 'model', 'trial'].map((type) => t.annotations.find((a) => a.type === type)?.description ?? '-').join(' ') }));
    // Two targets x (two models x two trials of the model-dependent test, plus the model-independent test once).
    expect(ran.map((r) => `${r.file} ${r.slot}`).sort()).toEqual(
      ['reference', 'target'].flatMap((t) => [...models.flatMap((m) => [1, 2].map((k) => `reasoning.spec.ts ${t} ${m} ${k}`)), `routing.spec.ts ${t} - 1`]).sort(),
    );
    expect(new Set(ran.map((r) => r.workerIndex)), 'the worker of every slot').toEqual(new Set([0]));
    expect(run.code, run.tail).toBe(0);
  } finally {
    cleanup(run);
  }
});

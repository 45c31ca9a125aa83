// Many targets in one run share the workers: every test is declared once per target whose files hold it (a
// repetition of repeatEach, like a project, made Playwright start workers of their own per target), each target
// still gets its own tests, titles and reports, and a target that runs some files only has only those tests.
import { expect, test } from '@playwright/test';
import { startMockServer, type RunningMockServer } from '../../mock/server.ts';
import { MOCK_KEYS } from '../../mock/keys-and-models.ts';
import { cleanup, runTargets } from './support/suite-runner.ts';
import { testsOfJsonReport } from './support/playwright-json.ts';

test('three targets of one run are served by one worker, each with its own tests and report', async () => {
  test.setTimeout(240_000);
  const mocks: RunningMockServer[] = await Promise.all([startMockServer({ port: 0 }), startMockServer({ port: 0, defect: 'created-milliseconds' })]);
  try {
    const run = await runTargets(
      [
        { name: 'clean', baseUrl: mocks[0]!.url, apiKey: MOCK_KEYS.full, profile: 'mock' },
        { name: 'broken', baseUrl: mocks[1]!.url, apiKey: MOCK_KEYS.full, profile: 'mock' },
        // Only the catalog's file: none of the chat tests are declared for it.
        { name: 'catalog-only', baseUrl: mocks[0]!.url, apiKey: MOCK_KEYS.full, profile: 'mock', files: ['suites/catalog.spec.ts'] },
      ],
      {
        files: ['suites/catalog.spec.ts', 'suites/chat.spec.ts'],
        workers: 1,
        extraArgs: ['--reporter=json,./suites/reporter.ts'],
        boundMs: 200_000,
        label: 'targets-workers',
        keepChars: 64 * 1024 * 1024,
      },
    );
    try {
      const ran = testsOfJsonReport(run.stdout).map((t) => ({ ...t, target: t.annotations.find((a) => a.type === 'target')?.description }));
      // One worker asked for, one worker for every test of every target.
      expect(new Set(ran.map((r) => r.workerIndex)), 'the worker of every test, every target').toEqual(new Set([0]));
      const count = (target: string, file: string) => ran.filter((r) => r.target === target && r.file === file).length;
      expect(count('clean', 'chat.spec.ts')).toBeGreaterThan(0);
      expect(count('broken', 'chat.spec.ts')).toBe(count('clean', 'chat.spec.ts'));
      expect(count('catalog-only', 'catalog.spec.ts')).toBe(count('clean', 'catalog.spec.ts'));
      expect(count('catalog-only', 'chat.spec.ts'), 'a file the target does not run is not declared for it').toBe(0);
      expect(ran.every((r) => r.target !== undefined)).toBe(true);

      const clean = run.reportOf('clean')!;
      const broken = run.reportOf('broken')!;
      // A run given two spec files is partial, for each target as for a run of that target alone.
      expect(clean.verdict.result).toBe('partial');
      expect(broken.requirements.find((r) => r.id === 'RESP-005')?.status).toBe('fail');
      expect(clean.requirements.find((r) => r.id === 'RESP-005')?.status).toBe('pass');
      // Each target's report speaks of its own tests: no target's name in a title.
      const titles = (broken as unknown as { requirements: { tests: { title: string }[] }[] }).requirements.flatMap((r) => r.tests.map((t) => t.title));
      expect(titles.length).toBeGreaterThan(0);
      expect(titles.filter((t) => /(^| › )(clean|broken|catalog-only)( › |$)/.test(t))).toEqual([]);
    } finally {
      cleanup(run);
    }
  } finally {
    await Promise.all(mocks.map((m) => m.close()));
  }
});

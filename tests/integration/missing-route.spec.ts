// One deviation, one card, through the whole suite: the mock with GET /v1/models/{id} unrouted (defect
// catalog-no-entry-route) fails CAT-036, and the route's answer without a key is its consequence, not a second
// deviation: AUTH-005 is not charged with it (its entry-route cases are unjudged, blamed on CAT-036), CAT-038 is
// not judged on a route that finds no plain id either, and the report has one root cause for it.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { startMockServer } from '../../mock/server.ts';
import { cleanup, runSuite, type SuiteRun } from './support/suite-runner.ts';
import { skipCauseProblems, type SkipCauseView } from '../support/skip-causes.ts';

const RUN_BOUND_MS = 180_000;

type Report = SkipCauseView & { rootCauses: { cause?: string }[] };

test('a missing entry route is charged to CAT-036 alone, as one root cause', async () => {
  test.setTimeout(RUN_BOUND_MS + 60_000);
  const mock = await startMockServer({ port: 0, defect: 'catalog-no-entry-route' });
  let run: SuiteRun | undefined;
  try {
    run = await runSuite({ baseUrl: mock.url, workers: 1, boundMs: RUN_BOUND_MS, label: 'missing-route', files: ['suites/catalog.spec.ts'] });
    const report = JSON.parse(readFileSync(path.join(run.reportDir, 'conformance.json'), 'utf8')) as Report;
    const status = (id: string) => report.requirements.find((r) => r.id === id)?.status;
    expect(status('CAT-036'), run.tail).toBe('fail');
    expect(status('AUTH-005')).toBe('pass');
    // The skips name the card their cause is on: the missing route's, led by CAT-036.
    expect(report.requirements.find((r) => r.id === 'AUTH-005')!.reason).toContain('(root cause: the card of CAT-036: GET /v1/models/{model_id} is missing');
    expect(skipCauseProblems(report)).toEqual([]);
    expect(status('CAT-038')).not.toBe('warn');
    const failed = report.requirements.filter((r) => r.status === 'fail' || r.status === 'warn').map((r) => r.id);
    expect(failed).toEqual(['CAT-036']);
    expect(report.rootCauses).toHaveLength(1);
    expect(report.rootCauses[0]).toMatchObject({ kind: 'missing-route', cause: 'missing-route GET /v1/models/{model_id}', id: 'CAT-036', requirements: ['CAT-036'] });
  } finally {
    await mock.close();
    if (run) cleanup(run);
  }
});

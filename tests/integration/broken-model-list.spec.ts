// A target whose GET /v1/models answers 500 (a gateway that cannot list its providers' models) with the run pinned
// to a model (--model, the profile's `models`): the chat tests still run on the pinned model and are judged, and the
// broken list is one root cause, charged to the catalog's requirements, not a skip of every test that needs a model.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { MOCK_MODELS } from '../../mock/keys-and-models.ts';
import { startMockServer } from '../../mock/server.ts';
import { cleanup, crashes, runSuite, type SuiteRun } from './support/suite-runner.ts';
import { skipCauseProblems, type SkipCauseView } from '../support/skip-causes.ts';

const RUN_BOUND_MS = 180_000;

type Report = SkipCauseView;

test('a model list answering 500 with a pinned model: the chat tests are judged, and the list is one root cause', async () => {
  test.setTimeout(RUN_BOUND_MS + 60_000);
  const mock = await startMockServer({ port: 0, defect: 'catalog-list-500' });
  let run: SuiteRun | undefined;
  try {
    run = await runSuite({ baseUrl: mock.url, workers: 1, boundMs: RUN_BOUND_MS, label: 'broken-model-list', files: ['suites/catalog.spec.ts', 'suites/chat.spec.ts'], extraEnv: { CONFORMANCE_MODELS: MOCK_MODELS.small } });
    expect(crashes(run.report!)).toEqual([]);
    const report = JSON.parse(readFileSync(path.join(run.reportDir, 'conformance.json'), 'utf8')) as Report;
    const status = (id: string) => report.requirements.find((r) => r.id === id)?.status;
    // Judged on the pinned model although no list named it.
    for (const id of ['CHAT-004', 'REQ-008', 'REQ-010', 'RESP-001']) expect(status(id), `${id}: ${report.requirements.find((r) => r.id === id)?.reason}\n${run.tail}`).toBe('pass');
    expect(status('AUTH-006')).toBe('fail');
    // One card for the list, whatever requirements read it.
    expect(report.rootCauses).toHaveLength(1);
    expect(report.rootCauses[0]!.requirements).toContain('AUTH-006');
    expect(report.rootCauses[0]!.deviation).toContain('GET /v1/models');
    // GET /v1/models/{id} answers for the pinned model: its entry is judged (CAT-036), not skipped "no model list";
    // only the comparison with the list waits for one.
    expect(status('CAT-036'), report.requirements.find((r) => r.id === 'CAT-036')?.reason).toBe('pass');
    expect(status('CAT-037')).toBe('skip');
    // Every skip names the failure that caused it as the report's cards hold it.
    expect(skipCauseProblems(report), `${report.requirements.find((r) => r.id === 'CAT-001')?.reason}\n${JSON.stringify(report.rootCauses.map((c) => [c.id, c.deviation]))}`).toEqual([]);
    const skippedForTheList = report.requirements.filter((r) => r.status === 'skip' && /did not return a model list/.test(r.reason ?? '')).map((r) => r.id);
    expect(skippedForTheList.filter((id) => !id.startsWith('CAT-')), 'no chat requirement skipped because the list is broken').toEqual([]);
  } finally {
    await mock.close();
    if (run) cleanup(run);
  }
});

// An oversized upload met by a reset, through the kit's own transport (run/http.ts) against the mock's server on
// 127.0.0.1, sent as limits.spec.ts sends it (Expect: 100-continue, the valid JSON body and the one that is not):
// - a reset with no 100 (Continue) and no status: the server could refuse from the head (Content-Length) and said
//   nothing at all, so LIMIT-001 and LIMIT-002 fail (not a mere LIMIT-007 warning);
// - a reset after the 100, while the body is on its way: the upload race (a server answering early and closing can
//   lose its own answer to the reset) stays LIMIT-007's warning, and LIMIT-001 holds (the body was refused).
import { rmSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import { startMockServer } from '../../mock/server.ts';
import { MOCK_KEYS, MOCK_MODELS } from '../../mock/keys-and-models.ts';
import { DEFAULT_BODY_LIMIT_BYTES } from '../../mock/index.ts';
import { Target } from '../../run/target.ts';
import { Checker } from '../../judge/checker.ts';
import { judgeOversizedRefused } from '../../judge/limits.ts';
import { judgeRefusalAnswered, judgeRefusedBeforeParsing } from '../../judge/comparisons.ts';
import { unitRunConfig } from '../support/run-config.ts';
import { statusOf } from '../support/check-scratch.ts';

const OVERSIZED = DEFAULT_BODY_LIMIT_BYTES + 64 * 1024;
const valid = () => {
  const head = `{"model":"${MOCK_MODELS.small}","messages":[{"role":"user","content":"Say hello."}],"x_padding":"`;
  return Buffer.from(`${head}${'a'.repeat(OVERSIZED - head.length - 2)}"}`);
};
const notJson = () => Buffer.from(`{"model": not json ${'#'.repeat(OVERSIZED - 19)}`);

const scratch: string[] = [];
test.afterAll(() => {
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
});

async function uploads(defect: 'oversized-reset' | 'oversized-reset-mid-upload') {
  const mock = await startMockServer({ port: 0, defect: [defect] });
  try {
    const target = new Target(unitRunConfig({ baseUrl: mock.url, apiKey: MOCK_KEYS.full, folders: scratch }, { requestTimeoutMs: 30_000 }));
    const upload = { headers: { expect: '100-continue' } };
    const v = await target.postRaw('/v1/chat/completions', valid(), upload);
    const g = await target.postRaw('/v1/chat/completions', notJson(), upload);
    const check = new Checker(target, { declared: () => ['LIMIT-001', 'LIMIT-002', 'LIMIT-007'] });
    judgeOversizedRefused(check, v, OVERSIZED, 'a valid JSON request');
    judgeOversizedRefused(check, g, OVERSIZED, 'a body that is not JSON');
    judgeRefusedBeforeParsing(check, v, g, OVERSIZED);
    judgeRefusalAnswered(check, v, g, OVERSIZED);
    return { check, v, g };
  } finally {
    await mock.close();
  }
}

test('a reset with no 100 and no status after Expect: 100-continue fails LIMIT-001 and LIMIT-002; LIMIT-007 names that cause', async () => {
  test.setTimeout(60_000);
  const { check, v, g } = await uploads('oversized-reset');
  for (const res of [v, g]) {
    expect(res.exchange.status).toBe(0);
    expect(res.exchange.continued, res.exchange.error).toBe(false);
  }
  expect(statusOf(check.records, 'LIMIT-001')).toBe('fail');
  expect(statusOf(check.records, 'LIMIT-002')).toBe('fail');
  expect(check.records.find((r) => r.id === 'LIMIT-001')?.message).toMatch(/neither let the upload go on \(100\) nor answered/);
  const l7 = check.records.find((r) => r.id === 'LIMIT-007');
  expect(l7?.status).toBe('skip');
  expect(l7?.cause?.id).toBe('LIMIT-001');
});

test('a reset after the 100 (the upload race) stays a LIMIT-007 warning: LIMIT-001 and LIMIT-002 hold', async () => {
  test.setTimeout(60_000);
  const { check, v, g } = await uploads('oversized-reset-mid-upload');
  for (const res of [v, g]) {
    expect(res.exchange.status).toBe(0);
    expect(res.exchange.continued, res.exchange.error).toBe(true);
  }
  expect(statusOf(check.records, 'LIMIT-001')).toBe('pass');
  expect(statusOf(check.records, 'LIMIT-002')).toBe('pass');
  expect(statusOf(check.records, 'LIMIT-007')).toBe('warn');
});

// A stream may end on an error event (section 6 rule 10). The streamed reasoning test charged such a stream to
// RSN-002 ("include_reasoning is accepted") as a MUST failure; the request was accepted, and what the stream would
// have carried cannot be judged. Against a mock whose every stream ends on an error event before its first chunk.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { startMockServer } from '../../mock/server.ts';
import { MOCK_KEYS } from '../../mock/keys-and-models.ts';
import { chatconformCommand, runProcess } from './support/cli-process.ts';

test('a streamed reasoning request answered by a stream that ends on an error event: RSN-002 passes, nothing fails', async () => {
  test.setTimeout(300_000);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'chatconform-stream-error-'));
  const mock = await startMockServer({ port: 0, fault: 'fail-after=0' });
  try {
    const r = await runProcess(...chatconformCommand(['run', '--base-url', mock.url, '--profile', 'mock', '--seed', '1', '--report-dir', dir, '--grep', 'streamed, include_reasoning true returns reasoning_content']), {
      boundMs: 240_000,
      env: { ...process.env, CONFORMANCE_API_KEY: MOCK_KEYS.full },
    });
    const report = JSON.parse(readFileSync(path.join(dir, 'conformance.json'), 'utf8'));
    expect(report.run.tests.total, r.output.slice(-2000)).toBe(1);
    const status = (id: string) => report.requirements.find((q: { id: string }) => q.id === id)?.status;
    expect(status('RSN-002'), r.output.slice(-2000)).toBe('pass');
    expect(report.verdict.mustFailed).toEqual([]);
    expect(r.code).not.toBe(1);
  } finally {
    await mock.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

// An interrupted run writes the reports of what it judged, marked interrupted, and says so in one line on stderr.
// Playwright stops gracefully on SIGINT only; a SIGTERM (a cancelled CI job, `docker stop`, a SIGTERM sent to
// `chatconform run` alone, which passes it on) ended the runner before any reporter wrote a thing.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { startMockServer } from '../../mock/server.ts';
import { CLI, startProcess } from './support/cli-process.ts';

test('SIGTERM to chatconform run: the reports of the tests judged so far, marked interrupted; one line on stderr; exit 3', async () => {
  test.setTimeout(180_000);
  // A slow target: the run is still going when it is stopped.
  const mock = await startMockServer({ port: 0, variant: 'slow', slow: { headersMs: 300, eventMs: 20 } });
  const dir = mkdtempSync(path.join(os.tmpdir(), 'chatconform-interrupt-'));
  try {
    const run = await startProcess(process.execPath, ['--import', 'tsx', CLI, 'run', '--base-url', mock.url, '--profile', 'mock', '--seed', '3', '--report-dir', dir], {
      env: { ...process.env, CI: '1', FORCE_COLOR: '0' },
      // Once some tests are done (the progress line counts them).
      ready: (out) => (/^chatconform +[1-9]\d*\/\d+ tests/m.test(out) ? 'started' : undefined),
      timeoutMs: 120_000,
    });
    const stoppedAt = Date.now();
    // To the command alone, as a job runner sends it; the command passes it on to the runner.
    process.kill(run.pid, 'SIGTERM');
    const ended = await run.ended;
    test.info().annotations.push({ type: 'figure', description: `reports written and exit ${ended.code} ${Date.now() - stoppedAt} ms after the SIGTERM` });
    expect(ended.code, run.output()).toBe(3);
    const file = path.join(dir, 'conformance.json');
    expect(existsSync(file), run.output()).toBe(true);
    const report = JSON.parse(readFileSync(file, 'utf8'));
    expect(report.run.stopReason).toBe('interrupted');
    expect(report.run.tests.judged).toBeGreaterThan(0);
    expect(report.run.tests.judged).toBeLessThan(report.run.tests.total);
    expect(report.verdict).toMatchObject({ result: 'incomplete', exitCode: 3 });
    expect(report.verdict.summary).toContain('the run did not complete: the run was interrupted');
    expect(run.stderr().match(/^chatconform: SIGTERM: .*$/gm)).toEqual(['chatconform: SIGTERM: the run stops; the reports of what it judged are written, marked interrupted']);
    expect(run.stdout()).toContain('chatconform conformance: INCOMPLETE');
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await mock.close();
  }
});

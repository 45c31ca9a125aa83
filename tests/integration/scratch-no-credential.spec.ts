// No credential on disk. The whole suite runs against the reference mock behind a proxy that takes a fresh
// random key and echoes it into every answer (a header, every JSON body, every catalog entry's name, every
// streamed chunk). Afterwards the key is nowhere: not in the checkout (.tmp and test-results included), not in
// the report folder, not in the OS temp dir (where the run's scratch folder lived, and is gone).
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect, test } from '@playwright/test';
import { repoRoot } from '../../run/config.ts';
import { echoesKeyTarget } from './support/hostile-targets.ts';
import { cleanup, crashes, runSuite } from './support/suite-runner.ts';

const RUN_BOUND_MS = 300_000;

/** Files under `dirs` that contain `needle` (symlinks are not followed: node_modules is the main checkout's). */
async function filesContaining(needle: string, dirs: string[]): Promise<string[]> {
  try {
    const { stdout } = await promisify(execFile)('grep', ['-rlsF', '--devices=skip', '--', needle, ...dirs.filter((d) => existsSync(d))], { maxBuffer: 16 * 1024 * 1024, timeout: 120_000 });
    return stdout.split('\n').filter(Boolean);
  } catch (err) {
    // grep exits 1 when nothing matched (2 when something was unreadable: the matches it printed still count).
    const e = err as { code?: number; stdout?: string };
    if (e.code === 1 || e.code === 2) return (e.stdout ?? '').split('\n').filter(Boolean);
    throw err;
  }
}


test('a target that echoes the credential into every body: after the run the key is nowhere on disk', async () => {
  test.setTimeout(RUN_BOUND_MS + 180_000);
  // Fresh for this test, so that no source file can hold it; never printed.
  const key = `sk-echo-${randomBytes(16).toString('hex')}`;
  const target = await echoesKeyTarget(key);
  try {
    const run = await runSuite({
      baseUrl: target.url,
      boundMs: RUN_BOUND_MS,
      label: 'echo-key',
      extraEnv: { CONFORMANCE_API_KEY: key },
    });
    const where = `log ${run.logFile}\n${run.tail.slice(-1500).split(key).join('<KEY>')}`;
    expect(run.killed, where).toBe(false);
    expect(run.report, where).toBeDefined();
    expect(crashes(run.report!), where).toEqual([]);
    // The run did meet the echoed key (the catalog names carry it), so redaction had something to do.
    expect(JSON.stringify(run.report), where).toContain('***REDACTED***');

    // The global setup names its scratch folder; it must be gone.
    const scratch = /; scratch (\S+)/.exec(readFileSync(run.logFile, 'utf8'))?.[1];
    expect(scratch, where).toMatch(new RegExp(`^${os.tmpdir().replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/chatconform-run-`));
    const dirs = [repoRoot, run.reportDir, path.dirname(run.reportDir), os.tmpdir()];
    const started = Date.now();
    const leaks = await filesContaining(key, dirs);
    console.log(`\necho-key run: ${(run.wallMs / 1000).toFixed(0)} s, verdict ${run.report!.verdict.result}; grep -rF of the key over ${dirs.length} folders (${((Date.now() - started) / 1000).toFixed(1)} s): ${leaks.length} file(s); scratch folder removed: ${!existsSync(scratch!)}\n`);
    expect(leaks, 'files holding the echoed key').toEqual([]);
    expect(existsSync(scratch!), 'the run removed its scratch folder').toBe(false);
    cleanup(run);
  } finally {
    await target.close();
  }
});

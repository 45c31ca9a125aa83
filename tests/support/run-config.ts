// A RunConfig for the unit tests of the target client: a scratch run folder per config (removed by the caller
// through `folders`), short timeouts, no profile unless given.
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { RunConfig } from '../../run/config.ts';

export function unitRunConfig(base: { baseUrl: string; apiKey: string; folders: string[] }, extra: Partial<RunConfig> = {}): RunConfig {
  const runDir = mkdtempSync(path.join(os.tmpdir(), 'chatconform-unit-'));
  base.folders.push(runDir);
  return {
    baseUrl: base.baseUrl,
    apiKey: base.apiKey,
    profile: {},
    reportDir: runDir,
    runDir,
    seed: 1,
    fuzzRuns: 1,
    requestTimeoutMs: 2_000,
    maxBodyBytes: 16 * 1024 * 1024,
    keepScratch: false,
    embeddedMock: false,
    retry: { maxRetries: 3, maxWaitMs: 5_000 },
    ...extra,
  };
}

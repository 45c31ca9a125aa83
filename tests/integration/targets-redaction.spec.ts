// Issue 51, item 1: one redaction per run. In a run of two targets whose second server echoes the first target's key
// (a shared gateway, a proxy that logs what it saw), neither key is written anywhere: not in either target's four
// reports, not in the run's output, not in Playwright's attachments under the output folder. The old code masked
// each target's reports with that target's key only, and wrote a's key in clear into b's reports and attachments.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { echoesKeyTarget } from './support/hostile-targets.ts';
import { cleanup, runTargets } from './support/suite-runner.ts';

/** Keys of no well-known shape: only knowing them masks them. */
const KEY_A = 'tgt-a-credential-7d21c9e4b03f5a68';
const KEY_B = 'tgt-b-credential-2e6f0a9c8d147b35';

/** Every file under `dir`, recursively. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => path.join(e.parentPath ?? e.path, e.name));
}

test("a target that echoes another target's key: the key is in no report, attachment or output of the run", async () => {
  test.setTimeout(300_000);
  const a = await echoesKeyTarget(KEY_A);
  // b takes its own key and echoes a's into every answer.
  const b = await echoesKeyTarget(KEY_B, KEY_A);
  try {
    const run = await runTargets(
      [
        { name: 'a', baseUrl: a.url, apiKeyEnv: 'A_KEY' },
        { name: 'b', baseUrl: b.url, apiKeyEnv: 'B_KEY' },
      ],
      { files: ['suites/catalog.spec.ts'], boundMs: 240_000, label: 'targets-redaction', extraEnv: { A_KEY: KEY_A, B_KEY: KEY_B } },
    );
    try {
      expect(run.killed).toBe(false);
      for (const name of ['a', 'b']) expect(run.reportOf(name), `${name}'s report`).toBeDefined();
      // The echo reached b's evidence (masked): the run did judge b's answers.
      expect(readFileSync(path.join(run.reportDirOf('b'), 'conformance.json'), 'utf8')).toContain('***REDACTED***');
      const files = filesUnder(run.dir);
      expect(files.some((f) => f.includes(`${path.sep}test-results${path.sep}`) && f.endsWith('.json')), 'attachments kept under the output folder').toBe(true);
      let seen = 0;
      for (const file of files) {
        const text = readFileSync(file, 'latin1');
        for (const key of [KEY_A, KEY_B]) if (text.includes(key)) seen++;
        expect(text.includes(KEY_A) || text.includes(KEY_B), `${path.relative(run.dir, file)} holds a key`).toBe(false);
      }
      expect(seen).toBe(0);
      expect(run.stdout + run.stderr).not.toContain(KEY_A);
    } finally {
      cleanup(run);
    }
  } finally {
    await a.close();
    await b.close();
  }
});

// The curl in the evidence runs as printed: it reads the key from the variable the run read it from
// ("Authorization: Bearer $CONFORMANCE_API_KEY", or a targets-file target's apiKeyEnv), never ***REDACTED***,
// and never holds the key itself.
import { mkdirSync, rmSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import { Target } from '../../run/target.ts';
import { targetConfig } from '../../run/targets.ts';
import { closedPort } from '../support/listen.ts';
import { unitRunConfig } from '../support/run-config.ts';

const folders: string[] = [];
test.afterAll(() => folders.forEach((d) => rmSync(d, { recursive: true, force: true })));

test("the replay curl names the run's key variable, and a targets-file target's apiKeyEnv", async () => {
  const baseUrl = `http://127.0.0.1:${await closedPort()}`;
  const run = unitRunConfig({ baseUrl, apiKey: 'sk-run-key-0000000000', folders });
  const own = (await new Target(run).get('/v1/models')).exchange.curl;
  expect(own).toContain('-H "Authorization: Bearer $CONFORMANCE_API_KEY"');

  const ref = targetConfig(run, { name: 'ref', baseUrl, apiKeyEnv: 'REF_KEY' }, 1, { REF_KEY: 'sk-ref-key-0000000000' });
  mkdirSync(ref.runDir, { recursive: true });
  const curl = (await new Target(ref).get('/v1/models')).exchange.curl;
  expect(curl).toContain('-H "Authorization: Bearer $REF_KEY"');
  expect(curl).not.toContain('sk-ref-key');
  expect(curl).not.toContain('REDACTED');
  // A key written in the targets file itself has no variable: the run's name for a key is used.
  const inFile = targetConfig(run, { name: 'f', baseUrl, apiKey: 'sk-file-key-000000000' }, 2, {});
  mkdirSync(inFile.runDir, { recursive: true });
  expect((await new Target(inFile).get('/v1/models')).exchange.curl).toContain('$CONFORMANCE_API_KEY');
});

// docs/troubleshooting.md is written from the setup messages themselves (run/setup-messages.ts, by
// scripts/troubleshooting.ts): each one line `chatconform run` prints before any test, its exit code, cause and fix.
// A message changed in the code and not in the page fails here, so the page cannot drift.
import { readFileSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import { TROUBLESHOOTING_MD } from '../../scripts/troubleshooting.ts';
import { SETUP_MESSAGES, setupError, troubleshootingPage, type SetupMessage, type SetupMessageId } from '../../run/setup-messages.ts';

test('docs/troubleshooting.md is the page the setup messages make (npm run docs:troubleshooting)', () => {
  expect(readFileSync(TROUBLESHOOTING_MD, 'utf8') === troubleshootingPage(), 'docs/troubleshooting.md is stale: run npm run docs:troubleshooting').toBe(true);
});

test('every setup message is one line with a cause and a fix, and the page shows each as the kit prints it', () => {
  const page = troubleshootingPage();
  for (const [id, m] of Object.entries(SETUP_MESSAGES) as [SetupMessageId, SetupMessage<unknown>][]) {
    const line = setupError(id, m.example as never).message;
    expect(line, id).not.toContain('\n');
    expect(m.cause.length, `${id}: its cause`).toBeGreaterThan(20);
    expect(m.fix.length, `${id}: its fix`).toBeGreaterThan(10);
    expect(page, id).toContain(`error: ${line}\n`);
    expect(page, id).toContain(`## ${m.title}\n`);
  }
});

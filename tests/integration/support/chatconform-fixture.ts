// The Playwright fixture of docs/testing.md, used for real by tests/integration/harness-clients.spec.ts: one mock
// per worker (started before its first test, stopped after its last), and per test a harness scoped to the test's
// id, reset after the test. A client author imports from 'chatconform/testing'; this repository from the sources.
import { test as base } from '@playwright/test';
import { startChatconformMock, type ChatconformMock, type HarnessScope } from '../../../entries/testing.ts';

export const test = base.extend<{ mock: HarnessScope & { baseURL: string; apiKey: string } }, { chatconform: ChatconformMock }>({
  chatconform: [
    async ({}, use) => {
      const mock = await startChatconformMock();
      await use(mock);
      await mock.close();
    },
    { scope: 'worker' },
  ],
  mock: async ({ chatconform }, use, testInfo) => {
    const scoped = chatconform.forTest(testInfo.testId);
    await use({ ...scoped, baseURL: chatconform.baseURL, apiKey: chatconform.apiKey });
    await scoped.reset();
  },
});

export { expect } from '@playwright/test';

// The reference mock on 127.0.0.1 and a free port for the tests of one file (or one describe block): started in
// beforeAll, closed in afterAll. One helper instead of the same two hooks in every file that talks to the mock.
import type { TestType } from '@playwright/test';
import { startMockServer, type RunningMockServer, type StartOptions } from '../../../mock/server.ts';
import type { DefectName } from '../../../mock/defects.ts';

/** The running mock, read inside a test or hook (before beforeAll has run there is none: reading throws). */
export interface UsedMock {
  readonly url: string;
  readonly port: number;
}

/**
 * Registers the hooks on `test` (call it at the top of a file or inside a describe) and returns the mock they
 * start. `options` go to startMockServer as given, on port 0 unless they name one.
 */
export function useMock(test: TestType<any, any>, options: StartOptions = {}): UsedMock {
  let server: RunningMockServer | undefined;
  test.beforeAll(async () => {
    server = await startMockServer({ port: 0, ...options });
  });
  test.afterAll(async () => {
    await server?.close();
    server = undefined;
  });
  const running = (): RunningMockServer => {
    if (!server) throw new Error('useMock: the mock runs only between its beforeAll and afterAll hooks');
    return server;
  };
  return {
    get url() {
      return running().url;
    },
    get port() {
      return running().port;
    },
  };
}

/** Runs `body` with one mock per entry (in that defect, or clean for undefined), each on a free port; closes them all after. */
export async function withMocks<T>(defects: (DefectName | undefined)[], body: (mocks: RunningMockServer[]) => Promise<T>): Promise<T> {
  const mocks = await Promise.all(defects.map((defect) => startMockServer({ port: 0, ...(defect ? { defect } : {}) })));
  try {
    return await body(mocks);
  } finally {
    await Promise.all(mocks.map((m) => m.close()));
  }
}

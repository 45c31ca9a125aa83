// Issue 12, item 4: every golden exchange (mock/golden/<area>/<name>.json) against both adapters of the mock,
// node:http (startMockServer, through each of its writers: the reference one and the fast one) and MSW
// (setupServer over createHandlers). The files describe wire behaviour only,
// so they hold while the mock's internals change. One mock instance per distinct options set and adapter.
import { expect, test } from '@playwright/test';
import { setupServer } from 'msw/node';
import { createHandlers } from '../../mock/handlers.ts';
import { useMock } from './support/use-mock.ts';
import { fastWriter } from '../../mock/transport/fast-writer.ts';
import { referenceWriter, type Writer } from '../../mock/transport/writer.ts';
import { compareExchange } from '../../scripts/golden/compare.ts';
import { mockOptionsOf, send } from '../../scripts/golden/exchange.ts';
import { loadGoldenFiles, optionsKey, type GoldenFile } from '../../scripts/golden/format.ts';

// In order, in one worker, even under --fully-parallel: the MSW groups patch this worker's globals (fetch) from
// their beforeAll to their afterAll, so no node:http test may run in between. Not 'serial': one mismatch must
// not skip the files after it.
test.describe.configure({ mode: 'default' });

const files = loadGoldenFiles();

/** The files grouped by options set, in file order. */
const groups = new Map<string, GoldenFile[]>();
for (const f of files) {
  const k = optionsKey(f.exchange.options);
  groups.set(k, [...(groups.get(k) ?? []), f]);
}

/** Where the MSW adapter sends its requests: a host that does not resolve, so an escaped request fails. */
const MSW_ORIGIN = 'http://golden.test';

function verdict(f: GoldenFile, problems: string[]): void {
  expect(problems, `${f.name} (${f.file}): the answer departs from the golden file:\n  ${problems.join('\n  ')}\n`).toEqual([]);
}

/** The node:http adapter's two writers: the same bytes whichever sends them. */
const WRITERS: ReadonlyArray<[string, () => Writer]> = [
  ['reference writer', () => referenceWriter],
  ['fast writer', fastWriter],
];

for (const [writerName, writer] of WRITERS) {
  test.describe(`golden exchanges over node:http, ${writerName}`, () => {
    for (const [key, group] of groups) {
      test.describe(`options ${key}`, () => {
        const server = useMock(test, { writer: writer(), ...mockOptionsOf(group[0]!.exchange.options) });
        for (const f of group) {
          test(`${f.name} [node:http, ${writerName}]`, async () => {
            verdict(f, compareExchange(f.exchange.expect, await send(f.exchange, server.url)));
          });
        }
      });
    }
  });
}

test.describe('golden exchanges over MSW', () => {
  // One options set listens at a time: each group listens in its beforeAll and closes in its afterAll.
  for (const [key, group] of groups) {
    test.describe(`options ${key}`, () => {
      const server = setupServer(...createHandlers(mockOptionsOf(group[0]!.exchange.options)));
      let originalFetch: typeof fetch;
      test.beforeAll(() => {
        originalFetch = globalThis.fetch;
        server.listen({ onUnhandledRequest: 'error' });
      });
      test.afterAll(() => {
        server.close();
        expect(globalThis.fetch, 'the global fetch is restored after server.close()').toBe(originalFetch);
      });
      for (const f of group) {
        test(`${f.name} [msw]`, async () => {
          verdict(f, compareExchange(f.exchange.expect, await send(f.exchange, MSW_ORIGIN, f.exchange.request.mountPrefix ?? '')));
        });
      }
    });
  }
});

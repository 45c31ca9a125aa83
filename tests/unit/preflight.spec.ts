// Setup mistakes caught before any test (run/reachability.ts preflight), on a fake transport: a base URL ending in
// /v1 whose /v1/v1/models is 404 while /v1/models answers; a --models selection that matches no model; the glob's `*`
// stays within one `/` segment; a wait for the target says, while it waits, that it is still waiting.
import { expect, test } from '@playwright/test';
import type { TransportResult } from '../../run/http.ts';
import { preflight } from '../../run/reachability.ts';
import { chooseModels } from '../../run/model-matrix.ts';

const CATALOG = JSON.stringify({ object: 'list', data: [{ id: 'acme/chat' }, { id: 'acme/x/chat' }, { id: 'mini-chat' }] });

function answer(status: number, body = ''): TransportResult {
  return { status, headers: { 'content-type': 'application/json' }, body: Buffer.from(body), events: [] };
}

/** A server at http://h.test whose API lives at /v1 (so http://h.test/v1/v1/models is 404). */
function server(asked: string[]): (url: string) => Promise<TransportResult> {
  return async (url) => {
    asked.push(url);
    return url === 'http://h.test/v1/models' ? answer(200, CATALOG) : answer(404, '{"error":{"message":"not found"}}');
  };
}

test('a base URL ending in /v1 whose /v1/v1/models is 404 while /v1/models answers: one line saying to drop /v1', async () => {
  const asked: string[] = [];
  const lines: string[] = [];
  const r = await preflight({ baseUrl: 'http://h.test/v1', headers: {}, waitSeconds: 0, say: (l) => lines.push(l), send: server(asked) });
  expect(asked).toEqual(['http://h.test/v1/v1/models', 'http://h.test/v1/models']);
  expect(r.usage).toBe('--base-url http://h.test/v1 ends in /v1, and http://h.test/v1/v1/models answers 404 while http://h.test/v1/models answers 200: the kit adds /v1 itself, so drop it (--base-url http://h.test)');
  expect(lines).toEqual([]);
  // The right base URL passes with one request.
  const right = await preflight({ baseUrl: 'http://h.test', headers: {}, waitSeconds: 0, say: () => {}, send: server([]) });
  expect(right).toEqual({ waited: false });
});

test('a --models selection that matches no model of the catalog is a usage error; one that matches is not', async () => {
  const none = await preflight({ baseUrl: 'http://h.test', headers: {}, waitSeconds: 0, modelSelection: ['zzz/*'], say: () => {}, send: server([]) });
  expect(none.usage).toBe('--models zzz/*: no model of the catalog matches it, so there is no model to judge (the catalog lists 3 models)');
  const some = await preflight({ baseUrl: 'http://h.test', headers: {}, waitSeconds: 0, modelSelection: ['acme/*'], say: () => {}, send: server([]) });
  expect(some.usage).toBeUndefined();
});

test("the glob's * does not cross /; ** does", () => {
  const listed = ['acme/chat', 'acme/x/chat', 'mini-chat'];
  expect(chooseModels(['acme/*'], listed)).toEqual(['acme/chat']);
  expect(chooseModels(['acme/**'], listed)).toEqual(['acme/chat', 'acme/x/chat']);
  expect(chooseModels(['*chat'], listed)).toEqual(['mini-chat']);
  expect(chooseModels(['acme/?/chat'], listed)).toEqual(['acme/x/chat']);
});

test('--wait-for-target says it waits, then says so again while the wait goes on', async () => {
  let clock = 0;
  let calls = 0;
  const lines: string[] = [];
  const send = async (): Promise<TransportResult> => (++calls <= 25 ? { ...answer(0), error: 'connect ECONNREFUSED', errorKind: 'refused' } : answer(200, CATALOG));
  const r = await preflight({ baseUrl: 'http://h.test', headers: {}, waitSeconds: 60, say: (l) => lines.push(l), send, sleep: async (ms) => void (clock += ms), now: () => clock });
  expect(r).toEqual({ waited: true });
  expect(lines[0]).toBe('chatconform: waiting up to 60 s for the target (connection refused at h.test)');
  expect(lines.slice(1)).toEqual(['chatconform: still waiting for the target at http://h.test: 10 of 60 s', 'chatconform: still waiting for the target at http://h.test: 20 of 60 s']);
});

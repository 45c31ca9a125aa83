// Setup mistakes caught before any test (run/preflight.ts), on a fake transport, each one line of
// run/setup-messages.ts with its exit code: a base URL ending in /v1 whose /v1/v1/models is 404 while /v1/models
// answers; 404 everywhere; an HTML page; a target that cannot be reached, with the hint; a key missing or refused
// (the catalog is open to anyone: the empty completion shows it); a --models selection of no model; a --model the
// catalog does not list. The glob's `*` stays within one `/` segment; a wait for the target says it is still waiting.
import { expect, test } from '@playwright/test';
import type { TransportResult } from '../../run/http.ts';
import { describeKey, discoveryKeyRefusal, preflight, type PreflightInput } from '../../run/preflight.ts';
import { chooseModels } from '../../run/model-matrix.ts';
import { SetupError } from '../../run/setup-messages.ts';

const CATALOG = JSON.stringify({ object: 'list', data: [{ id: 'acme/chat' }, { id: 'acme/x/chat' }, { id: 'mini-chat' }] });
const KEY = 'sk-test-0123456789abcdef';

function answer(status: number, body = '', type = 'application/json'): TransportResult {
  return { status, headers: { 'content-type': type }, body: Buffer.from(body), events: [] };
}

/**
 * A server at http://h.test whose API lives at /v1 (so http://h.test/v1/v1/models is 404): its catalog is open to
 * anyone; a completion needs the key KEY (an empty one is then refused as invalid, 400).
 */
function server(asked: string[] = []): NonNullable<PreflightInput['send']> {
  return async (url, headers, body) => {
    asked.push(`${body === undefined ? 'GET' : 'POST'} ${url}`);
    if (url === 'http://h.test/v1/models') return answer(200, CATALOG);
    if (url !== 'http://h.test/v1/chat/completions') return answer(404, '{"error":{"message":"not found"}}');
    const auth = headers.authorization;
    if (auth === undefined) return answer(401, '{"error":{"type":"authentication_error","code":"missing_api_key"}}');
    if (auth !== `Bearer ${KEY}`) return answer(401, '{"error":{"type":"authentication_error","code":"invalid_api_key"}}');
    return answer(400, '{"error":{"type":"invalid_request_error","code":"invalid_request"}}');
  };
}

const withKey = { headers: { authorization: `Bearer ${KEY}` }, key: { source: '$CONFORMANCE_API_KEY', value: KEY } };

/** The preflight's SetupError (or undefined when it passed). */
async function refusal(input: Partial<PreflightInput> & Pick<PreflightInput, 'baseUrl'>): Promise<SetupError | undefined> {
  try {
    await preflight({ headers: {}, waitSeconds: 0, say: () => {}, send: server(), ...input });
    return undefined;
  } catch (err) {
    if (err instanceof SetupError) return err;
    throw err;
  }
}

test('a base URL ending in /v1 whose /v1/v1/models is 404 while /v1/models answers: one line saying to drop /v1, exit 2', async () => {
  const asked: string[] = [];
  const lines: string[] = [];
  const e = await refusal({ baseUrl: 'http://h.test/v1', ...withKey, say: (l) => lines.push(l), send: server(asked) });
  expect(asked).toEqual(['GET http://h.test/v1/v1/models', 'GET http://h.test/v1/models']);
  expect(e?.message).toBe('--base-url http://h.test/v1 ends in /v1, and http://h.test/v1/v1/models answers 404 while http://h.test/v1/models answers 200: the kit adds /v1 itself, so drop it (--base-url http://h.test)');
  expect(e?.exitCode).toBe(2);
  expect(lines).toEqual([]);
  // The right base URL passes, with the catalog and one empty completion.
  const right: string[] = [];
  expect(await preflight({ baseUrl: 'http://h.test', ...withKey, waitSeconds: 0, say: () => {}, send: server(right) })).toEqual({ waited: false });
  expect(right).toEqual(['GET http://h.test/v1/models', 'POST http://h.test/v1/chat/completions']);
});

test('no key, or a key the target refuses: one line naming the key by its source and last 4 characters, exit 3', async () => {
  const none = await refusal({ baseUrl: 'http://h.test' });
  expect(none?.message).toBe('no key: POST http://h.test/v1/chat/completions answered 401 (missing_api_key) without one, so every test would fail on it: set CONFORMANCE_API_KEY (or --api-key, or apiKeyEnv in the config file)');
  expect(none?.exitCode).toBe(3);
  const wrong = await refusal({ baseUrl: 'http://h.test', headers: { authorization: 'Bearer sk-wrong-00000000cdef' }, key: { source: '$CONFORMANCE_API_KEY', value: 'sk-wrong-00000000cdef' } });
  expect(wrong?.message).toBe('the run\'s key $CONFORMANCE_API_KEY (...cdef) is refused: POST http://h.test/v1/chat/completions answered 401 (invalid_api_key), so every test would fail on it: check that it is a valid key of this target');
  expect(wrong?.message).not.toContain('sk-wrong');
  expect(wrong?.exitCode).toBe(3);
  expect(describeKey({ source: '--api-key', value: 'abc' })).toBe('--api-key (3 characters)');
  expect(describeKey({ source: 'none' })).toBe('none');
});

test('the global setup stops on the same refusal after discovery: the catalog refused, or every probed completion', () => {
  const key = { source: '$CONFORMANCE_API_KEY', value: KEY };
  const catalog = (status: number) => ({ status, exchange: { responseBody: '{"error":{"code":"invalid_api_key"}}' } });
  expect(discoveryKeyRefusal('http://h.test', key, catalog(401), [])?.message).toMatch(/^the run.s key \$CONFORMANCE_API_KEY \(\.\.\.cdef\) is refused: GET http:\/\/h\.test\/v1\/models answered 401 \(invalid_api_key\)/);
  const probes = [{ model: 'a', status: 401, code: 'missing_api_key' }, { model: 'b', status: 401 }];
  expect(discoveryKeyRefusal('http://h.test', { source: 'none' }, catalog(200), probes)?.message).toMatch(/^no key: every completion discovery asked \(a, b\) answered 401 \(missing_api_key\) without one/);
  // One model the key may use, or a refusal for the model (403): not the key's problem.
  expect(discoveryKeyRefusal('http://h.test', key, catalog(200), [...probes, { model: 'c', status: 200 }])).toBeUndefined();
  expect(discoveryKeyRefusal('http://h.test', key, catalog(200), [{ model: 'a', status: 403, code: 'model_not_allowed' }])).toBeUndefined();
});

test('404 to both the catalog and a completion: no API at that base URL, exit 3; an HTML page likewise, not "cannot be reached"', async () => {
  const nowhere: NonNullable<PreflightInput['send']> = async () => answer(404, 'Not Found', 'text/plain');
  const e = await refusal({ baseUrl: 'http://h.test/llm', send: nowhere });
  expect(e?.message).toBe('the target answers 404 to both http://h.test/llm/v1/models and http://h.test/llm/v1/chat/completions: no API of this contract is there; give the API\'s root as --base-url (the kit adds /v1 to every path)');
  expect(e?.exitCode).toBe(3);
  // A missing catalog alone is the suite's to judge (CAT-001 fails), not a setup mistake.
  const catalogless: NonNullable<PreflightInput['send']> = async (url, h, body) => (body === undefined ? answer(404) : server()(url, h, body));
  expect(await refusal({ baseUrl: 'http://h.test', ...withKey, send: catalogless })).toBeUndefined();
  const page = await refusal({ baseUrl: 'http://h.test', send: async () => answer(200, '<!doctype html><title>Welcome</title>', 'text/html') });
  expect(page?.message).toBe("the target answers, but not as this API: http://h.test/v1/models answers HTTP 200 with an HTML page: give the API's root as --base-url (the kit adds /v1 to every path)");
  expect(page?.message).not.toMatch(/cannot be reached/);
});

test('a target that cannot be reached: one line with the hint (--wait-for-target for a server still starting), exit 3', async () => {
  const refused = await refusal({ baseUrl: 'http://h.test:8000', send: async () => ({ ...answer(0), error: 'connect ECONNREFUSED', errorKind: 'refused' }) });
  expect(refused?.message).toBe('the target cannot be reached: connection refused at h.test:8000: is the server running at http://h.test:8000? for a server still starting, add --wait-for-target 60');
  expect(refused?.exitCode).toBe(3);
  const dns = await refusal({ baseUrl: 'http://h.test', send: async () => ({ ...answer(0), error: 'getaddrinfo ENOTFOUND h.test', errorKind: 'other' }) });
  expect(dns?.message).toBe('the target cannot be reached: the host name h.test does not resolve (DNS): check the host of --base-url');
});

test('a --models selection that matches no model of the catalog, and a --model it does not list, are usage errors', async () => {
  const none = await refusal({ baseUrl: 'http://h.test', ...withKey, modelSelection: ['zzz/*'] });
  expect(none?.message).toBe('--models zzz/*: no model of the catalog matches it, so there is no model to judge (the catalog lists 3 models)');
  expect(none?.exitCode).toBe(2);
  expect(await refusal({ baseUrl: 'http://h.test', ...withKey, modelSelection: ['acme/*'] })).toBeUndefined();
  const pinned = await refusal({ baseUrl: 'http://h.test', ...withKey, models: ['mini-chat', 'gpt-4o'] });
  expect(pinned?.message).toBe("--model gpt-4o: the target's catalog (GET /v1/models) lists no such model; it lists 3 models (acme/chat, acme/x/chat, mini-chat): pin one of them, or leave --model out and the kit picks");
  expect(pinned?.exitCode).toBe(2);
  expect(await refusal({ baseUrl: 'http://h.test', ...withKey, models: ['mini-chat'] })).toBeUndefined();
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
  const send: NonNullable<PreflightInput['send']> = async (url, h, body) => (++calls <= 25 ? { ...answer(0), error: 'connect ECONNREFUSED', errorKind: 'refused' } : server()(url, h, body));
  const r = await preflight({ baseUrl: 'http://h.test', ...withKey, waitSeconds: 60, say: (l) => lines.push(l), send, sleep: async (ms) => void (clock += ms), now: () => clock });
  expect(r).toEqual({ waited: true });
  expect(lines[0]).toBe('chatconform: waiting up to 60 s for the target (connection refused at h.test)');
  expect(lines.slice(1)).toEqual(['chatconform: still waiting for the target at http://h.test: 10 of 60 s', 'chatconform: still waiting for the target at http://h.test: 20 of 60 s']);
});

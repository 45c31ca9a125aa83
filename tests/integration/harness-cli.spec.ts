// `chatconform mock` with the harness's flags: bad ones refused with one line and exit 2 before anything listens
// (--fault, --script, --prefix, --journal-size, --seed); good ones serve what they say over real HTTP (a script from
// YAML, the mount prefix and its base URL line, the journal's bound, the control API with its query parameters).
// The control API through the MSW handlers too. Servers stay on 127.0.0.1 and are stopped by their process group.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { setupServer } from 'msw/node';
import { createHandlers } from '../../mock/handlers.ts';
import { MOCK_KEYS, MOCK_MODELS } from '../../mock/keys-and-models.ts';
import { CliProcesses, listeningUrl } from './support/cli-process.ts';

let dir: string;
const cli = new CliProcesses();

test.beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'chatconform-harness-cli-'));
});
test.afterAll(() => {
  cli.stopAll();
  rmSync(dir, { recursive: true, force: true });
});

const write = (name: string, text: string): string => {
  const file = path.join(dir, name);
  writeFileSync(file, text);
  return file;
};

const run = (args: string[]) => cli.run(['mock', '--port', '0', ...args]);

/** The mock's URL once it has printed its lines (with --prefix, the base URL line too). */
async function start(args: string[]): Promise<{ lines: string[]; url: string }> {
  const ready = (out: string) => (args.includes('--prefix') && !/^base URL /m.test(out) ? undefined : listeningUrl(out));
  const mock = await cli.start(['mock', '--port', '0', ...args], ready);
  return { lines: mock.stdout().trim().split('\n'), url: mock.url };
}

test('bad harness flags: one line on stderr naming the problem, exit 2 (3 for a script file that cannot be used), nothing listens', async () => {
  const badScript = write('bad.json', JSON.stringify({ rules: [{ match: { turn: 'first' }, answer: { content: 'x' } }] }));
  const badYaml = write('bad.yaml', 'rules:\n  - answer: { fault: "429@0.5" }\n');
  const cases: [string[], RegExp, number?][] = [
    [['--fault', '429:retry=1'], /^error: option '--fault <spec>' argument '429:retry=1' is invalid\. fault "429:retry=1": unknown parameter "retry"; a status takes retry-after=SECONDS$/],
    [['--fault', '429', '--fault', 'framing=wavy'], /fault "framing=wavy": unknown framing "wavy"; known: lf, crlf/],
    [['--fault', 'fail-after=3@7/5'], /@N\/M needs 1 <= N <= M <= 1000000 \(got "7\/5"\)/],
    [['--script', badScript], /^error: --script .*bad\.json does not match spec\/schemas\/mock-script\.schema\.json: \/rules\/0\/match\/turn: must be an integer/, 3],
    [['--script', badYaml], /^error: --script .*bad\.yaml: rules\[0\]: answer\.fault "429@0\.5": @WHEN is not allowed here/, 3],
    [['--script', path.join(dir, 'none.json')], /^error: --script .*none\.json: no such file$/, 3],
    [['--prefix', '/api/v1'], /prefix must not hold the \/v1 segment/],
    [['--prefix', 'api'], /prefix must be a path such as \/api/],
    [['--journal-size', '-1'], /option '--journal-size <n>' argument '-1' is invalid\. expected an integer of at least 0/],
    [['--seed', 'x'], /option '--seed <n>' argument 'x' is invalid/],
  ];
  const results = await Promise.all(cases.map(([args]) => run(args)));
  results.forEach((r, i) => {
    const [args, message, code = 2] = cases[i]!;
    expect(r.code, `${args.join(' ')}: ${r.stdout}${r.stderr}`).toBe(code);
    expect(r.stdout, args.join(' ')).toBe('');
    const lines = r.stderr.split('\n').filter((l) => l.trim() !== '' && !/^npm (warn|notice)/.test(l));
    expect(lines, args.join(' ')).toHaveLength(1);
    expect(lines[0], args.join(' ')).toMatch(message);
  });
});

test('--script (YAML), --prefix, --journal-size, --fault: served as said, the control API over HTTP', async () => {
  const script = write('script.yaml', 'rules:\n  - name: greet\n    match: { user_contains: hello }\n    answer: { content: "Hello from the script." }\n');
  const mock = await start(['--script', script, '--prefix', '/api/', '--journal-size', '2', '--fault', 'framing=crlf', '--seed', '5']);
  expect(mock.lines.slice(0, 2)).toEqual([`mock listening on ${mock.url}`, `base URL ${mock.url}/api/v1`]);
  // The banner's commands name the mount prefix too.
  expect(mock.lines.join('\n')).toContain(`--base-url ${mock.url}/api --profile mock`);
  const ask = (base: string, content: string, headers: Record<string, string> = {}) =>
    fetch(`${base}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${MOCK_KEYS.full}`, 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ model: MOCK_MODELS.small, messages: [{ role: 'user', content }] }),
    });
  const scripted = (await (await ask(`${mock.url}/api/v1`, 'hello there')).json()) as { choices: { message: { content: string } }[] };
  expect(scripted.choices[0]!.message.content).toBe('Hello from the script.');
  expect((await ask(`${mock.url}/v1`, 'hello')).status).toBe(404);
  expect((await fetch(`${mock.url}/api/v1/models`)).status).toBe(200);
  await ask(`${mock.url}/api/v1`, 'something else', { 'x-chatconform-test-id': 'mine' });

  const journal = (await (await fetch(`${mock.url}/_chatconform/journal`)).json()) as { entries: { seq: number; path: string; test_id?: string; script_rule?: string }[]; capacity: number; dropped: number };
  expect(journal.capacity).toBe(2);
  expect(journal.dropped).toBe(2);
  expect(journal.entries.map((e) => `${e.seq} ${e.path}`)).toEqual(['3 /api/v1/models', '4 /api/v1/chat/completions']);
  const mine = (await (await fetch(`${mock.url}/_chatconform/journal?test_id=mine&limit=5`)).json()) as { entries: { test_id: string; faults?: string[] }[] };
  expect(mine.entries.map((e) => [e.test_id, e.faults])).toEqual([['mine', ['framing=crlf']]]);
  const faults = (await (await fetch(`${mock.url}/_chatconform/faults`)).json()) as { faults: { spec: string; seen: number }[] };
  // The request outside the prefix was never the API's: no fault counted it.
  expect(faults.faults).toEqual([{ id: 'f1', spec: 'framing=crlf', seen: 2, fired: 2 }]);
  const bad = await fetch(`${mock.url}/_chatconform/faults`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"fault": "status=99"}' });
  expect(bad.status).toBe(400);
  expect(await bad.json()).toEqual({ error: { type: 'invalid_request_error', code: 'invalid_fault', message: 'fault "status=99": the status must be an integer from 400 to 599 (got "99")' } });
});

test('the control API through the MSW handlers: faults set at run time apply to intercepted requests', async () => {
  const server = setupServer(...createHandlers());
  server.listen({ onUnhandledRequest: 'error' });
  try {
    const origin = 'https://mock.example.test';
    const added = await fetch(`${origin}/_chatconform/faults`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ fault: '503:retry-after=2' }) });
    expect(added.status).toBe(201);
    const refused = await fetch(`${origin}/any/prefix/v1/models`);
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('2');
    await fetch(`${origin}/_chatconform/faults`, { method: 'DELETE' });
    expect((await fetch(`${origin}/v1/models`)).status).toBe(200);
    const journal = (await (await fetch(`${origin}/_chatconform/journal?limit=1`)).json()) as { entries: { path: string; status: number }[] };
    expect(journal.entries).toEqual([expect.objectContaining({ path: '/v1/models', status: 200 })]);
  } finally {
    server.close();
  }
});

// `chatconform mock --catalog FILE --keys FILE --host ADDR`: another catalog and other keys without code, checked
// before the mock listens (a bad file is one line and exit 2), and the mock serving exactly them. Servers stay
// on the loopback range (127.0.0.0/8).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { repoRoot } from '../../run/config.ts';
import { isLoopback } from '../../cli/mock.ts';
import { CliProcesses } from './support/cli-process.ts';

let dir: string;
const cli = new CliProcesses();

test.beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'chatconform-fixture-files-'));
});
test.afterAll(() => {
  cli.stopAll();
  rmSync(dir, { recursive: true, force: true });
});

/** The built-in catalog cut to two entries, one renamed: what a client author's own catalog looks like. */
function customCatalog(): unknown {
  const base = JSON.parse(readFileSync(path.join(repoRoot, 'fixtures/mock/catalog.json'), 'utf8')) as { tiers_order: string[]; entries: Record<string, unknown>[] };
  const small = base.entries.find((e) => e.id === 'acme/chat-small')!;
  const renamed: Record<string, unknown> = { ...small, id: 'team/house-model', name: 'House Model', is_featured: false };
  delete renamed.featured_label;
  delete renamed.featured_tab;
  return { tiers_order: base.tiers_order, entries: [small, renamed] };
}

const write = (name: string, value: unknown) => {
  const file = path.join(dir, name);
  writeFileSync(file, typeof value === 'string' ? value : JSON.stringify(value));
  return file;
};

const start = (args: string[]) => cli.start(['mock', '--port', '0', ...args]);
const run = (args: string[]) => cli.run(['mock', '--port', '0', ...args]);

test('a catalog and keys from files: the mock lists exactly that catalog and serves exactly those keys', async () => {
  const catalog = write('catalog.json', customCatalog());
  const keys = write('keys.json', { keys: [{ key: 'sk-team-0123456789abcdef', name: 'team key', tier: 'pro' }] });
  const mock = await start(['--catalog', catalog, '--keys', keys]);
  const list = (await (await fetch(`${mock.url}/v1/models`)).json()) as { data: { id: string }[] };
  expect(list.data.map((m) => m.id)).toEqual(['acme/chat-small', 'team/house-model']);
  const ask = (key: string) =>
    fetch(`${mock.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ model: 'team/house-model', messages: [{ role: 'user', content: 'hi' }] }) });
  const ok = await ask('sk-team-0123456789abcdef');
  expect(ok.status).toBe(200);
  expect(((await ok.json()) as { model: string }).model).toBe('team/house-model');
  // The built-in keys are not accepted by a mock given its own.
  expect((await ask('sk-mock-full-0123456789abcdef')).status).toBe(401);
  expect(mock.stderr()).toBe('');
});

test('--host: the mock listens on the address given (tests stay on loopback: 127.0.0.2); a bad one is refused', async () => {
  const mock = await start(['--host', '127.0.0.2']);
  expect(mock.url).toMatch(/^http:\/\/127\.0\.0\.2:\d+$/);
  expect((await fetch(`${mock.url}/v1/models`)).status).toBe(200);
  expect(mock.stderr()).toBe('');
  // Another address than loopback is never bound by a test; the warning it gets is decided here.
  expect(['127.0.0.1', '127.0.0.2', '::1', 'localhost'].every(isLoopback)).toBe(true);
  expect(['0.0.0.0', '::', '10.0.0.5'].some(isLoopback)).toBe(false);
  const bad = await run(['--host', 'example.com']);
  expect(bad.code).toBe(2);
  expect(bad.stderr.trim()).toMatch(/^error: option '--host <addr>' argument 'example\.com' is invalid\. expected an IP address/);
});

test('bad files are refused before the mock listens: one line naming the file and every problem, exit 3', async () => {
  const cases: [string[], RegExp][] = [
    [['--catalog', path.join(dir, 'absent.json')], /^error: --catalog .*absent\.json: no such file$/],
    [['--catalog', write('not-json.json', '{ nope')], /^error: --catalog .*not-json\.json: not valid JSON at line 1, column 3$/],
    [['--catalog', write('shape.json', { entries: [] })], /^error: --catalog .*shape\.json does not match spec\/schemas\/mock-catalog\.schema\.json: .*tiers_order/],
    [['--catalog', write('entry.json', { tiers_order: ['free'], entries: [{ id: 'x', mock: { family: 'f', state: 'active', routes: [{ name: 'r', price_rank: 1, latency_rank: 1, throughput_rank: 1, available: true, web_search: false }] } }] })], /^error: --catalog .*entry\.json: entries\[0\] \(x\) is not a catalog entry: .*name/],
    [['--keys', write('keys-tier.json', { keys: [{ key: 'sk-team-0123456789', name: 'team', tier: 'gold', models: ['no/such-model'] }] })], /^error: --keys .*keys-tier\.json: keys\[0\] \(team\): tier "gold" is not one of the catalog's tiers \(.*\); keys\[0\] \(team\): model no\/such-model is not in the catalog$/],
  ];
  for (const [args, message] of cases) {
    const r = await run(args);
    expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(3);
    expect(r.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1);
    expect(r.stderr.trim(), args.join(' ')).toMatch(message);
  }
});

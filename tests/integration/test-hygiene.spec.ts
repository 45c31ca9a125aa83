// The project's own tests assert behaviour, not luck: no test asserts speed (a hang is bounded generously by
// tests/support/hang-bound.ts; speed targets live in bench/), and every test drawing random inputs takes its seed
// from tests/support/seed.ts (fixed in npm test, random and printed under npm run test:explore); no unit test
// starts a process (a child under load times a unit test out: those live in tests/integration).
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { repoRoot } from '../../run/config.ts';
import { SEED_IMPORT } from '../../playwright.config.ts';

const TESTS = path.join(repoRoot, 'tests');
const files = readdirSync(TESTS, { recursive: true, encoding: 'utf8' })
  .filter((f) => f.endsWith('.ts'))
  .map((f) => ({ name: `tests/${f.split(path.sep).join('/')}`, text: readFileSync(path.join(TESTS, f), 'utf8') }));

/** A time on the left of an upper bound: elapsed ms, a latency, a gap between sends. */
const SPEED = /expect\(([^;]*?(?:\bms\b|elapsed|took|Date\.now\(\)|performance\.now\(\)|latenc|\bgap\b|After\b|AfterMs\b)[^;]*?)\)\s*\.toBeLessThan(?:OrEqual)?\(\s*([0-9_.]+)\s*\)/g;
/** Upper bounds on a time that are not speed targets, each with why. */
const ALLOWED: Record<string, string> = {};
/** Below this, an upper bound on a time is a speed target, not a hang bound. */
const HANG_FLOOR_MS = 10_000;

test('no test asserts speed: an upper bound on elapsed time is a hang bound of at least 10 s', () => {
  const found: string[] = [];
  for (const f of files) {
    if (ALLOWED[f.name]) continue;
    for (const m of f.text.matchAll(SPEED)) {
      const bound = Number(m[2]!.replaceAll('_', ''));
      if (bound < HANG_FLOOR_MS) found.push(`${f.name}:${f.text.slice(0, m.index).split('\n').length}: ${m[0].slice(0, 120)}`);
    }
  }
  expect(found, 'bound a hang with HANG_BOUND_MS (tests/support/hang-bound.ts); a speed target belongs in bench/').toEqual([]);
});

test('no unit test starts a process: child_process and the runners that spawn (the CLI, the suite, a client) are for tests/integration', () => {
  const spawning = files.filter((f) => f.name.startsWith('tests/unit/') && /from 'node:child_process'|support\/(?:cli-process|suite-runner)\.ts'|client\/runner\.ts'|\bcommandDriver\b/.test(f.text)).map((f) => f.name);
  expect(spawning).toEqual([]);
});

test('every test that draws random inputs takes its seed from tests/support/seed.ts', () => {
  const random = files.filter((f) => !['tests/support/seed.ts', 'tests/integration/test-hygiene.spec.ts'].includes(f.name) && (/from 'fast-check'/.test(f.text) || /Math\.random\(/.test(f.text)));
  expect(random.length).toBeGreaterThan(0);
  const unseeded = random.filter((f) => !SEED_IMPORT.test(f.text) || /Math\.random\(/.test(f.text)).map((f) => f.name);
  expect(unseeded, 'import testSeed (or the module, for fast-check\'s global seed) from tests/support/seed.ts').toEqual([]);
});

/** The seeds a fresh process gets from tests/support/seed.ts under `env`. */
function seedsUnder(env: Record<string, string>): { fixed: number; global: number; out: string } {
  const code = `const s = await import(${JSON.stringify(path.join(TESTS, 'support/seed.ts'))}); const fc = (await import('fast-check')).default;
    process.stdout.write(JSON.stringify({ fixed: s.testSeed(7, 'probe'), global: fc.readConfigureGlobal().seed }) + '\\n');`;
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('CHATCONFORM_')));
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], { cwd: repoRoot, env: { ...clean, ...env }, encoding: 'utf8', timeout: 60_000 });
  expect(r.status, r.stderr).toBe(0);
  const lines = r.stdout.trim().split('\n');
  return { ...(JSON.parse(lines.at(-1)!) as { fixed: number; global: number }), out: r.stdout };
}

test('seeds: fixed in npm test; random and printed under CHATCONFORM_EXPLORE=1; CHATCONFORM_TEST_SEED replays one', () => {
  test.setTimeout(120_000);
  const plain = [seedsUnder({}), seedsUnder({})];
  expect(plain[0]!.fixed).toBe(7);
  expect(plain[0]!.global).toBe(plain[1]!.global);
  expect(plain[0]!.out).not.toContain('[explore]');
  const explored = [seedsUnder({ CHATCONFORM_EXPLORE: '1' }), seedsUnder({ CHATCONFORM_EXPLORE: '1' })];
  expect(explored.map((e) => e.fixed)).not.toEqual([7, 7]);
  expect(explored[0]!.out).toContain(`probe: seed ${explored[0]!.fixed} (replay: CHATCONFORM_TEST_SEED=${explored[0]!.fixed})`);
  expect(seedsUnder({ CHATCONFORM_EXPLORE: '1', CHATCONFORM_TEST_SEED: '12345' })).toMatchObject({ fixed: 12345, global: 12345 });
});

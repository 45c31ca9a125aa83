// The installed kit is the tested kit: the package built as `npm run build` builds it (into a folder of its own, with
// the package's package.json and a link to this repository's node_modules), whose compiled CLI lists a run of several models, trials and a
// reference exactly as the sources do: every test at its own spec file and line, the model-independent ones once.
// The slots are declared by each spec file with Playwright's public API (suites/lib/slots.ts), so nothing depends on
// how the compiled code's stack frames read.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { repoRoot } from '../../run/config.ts';
import { MOCK_MODELS } from '../../mock/keys-and-models.ts';
import { MODEL_INDEPENDENT_SPECS } from '../../suites/lib/discovery-matrix.ts';
import { build } from '../../scripts/build-package.ts';

const MODELS = [MOCK_MODELS.large, MOCK_MODELS.small, MOCK_MODELS.mini, MOCK_MODELS.reasoner, MOCK_MODELS.tinyReasoner];

let work: string;

test.describe.configure({ mode: 'serial' });

test.beforeAll(() => {
  test.setTimeout(300_000);
  work = mkdtempSync(path.join(os.tmpdir(), 'chatconform-compiled-'));
  build(path.join(work, 'dist'));
  // Laid out as an install: the package's package.json (ESM, its version) above dist/, its dependencies in a
  // node_modules above it.
  copyFileSync(path.join(repoRoot, 'package.json'), path.join(work, 'package.json'));
  symlinkSync(path.join(repoRoot, 'node_modules'), path.join(work, 'node_modules'), 'dir');
});

test.afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

/** `chatconform run --list ARGS` by the compiled CLI or by the sources, in a shell without the run's variables. */
function list(kit: 'compiled' | 'sources', args: string[]): string {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('CONFORMANCE_')));
  const cli = kit === 'compiled' ? [path.join(work, 'dist/cli/main.js')] : ['--import', 'tsx', path.join(repoRoot, 'cli/main.ts')];
  return execFileSync(process.execPath, [...cli, 'run', '--list', ...args], { cwd: repoRoot, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, env: { ...env, FORCE_COLOR: '0' } });
}

/** The listed tests: `file:line  title  [IDs]` lines. */
const testsOf = (listing: string) => listing.split('\n').filter((l) => /^\S+\.spec\.ts:\d+ {2}/.test(l));
const fileOf = (line: string) => line.slice(0, line.indexOf(':'));

test('--models of five models from the compiled kit: every test at its own file and line, the model-independent ones once', () => {
  test.setTimeout(120_000);
  const args = ['--models', MODELS.join(',')];
  const compiled = list('compiled', args);
  expect(compiled).toBe(list('sources', args));
  expect(compiled).not.toContain('test-fixtures');
  const plain = testsOf(list('sources', []));
  const shared = (line: string) => (MODEL_INDEPENDENT_SPECS as readonly string[]).includes(fileOf(line).replace(/\.spec\.ts$/, ''));
  const once = plain.filter(shared);
  expect(once.length).toBeGreaterThan(0);
  // Every model-independent test once, as a plain run lists it; every other test once per model.
  for (const line of once) expect(testsOf(compiled).filter((l) => l === line), line).toHaveLength(1);
  expect(testsOf(compiled)).toHaveLength(once.length + MODELS.length * (plain.length - once.length));
  expect(new Set(testsOf(compiled).map(fileOf))).toEqual(new Set(plain.map(fileOf)));
});

test('--trials 2 with --models, and a reference, listed from the compiled kit as from the sources', () => {
  test.setTimeout(120_000);
  const args = ['--models', `${MOCK_MODELS.small},${MOCK_MODELS.mini}`, '--trials', '2', '--reference', 'http://127.0.0.1:9'];
  const compiled = list('compiled', args);
  expect(compiled).toBe(list('sources', args));
  const tests = testsOf(compiled);
  // Each target's and model's second trial holds only the model-dependent tests.
  const second = (target: string, model: string) => tests.filter((l) => l.includes(`  ${target} · ${model} · trial 2 › `)).length;
  expect(second('reference', MOCK_MODELS.small)).toBeGreaterThan(0);
  expect(second('target', MOCK_MODELS.mini)).toBe(second('reference', MOCK_MODELS.small));
  expect(tests.filter((l) => l.includes(`  target · ${MOCK_MODELS.small} › `)).length).toBeGreaterThan(second('target', MOCK_MODELS.small));
});

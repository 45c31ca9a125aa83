// The kit's own rules (the catalog's `mock-only` records) are checked here, in npm test, against the embedded
// mock: suites/kit.config.ts runs suites/kit/. A target's verdict never holds them (the conformance config
// ignores suites/kit/), so a certifier's report carries no verdict about the kit itself.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { requirements } from '../../spec/requirements/index.ts';
import { repoRoot } from '../../run/config.ts';

const CLI = path.join(repoRoot, 'node_modules/@playwright/test/cli.js');
const BOUND_MS = 240_000;

function runKit(): Promise<{ code: number | null; out: string }> {
  // A fresh child: none of this run's Playwright or target variables leak into it.
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^(TEST_|PW_|CONFORMANCE_)/.test(k)) env[k] = v;
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, 'test', '-c', 'suites/kit.config.ts', '--reporter=json'], { cwd: repoRoot, env, detached: true });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
    child.stderr.on('data', () => {});
    const timer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), BOUND_MS);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    });
  });
}

interface JsonSuite {
  specs?: { title: string; tests: { annotations: { type: string; description?: string }[]; results: { status: string }[] }[] }[];
  suites?: JsonSuite[];
}

test('the kit checks itself: every mock-only requirement is judged by a passing kit test', async () => {
  test.setTimeout(BOUND_MS + 30_000);
  const { code, out } = await runKit();
  const report = JSON.parse(out.slice(out.indexOf('{'))) as { suites: JsonSuite[]; stats: { expected: number; unexpected: number; skipped: number } };
  const judged = new Map<string, string[]>();
  const walk = (s: JsonSuite) => {
    for (const spec of s.specs ?? []) {
      for (const t of spec.tests) {
        const status = t.results.at(-1)?.status ?? 'notRun';
        for (const a of t.annotations) if (a.type === 'requirement' && a.description) judged.set(a.description, [...(judged.get(a.description) ?? []), `${spec.title}: ${status}`]);
      }
    }
    for (const c of s.suites ?? []) walk(c);
  };
  report.suites.forEach(walk);
  console.log(`kit self-check: ${report.stats.expected} passed, ${report.stats.unexpected} failed, ${report.stats.skipped} skipped`);
  expect(report.stats.unexpected, 'kit tests that failed').toBe(0);
  expect(code).toBe(0);
  const kitOnly = requirements.filter((r) => r.check === 'mock-only' && r.kind === 'requirement').map((r) => r.id);
  const unjudged = kitOnly.filter((id) => !(judged.get(id) ?? []).some((s) => s.endsWith(': passed')));
  expect(unjudged, 'mock-only requirements no passing kit test judges').toEqual([]);
});

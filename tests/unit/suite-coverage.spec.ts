// Every requirement of the catalog is declared by at least one conformance test, and no test declares an
// ID the catalog does not know. Read from Playwright's own listing of the suite, not from the source text.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from '@playwright/test';
import { isKnownRequirement, requirements } from '../../spec/requirements/index.ts';
import { REQUIREMENT_ANNOTATION } from '../../suites/lib/check.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));

interface ListedSuite {
  specs?: { title: string; file: string; line: number; tests: { annotations?: { type: string; description?: string }[] }[] }[];
  suites?: ListedSuite[];
}

function listSuite(): Map<string, string[]> {
  const out = execFileSync(process.execPath, [path.join(root, 'node_modules/@playwright/test/cli.js'), 'test', '-c', 'suites/conformance.config.ts', '--list', '--reporter=json'], {
    cwd: root,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env, CONFORMANCE_BASE_URL: '' },
  });
  const report = JSON.parse(out) as { suites: ListedSuite[]; errors: unknown[] };
  expect(report.errors, 'the suite lists without load errors').toEqual([]);
  const declared = new Map<string, string[]>();
  const walk = (s: ListedSuite) => {
    for (const spec of s.specs ?? []) {
      for (const t of spec.tests) {
        for (const a of t.annotations ?? []) {
          if (a.type !== REQUIREMENT_ANNOTATION || !a.description) continue;
          declared.set(a.description, [...(declared.get(a.description) ?? []), `${spec.file}:${spec.line} ${spec.title}`]);
        }
      }
    }
    for (const c of s.suites ?? []) walk(c);
  };
  report.suites.forEach(walk);
  return declared;
}

test('every requirement ID is declared by a conformance test, and only known IDs are declared', () => {
  const declared = listSuite();
  const unknown = [...declared.keys()].filter((id) => !isKnownRequirement(id));
  expect(unknown, 'tests declare IDs the catalog does not know').toEqual([]);
  const missing = requirements.map((r) => r.id).filter((id) => !declared.has(id));
  expect(missing, 'requirements no test declares').toEqual([]);
});

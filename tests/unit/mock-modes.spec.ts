// The registries of defect modes and legal variants (mock/defects.ts, mock/variants.ts): well-formed, every
// defect names a real requirement at the level it claims, every section of the contract has defects, and a
// mock refuses names it does not know. Whether the suite catches them is tests/integration/defect-matrix.spec.ts.
import { readFileSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import { CORE_DEFECTS, DEFECT_SECTIONS, DEFECTS, formatDefects, type DefectSpec } from '../../mock/defects.ts';
import { createMockService } from '../../mock/service.ts';
import { formatVariants, VARIANTS } from '../../mock/variants.ts';
import { getRequirement, isKnownRequirement } from '../../spec/requirements/index.ts';

const all: readonly DefectSpec[] = DEFECTS;

test('every defect names a known requirement, at the level its expectation says', () => {
  for (const d of all) {
    expect(isKnownRequirement(d.breaks), `${d.name} breaks ${d.breaks}`).toBe(true);
    const r = getRequirement(d.breaks);
    expect(r.kind, `${d.name}: ${d.breaks} is a requirement, not an observation`).toBe('requirement');
    expect(r.level === 'MUST' ? 'fail' : 'warn', `${d.name}: ${d.breaks} is ${r.level}`).toBe(d.expect ?? 'fail');
    expect(d.description.length, d.name).toBeGreaterThan(20);
    expect(d.name).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
  }
  expect(new Set(all.map((d) => d.name)).size).toBe(all.length);
});

test('at least 30 defects run in npm test, spread over every section of the contract', () => {
  const mustCore = CORE_DEFECTS.filter((d) => d.expect !== 'warn');
  expect(mustCore.length).toBeGreaterThanOrEqual(30);
  for (const section of DEFECT_SECTIONS) expect(CORE_DEFECTS.some((d) => d.section === section), section).toBe(true);
});

test('variants are named once; --list output names every defect and variant', () => {
  expect(new Set(VARIANTS.map((v) => v.name)).size).toBe(VARIANTS.length);
  const defects = formatDefects();
  for (const d of all) expect(defects).toContain(`${d.name}`);
  for (const d of all) expect(defects).toMatch(new RegExp(`${d.name}\\s+breaks ${d.breaks}`));
  const variants = formatVariants();
  for (const v of VARIANTS) expect(variants).toContain(v.name);
});

test('a mock refuses an unknown defect or variant name when it is created', () => {
  expect(() => createMockService({ defect: 'no-such-defect' as never })).toThrow(/unknown defect mode "no-such-defect"/);
  expect(() => createMockService({ variant: ['crlf', 'nope' as never] })).toThrow(/unknown variant "nope"/);
  expect(() => createMockService({ defect: ['stream-no-done', 'error-no-code'], variant: ['crlf'] })).not.toThrow();
});

test('mock/README.md documents every defect (with the requirement it breaks) and every variant', () => {
  const readme = readFileSync(new URL('../../mock/README.md', import.meta.url), 'utf8');
  for (const d of all) expect(readme, d.name).toContain(`| \`${d.name}\` | ${d.breaks}`);
  for (const v of VARIANTS) expect(readme, v.name).toContain(`| \`${v.name}\` |`);
});

// Partial runs (run/selection.ts): requirement IDs are tags, a selection is a grep over tags and,
// for requirements registered checks judge on every answer of a kind, over the files that send that kind.
import { expect, test } from '@playwright/test';
import { req } from '../../suites/lib/declare.ts';
import { describeSelection, filesCheckingByKind, KIND_FILES, runnerFilters, selectedIds, selectionGrep, selectionOf } from '../../run/selection.ts';
import { getRequirement, requirements } from '../../spec/requirements/index.ts';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from '../../run/config.ts';

/** The string Playwright matches grep against: project, file, describe and title, then the tags. */
const line = (file: string, title: string, tags: string[]) => ` ${file} suite ${title} ${tags.join(' ')}`;

test('req() makes every declared ID an annotation and a tag', () => {
  expect(req('AUTH-008', 'CHAT-011', 'AUTH-008')).toEqual({
    annotation: [{ type: 'requirement', description: 'AUTH-008' }, { type: 'requirement', description: 'CHAT-011' }],
    tag: ['@AUTH-008', '@CHAT-011'],
  });
});

test('no selection is a full run; every kind of selector is read and checked', () => {
  expect(selectionOf({})).toBeUndefined();
  expect(selectionOf({ CONFORMANCE_REQUIREMENTS: 'STREAM-004, AUTH-008', CONFORMANCE_LEVELS: 'must', CONFORMANCE_SECTIONS: '2.7', CONFORMANCE_EXCLUDE_REQUIREMENTS: 'SEARCH-001' })).toEqual({
    requirements: ['STREAM-004', 'AUTH-008'],
    sections: ['2.7'],
    levels: ['MUST'],
    exclude: ['SEARCH-001'],
  });
  expect(() => selectionOf({ CONFORMANCE_REQUIREMENTS: 'STREAM-999' })).toThrow('STREAM-999 is not a requirement ID of the catalog');
  expect(() => selectionOf({ CONFORMANCE_SECTIONS: '42' })).toThrow(/section 42 has no requirement \(sections: 1, 2, .*9 and their subsections\)/);
  expect(() => selectionOf({ CONFORMANCE_LEVELS: 'OFTEN' })).toThrow('level OFTEN is not one of MUST, SHOULD, MAY');
});

test('sections take their subsections; levels narrow; exclusions remove; a restatement selects its rule', () => {
  const six = selectedIds(selectionOf({ CONFORMANCE_SECTIONS: '6' })!);
  expect(six.length).toBeGreaterThan(5);
  expect(six.every((id) => getRequirement(id).section === '6' || getRequirement(id).section.startsWith('6.'))).toBe(true);
  const mustsOf2 = selectedIds(selectionOf({ CONFORMANCE_SECTIONS: '2', CONFORMANCE_LEVELS: 'MUST' })!);
  expect(mustsOf2.every((id) => getRequirement(id).level === 'MUST' && getRequirement(id).section.split('.')[0] === '2')).toBe(true);
  expect(mustsOf2).toContain(requirements.find((r) => r.section === '2.10' && r.level === 'MUST')!.id);
  const restated = requirements.find((r) => r.sameAs)!;
  expect(selectedIds(selectionOf({ CONFORMANCE_REQUIREMENTS: restated.id })!).sort()).toEqual(requirements.filter((r) => r.id === restated.sameAs || r.sameAs === restated.sameAs).map((r) => r.id).sort());
  expect(selectedIds(selectionOf({ CONFORMANCE_SECTIONS: '6', CONFORMANCE_EXCLUDE_REQUIREMENTS: six[0]! })!)).not.toContain(six[0]);
});

test('the grep takes the tests declaring an ID, and for registered checks the files that send that kind of answer', () => {
  const { grep } = selectionGrep(selectionOf({ CONFORMANCE_REQUIREMENTS: 'AUTH-008' }));
  expect(grep!.test(line('auth.spec.ts', 'a restricted key', ['@AUTH-008', '@ERR-006']))).toBe(true);
  expect(grep!.test(line('auth.spec.ts', 'other', ['@AUTH-0080']))).toBe(false);
  expect(grep!.test(line('auth.spec.ts', 'other', ['@AUTH-010']))).toBe(false);

  const stream = selectionGrep(selectionOf({ CONFORMANCE_REQUIREMENTS: 'STREAM-004' })).grep!;
  expect(filesCheckingByKind(['STREAM-004'])).toEqual(['streaming.spec']);
  expect(stream.test(line('streaming.spec.ts', 'framing', ['@STREAM-005']))).toBe(true);
  expect(stream.test(line('properties/streaming.spec.js', 'property', ['@REQ-021']))).toBe(true);
  expect(stream.test(line('chat.spec.ts', 'stream true', ['@CHAT-005']))).toBe(false);

  const excluded = selectionGrep(selectionOf({ CONFORMANCE_EXCLUDE_REQUIREMENTS: 'AUTH-008' }));
  expect(excluded.grepInvert!.test(line('auth.spec.ts', 'x', ['@AUTH-008']))).toBe(true);
  expect(excluded.grepInvert!.test(line('auth.spec.ts', 'x', ['@AUTH-010']))).toBe(false);
  expect(describeSelection(selectionOf({ CONFORMANCE_REQUIREMENTS: 'STREAM-004', CONFORMANCE_LEVELS: 'MUST', CONFORMANCE_EXCLUDE_REQUIREMENTS: 'AUTH-008' })!)).toBe('requirement STREAM-004; level MUST; excluding AUTH-008');
});

test('every file named for a kind of answer exists in the suite', () => {
  for (const k of KIND_FILES) for (const f of k.files) expect(existsSync(path.join(repoRoot, 'suites', `${f}.ts`)), f).toBe(true);
});

test("Playwright's own filters make a run partial: file arguments and filtering options, never option values", () => {
  const base = ['/usr/bin/node', '/x/node_modules/@playwright/test/cli.js', 'test', '-c', 'suites/conformance.config.ts', '--output', '/tmp/out'];
  expect(runnerFilters(base)).toBeUndefined();
  expect(runnerFilters([...base, '--reporter=line,./suites/reporter.ts,json', '--workers', '2'])).toBeUndefined();
  expect(runnerFilters([...base, 'suites/chat.spec.ts', 'suites/catalog.spec.ts'])).toBe('files suites/chat.spec.ts, suites/catalog.spec.ts');
  expect(runnerFilters([...base, '--grep', 'x-mock', '--shard=1/3'])).toBe('--grep x-mock; --shard=1/3');
  expect(runnerFilters([...base, '-g', 'stream', '--last-failed'])).toBe('-g stream; --last-failed');
  expect(runnerFilters(['node', 'other-script.js'])).toBeUndefined();
});

// Partial runs (run/selection.ts): a selection runs every test the suite's index (run/test-index.ts) says can record
// a selected ID: one it declares with req(), or one a judge entry point it declares with judges() records. The
// selection is Playwright's grep, one pattern per test, matched against "project file describe… title tags".
import { expect, test } from '@playwright/test';
import { judges, req } from '../../suites/lib/declare.ts';
import { describeSelection, runnerFilters, selectedIds, selectedTests, selectionGrep, selectionOf, selectionTakesTests } from '../../run/selection.ts';
import { grepOf, testIndex, testsRecording, type TestIndex } from '../../run/test-index.ts';
import { getRequirement, requirements } from '../../spec/requirements/index.ts';
import { judgeStream } from '../../judge/judge-response.ts';
import { judgeCapInForce } from '../../judge/token-caps.ts';
import { Checker } from '../../judge/checker.ts';

/** The string Playwright matches grep against: root, project, file, describes and title, then the tags. */
const line = (file: string, titles: string[], tags: string[] = []) => ['', '', file, ...titles, ...tags].join(' ');
const matches = (patterns: readonly RegExp[] | undefined, title: string) => (patterns ?? []).some((p) => p.test(title));

/** A small index: a test declaring TOOL-006 that calls judgeStream, one declaring AUTH-008, one declaring nothing. */
const INDEX: TestIndex = {
  note: 'test',
  tests: [
    { file: 'tools.spec.ts', titles: ['streamed tool calls', 'deltas assemble'], declared: ['TOOL-006'], judges: ['judgeStream'], ids: [...new Set(['TOOL-006', ...judgeStream.ids])].sort() },
    { file: 'auth.spec.ts', titles: ['keys', 'a restricted key'], declared: ['AUTH-008', 'ERR-006'], judges: [], ids: ['AUTH-008', 'ERR-006'] },
    { file: 'properties/streaming.spec.ts', titles: ['property: streamed completions', 'generated prompts'], declared: ['REQ-021'], judges: ['judgeStream'], ids: [...new Set(['REQ-021', ...judgeStream.ids])].sort() },
  ],
};

test('req() makes every declared ID an annotation and every judge entry point one naming it; no requirement tags, only @model-dependent', () => {
  expect(req('AUTH-008', 'CHAT-011', 'AUTH-008')).toEqual({
    annotation: [{ type: 'requirement', description: 'AUTH-008' }, { type: 'requirement', description: 'CHAT-011' }],
    tag: [],
  });
  expect(req('TOOL-006', judges(judgeStream, judgeCapInForce), { modelDependent: true })).toEqual({
    annotation: [{ type: 'requirement', description: 'TOOL-006' }, { type: 'judge', description: 'judgeStream' }, { type: 'judge', description: 'judgeCapInForce' }],
    tag: ['@model-dependent'],
  });
  // The entry points carry their IDs as data: judgeStream can record [DONE] (STREAM-004), judgeCapInForce the caps.
  expect(judgeStream.ids).toContain('STREAM-004');
  expect([...judgeCapInForce.ids].sort()).toEqual(['REQ-008', 'REQ-010', 'REQ-011']); // CHAT-008 restates REQ-011: recorded under it
});

test('a Checker given an index refuses a record outside it (the kit\'s error), whatever the record', () => {
  const log = { exchanges: [], scrub: (t: string) => t };
  const check = new Checker(log, { declared: () => ['TOOL-006'], index: () => ['TOOL-006', ...judgeStream.ids] });
  check.that('TOOL-006', true, '', null);
  check.that('STREAM-004', false, 'no [DONE]', null);
  expect(() => check.that('AUTH-008', true, '', null)).toThrow(/AUTH-008, which is outside this test's index/);
  expect(() => check.cannotJudge(['CAT-036'], { message: 'x', on: null })).toThrow(/CAT-036, which is outside/);
  expect(() => check.notApplicable(['REQ-011'], 'x', null)).toThrow(/REQ-011, which is outside/);
  expect(check.records.map((r) => `${r.id} ${r.status}`)).toEqual(['TOOL-006 pass', 'STREAM-004 fail']);
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

test('the grep takes every test that can record a selected ID: declared, or recorded by a judge entry point it declares', () => {
  // STREAM-004 is declared by no test here: the tools test and the property record it through judgeStream.
  const stream = selectionGrep(selectionOf({ CONFORMANCE_REQUIREMENTS: 'STREAM-004' }), INDEX).grep!;
  expect(stream).toHaveLength(2);
  expect(matches(stream, line('tools.spec.ts', ['streamed tool calls', 'deltas assemble']))).toBe(true);
  expect(matches(stream, line('properties/streaming.spec.js', ['property: streamed completions', 'generated prompts'], ['@model-dependent']))).toBe(true);
  expect(matches(stream, line('auth.spec.ts', ['keys', 'a restricted key']))).toBe(false);
  // A slot's describe block (a target, a model, a trial) between the file and the test's titles, or directly around
  // the test, still matches.
  expect(matches(stream, line('tools.spec.ts', ['defect-stream-no-done', 'streamed tool calls', 'deltas assemble']))).toBe(true);
  expect(matches(stream, line('tools.spec.ts', ['streamed tool calls', 'acme/chat-small', 'deltas assemble']))).toBe(true);
  // Another test whose title ends the same, or another file of the same name in another folder, does not.
  expect(matches(stream, line('tools.spec.ts', ['streamed tool calls', 'deltas assemble again']))).toBe(false);
  expect(matches(stream, line('streaming.spec.ts', ['property: streamed completions', 'generated prompts']))).toBe(false);

  const auth = selectionGrep(selectionOf({ CONFORMANCE_REQUIREMENTS: 'AUTH-008' }), INDEX).grep!;
  expect(matches(auth, line('auth.spec.ts', ['keys', 'a restricted key']))).toBe(true);
  expect(matches(auth, line('tools.spec.ts', ['streamed tool calls', 'deltas assemble']))).toBe(false);

  // An exclusion leaves out the tests that declare an excluded ID; a selection of nothing matches nothing.
  const excluded = selectionGrep(selectionOf({ CONFORMANCE_SECTIONS: '6', CONFORMANCE_EXCLUDE_REQUIREMENTS: 'REQ-021' }), INDEX);
  expect(matches(excluded.grepInvert, line('properties/streaming.spec.ts', ['property: streamed completions', 'generated prompts']))).toBe(true);
  expect(matches(excluded.grepInvert, line('tools.spec.ts', ['streamed tool calls', 'deltas assemble']))).toBe(false);
  expect(selectedTests(selectionOf({ CONFORMANCE_SECTIONS: '6', CONFORMANCE_EXCLUDE_REQUIREMENTS: 'REQ-021' })!, INDEX).map((t) => t.file)).toEqual(['tools.spec.ts']);
  const none = selectionGrep(selectionOf({ CONFORMANCE_REQUIREMENTS: 'CAT-036' }), INDEX).grep!;
  expect(matches(none, line('auth.spec.ts', ['keys', 'a restricted key']))).toBe(false);
  expect(selectionTakesTests(selectionOf({ CONFORMANCE_REQUIREMENTS: 'CAT-036' })!, INDEX)).toBe(false);
  expect(selectionTakesTests(selectionOf({ CONFORMANCE_REQUIREMENTS: 'STREAM-004' })!, INDEX)).toBe(true);
  expect(describeSelection(selectionOf({ CONFORMANCE_REQUIREMENTS: 'STREAM-004', CONFORMANCE_LEVELS: 'MUST', CONFORMANCE_EXCLUDE_REQUIREMENTS: 'AUTH-008' })!)).toBe('requirement STREAM-004; level MUST; excluding AUTH-008');
});

test('the shipped index: a selection of STREAM-004 runs the streamed tool calls of tools.spec.ts (the tests whose judgeStream records [DONE])', () => {
  const tests = testsRecording(['STREAM-004'], testIndex());
  expect(tests.some((t) => t.file === 'tools.spec.ts' && t.titles.join(' › ') === 'streamed tool calls › tool-call deltas assemble into calls that name a declared function and whose arguments decode')).toBe(true);
  expect(new Set(tests.map((t) => t.file))).toEqual(new Set(['chat.spec.ts', 'properties/streaming.spec.ts', 'reasoning.spec.ts', 'streaming.spec.ts', 'tools.spec.ts', 'web-search.spec.ts']));
  // Every pattern matches its own test's grep title and no other's.
  const all = testIndex().tests;
  for (const t of all) {
    const own = line(t.file, t.titles);
    expect(grepOf(t).test(own), own).toBe(true);
  }
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

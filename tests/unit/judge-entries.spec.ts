// The judge's entry points (judge/entry.ts) carry the IDs they record as data, and judge/entry-points.ts lists every
// one by name: a test's `judges(...)` declaration, the suite's index and the proxy all read that list.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { JUDGE_ENTRIES } from '../../judge/entry-points.ts';
import { entryPoint, idsOf } from '../../judge/entry.ts';
import { isKnownRequirement, primaryOf } from '../../spec/requirements/index.ts';
import { repoRoot } from '../../run/config.ts';
import { judgeCompletion, judgeStream } from '../../judge/judge-response.ts';
import { judgeSearchAnswer } from '../../judge/search.ts';
import { ANSWER_RULES } from '../../judge/answers.ts';

test('every module of judge/ that declares an entry point is listed, and every entry point is found by its name', () => {
  const files = (readdirSync(path.join(repoRoot, 'judge'), { recursive: true }) as string[]).filter((f) => f.endsWith('.ts'));
  const declaring = files.filter((f) => /^export const \w+ = entryPoint\(/m.test(readFileSync(path.join(repoRoot, 'judge', f), 'utf8'))).map((f) => `judge/${f.split(path.sep).join('/')}`);
  const listed = new Set([...JUDGE_ENTRIES.values()].map((e) => e.module));
  expect(declaring.filter((f) => !listed.has(f)), 'modules with entry points judge/entry-points.ts does not list').toEqual([]);
  for (const f of declaring) {
    const names = [...readFileSync(path.join(repoRoot, f), 'utf8').matchAll(/export const (\w+) = entryPoint\(/g)].map((m) => m[1]!);
    for (const name of names) expect(JUDGE_ENTRIES.get(name)?.module, name).toBe(f);
  }
});

test('an entry point\'s IDs are primary catalog IDs: its own, and those of the entry points it calls', () => {
  for (const [name, { entry }] of JUDGE_ENTRIES) {
    for (const id of entry.ids) expect(isKnownRequirement(id) && primaryOf(id) === id, `${name}: ${id}`).toBe(true);
    for (const id of entry.own) expect(entry.ids, name).toContain(id);
  }
  // Composition: judgeSearchAnswer calls judgeCompletion, so it can record what judgeCompletion records.
  for (const id of judgeCompletion.ids) expect(judgeSearchAnswer.ids).toContain(id);
  expect(judgeStream.ids).toContain('STREAM-004');
  expect(idsOf('CHAT-008', ['REQ-011', judgeCompletion])).toContain('REQ-011');
  expect(idsOf('CHAT-008')).toEqual(['REQ-011']);
  expect(() => entryPoint('NOPE-001', function nope() {})).toThrow(/unknown requirement ID NOPE-001/);
  // Every answer rule's precondition sits beside an entry point the registry lists.
  for (const r of ANSWER_RULES) expect(JUDGE_ENTRIES.get(r.judge.name)?.entry, r.applies).toBe(r.judge);
});

// The power of `chatconform client`'s judgement, in process: the flawed client of tests/fixtures/clients/flawed.mjs
// answers every scenario against its own mock (no process spawned), once clean and once per flaw. The clean client
// fails nothing; each flaw fails exactly the requirement it breaks (warns, for a MAY) and nothing else: every other
// record passes, or is a skip whose cause is that one finding (a rule judged only where the client got that far).
import { expect, test } from '@playwright/test';
import type { CheckRecord } from '../../judge/checker.ts';
import { runClientScenarios, type ClientDriver, type ScenarioResult } from '../../client/engine.ts';
import { CLIENT_REQUIREMENTS, SCENARIOS } from '../../client/scenarios.ts';
import { CONSUMER_IDS } from '../../judge/checks/consumer.ts';
import { answer } from '../fixtures/clients/flawed.mjs';

const inProcess =
  (flaw: string, edit: (r: Record<string, unknown>) => Record<string, unknown> = (r) => r): ClientDriver =>
  async (env) => {
    const report = edit(await answer(env, flaw));
    return { exitCode: 0, signal: null, timedOut: false, flooded: false, stdout: JSON.stringify(report), stderrTail: '', durationMs: 0 };
  };

const records = (results: readonly ScenarioResult[]): (CheckRecord & { scenario: string })[] => results.flatMap((r) => r.records.map((x) => ({ ...x, scenario: r.scenario.id })));
const ids = (rs: readonly CheckRecord[], status: string): string[] => [...new Set(rs.filter((x) => x.status === status).map((x) => x.id))].sort();

/** Each flaw and what it must fail (a MUST) or warn (a MAY), nothing more: the broken-adapter table of docs/client-conformance.md. */
const FLAWS: Record<string, { fail?: string; warn?: string }> = {
  'ignore-stream-error': { fail: 'STREAM-018' },
  'split-lf-only': { fail: 'STREAM-008' },
  'done-as-json': { fail: 'STREAM-004' },
  'chunk-decode': { fail: 'STREAM-014' },
  'annotations-back': { fail: 'SEARCH-030' },
  'hardcoded-model': { fail: 'CAT-040' },
  'swap-model': { fail: 'ERR-009' },
  'arguments-object': { fail: 'RESP-020' },
  'id-concat': { fail: 'TOOL-011' },
  'no-final-flush': { fail: 'STREAM-011' },
  'data-space': { fail: 'RESP-032' },
  'first-tool-call-only': { fail: 'TOOL-011' },
  'search-count-requests': { fail: 'SEARCH-040' },
  'search-count-annotations': { fail: 'SEARCH-040' },
  'catalog-placeholder': { fail: 'CAT-042' },
  'refuse-images': { fail: 'IMG-007' },
  'requires-title': { fail: 'RESP-032' },
  'requires-url': { warn: 'SEARCH-036' },
  'requires-owned-by': { fail: 'CAT-003' },
  'requires-optional': { fail: 'CAT-042' },
  'requires-usage': { fail: 'RESP-032' },
  'strict-fields': { fail: 'RESP-032' },
  'stream-fails': { fail: 'STREAM-004' },
};

/** Scenarios where a flaw makes the client send nothing at all: no evidence either way, a skip charging no rule. */
const NOTHING_SENT: Record<string, string[]> = { 'refuse-images': ['image-gate'] };

test.describe.configure({ timeout: 60_000 });

test('the consumer checks declare the IDs they can record: exactly the ones the scenarios judge', () => {
  expect([...CLIENT_REQUIREMENTS].sort()).toEqual([...CONSUMER_IDS].sort());
});

test('the clean client passes every requirement of every scenario', async () => {
  const all = records(await runClientScenarios({ driver: inProcess('none'), parallel: true }));
  expect(ids(all, 'pass')).toEqual([...new Set(SCENARIOS.flatMap((s) => s.requirements))].sort());
  expect(all.filter((x) => x.status !== 'pass'), JSON.stringify(all.filter((x) => x.status !== 'pass'))).toEqual([]);
});

for (const [flaw, want] of Object.entries(FLAWS)) {
  const id = (want.fail ?? want.warn)!;
  test(`the flaw ${flaw} ${want.fail ? 'fails' : 'warns'} ${id} and nothing else`, async () => {
    const all = records(await runClientScenarios({ driver: inProcess(flaw), parallel: true }));
    const detail = JSON.stringify(all.filter((x) => x.status !== 'pass'), null, 1);
    expect(ids(all, 'fail'), detail).toEqual(want.fail ? [want.fail] : []);
    expect(ids(all, 'warn'), detail).toEqual(want.warn ? [want.warn] : []);
    expect(ids(all, 'error'), detail).toEqual([]);
    // A skip is never a second charge: its cause is the one finding (or, charging nothing, that the client sent nothing there).
    for (const x of all.filter((r) => r.status === 'skip')) {
      if (NOTHING_SENT[flaw]?.includes(x.scenario)) expect(x.cause, `${x.scenario} ${x.id}`).toEqual({ message: expect.stringMatching(/^not judged: the client sent nothing/) });
      else expect(x.cause?.id, `${x.scenario} ${x.id}: ${x.message}`).toBe(id);
    }
    // The finding names what the client broke (the card's message).
    const finding = all.find((x) => x.id === id && x.status !== 'pass' && x.status !== 'skip');
    expect(finding?.message ?? '').not.toBe('');
  });
}

test('a client that rejects a citation without title fails RESP-032 once, naming the field; the search rules rest on the answer it read', async () => {
  const all = records(await runClientScenarios({ driver: inProcess('requires-title'), parallel: true }));
  const findings = all.filter((x) => x.status === 'fail');
  expect(findings.map((x) => [x.scenario, x.id])).toEqual([['search-title-absent', 'RESP-032']]);
  expect(findings[0]!.message).toContain('choices[0].message.annotations[0].url_citation.title is omitted');
  expect(all.filter((x) => x.scenario === 'search').map((x) => [x.id, x.status])).toEqual([
    ['RESP-032', 'pass'],
    ['SEARCH-040', 'pass'],
    ['SEARCH-030', 'pass'],
  ]);
});

test('one client error is one finding: the rules after it are skips naming it as their cause', async () => {
  // The client cannot read the first search answer: RESP-032 fails there, SEARCH-040 and SEARCH-030 are skips.
  const broken = records(await runClientScenarios({ driver: inProcess('none', (r) => ({ error: { message: 'Type validation failed' }, ...(r.searches === undefined ? r : {}) })), scenarios: SCENARIOS.filter((s) => s.id === 'search'), parallel: true }));
  expect(broken.map((x) => [x.id, x.status, x.cause?.id])).toEqual([
    ['RESP-032', 'fail', undefined],
    ['SEARCH-040', 'skip', 'RESP-032'],
    ['SEARCH-030', 'skip', 'RESP-032'],
  ]);
  expect(broken[1]!.message).toMatch(/^not judged: the client did not get that far \(RESP-032 failed: reading a search answer .*Type validation failed/);
});

test('no pass without evidence: a client that sends nothing passes nothing; one that reads no stream passes no stream rule', async () => {
  const nothing = records(await runClientScenarios({ driver: inProcess('error-everything'), parallel: true }));
  expect(ids(nothing, 'pass')).toEqual([]);
  expect(ids(nothing, 'fail')).toEqual([]);
  const noStream = records(await runClientScenarios({ driver: inProcess('stream-fails'), parallel: true }));
  for (const id of ['STREAM-006', 'STREAM-008', 'STREAM-011', 'STREAM-014', 'STREAM-016', 'STREAM-018']) expect(noStream.filter((x) => x.id === id).map((x) => x.status), id).toEqual(noStream.filter((x) => x.id === id).map(() => 'skip'));
  expect(noStream.find((x) => x.id === 'STREAM-018')?.cause).toEqual({ id: 'STREAM-004', message: expect.stringContaining('stream-plain') });
});

test('a report of the wrong shape is failed where it is read, never a crash of the kit', async () => {
  const wrong = (r: Record<string, unknown>) => ({ ...r, ...('models' in r ? { models: 'all of them' } : {}), ...('tool_calls' in r ? { tool_calls: 3 } : {}) });
  const all = records(await runClientScenarios({ driver: inProcess('none', wrong), scenarios: SCENARIOS.filter((s) => ['catalog-plain', 'tool-loop'].includes(s.id)), parallel: true }));
  expect(all.map((x) => [x.id, x.status])).toEqual([
    ['RESP-032', 'pass'],
    ['RESP-020', 'fail'],
    ['TOOL-011', 'pass'],
    ['CAT-003', 'fail'],
  ]);
});

test('scenarios run at once give the same verdict as one after the other (--jobs 1)', async () => {
  // A flaw whose records pass, fail and skip on a base: the fold over bases is the same in any order of ending.
  const one = records(await runClientScenarios({ driver: inProcess('requires-owned-by'), jobs: 1 }));
  const many = records(await runClientScenarios({ driver: inProcess('requires-owned-by'), jobs: 6 }));
  expect(new Set(one.map((x) => x.status))).toEqual(new Set(['pass', 'fail', 'skip']));
  expect(many).toEqual(one);
});

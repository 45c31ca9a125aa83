// Evidence is what was judged (issue 29, item 2): every finding carries the exchange its check was given, never
// "the last exchange of the test". Each judged request here sits between two decoy requests, so a finding that
// fell back to the last exchange (or the first) would carry a decoy; the fingerprint (method, path, a hash of the
// request body) of every finding's evidence must be the judged request's.
import { createHash } from 'node:crypto';
import { expect, test } from '@playwright/test';
import { DEFECTS } from '../../mock/defects.ts';
import { MOCK_KEYS, MOCK_MODELS } from '../../mock/keys-and-models.ts';
import type { MockOptions } from '../../mock/index.ts';
import { Checker, type CheckRecord } from '../../judge/checker.ts';
import type { Exchange, TargetResponse } from '../../judge/exchange.ts';
import { ALL_CHECKS } from '../../judge/checks/registry.ts';
import { check as defineCheck } from '../../judge/checks/check.ts';
import { judgeCompletion, judgeModelEntry, judgeModelList, judgeRefusal, judgeStream } from '../../judge/judge-response.ts';
import { SEARCH_PROMPT, WEB_SEARCH_TOOL } from '../../suites/lib/requests/search.ts';
import { WEATHER_PROMPT, WEATHER_TOOL } from '../../suites/lib/requests/tools.ts';
import { InProcessMock } from '../support/in-process.ts';

const M = MOCK_MODELS;
const hello = (model: string = M.small) => ({ model, messages: [{ role: 'user', content: 'Say hello.' }] });

/** What identifies a request in evidence: its method, its path and its body (hashed). */
export function fingerprint(x: Exchange): string {
  return `${x.method} ${x.path} ${x.requestBytes} ${createHash('sha256').update(x.requestBody ?? '').digest('hex').slice(0, 16)}`;
}

interface Probe {
  send(m: InProcessMock): Promise<TargetResponse>;
  judge(check: Checker, res: TargetResponse): void;
  declared?: string[];
}

/** One request of every kind the judge entry points take, each judged as the suite judges it. */
const PROBES: Record<string, Probe> = {
  'model list': { send: (m) => m.modelList(), judge: (c, r) => void judgeModelList(c, r, 'AUTH-006'), declared: ['AUTH-006'] },
  'model entry': { send: (m) => m.modelEntry(M.mini), judge: (c, r) => void judgeModelEntry(c, r, M.mini, `GET /v1/models/${M.mini}`), declared: ['CAT-036'] },
  chat: { send: (m) => m.chat(hello()), judge: (c, r) => void judgeCompletion(c, r, M.small) },
  'chat, tool call': { send: (m) => m.chat({ model: M.small, messages: [{ role: 'user', content: WEATHER_PROMPT }], tools: [WEATHER_TOOL] }), judge: (c, r) => void judgeCompletion(c, r, M.small) },
  'chat with reasoning': { send: (m) => m.chat({ ...hello(M.reasoner), reasoning: { effort: 'low' } }), judge: (c, r) => void judgeCompletion(c, r, M.reasoner) },
  'chat on a caching entry': { send: (m) => m.chat(hello(M.caching)), judge: (c, r) => void judgeCompletion(c, r, M.caching) },
  'chat with search': {
    send: (m) => m.chat({ model: M.large, messages: [{ role: 'user', content: SEARCH_PROMPT }], web_search_options: { search_context_size: 'high' } }),
    judge: (c, r) => void judgeCompletion(c, r, M.large),
  },
  'chat with a search tool': { send: (m) => m.chat({ model: M.small, messages: [{ role: 'user', content: SEARCH_PROMPT }], tools: [WEB_SEARCH_TOOL] }), judge: (c, r) => void judgeCompletion(c, r, M.small) },
  'chat, not answered (unknown model)': { send: (m) => m.chat(hello('chatconform/unknown-model')), judge: (c, r) => void judgeCompletion(c, r, 'chatconform/unknown-model') },
  stream: { send: (m) => m.stream({ ...hello(), stream_options: { include_usage: true } }), judge: (c, r) => void judgeStream(c, r, M.small, { includeUsage: true, expectText: true }) },
  'stream, tool call': { send: (m) => m.stream({ model: M.small, messages: [{ role: 'user', content: WEATHER_PROMPT }], tools: [WEATHER_TOOL] }), judge: (c, r) => void judgeStream(c, r, M.small) },
  'stream of a search': {
    send: (m) => m.stream({ model: M.small, messages: [{ role: 'user', content: SEARCH_PROMPT }], web_search_options: {}, stream_options: { include_usage: true } }),
    judge: (c, r) => void judgeStream(c, r, M.small, { includeUsage: true, expectText: true }),
  },
  'refusal: no credential': { send: (m) => m.chat(hello(), { key: null }), judge: (c, r) => void judgeRefusal(c, r, { id: 'AUTH-002' }), declared: ['AUTH-002'] },
  'refusal: restricted key': {
    send: (m) => m.chat(hello(M.large), { key: MOCK_KEYS.restricted }),
    judge: (c, r) => void judgeRefusal(c, r, { id: 'AUTH-008', status: 403, code: 'model_not_allowed', message: /./ }),
    declared: ['AUTH-008'],
  },
  'refusal that is not one (200)': { send: (m) => m.chat(hello()), judge: (c, r) => void judgeRefusal(c, r, { id: 'AUTH-002' }), declared: ['AUTH-002'] },
};

/** Judges one probe with a decoy request before and after it; returns the records, the judged response and the log. */
async function judgedBetweenDecoys(probe: Probe, options: MockOptions): Promise<{ records: CheckRecord[]; res: TargetResponse; log: InProcessMock }> {
  const log = new InProcessMock(options);
  await log.send('GET', '/v1/models/chatconform-decoy-before');
  const res = await probe.send(log);
  await log.chat({ ...hello(M.mini), messages: [{ role: 'user', content: 'A decoy sent after the judged request.' }] });
  const check = new Checker(log, { declared: () => probe.declared ?? [] });
  probe.judge(check, res);
  return { records: check.records, res, log };
}

/** The records whose evidence is not the judged request, described. */
function misattributed(records: CheckRecord[], res: TargetResponse, log: InProcessMock): string[] {
  const judged = fingerprint(res.exchange);
  return records
    .filter((r) => r.exchange === undefined || fingerprint(log.exchanges[r.exchange]!) !== judged)
    .map((r) => `${r.status} ${r.id}: evidence ${r.exchange === undefined ? 'none' : fingerprint(log.exchanges[r.exchange]!)}, judged ${judged}`);
}

test('every registered check, through the judge entry points, on the clean mock and in every defect mode: its finding carries the exchange it judged', async () => {
  test.setTimeout(120_000);
  const recorded = new Set<string>();
  const wrong: Record<string, string[]> = {};
  for (const options of [{}, ...DEFECTS.map((d) => ({ defect: d.name }) as MockOptions)]) {
    for (const [name, probe] of Object.entries(PROBES)) {
      const { records, res, log } = await judgedBetweenDecoys(probe, options);
      for (const r of records) recorded.add(r.id);
      const bad = misattributed(records, res, log);
      if (bad.length > 0) wrong[`${JSON.stringify(options)} ${name}`] = bad.slice(0, 3);
    }
  }
  expect(wrong).toEqual({});
  // Every registered check was walked: its requirement got at least one record here.
  expect(ALL_CHECKS.filter((c) => !recorded.has(c.id)).map((c) => `${c.id} (${c.name})`)).toEqual([]);
});

test.describe('every way a finding is recorded names the exchange it judged', () => {
  async function scene() {
    const log = new InProcessMock();
    const judged = await log.chat(hello('chatconform/unknown-model'));
    const control = await log.modelList();
    const check = new Checker(log, { declared: () => ['CHAT-013', 'CHAT-012', 'OBS-027', 'LIMIT-001'] });
    return { log, judged, control, check, at: (r: CheckRecord | undefined) => (r?.exchange === undefined ? undefined : log.exchanges[r.exchange]) };
  }

  test('that, status, observe, apply, couldNotJudge and cannotJudge, with a control request sent after', async () => {
    const { log, judged, check, at } = await scene();
    check.that('CHAT-013', false, 'the probe was left waiting', judged);
    check.status('CHAT-012', judged, 200);
    check.observe('OBS-027', { status: judged.status }, 'the unknown model', judged);
    check.apply([defineCheck('CHAT-012', function alwaysFails() {
      return ['a problem'];
    })], {}, judged);
    check.couldNotJudge('CHAT-012', judged);
    check.cannotJudge(['LIMIT-001'], { message: 'not answered', on: judged });
    expect(check.records).toHaveLength(6);
    for (const r of check.records) expect(fingerprint(at(r)!), `${r.status} ${r.id}`).toBe(fingerprint(judged.exchange));
    expect(log.exchanges.at(-1)!.path).toBe('/v1/models');
  });

  test('a finding on no exchange of the kit\'s carries none; one that names nothing is the kit\'s bug, never "the last exchange"', async () => {
    const { check } = await scene();
    check.that('CHAT-013', false, 'about the target\'s URL', null);
    expect(check.records[0]!.exchange).toBeUndefined();
    // @ts-expect-error every finding names the exchange it judged (or null)
    expect(() => check.that('CHAT-012', false, 'names no exchange')).toThrow(/names the exchange/);
    // @ts-expect-error observe too
    expect(() => check.observe('OBS-027', 1, 'names no exchange')).toThrow(/names the exchange/);
    expect(check.records).toHaveLength(1);
  });
});

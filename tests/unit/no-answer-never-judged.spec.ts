// An answer the kit did not get is never judged: a request that timed out on the kit's idle clock (before the head,
// or after it with the body stalled), a connection reset before any status, or no connection at all records `error`
// with the transport's cause (or a skip that names it), never a pass, a failure or a warning, whichever Checker
// method or judge entry point the judgement goes through (the guard is one place: Checker.judge).
//
// Per suite area (each spec file of the conformance suite, as the suite's index lists it): every judge entry point
// its tests declare is run on a real exchange of each kind (the model list, one entry, a completion, a stream, a raw
// upload) that the transport (run/http.ts, with a short idle timeout) lost against a tiny server on 127.0.0.1, and
// fed inputs that would fail it had the answer come. The only judgements that may fall on an exchange without an
// answer are the rules about how an upload ended (Checker.outcome: a body over the limit met by a reset).
import { rmSync } from 'node:fs';
import http from 'node:http';
import { expect, test } from '@playwright/test';
import { closedPort, listen, type Listening } from '../support/listen.ts';
import { unitRunConfig } from '../support/run-config.ts';
import { Target } from '../../run/target.ts';
import { Checker, type CheckRecord } from '../../judge/checker.ts';
import type { TargetResponse } from '../../judge/exchange.ts';
import { readChatStream } from '../../judge/decoding/chat-stream.ts';
import { JUDGE_ENTRIES } from '../../judge/entry-points.ts';
import { testIndex } from '../../run/test-index.ts';
import { requirements } from '../../spec/requirements/index.ts';
import * as acceptance from '../../judge/acceptance.ts';
import * as answers from '../../judge/answers.ts';
import * as comparisons from '../../judge/comparisons.ts';
import * as judgeResponse from '../../judge/judge-response.ts';
import * as limits from '../../judge/limits.ts';
import * as routing from '../../judge/routing.ts';
import * as search from '../../judge/search.ts';
import * as tokenCaps from '../../judge/token-caps.ts';
import { judgeAcceptedStatus } from '../../judge/acceptance.ts';
import { judgeCompletion } from '../../judge/judge-response.ts';
import { judgeCallsAgainstTools } from '../../judge/comparisons.ts';
import { WEATHER_PROMPT, WEATHER_TOOL, returnedCalls } from '../../suites/lib/requests/tools.ts';
import { COMPLETION_CHECKS } from '../../judge/checks/completion.ts';

/** The kit's idle clock in these tests: short, so that no test waits for a real target's 15 s. */
const IDLE_MS = 300;
const KEY = 'sk-unit-no-answer-0123456789';
const MODEL = 'm-small';
const OVERSIZED = 11 * 1024 * 1024;

/** How the exchange got no answer. */
type Loss = 'silent before the head' | 'stalled after the head' | 'reset before the head' | 'no connection';

/** One exchange of each kind the suite sends, every one lost the same way. */
interface Lost {
  target: Target;
  list: TargetResponse;
  entry: TargetResponse;
  chat: TargetResponse;
  stream: TargetResponse;
  upload: TargetResponse;
}

/** A stalling server: `silent` reads the request and never answers; `stall` sends the head and a little, then nothing; `reset` drops the connection. */
function stalling(how: 'silent' | 'stall' | 'reset'): http.Server {
  return http.createServer((req, res) => {
    if (how === 'reset') return void req.socket.destroy();
    req.resume();
    if (how === 'silent') return;
    const sse = req.headers['x-unit-kind'] === 'stream';
    res.writeHead(200, { 'content-type': sse ? 'text/event-stream' : 'application/json' });
    res.write(sse ? `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'another-model', choices: [{ index: 0, delta: { content: 'Hel' } }] })}\n\n` : '{"id":"c","choices":[');
  });
}

/** A chat request whose answer, had it come, the judgements below would read. */
const CHAT = { model: MODEL, messages: [{ role: 'user', content: WEATHER_PROMPT }], tools: [WEATHER_TOOL], tool_choice: { type: 'function', function: { name: 'get_weather' } }, web_search_options: {}, provider: { sort: 'price' }, max_completion_tokens: 5 };

async function lose(baseUrl: string, folders: string[]): Promise<Lost> {
  const target = new Target(unitRunConfig({ baseUrl, apiKey: KEY, folders }, { requestTimeoutMs: 10_000, idleTimeoutMs: IDLE_MS }));
  const padded = Buffer.from(`{"model":"${MODEL}","messages":[{"role":"user","content":"hi"}],"x_padding":"${'x'.repeat(OVERSIZED)}"}`);
  return {
    target,
    list: await target.get('/v1/models'),
    entry: await target.get(`/v1/models/${MODEL}`),
    chat: await target.chat(CHAT),
    stream: await target.chat({ ...CHAT, stream: true, stream_options: { include_usage: true } }, { headers: { 'x-unit-kind': 'stream' } }),
    upload: await target.postRaw('/v1/chat/completions', padded, { headers: { expect: '100-continue' } }),
  };
}

/** Inputs that would fail each judgement had the answer come: so a judgement that slipped past the guard shows. */
const damningStream = readChatStream([new TextEncoder().encode(`data: ${JSON.stringify({ choices: [{ index: 0, delta: {} }], annotations: [{ type: 'url_citation' }], usage: { service_web_search_calls: 1 } })}\n\n`)]);
const damningReport = { annotations: 0, actions: 0, calls: 2, citationsElsewhere: ['/choices/0/citations'], actionsElsewhere: ['/choices/0/actions'] };
const undeclaredCall = [{ position: 0, name: 'not_declared', arguments: '{"city":7}' }];

/** Every judge entry point, run on the lost exchanges: the name is the entry point's, so a new one must be added here. */
const RUNS: Record<string, (c: Checker, x: Lost) => unknown> = {
  judgeAccepted: (c, x) => acceptance.judgeAccepted(c, 'REQ-018', x.chat, MODEL, 'content parts'),
  judgeStreamAccepted: (c, x) => acceptance.judgeStreamAccepted(c, 'RSN-002', x.stream, MODEL, 'include_reasoning true'),
  judgeAcceptedStatus: (c, x) => acceptance.judgeAcceptedStatus(c, 'TOOL-004', x.chat, 'a function tool'),
  judgeNoEventStream: (c, x) => answers.judgeNoEventStream(c, x.stream, 'stream absent'),
  judgeStreamOptionsIgnored: (c, x) => answers.judgeStreamOptionsIgnored(c, x.stream, 'stream false'),
  judgeEventStreamAnswer: (c, x) => answers.judgeEventStreamAnswer(c, 'REQ-005', x.chat, 'stream true'),
  judgeAnsweredByRequested: (c, x) => answers.judgeAnsweredByRequested(c, x.stream),
  judgeCapOfAnswer: (c, x) => answers.judgeCapOfAnswer(c, x.stream),
  judgeRoutedModelKept: (c, x) => answers.judgeRoutedModelKept(c, x.stream),
  judgeCallsOfAnswer: (c, x) => answers.judgeCallsOfAnswer(c, x.chat),
  judgeSearchProvenanceOfAnswer: (c, x) => answers.judgeSearchProvenanceOfAnswer(c, x.stream),
  judgeReasoningOnlyWhereExposed: (c, x) => answers.judgeReasoningOnlyWhereExposed(c, x.stream, { id: MODEL, supports_reasoning: false }),
  judgeAnswerOfKind: (c, x) => answers.judgeAnswerOfKind(c, x.stream),
  judgeRefusedBeforeStream: (c, x) => answers.judgeRefusedBeforeStream(c, x.stream, 'no credential'),
  judgeCatalogReadServed: (c, x) => answers.judgeCatalogReadServed(c, x.list),
  judgeEntryReadBack: (c, x) => comparisons.judgeEntryReadBack(c, x.entry, { id: MODEL }, { id: MODEL, name: 'other' }, 'GET /v1/models/m'),
  judgeDeactivatedUnlisted: (c, x) => comparisons.judgeDeactivatedUnlisted(c, x.list, ['gone'], 'gone'),
  judgeListWhole: (c, x) => comparisons.judgeListWhole(c, x.list, [], [{ id: MODEL, res: { status: 200 } }]),
  judgeRefusedBeforeParsing: (c, x) => comparisons.judgeRefusedBeforeParsing(c, x.upload, x.upload, OVERSIZED),
  judgeRefusalAnswered: (c, x) => comparisons.judgeRefusalAnswered(c, x.upload, x.upload, OVERSIZED),
  judgeCallsNameDeclared: (c, x) => comparisons.judgeCallsNameDeclared(c, x.chat, undeclaredCall, ['get_weather'], 'the answer'),
  judgeCallArguments: (c, x) => comparisons.judgeCallArguments(c, x.chat, [{ position: 0, name: 'get_weather', arguments: '{"city":7}' }], [WEATHER_TOOL.function], 'the answer'),
  judgeForcedFunction: (c, x) => comparisons.judgeForcedFunction(c, x.chat, [], 'get_weather', false, 'tool_choice naming get_weather'),
  judgeForcedCallMade: (c, x) => void comparisons.judgeForcedCallMade(c, x.chat, [], false, ['TOOL-006', 'TOOL-015'], 'tool_choice "required"'),
  judgeModelKept: (c, x) => comparisons.judgeModelKept(c, x.chat, MODEL, ['another-model'], 'provider sort'),
  judgeProvokedFailure: (c, x) => comparisons.judgeProvokedFailure(c, x.stream, x.stream.stream(), 2, 'x-mock-fail-after: 2'),
  judgeCallsAgainstTools: (c, x) => comparisons.judgeCallsAgainstTools(c, x.chat, undeclaredCall, [WEATHER_TOOL.function], 'the answer'),
  judgeListedIdServed: (c, x) => comparisons.judgeListedIdServed(c, x.entry, MODEL),
  judgeCompletion: (c, x) => judgeResponse.judgeCompletion(c, x.chat, MODEL),
  judgeStream: (c, x) => judgeResponse.judgeStream(c, x.stream, MODEL, { includeUsage: true, expectText: true }),
  judgeRefusal: (c, x) => judgeResponse.judgeRefusal(c, x.chat, { id: 'AUTH-002', status: 401, code: 'x' }),
  judgeModelList: (c, x) => judgeResponse.judgeModelList(c, x.list, 'AUTH-006'),
  judgeModelEntry: (c, x) => judgeResponse.judgeModelEntry(c, x.entry, MODEL, 'GET /v1/models/m'),
  judgeOversizedRefused: (c, x) => limits.judgeOversizedRefused(c, x.upload, OVERSIZED, 'a valid JSON request'),
  judgeSizeNotRefused: (c, x) => limits.judgeSizeNotRefused(c, x.chat, 9_000_000),
  judgeModelKeptOrRefused: (c, x) => routing.judgeModelKeptOrRefused(c, x.chat, MODEL, 'provider sort'),
  judgeAnsweredEitherWay: (c, x) => routing.judgeAnsweredEitherWay(c, x.chat, 'provider sort'),
  judgeProvenancePlacement: (c, x) => search.judgeProvenancePlacement(c, damningReport, 'the answer', x.chat),
  judgeActionUrls: (c, x) => search.judgeActionUrls(c, { choices: [{ message: { service_web_search: [{ type: 'open_page', url: 7 }] } }] }, 'the answer', x.chat),
  judgeUpfront: (c, x) => search.judgeUpfront(c, x.stream, ['SEARCH-043'], 'SEARCH-044', 'a model that cannot search'),
  judgeStreamProvenance: (c, x) => search.judgeStreamProvenance(c, damningStream, x.stream),
  judgeRefusalUnbilled: (c, x) => search.judgeRefusalUnbilled(c, x.chat, 'the budget refusal'),
  judgeSearchAnswer: (c, x) => search.judgeSearchAnswer(c, x.chat, MODEL, 'web_search_options'),
  judgeCapInForce: (c, x) => tokenCaps.judgeCapInForce(c, x.chat, 1_000),
};

/** The rules about how an upload ended: a reset under an oversized body is their case (Checker.outcome), the only ones. */
const OUTCOME_RULES = new Set(['judgeOversizedRefused', 'judgeRefusedBeforeParsing', 'judgeRefusalAnswered']);

const ALL_IDS = requirements.map((r) => r.id);
const verdicts = (records: readonly CheckRecord[]) => records.filter((r) => r.status === 'pass' || r.status === 'fail' || r.status === 'warn');
const show = (records: readonly CheckRecord[]) => records.map((r) => `${r.status} ${r.id}: ${(r.message ?? '').slice(0, 160)}`);

/** The spec files of the suite and the judge entry points their tests declare (the suite's index). */
function areas(): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const t of testIndex().tests) {
    const set = out.get(t.file) ?? new Set<string>();
    for (const j of t.judges) set.add(j);
    out.set(t.file, set);
  }
  return out;
}

test('every judge entry point is run on a lost exchange here (a new one must be added)', () => {
  // The modules are imported above for their entry points; the registry is judge/entry-points.ts.
  void [acceptance, answers, comparisons, judgeResponse, limits, routing, search, tokenCaps];
  expect([...JUDGE_ENTRIES.keys()].filter((name) => !(name in RUNS)).sort()).toEqual([]);
  expect(Object.keys(RUNS).filter((name) => !JUDGE_ENTRIES.has(name)).sort()).toEqual([]);
});

const scratch: string[] = [];
const servers: Listening[] = [];
const lost = new Map<Loss, Lost>();

test.beforeAll(async () => {
  test.setTimeout(60_000);
  for (const [loss, how] of [['silent before the head', 'silent'], ['stalled after the head', 'stall'], ['reset before the head', 'reset']] as const) {
    const s = await listen(stalling(how));
    servers.push(s);
    lost.set(loss, await lose(s.url, scratch));
  }
  lost.set('no connection', await lose(`http://127.0.0.1:${await closedPort()}`, scratch));
});

test.afterAll(async () => {
  for (const s of servers) await s.close();
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
});

test('the exchanges really got no answer: each kind lost each way', () => {
  for (const [loss, x] of lost) {
    for (const kind of ['list', 'entry', 'chat', 'stream', 'upload'] as const) {
      const e = x[kind].exchange;
      const where = `${loss}, ${kind}: HTTP ${e.status} ${e.errorKind} ${e.error}`;
      expect(e.status, where).toBe(loss === 'stalled after the head' ? 200 : 0);
      expect(e.errorKind, where).toBe(loss === 'reset before the head' ? 'reset' : loss === 'no connection' ? 'refused' : 'timeout');
    }
  }
});

for (const [file, judges] of areas()) {
  test(`${file}: no judge entry point its tests declare gives a verdict on an answer the kit did not get`, () => {
    const slipped: string[] = [];
    for (const [loss, x] of lost) {
      for (const name of [...judges].sort()) {
        // A reset under the oversized upload is the case of the rules about how an upload ended.
        if (loss === 'reset before the head' && OUTCOME_RULES.has(name)) continue;
        const check = new Checker(x.target, { declared: () => ALL_IDS });
        RUNS[name]!(check, x);
        for (const line of show(verdicts(check.records))) slipped.push(`${loss}: ${name}: ${line}`);
        // What it could not judge says so: the transport's cause, on the lost exchange.
        for (const r of check.records.filter((r) => r.status === 'error')) expect(r.message, `${loss}: ${name}`).toMatch(/timeout|reset|refused|ECONN|transport/);
      }
    }
    expect(slipped).toEqual([]);
  });
}

test('whichever Checker method a spec file judges with, a lost answer is the kit\'s error with its cause', () => {
  for (const [loss, x] of lost) {
    for (const kind of ['list', 'entry', 'chat', 'stream', 'upload'] as const) {
      const res = x[kind];
      const check = new Checker(x.target, { declared: () => ALL_IDS });
      check.that('TOOL-013', false, 'would fail', res);
      check.that('TOOL-001', true, '', res);
      check.that('CHAT-001', false, 'would warn', x.target.exchanges.indexOf(res.exchange));
      check.status('REQ-013', res, 200);
      check.apply(COMPLETION_CHECKS, { body: { id: '', choices: [] }, model: MODEL, what: 'completion' }, res);
      expect(show(verdicts(check.records)), `${loss}, ${kind}`).toEqual([]);
      expect(check.records.find((r) => r.id === 'TOOL-013')?.status).toBe('error');
      expect(check.records.find((r) => r.id === 'TOOL-013')?.message).toContain(res.exchange.error!);
      // Once per requirement and exchange, however many checks met it.
      expect(check.records.filter((r) => r.id === 'RESP-002').length, `${loss}, ${kind}`).toBeLessThanOrEqual(1);
    }
  }
});

test('tools.spec.ts\'s first test on a request the kit stopped waiting for: no TOOL-001/004/009 failure, only errors (issue: a kit timeout charged as TOOL-004)', () => {
  for (const loss of ['silent before the head', 'stalled after the head'] as const) {
    const x = lost.get(loss)!;
    const res = x.chat;
    const check = new Checker(x.target, { declared: () => ALL_IDS });
    judgeAcceptedStatus(check, 'TOOL-001', res, 'a request with a tools array');
    judgeAcceptedStatus(check, 'TOOL-004', res, 'a tool of type "function" with a function object');
    judgeAcceptedStatus(check, 'TOOL-009', res, 'a function tool whose parameters is a JSON Schema object');
    const body = judgeCompletion(check, res, MODEL);
    judgeCallsAgainstTools(check, res, returnedCalls(body), [WEATHER_TOOL.function], 'tool_choice "required"');
    expect(show(verdicts(check.records))).toEqual([]);
    for (const id of ['TOOL-001', 'TOOL-004', 'TOOL-009']) {
      const r = check.records.find((r) => r.id === id);
      expect(r?.status, `${loss}: ${id}`).toBe('error');
      expect(r?.message).toMatch(/timeout: request timed out after 300 ms/);
    }
  }
});

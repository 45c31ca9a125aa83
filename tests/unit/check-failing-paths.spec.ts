// Every check's failing path, in process and in milliseconds: each defect mode of the mock (mock/defects.ts) is
// provoked by the request the suite sends for it, the answer is judged by the judge entry point the suite calls
// (judge/judge-response.ts) with a fresh Checker, and the finding must be there: a `fail` (a `warn` for a SHOULD)
// under the requirement the defect breaks (its primary), with a message, pointing at the exchange it judged. The
// same requests against the clean mock and every legal variant (mock/variants.ts) must find nothing. The
// whole-suite matrix (tests/integration/defect-matrix.spec.ts) proves the same through the suite, in minutes;
// this proves the judging half of it for every defect whose judgement lives in the judge library.
import { expect, test } from '@playwright/test';
import { DEFECTS, type DefectName } from '../../mock/defects.ts';
import { VARIANTS, type VariantName } from '../../mock/variants.ts';
import { DEFAULT_BODY_LIMIT_BYTES, type MockOptions } from '../../mock/index.ts';
import { MOCK_KEYS, MOCK_MODELS } from '../../mock/keys-and-models.ts';
import { Checker, type CheckRecord } from '../../judge/checker.ts';
import type { TargetResponse } from '../../judge/exchange.ts';
import { judgeCompletion, judgeModelEntry, judgeModelList, judgeRefusal, judgeStream } from '../../judge/judge-response.ts';
import { judgeCallArguments, judgeCallsNameDeclared, judgeDeactivatedUnlisted, judgeForcedFunction, judgeListWhole, judgeProvokedFailure, judgeEntryReadBack, judgeRefusalAnswered, judgeModelKept, judgeRefusedBeforeParsing } from '../../judge/comparisons.ts';
import { judgeCapInForce } from '../../judge/token-caps.ts';
import { isObject } from '../../judge/checks/check.ts';
import { getRequirement, primaryOf, requirements } from '../../spec/requirements/index.ts';
import { requirementLinks } from '../../scripts/requirement-links.ts';
import { TINY_PNG_DATA_URL } from '../../suites/lib/requests/features.ts';
import { SEARCH_MESSAGES, SEARCH_PROMPT, WEB_SEARCH_TOOL } from '../../suites/lib/requests/search.ts';
import { judgeUpfront } from '../../judge/search.ts';
import { judgeOversizedRefused } from '../../judge/limits.ts';
import { PARALLEL_PROMPT, TIME_TOOL, WEATHER_PROMPT, WEATHER_TOOL, returnedCalls } from '../../suites/lib/requests/tools.ts';
import { LONG_ANSWER_PROMPT, completionTokensOf } from '../../suites/lib/requests/chat.ts';
import { InProcessMock } from '../support/in-process.ts';

type Json = Record<string, unknown>;
const M = MOCK_MODELS;
const HELLO = [{ role: 'user', content: 'Say hello.' }];
const hello = (model: string = M.small): Json => ({ model, messages: HELLO });

/**
 * One kind of request the suite sends, and how the suite judges its answer: the judge entry point (and, for a
 * request sent to provoke a refusal, the requirement it is judged under, which the test declares). A comparison
 * sends the answer it compares with first (`compared`); `send` gives the answer judged, the finding's evidence.
 */
interface Probe {
  compared?(m: InProcessMock): Promise<TargetResponse>;
  send(m: InProcessMock): Promise<TargetResponse>;
  judge(check: Checker, res: TargetResponse, compared?: TargetResponse): void;
  /** The IDs the suite's test declares for what `judge` checks directly (registered checks need none). */
  declared?: string[];
}

/** An oversized body (section 8): over the default limit by a little, valid JSON or not. */
const OVERSIZED = DEFAULT_BODY_LIMIT_BYTES + 1024;
const padded = (bytes: number): string => {
  const head = `{"model":"${M.small}","messages":[{"role":"user","content":"Say hello."}],"x_padding":"`;
  return `${head}${'a'.repeat(bytes - head.length - 2)}"}`;
};
/** Not JSON (it breaks off after the first member name), as long as a padded body: the suite's LIMIT-002 upload. */
const notJson = (bytes: number): string => {
  const head = '{"model": not json at all ';
  return head + '#'.repeat(bytes - head.length);
};
/** The entries a model list gives (none when it is no list). */
const listed = (res: TargetResponse | undefined): Json[] => {
  const body = res?.json();
  return isObject(body) && Array.isArray(body.data) ? body.data.filter(isObject) : [];
};
/** The suite's small cap (chat.spec.ts) and a larger max_tokens sent beside it. */
const SMALL_CAP = 5;
const LARGE_CAP = 40;
/** The caps of the answer in `res` judged as chat.spec.ts judges them: usage.completion_tokens within the cap in force. */
const judgeCaps = (c: Checker, r: TargetResponse, ids?: string[]) => {
  const used = completionTokensOf(judgeCompletion(c, r, M.small));
  if (used !== undefined) judgeCapInForce(c, r, used, ids);
};
/** 1 MiB: over a mistaken 1,000,000-byte limit, well under the contract's 10 MB. */
const ONE_MIB = 1024 * 1024;
/** Just under 10 MB under both readings (the suite's LIMIT-003 body): over a 1 MiB limit, a common default. */
const JUST_UNDER_10_MB = 10_000_000 - 64 * 1024;

const PROBES = {
  // The catalog (2.10, 2.11, 4.1, 4.2).
  'model list': { send: (m) => m.modelList(), judge: (c, r) => judgeModelList(c, r, 'AUTH-006'), declared: ['AUTH-006'] },
  'model list without a credential': { send: (m) => m.modelList({ key: null }), judge: (c, r) => judgeModelList(c, r, 'AUTH-005'), declared: ['AUTH-005'] },
  'model list, a deactivated model': {
    send: (m) => m.modelList(),
    judge: (c, r) => void judgeDeactivatedUnlisted(c, r, listed(r).map((e) => e.id), M.deactivated),
    declared: ['CAT-039'],
  },
  // catalog.spec.ts: the entry read on its own, compared with the list's.
  'model entry read back': {
    compared: (m) => m.modelList(),
    // An entry with a description (the field a summary list view drops).
    send: (m) => m.modelEntry(M.small),
    judge: (c, r, list) => {
      const entry = judgeModelEntry(c, r, M.small, `GET /v1/models/${M.small}`);
      const inList = listed(list).find((e) => e.id === M.small);
      if (entry && inList) judgeEntryReadBack(c, r, entry, inList, `GET /v1/models/${M.small}`);
    },
    declared: ['CAT-036', 'CAT-037'],
  },
  // catalog.spec.ts: a model the profile names, read on its own first, then the list that should hold it.
  'model list, a profile-named model read back': {
    compared: (m) => m.modelEntry(M.reasoner),
    send: (m) => m.modelList(),
    judge: (c, r, entry) => void judgeListWhole(c, r, listed(r).map((e) => e.id), [{ id: M.reasoner, res: entry! }]),
    declared: ['CAT-045'],
  },
  'model entry': { send: (m) => m.modelEntry(M.mini), judge: (c, r) => void judgeModelEntry(c, r, M.mini, `GET /v1/models/${M.mini}`), declared: ['CAT-036'] },
  // Completions (2.9, 4.3).
  chat: { send: (m) => m.chat(hello()), judge: (c, r) => void judgeCompletion(c, r, M.small) },
  'chat, tools declared, text answer': {
    send: (m) => m.chat({ ...hello(), tools: [WEATHER_TOOL], tool_choice: 'none' }),
    judge: (c, r) => void judgeCompletion(c, r, M.small),
  },
  'chat, tool call': {
    send: (m) => m.chat({ model: M.small, messages: [{ role: 'user', content: WEATHER_PROMPT }], tools: [WEATHER_TOOL] }),
    judge: (c, r) => void judgeCompletion(c, r, M.small),
  },
  'chat with reasoning': {
    send: (m) => m.chat({ ...hello(M.reasoner), reasoning: { effort: 'low' } }),
    judge: (c, r) => void judgeCompletion(c, r, M.reasoner),
  },
  // chat.spec.ts and the token-caps property: usage.completion_tokens within the cap in force.
  'chat, max_completion_tokens alone': {
    send: (m) => m.chat({ model: M.small, messages: [{ role: 'user', content: LONG_ANSWER_PROMPT }], max_completion_tokens: SMALL_CAP }),
    judge: (c, r) => judgeCaps(c, r),
    declared: ['REQ-010'],
  },
  'chat, both caps, max_completion_tokens the smaller': {
    send: (m) => m.chat({ model: M.small, messages: [{ role: 'user', content: LONG_ANSWER_PROMPT }], max_tokens: LARGE_CAP, max_completion_tokens: SMALL_CAP }),
    judge: (c, r) => judgeCaps(c, r),
    declared: ['REQ-011', 'CHAT-008'],
  },
  'chat, tool call, the names judged': {
    send: (m) => m.chat({ model: M.small, messages: [{ role: 'user', content: WEATHER_PROMPT }], tools: [WEATHER_TOOL], tool_choice: 'required' }),
    judge: (c, r) => {
      const calls = returnedCalls(judgeCompletion(c, r, M.small));
      judgeCallsNameDeclared(c, r, calls, [WEATHER_TOOL.function.name], 'tool_choice "required"');
      judgeCallArguments(c, r, calls, [WEATHER_TOOL.function], 'tool_choice "required"');
    },
    declared: ['TOOL-006', 'TOOL-015'],
  },
  // tools.spec.ts: a tool_choice object naming one function (the prompt names neither declared function).
  'chat, tool_choice naming one function': {
    send: (m) =>
      m.chat({ model: M.small, messages: [{ role: 'user', content: 'What time is it in Tokyo?' }], tools: [WEATHER_TOOL, TIME_TOOL], tool_choice: { type: 'function', function: { name: TIME_TOOL.function.name } } }),
    judge: (c, r) => {
      const calls = returnedCalls(judgeCompletion(c, r, M.small));
      judgeCallArguments(c, r, calls, [WEATHER_TOOL.function, TIME_TOOL.function], 'tool_choice naming get_local_time');
      judgeForcedFunction(c, r, calls, TIME_TOOL.function.name, false, 'tool_choice naming get_local_time');
    },
    declared: ['TOOL-015', 'TOOL-016'],
  },
  // routing.spec.ts (checkModelKept): a completion names the requested entry; a refusal is a section 7 error.
  'chat, allow_fallbacks false, an order naming no route': {
    send: (m) => m.chat({ ...hello(M.small), provider: { order: ['chatconform-no-such-route'], allow_fallbacks: false } }),
    judge: (c, r) => {
      if (r.status !== 200) return void judgeRefusal(c, r, { id: 'ROUTE-008' });
      const body = judgeCompletion(c, r, M.small);
      if (body) judgeModelKept(c, r, M.small, [body.model], 'provider {order: [no such route], allow_fallbacks: false}');
    },
    declared: ['ROUTE-008'],
  },
  'chat on a caching entry': { send: (m) => m.chat(hello(M.caching)), judge: (c, r) => void judgeCompletion(c, r, M.caching) },
  'chat with stream_options, not streamed': {
    send: (m) => m.chat({ ...hello(), stream_options: { include_usage: true } }),
    judge: (c, r) => void judgeCompletion(c, r, M.small),
  },
  'chat with an unknown top-level field': {
    send: (m) => m.chat({ ...hello(), chatconform_unread: true, x_chatconform_flag: 1 }),
    judge: (c, r) => void judgeCompletion(c, r, M.small, { statusId: 'REQ-013' }),
    declared: ['REQ-013'],
  },
  'chat with the unlisted fields real clients send': {
    send: (m) => m.chat({ ...hello(), n: 1, seed: 7, stop: ['never'], store: false, logprobs: false, user: 'u', presence_penalty: 0, frequency_penalty: 0, response_format: { type: 'text' } }),
    judge: (c, r) => void judgeCompletion(c, r, M.small, { statusId: 'REQ-013' }),
    declared: ['REQ-013'],
  },
  'chat with the nested fields real clients send': {
    send: (m) =>
      m.chat({
        ...hello(),
        messages: [{ role: 'user', content: 'Hi.' }, { role: 'assistant', content: 'Hello.', refusal: null }, { role: 'user', content: 'Say hello.' }],
        tools: [{ ...WEATHER_TOOL, function: { ...WEATHER_TOOL.function, strict: false } }],
        provider: { allow_fallbacks: true, data_collection: 'allow' },
      }),
    judge: (c, r) => void judgeCompletion(c, r, M.small, { statusId: 'REQ-014' }),
    declared: ['REQ-014'],
  },
  // No system message: which roles a model takes is a gap of 4.3 (legal variant system-role-refused).
  'chat with text parts in an assistant message': {
    send: (m) => m.chat({ ...hello(), messages: [{ role: 'user', content: 'Hi.' }, { role: 'assistant', content: [{ type: 'text', text: 'Hello.' }] }, { role: 'user', content: 'Say hello.' }] }),
    judge: (c, r) => void judgeCompletion(c, r, M.small, { statusId: 'REQ-018' }),
    declared: ['REQ-018'],
  },
  'chat with include_reasoning false': {
    send: (m) => m.chat({ ...hello(), include_reasoning: false }),
    judge: (c, r) => void judgeCompletion(c, r, M.small, { statusId: 'RSN-002' }),
    declared: ['RSN-002'],
  },
  'chat of 1 MiB': { send: (m) => m.raw(padded(ONE_MIB)), judge: (c, r) => void judgeCompletion(c, r, M.small, { statusId: 'LIMIT-003' }), declared: ['LIMIT-003'] },
  'chat just under 10 MB': { send: (m) => m.raw(padded(JUST_UNDER_10_MB)), judge: (c, r) => void judgeCompletion(c, r, M.small, { statusId: 'LIMIT-003' }), declared: ['LIMIT-003'] },
  // Hosted web search (2.7, 2.9).
  'search, context size high': {
    send: (m) => m.chat({ model: M.large, messages: [{ role: 'user', content: SEARCH_PROMPT }], web_search_options: { search_context_size: 'high' } }),
    judge: (c, r) => void judgeCompletion(c, r, M.large),
  },
  'search by a bare web_search tool': {
    send: (m) => m.chat({ model: M.small, messages: [{ role: 'user', content: SEARCH_PROMPT }], tools: [WEB_SEARCH_TOOL] }),
    judge: (c, r) => void judgeCompletion(c, r, M.small),
  },
  // web-search.spec.ts: the bare tool's status judged under the rule that asks for it to be accepted.
  'search by a bare web_search tool, its status': {
    send: (m) => m.chat({ model: M.small, messages: [{ role: 'user', content: SEARCH_PROMPT }], tools: [WEB_SEARCH_TOOL] }),
    judge: (c, r) => void judgeCompletion(c, r, M.small, { statusId: 'SEARCH-003' }),
    declared: ['SEARCH-003'],
  },
  // Streams (6).
  stream: {
    send: (m) => m.stream({ ...hello(), stream_options: { include_usage: true } }),
    judge: (c, r) => void judgeStream(c, r, M.small, { includeUsage: true, expectText: true }),
  },
  'stream, tool call': {
    send: (m) => m.stream({ model: M.small, messages: [{ role: 'user', content: WEATHER_PROMPT }], tools: [WEATHER_TOOL] }),
    judge: (c, r) => void judgeStream(c, r, M.small),
  },
  // tools.spec.ts: tools sent with stream, the status judged under the rule that asks for tools to be accepted.
  'stream, tools, their status': {
    send: (m) => m.stream({ model: M.small, messages: [{ role: 'user', content: WEATHER_PROMPT }], tools: [WEATHER_TOOL, TIME_TOOL] }),
    judge: (c, r) => void judgeStream(c, r, M.small, { statusId: 'TOOL-001' }),
    declared: ['TOOL-001'],
  },
  'stream, parallel tool calls': {
    send: (m) => m.stream({ model: M.small, messages: [{ role: 'user', content: PARALLEL_PROMPT }], tools: [WEATHER_TOOL, TIME_TOOL], tool_choice: 'required' }),
    judge: (c, r) => void judgeStream(c, r, M.small),
  },
  'stream with reasoning': {
    send: (m) => m.stream({ ...hello(M.reasoner), reasoning: { effort: 'low' } }),
    judge: (c, r) => void judgeStream(c, r, M.reasoner, { expectText: true }),
  },
  'stream of a search, include_usage': {
    send: (m) => m.stream({ model: M.small, messages: [{ role: 'user', content: SEARCH_PROMPT }], web_search_options: {}, stream_options: { include_usage: true } }),
    judge: (c, r) => void judgeStream(c, r, M.small, { includeUsage: true, expectText: true }),
  },
  // streaming.spec.ts: a failure provoked after the stream opened (x-mock-fail-after) ends on an error event.
  'stream failing after 2 chunks': {
    send: (m) => m.stream({ ...hello(), max_completion_tokens: 24 }, { headers: { 'x-mock-fail-after': '2' } }),
    judge: (c, r) => {
      const s = judgeStream(c, r, M.small, { expectError: true });
      if (s) judgeProvokedFailure(c, r, s, 2, 'x-mock-fail-after: 2');
    },
    declared: ['STREAM-017', 'STREAM-020'],
  },
  'stream failing after 0 chunks': {
    send: (m) => m.stream({ ...hello(), max_completion_tokens: 24 }, { headers: { 'x-mock-fail-after': '0' } }),
    judge: (c, r) => {
      const s = judgeStream(c, r, M.small, { expectError: true });
      if (s) judgeProvokedFailure(c, r, s, 0, 'x-mock-fail-after: 0');
    },
    declared: ['STREAM-017', 'STREAM-020'],
  },
  // Refusals (5, 7, 8), each judged under the requirement the suite's test names.
  'refused: no credential': { send: (m) => m.chat(hello(), { key: null }), judge: (c, r) => void judgeRefusal(c, r, { id: 'AUTH-002' }), declared: ['AUTH-002'] },
  'refused: an unknown key': {
    send: (m) => m.chat(hello(), { key: 'sk-mock-unknown-0123456789abcdef' }),
    judge: (c, r) => void judgeRefusal(c, r, { id: 'AUTH-003' }),
    declared: ['AUTH-003'],
  },
  'refused: a restricted key asks for another model': {
    send: (m) => m.chat(hello(M.large), { key: MOCK_KEYS.restricted }),
    judge: (c, r) => void judgeRefusal(c, r, { id: 'AUTH-008', status: 403, code: 'model_not_allowed' }),
    declared: ['AUTH-008'],
  },
  'refused: a free key asks for a pro entry': {
    send: (m) => m.chat(hello(M.large), { key: MOCK_KEYS.free }),
    judge: (c, r) => void judgeRefusal(c, r, { id: 'AUTH-010' }),
    declared: ['AUTH-010'],
  },
  'refused: an effort outside the entry\'s set': {
    send: (m) => m.chat({ ...hello(M.tinyReasoner), reasoning: { effort: 'xhigh' } }),
    judge: (c, r) => void judgeRefusal(c, r, { id: 'RSN-006', status: 400 }),
    declared: ['RSN-006'],
  },
  'refused: an image to an entry without images': {
    send: (m) =>
      m.chat({ model: M.small, messages: [{ role: 'user', content: [{ type: 'text', text: 'What is in this image?' }, { type: 'image_url', image_url: { url: TINY_PNG_DATA_URL } }] }] }),
    judge: (c, r) => void judgeRefusal(c, r, { id: 'IMG-006' }),
    declared: ['IMG-006'],
  },
  'refused: tool calls without declared tools': {
    send: (m) =>
      m.chat({
        model: M.small,
        messages: [
          { role: 'user', content: WEATHER_PROMPT },
          { role: 'assistant', content: 'Checking the weather in Paris.', tool_calls: [{ id: 'call_kit_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
          { role: 'tool', tool_call_id: 'call_kit_1', content: '{"temperature_c":18}' },
        ],
      }),
    // tools.spec.ts: a client error (the 4xx is a gap), never an upstream failure.
    judge: (c, r) => void judgeRefusal(c, r, { id: 'TOOL-013', status: (s) => s >= 400 && s < 500 }),
    declared: ['TOOL-013'],
  },
  'refused: a model that cannot search': {
    send: (m) => m.chat({ ...hello(M.mini), web_search_options: {} }),
    judge: (c, r) => void judgeRefusal(c, r, { id: 'SEARCH-045', code: 'web_search_not_supported', message: SEARCH_MESSAGES.notSupported }),
    declared: ['SEARCH-045'],
  },
  'refused: a model that cannot search, streamed': {
    send: (m) => m.stream({ ...hello(M.mini), web_search_options: {} }),
    judge: (c, r) => judgeUpfront(c, r, ['SEARCH-043'], 'SEARCH-044', 'web_search_options with stream true'),
    declared: ['SEARCH-043', 'SEARCH-044'],
  },
  'refused: an unknown search_context_size': {
    send: (m) => m.chat({ ...hello(), web_search_options: { search_context_size: 'maximum' } }),
    judge: (c, r) => void judgeRefusal(c, r, { id: 'SEARCH-046', status: 400, code: 'invalid_web_search_options', message: SEARCH_MESSAGES.contextSize }),
    declared: ['SEARCH-046'],
  },
  'refused: allow_fallbacks false, no ranked route up': {
    send: (m) => m.chat({ ...hello(M.routes), provider: { order: ['route-down'], allow_fallbacks: false } }),
    judge: (c, r) => void judgeRefusal(c, r, { id: 'ROUTE-005' }),
    declared: ['ROUTE-005'],
  },
  'refused: a deactivated model': {
    send: (m) => m.chat(hello(M.deactivated)),
    judge: (c, r) => void judgeRefusal(c, r, { id: 'ERR-007', status: 403, code: 'model_not_found' }),
    declared: ['ERR-007'],
  },
  'refused: an unavailable model': {
    send: (m) => m.chat(hello(M.unavailable)),
    judge: (c, r) => void judgeRefusal(c, r, { id: 'ERR-008', status: 503, code: 'model_unavailable' }),
    declared: ['ERR-008'],
  },
  // streaming.spec.ts: a failure before a stream opens (no key; a scenario 503) is a non-200 JSON error.
  'refused: a stream without a credential': {
    send: (m) => m.stream(hello(), { key: null }),
    judge: (c, r) => void judgeRefusal(c, r, { id: 'ERR-005', status: (s) => s !== 200 }),
    declared: ['ERR-005'],
  },
  'refused: a stream answered x-mock-status 503': {
    send: (m) => m.stream(hello(), { headers: { 'x-mock-status': '503' } }),
    judge: (c, r) => void judgeRefusal(c, r, { id: 'ERR-005', status: (s) => s !== 200 }),
    declared: ['ERR-005'],
  },
  // limits.spec.ts: the valid JSON upload first, then the one that is not JSON (the evidence).
  'refused: oversized bodies, valid JSON and not': {
    compared: (m) => m.raw(padded(OVERSIZED)),
    send: (m) => m.raw(notJson(OVERSIZED)),
    judge: (c, r, valid) => {
      judgeRefusedBeforeParsing(c, valid!, r, OVERSIZED);
      judgeRefusalAnswered(c, valid!, r, OVERSIZED);
    },
    declared: ['LIMIT-002', 'LIMIT-007'],
  },
  // The same two uploads the other way round, sent as limits.spec.ts sends them (Expect: 100-continue): LIMIT-001's
  // and LIMIT-007's evidence is the valid JSON upload.
  'refused: oversized bodies, not JSON and valid, with Expect: 100-continue': {
    compared: (m) => m.raw(notJson(OVERSIZED), { headers: { expect: '100-continue' } }),
    send: (m) => m.raw(padded(OVERSIZED), { headers: { expect: '100-continue' } }),
    judge: (c, r, garbage) => {
      judgeOversizedRefused(c, r, OVERSIZED, 'a valid JSON request');
      judgeRefusalAnswered(c, r, garbage!, OVERSIZED);
    },
    declared: ['LIMIT-001', 'LIMIT-007'],
  },
  'refused: an oversized body': { send: (m) => m.raw(padded(OVERSIZED)), judge: (c, r) => void judgeRefusal(c, r, { id: 'LIMIT-001' }), declared: ['LIMIT-001'] },
} satisfies Record<string, Probe>;

type ProbeName = keyof typeof PROBES;

/** Each defect the judge library catches on one answer: the request that provokes it. */
const ROWS: Partial<Record<DefectName, ProbeName>> = {
  'catalog-null-optional': 'model list',
  'catalog-backend-field': 'model list',
  'catalog-openai-fields': 'model list',
  'catalog-price-strings': 'model list',
  'catalog-requires-credential': 'model list without a credential',
  'catalog-duplicate-entry': 'model list',
  'catalog-list-object-wrong': 'model list',
  'catalog-no-entry-route': 'model entry',
  'chat-without-credential': 'refused: no credential',
  'invalid-key-accepted': 'refused: an unknown key',
  'restricted-key-rerouted': 'refused: a restricted key asks for another model',
  'tier-not-enforced': 'refused: a free key asks for a pro entry',
  'unknown-field-rejected': 'chat with an unknown top-level field',
  'client-fields-refused': 'chat with the unlisted fields real clients send',
  'client-nested-fields-refused': 'chat with the nested fields real clients send',
  'parts-only-for-user': 'chat with text parts in an assistant message',
  'include-reasoning-false-refused': 'chat with include_reasoning false',
  'effort-accepted': 'refused: an effort outside the entry\'s set',
  'image-to-non-image-answered': 'refused: an image to an entry without images',
  'message-null-fields': 'chat, tools declared, text answer',
  'finish-reason-null': 'chat, tool call',
  'response-model-rerouted': 'chat with reasoning',
  'cached-tokens-zero': 'chat on a caching entry',
  'usage-total-mismatch': 'chat with reasoning',
  'created-milliseconds': 'chat',
  'completion-id-empty': 'chat',
  'tool-arguments-object': 'stream, tool call',
  'tool-arguments-not-json': 'chat, tool call',
  // The streamed path for the empty id (the streamed-call check), the answer's for the missing type (the schema rule).
  'tool-call-id-empty': 'stream, tool call',
  'tool-call-type-missing': 'chat, tool call',
  'tools-undeclared-500': 'refused: tool calls without declared tools',
  'parallel-tool-index-wrong': 'stream, parallel tool calls',
  'search-refusal-message': 'refused: a model that cannot search',
  'search-context-size-lenient': 'refused: an unknown search_context_size',
  'search-action-url-on-search': 'search, context size high',
  'citation-out-of-bounds': 'search, context size high',
  'citation-http-url': 'search by a bare web_search tool',
  'search-actions-in-annotations': 'stream of a search, include_usage',
  'search-calls-zero': 'chat with stream_options, not streamed',
  'search-refusal-streamed': 'refused: a model that cannot search, streamed',
  'search-calls-miscounted': 'search, context size high',
  'allow-fallbacks-ignored': 'refused: allow_fallbacks false, no ranked route up',
  'stream-no-done': 'stream, tool call',
  'stream-events-after-done': 'stream of a search, include_usage',
  'stream-named-events': 'stream with reasoning',
  'stream-usage-missing': 'stream of a search, include_usage',
  'stream-finish-reason-null': 'stream, tool call',
  'stream-no-blank-line': 'stream',
  'stream-text-legacy-field': 'stream',
  'stream-wrong-content-type': 'stream',
  'stream-usage-after-done': 'stream',
  'chunk-ids-differ': 'stream',
  'chunk-created-milliseconds': 'stream',
  'unavailable-500': 'refused: an unavailable model',
  'deactivated-404': 'refused: a deactivated model',
  'error-plain-text': 'refused: a restricted key asks for another model',
  'error-no-code': 'refused: a stream answered x-mock-status 503',
  'stream-error-as-200': 'refused: a stream without a credential',
  'error-type-missing': 'refused: no credential',
  'oversized-accepted': 'refused: an oversized body',
  'body-limit-1mb': 'chat of 1 MiB',
  'body-limit-1mib': 'chat just under 10 MB',
  'catalog-get-differs': 'model entry read back',
  'catalog-lists-deactivated': 'model list, a deactivated model',
  'oversized-parsed-first': 'refused: oversized bodies, valid JSON and not',
  'oversized-reset': 'refused: oversized bodies, not JSON and valid, with Expect: 100-continue',
  'oversized-reset-mid-upload': 'refused: oversized bodies, not JSON and valid, with Expect: 100-continue',
  'max-tokens-wins': 'chat, both caps, max_completion_tokens the smaller',
  'cap-ignored': 'chat, max_completion_tokens alone',
  'tool-call-undeclared-name': 'chat, tool call, the names judged',
  'routing-substitute-model': 'chat, allow_fallbacks false, an order naming no route',
  'catalog-name-missing': 'model list',
  'catalog-context-window-string': 'model list',
  'catalog-false-omitted': 'model list',
  'catalog-description-empty': 'model list',
  'catalog-thinking-config-array': 'model list',
  'catalog-tiers-list': 'model list',
  'catalog-featured-label-unfeatured': 'model list',
  'response-object-missing': 'chat',
  'created-iso-string': 'chat',
  'choice-index-from-one': 'chat',
  'message-role-model': 'chat',
  'reasoning-content-blocks': 'chat with reasoning',
  'usage-cost-string': 'chat',
  'tool-call-name-outside-function': 'chat, tool call',
  'error-message-object': 'refused: an unavailable model',
  'catalog-credit-tier-ordinal': 'model list',
  'prompt-tokens-zero': 'chat',
  'tool-call-tokens-uncounted': 'chat, tool call',
  'created-stale': 'chat',
  'stream-tool-call-id-changes': 'stream, tool call',
  'parallel-tool-ids-shared': 'stream, parallel tool calls',
  'tool-arguments-double-encoded': 'chat, tool call, the names judged',
  'tool-choice-object-ignored': 'chat, tool_choice naming one function',
  'search-calls-omitted': 'search, context size high',
  'catalog-first-page': 'model list, a profile-named model read back',
  'stream-error-as-done': 'stream failing after 0 chunks',
  'stream-error-as-text': 'stream failing after 2 chunks',
  'tools-stream-500': 'stream, tools, their status',
  'search-tool-500': 'search by a bare web_search tool, its status',
  'max-completion-tokens-ignored': 'chat, max_completion_tokens alone',
  'unknown-prompt-404': 'search, context size high',
  'catalog-list-500': 'model list',
};

/**
 * What else a defect's answer is found to break, beside its own requirement: pinned, so that a deviation charged to
 * one more requirement (or one fewer) shows in review. Each is a rule of its own that the same bytes break.
 */
const ALSO_FOUND: Partial<Record<DefectName, string[]>> = {
  // Every price is a string: the output, cache-write and cache-read prices have a rule each (CAT-012 is input_price's).
  'catalog-price-strings': ['fail CAT-013', 'fail CAT-014', 'fail CAT-015'],
  // cache_write_tokens 0 as well: RESP-026 wants it omitted when zero, as RESP-025 does cached_tokens.
  'cached-tokens-zero': ['fail RESP-026'],
  // arguments that are an object are also not a JSON string that decodes.
  'tool-arguments-object': ['fail RESP-020'],
  // The actions in annotations are annotations that are not url_citation entries.
  'search-actions-in-annotations': ['fail SEARCH-022'],
  // service_web_search_calls present although no search action completed.
  'search-calls-zero': ['fail SEARCH-038'],
  // The refusal came as a stream with text: also a partial answer.
  'search-refusal-streamed': ['fail SEARCH-044'],
  // The provenance sent after [DONE] is not part of the stream: the usage that counts 3 searches is, and lists no action.
  'stream-events-after-done': ['fail SEARCH-038'],
  // Usage after [DONE] is an event after the sentinel, which is sent once, after every chunk.
  'stream-usage-after-done': ['fail STREAM-004'],
  // Events run together hide the [DONE] inside a glued payload.
  'stream-no-blank-line': ['fail STREAM-004'],
  // A text/plain refusal has no error.code, which AUTH-008's refusal must carry.
  'error-plain-text': ['fail AUTH-008'],
  // An empty id is no id to the standard clients' delta merging either.
  'tool-call-id-empty': ['warn CHAT-001'],
  // finish_reason null on the tool-call answer: standard clients get no finish_reason either.
  'finish-reason-null': ['warn CHAT-001'],
  // The substitute's answer names the substitute: the response model is not the requested entry (CHAT-009's rule too).
  'routing-substitute-model': ['fail CHAT-009'],
  // "display_name" is also a field 2.10 does not list.
  'catalog-name-missing': ['fail CAT-001'],
  // Calls merged under index 0 carry two ids: to a client keying calls by index, one call with two identifiers.
  'parallel-tool-index-wrong': ['fail RESP-031'],
  // Every false boolean goes: each of the other four required booleans has a rule of its own.
  'catalog-false-omitted': ['fail CAT-010', 'fail CAT-011', 'fail CAT-019', 'fail CAT-022'],
};

/**
 * A defect left to the whole-suite matrix, with the reason: only one whose judgement cannot run in process. None
 * now: the comparisons (an entry read two ways, two uploads, the caps, the names, the model) are judge functions.
 */
const MATRIX_ONLY: Partial<Record<DefectName, string>> = {};

/**
 * Warnings a legal variant is meant to draw, never failures: CHAT-001 is the advice for standard clients, not a
 * contract MUST. usage-chunk-bare's usage chunk has no `choices: []` (6 rule 9 allows it); optional-omitted's
 * streams end without a finish_reason (2.9 lets it be omitted), which clients rely on.
 */
const VARIANT_WARNINGS: Partial<Record<VariantName, string[]>> = { 'usage-chunk-bare': ['CHAT-001'], 'optional-omitted': ['CHAT-001'] };

/** Sends a probe to a fresh mock in the given modes and judges the answer with a fresh Checker. */
async function run(probe: Probe, options: MockOptions): Promise<{ records: CheckRecord[]; res: TargetResponse; log: InProcessMock }> {
  const log = new InProcessMock(options);
  const compared = await probe.compared?.(log);
  const res = await probe.send(log);
  const check = new Checker(log, { declared: () => probe.declared ?? [] });
  probe.judge(check, res, compared);
  return { records: check.records, res, log };
}

const findings = (records: CheckRecord[]) => records.filter((r) => r.status === 'fail' || r.status === 'warn');
const brief = (records: CheckRecord[]) => findings(records).map((r) => `${r.status} ${r.id}: ${(r.message ?? '').slice(0, 200)}`);

test.describe('a defect is found under the requirement it breaks, with its evidence', () => {
  for (const d of DEFECTS) {
    const probeName = ROWS[d.name];
    if (probeName === undefined) continue;
    test(`${d.name} (${d.breaks}) by "${probeName}"`, async () => {
      const { records, res, log } = await run(PROBES[probeName], { defect: d.name });
      const id = primaryOf(d.breaks);
      const expected = d.expect ?? 'fail';
      const mine = records.filter((r) => r.id === id && r.status === expected);
      expect(mine.length, `a ${expected} record under ${id}; the records that found something: ${JSON.stringify(brief(records))}`).toBeGreaterThan(0);
      for (const r of mine) {
        expect(r.message, 'the finding says what was received').toMatch(/\S/);
        // The evidence: the record points at the exchange the check judged, which holds the answer it was given.
        expect(r.exchange).toBe(log.exchanges.indexOf(res.exchange));
        expect(log.exchanges[r.exchange!]!.responseBody).toBe(res.text);
      }
      // One deviation, charged where it belongs: exactly its own requirement and the pinned others.
      const found = [...new Set(findings(records).map((r) => `${r.status} ${r.id}`))].sort();
      expect(found, JSON.stringify(brief(records))).toEqual([`${expected} ${id}`, ...(ALSO_FOUND[d.name] ?? [])].sort());
      // No defect makes a check throw (the kit's error).
      expect(records.filter((r) => r.status === 'error')).toEqual([]);
    });
  }
});

test.describe('the same requests find nothing on the clean mock and on every legal variant', () => {
  const modes: { label: string; options: MockOptions; warns: string[] }[] = [
    { label: 'clean', options: {}, warns: [] },
    ...VARIANTS.map((v) => ({ label: v.name, options: { variant: v.name } as MockOptions, warns: VARIANT_WARNINGS[v.name] ?? [] })),
  ];
  for (const { label, options, warns } of modes) {
    test(`${label}: every probe`, async () => {
      const found: Record<string, string[]> = {};
      for (const [name, probe] of Object.entries(PROBES) as [ProbeName, Probe][]) {
        const { records } = await run(probe, options);
        const unexpected = records.filter((r) => r.status === 'error' || r.status === 'fail' || (r.status === 'warn' && !warns.includes(r.id)));
        if (unexpected.length > 0) found[name] = unexpected.map((r) => `${r.status} ${r.id}: ${(r.message ?? '').slice(0, 200)}`);
      }
      expect(found).toEqual({});
    });
  }
});

test('every defect has an in-process row or a reason it is left to the whole-suite matrix; the coverage is printed', () => {
  const names = DEFECTS.map((d) => d.name);
  const neither = names.filter((n) => ROWS[n] === undefined && MATRIX_ONLY[n] === undefined);
  const both = names.filter((n) => ROWS[n] !== undefined && MATRIX_ONLY[n] !== undefined);
  expect(neither, 'defects with no in-process row and no reason to leave them to the matrix').toEqual([]);
  expect(both, 'defects both in a row and in the matrix-only list').toEqual([]);

  const isTargetMust = (id: string) => {
    const r = getRequirement(id);
    return r.kind === 'requirement' && r.level === 'MUST' && r.check !== 'mock-only';
  };
  const covered = [...new Set(DEFECTS.filter((d) => ROWS[d.name] !== undefined).map((d) => primaryOf(d.breaks)))].filter(isTargetMust).sort();
  const matrixOnly = [...new Set(DEFECTS.filter((d) => MATRIX_ONLY[d.name] !== undefined).map((d) => primaryOf(d.breaks)))].filter((id) => !covered.includes(id)).sort();
  // The same list as suite-coverage.spec.ts: MUSTs of the target no defect mode breaks.
  const links = requirementLinks();
  const unbroken = requirements.filter((r) => r.kind === 'requirement' && r.level === 'MUST' && !r.sameAs && r.check !== 'mock-only' && links.get(r.id)!.defects.length === 0);
  console.log(
    [
      `in-process failing paths: ${Object.keys(ROWS).length} of ${DEFECTS.length} defect modes; ${covered.length} MUST requirement(s) covered: ${covered.join(', ')}`,
      `left to the whole-suite matrix: ${Object.keys(MATRIX_ONLY).length} defect mode(s), MUSTs ${matrixOnly.join(', ') || 'none'}`,
      `MUST requirements no defect mode breaks (${unbroken.length}): ${unbroken.map((r) => r.id).join(', ')}`,
    ].join('\n'),
  );
  expect(covered.length).toBeGreaterThan(0);
});

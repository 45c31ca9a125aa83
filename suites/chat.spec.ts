// POST /v1/chat/completions: the request fields (2.1, 2.2), the non-streamed response (2.9), token caps
// (2.1, 4.3 rule 2), and what a standard client needs (section 1).
import { judges, req, test } from './lib/test-fixtures.ts';
import { judgeCompletion, judgeStream } from '../judge/judge-response.ts';
import { judgeCapInForce } from '../judge/token-caps.ts';
import { judgeAnsweredByRequested, judgeEventStreamAnswer, judgeStreamOptionsIgnored } from '../judge/answers.ts';
import { ACCEPT_ANY_CODING } from '../run/http.ts';
import type { Checker } from '../judge/checker.ts';
import type { Target } from '../run/target.ts';

import { aiSdkProvider, openaiClient } from './lib/clients/sdk-clients.ts';
import {
  chatModel,
  completionTokensOf,
  finishReasonsOf,
  isObject,
  LONG_ANSWER_PROMPT,
  noModelReason,
  outcomeOf,
  probeValues,
  timeFor,
  SHORT_PROMPT,
  usageOf,
  userMessage,
  type Json,
} from './lib/requests/chat.ts';
import { pickModel, usableModels } from './lib/discovery.ts';
import { NO_CALL_CAME_BACK, WEATHER_TOOL } from './lib/requests/tools.ts';
import { slotsOf } from './lib/slots.ts';

/** How many models the "answered by the requested model" test asks (cheapest first). */
const MODELS_ASKED = 3;
/** The small cap of the cap tests; the large one is the budget's per-request cap. */
const SMALL_CAP = 5;
/** Cap of requests whose answer length does not matter. */
const TINY = 8;

/**
 * Unlisted top-level fields that real clients send (OpenAI-style SDK options and defaults), with values that ask for
 * nothing beyond the default: 2.1 does not list them, so a target must not refuse them (REQ-013).
 */
const CLIENT_FIELDS = {
  n: 1,
  seed: 7,
  stop: ['chatconform-stop-never-generated'],
  store: false,
  logprobs: false,
  user: 'chatconform-user',
  presence_penalty: 0,
  frequency_penalty: 0,
  response_format: { type: 'text' },
} as const;

/**
 * Unlisted fields real clients send inside nested objects (REQ-014), each with the value that asks for nothing: the
 * `strict` openai-node's helpers and the AI SDK put on a function; the `refusal` of a returned assistant message that
 * a client sends back as it came (not its `annotations`: 2.9 makes those response-only, never sent); OpenRouter
 * clients' `data_collection` among the routing preferences. Each is added to the same conversation
 * (`NESTED_CONTROL`), so a refusal names the field refused.
 */
const NESTED_CLIENT_FIELDS: readonly { label: string; add: (body: Json) => void }[] = [
  { label: 'strict false in tools[0].function', add: (b) => void ((b.tools as Json[])[0]!.function = { ...WEATHER_TOOL.function, strict: false }) },
  { label: 'refusal null in the assistant message', add: (b) => void ((b.messages as Json[])[1]!.refusal = null) },
  { label: 'data_collection "allow" in provider', add: (b) => void ((b.provider as Json).data_collection = 'allow') },
];

/** The conversation the nested client fields are added to: a function tool, an assistant turn, routing preferences. */
const NESTED_CONTROL = (model: string): Json => ({
  model,
  max_completion_tokens: TINY,
  messages: [userMessage('Remember the word "blue".'), { role: 'assistant', content: 'I will remember "blue".' }, userMessage('Which word did I ask you to remember?')],
  tools: [{ ...WEATHER_TOOL }],
  provider: { allow_fallbacks: true },
});

/** NESTED_CONTROL plus the given nested client fields. */
const withNested = (model: string, fields: readonly { add: (body: Json) => void }[]): Json => {
  const body = NESTED_CONTROL(model);
  for (const f of fields) f.add(body);
  return body;
};

/** A request and how a finding on its answer names it ("for …, status"). */
interface Sent {
  body: Json;
  what: string;
}

/**
 * Fields that are not read must not be refused: `together` (a served request plus every field) is judged under `id`
 * as a completion; a refusal of it sends `apart` (the same request plus one field each), so the finding names the
 * field refused.
 */
async function judgeFieldsNotRefused(check: Checker, target: Target, model: string, id: string, together: Sent, apart: readonly Sent[]): Promise<void> {
  const all = await target.chat(together.body);
  if (all.status === 200 || all.exchange.status === 0) {
    check.status(id, all, 200, `for ${together.what}, status`);
    judgeCompletion(check, all, model);
    return;
  }
  for (const one of apart) {
    const res = await target.chat(one.body);
    check.status(id, res, 200, `for ${one.what}, status`);
    if (res.exchange.error) break;
  }
}

const text = (t: string, parts: boolean) => (parts ? [{ type: 'text', text: t }] : t);

/** Conversations whose system, assistant and tool messages carry their content as text parts (or as strings). */
const PARTS_IN_ROLES: { what: string; extra: Json; messages: (parts: boolean) => Json[] }[] = [
  {
    what: 'a system message and an assistant message',
    extra: {},
    messages: (parts) => [
      { role: 'system', content: text('Answer in one short sentence.', parts) },
      { role: 'user', content: 'Remember the word "blue".' },
      { role: 'assistant', content: text('I will remember "blue".', parts) },
      { role: 'user', content: 'Which word did I ask you to remember?' },
    ],
  },
  {
    what: 'a tool result message (after the assistant\'s call)',
    extra: { tools: [WEATHER_TOOL] },
    messages: (parts) => [
      { role: 'user', content: 'What is the weather in Paris?' },
      { role: 'assistant', content: text('Checking the weather in Paris.', parts), tool_calls: [{ id: 'call_chatconform_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
      { role: 'tool', tool_call_id: 'call_chatconform_1', content: text('{"temperature_c": 21, "sky": "clear"}', parts) },
    ],
  },
];

for (const slot of slotsOf(import.meta.url)) test.describe(slot.title, slot.details, () => {
  test.use({ slot });

  test.describe('POST /v1/chat/completions: the request', () => {
    test(
      'a minimal request naming a catalog entry is answered by that entry',
      req('REQ-001', 'REQ-003', 'REQ-015', 'REQ-017', 'CHAT-003', 'CHAT-010', 'OBS-001', 'OBS-002', judges(judgeCompletion, judgeAnsweredByRequested)),
      async ({ target, check, discovery, config }) => {
        test.setTimeout(timeFor(MODELS_ASKED, config));
        // Cheapest first, preferring ones without reasoning; a few distinct entries, so a server that answers every
        // request with one model is caught by the model check.
        const models = usableModels(discovery, config.profile).slice(0, MODELS_ASKED);
        if (models.length === 0) return check.skip(noModelReason(discovery));
        const finishReasons: unknown[] = [];
        const objects: unknown[] = [];
        for (const m of models) {
          const res = await target.chat({ model: m.id, messages: [userMessage(SHORT_PROMPT)], max_completion_tokens: TINY });
          const what = `a request with model ${JSON.stringify(m.id)} and one user message with string content`;
          check.status('REQ-001', res, 200, `for ${what} (a catalog id as model), status`);
          check.status('REQ-003', res, 200, `for ${what} (messages, an array of message objects), status`);
          check.status('REQ-015', res, 200, `for ${what} (role user), status`);
          check.status('REQ-017', res, 200, `for ${what} (string content), status`);
          check.status('CHAT-003', res, 200, `for ${what} sent as application/json, status`);
          const body = judgeCompletion(check, res, m.id);
          if (!body) continue;
          judgeAnsweredByRequested(check, res);
          finishReasons.push(...finishReasonsOf(body));
          objects.push(body.object);
        }
        check.observe('OBS-001', [...new Set(finishReasons.map((f) => (f === undefined ? '(omitted)' : f)))], 'finish_reason values of short answers', null /* values gathered over one request per model */);
        check.observe('OBS-002', [...new Set(objects)], 'object values of non-streamed completions', null /* values gathered over one request per model */);
      },
    );

    test(
      'a conversation of several messages, array content of text parts, and a message name are accepted',
      req('REQ-003', 'REQ-018', 'REQ-020', judges(judgeCompletion)),
      async ({ target, check, discovery, config }) => {
        const model = chatModel(discovery, config.profile);
        if (!model) return check.skip(noModelReason(discovery));
        const parts = await target.chat({
          model: model.id,
          messages: [
            userMessage('Remember the word "blue".'),
            { role: 'user', content: [{ type: 'text', text: 'Which word did I ask you to remember?' }, { type: 'text', text: 'Answer in one word.' }] },
          ],
          max_completion_tokens: TINY,
        });
        check.status('REQ-003', parts, 200, 'for two user messages in order, status');
        check.status('REQ-018', parts, 200, 'for content given as an array of two text parts, status');
        judgeCompletion(check, parts, model.id);

        const named = await target.chat({ model: model.id, messages: [{ role: 'user', name: 'ada', content: SHORT_PROMPT }], max_completion_tokens: TINY });
        check.status('REQ-020', named, 200, 'for a user message carrying name "ada", status');
        judgeCompletion(check, named, model.id);

        // Content parts in every role a conversation carries (2.2: content is a string or parts, whatever the role),
        // as SDKs send them. A refusal is REQ-018's only when the same conversation with string content is served.
        for (const convo of PARTS_IN_ROLES) {
          const sent = await target.chat({ model: model.id, messages: convo.messages(true), ...convo.extra, max_completion_tokens: TINY });
          if (sent.status === 200 || sent.exchange.status === 0) {
            check.status('REQ-018', sent, 200, `for ${convo.what} given as text parts, status`);
            judgeCompletion(check, sent, model.id);
            continue;
          }
          const strings = await target.chat({ model: model.id, messages: convo.messages(false), ...convo.extra, max_completion_tokens: TINY });
          if (strings.status === 200) check.status('REQ-018', sent, 200, `for ${convo.what} given as text parts (the same with string content is served), status`);
          else check.cannotJudge(['REQ-018'], { message: `${convo.what}: the conversation is refused with string content too (${strings.describe()}), so its parts cannot be told apart`, on: strings });
        }
      },
    );

    test('numeric temperature and top_p are accepted', req('REQ-006', 'REQ-007', judges(judgeCompletion)), async ({ target, check, discovery, config }) => {
      const model = chatModel(discovery, config.profile);
      if (!model) return check.skip(noModelReason(discovery));
      // Sent apart: some models take only one sampling parameter at a time; each is accepted alone.
      const t = await target.chat({ model: model.id, messages: [userMessage(SHORT_PROMPT)], temperature: 0.5, max_completion_tokens: TINY });
      check.status('REQ-006', t, 200, 'for temperature 0.5, status');
      judgeCompletion(check, t, model.id);
      const p = await target.chat({ model: model.id, messages: [userMessage(SHORT_PROMPT)], top_p: 0.9, max_completion_tokens: TINY });
      check.status('REQ-007', p, 200, 'for top_p 0.9, status');
      judgeCompletion(check, p, model.id);
    });

    test(
      'fields not listed for the request or its nested objects are not read',
      req('REQ-013', 'REQ-014', judges(judgeCompletion)),
      async ({ target, check, discovery, config }) => {
        test.setTimeout(timeFor(8, config));
        const model = chatModel(discovery, config.profile);
        if (!model) return check.skip(noModelReason(discovery));
        const base = { model: model.id, max_completion_tokens: TINY };
        const control = await target.chat({ ...base, messages: [userMessage(SHORT_PROMPT)] });
        if (control.status !== 200) return check.skip(`the same request without unlisted fields is not served, so their effect cannot be told: ${control.describe()}`);

        const topLevel = await target.chat({ ...base, messages: [userMessage(SHORT_PROMPT)], chatconform_unread: { note: 'not a field of 2.1', n: 1 }, x_chatconform_flag: true });
        check.status('REQ-013', topLevel, 200, 'for the same request plus top-level fields chatconform_unread and x_chatconform_flag (not listed in 2.1), status');
        judgeCompletion(check, topLevel, model.id);

        // The unlisted fields real clients send (SDK defaults and common options): not read, so never refused.
        await judgeFieldsNotRefused(
          check,
          target,
          model.id,
          'REQ-013',
          { body: { ...base, messages: [userMessage(SHORT_PROMPT)], ...CLIENT_FIELDS }, what: `the same request plus the unlisted fields real clients send (${Object.keys(CLIENT_FIELDS).join(', ')})` },
          Object.entries(CLIENT_FIELDS).map(([field, value]) => ({
            body: { ...base, messages: [userMessage(SHORT_PROMPT)], [field]: value },
            what: `the same request plus ${field} ${JSON.stringify(value)} (a field real clients send, not listed in 2.1)`,
          })),
        );

        const nested = await target.chat({
          ...base,
          messages: [
            { role: 'user', content: 'Remember the word "blue".', chatconform_unread: 'message field not in 2.2' },
            { role: 'user', content: [{ type: 'text', text: SHORT_PROMPT, chatconform_unread: 'content part field not in 2.5' }] },
          ],
        });
        check.status('REQ-014', nested, 200, 'for a request whose message and content part carry a field not listed for them (2.2, 2.5), status');
        judgeCompletion(check, nested, model.id);

        // The nested fields real clients send, on a conversation that is itself served first: a refusal of the tool,
        // the assistant turn or the provider object is another test's finding, never charged to REQ-014 here.
        const nestedControl = await target.chat(NESTED_CONTROL(model.id));
        if (nestedControl.status !== 200) {
          check.cannotJudge(['REQ-014'], { message: `the nested fields real clients send are not sent: the same conversation without them (a function tool, an assistant turn, provider preferences) is not served (${nestedControl.describe()})`, on: nestedControl });
          return;
        }
        await judgeFieldsNotRefused(
          check,
          target,
          model.id,
          'REQ-014',
          { body: withNested(model.id, NESTED_CLIENT_FIELDS), what: `the same conversation plus the nested fields real clients send (${NESTED_CLIENT_FIELDS.map((f) => f.label).join(', ')}; not listed in 2.2, 2.3, 2.8)` },
          NESTED_CLIENT_FIELDS.map((field) => ({ body: withNested(model.id, [field]), what: `the same conversation plus ${field.label} (a field real clients send, not listed for that object)` })),
        );
      },
    );

    test('records the accepted ranges of temperature, top_p and the token caps', req('OBS-014', 'OBS-015', 'OBS-016'), async ({ target, check, discovery, config }) => {
        test.setTimeout(timeFor(17, config));
      const model = chatModel(discovery, config.profile);
      if (!model) return check.skip(noModelReason(discovery));
      const base: Json = { model: model.id, messages: [userMessage(SHORT_PROMPT)], max_completion_tokens: 4 };
      check.observe('OBS-014', await probeValues(target, base, 'temperature', [0, 1, 2, -0.5, 5]), 'temperature values and how each request fared', null /* one request per value */);
      check.observe('OBS-015', await probeValues(target, base, 'top_p', [0, 1, -0.1, 1.5]), 'top_p values and how each request fared', null /* one request per value */);
      const caps: Json[] = [];
      for (const field of ['max_completion_tokens', 'max_tokens']) {
        const { max_completion_tokens: _, ...uncapped } = base;
        for (const value of [0, 1, -1, 2.5]) {
          const res = await target.chat({ ...uncapped, [field]: value });
          const used = completionTokensOf(res.json() as Json | undefined);
          caps.push({ [field]: value, ...outcomeOf(res), ...(used !== undefined ? { completion_tokens: used } : {}) });
          if (res.exchange.error) break;
        }
      }
      check.observe('OBS-016', caps, `token cap values and how each request fared (larger values are not sent: the budget caps requests at ${target.maxTokens})`, null /* one request per value */);
    });

    test('records which message roles are accepted', req('OBS-011'), async ({ target, check, discovery, config }) => {
        test.setTimeout(timeFor(5, config));
      const model = chatModel(discovery, config.profile);
      if (!model) return check.skip(noModelReason(discovery));
      const roles: Json[] = [];
      for (const role of ['system', 'developer', 'assistant', 'tool', 'chatconform_unknown_role']) {
        // The probed role goes before a final user message, as a conversation would carry it.
        const messages = [userMessage('Hello.'), { role, content: 'Be brief.' }, userMessage(SHORT_PROMPT)];
        const res = await target.chat({ model: model.id, messages, max_completion_tokens: 4 });
        roles.push({ role, ...outcomeOf(res) });
        if (res.exchange.error) break;
      }
      check.observe('OBS-011', roles, 'message roles (each before a final user message) and how each request fared', null /* one request per role */);
    });

    test('records what the target does with fields that look server-controlled', req('OBS-009'), async ({ target, check, discovery, config }) => {
        test.setTimeout(timeFor(5, config));
      const model = chatModel(discovery, config.profile);
      if (!model) return check.skip(noModelReason(discovery));
      const probes: Json[] = [];
      // `user` is a field real clients send: judged under REQ-013 by the unlisted-fields test, not observed here.
      const sent: Record<string, unknown> = { id: 'chatcmpl-chatconform-set-by-caller', created: 1, object: 'chatconform.set-by-caller', usage: { total_tokens: 1 } };
      for (const [field, value] of Object.entries(sent)) {
        const res = await target.chat({ model: model.id, messages: [userMessage(SHORT_PROMPT)], max_completion_tokens: 4, [field]: value });
        const body = res.json();
        const echoed = res.status === 200 && isObject(body) && field in body ? JSON.stringify(body[field]) === JSON.stringify(value) : undefined;
        probes.push({ field, ...outcomeOf(res), ...(echoed !== undefined ? { echoed } : {}) });
        if (res.exchange.error) break;
      }
      check.observe('OBS-009', probes, 'request fields that look server-controlled, how each request fared, and whether the response took the value', null /* one request per field */);
    });
  });

  test.describe('POST /v1/chat/completions: token caps', () => {
    /** The small and the large cap, within the budget. */
    const caps = (maxTokens: number) => ({ small: Math.max(1, Math.min(SMALL_CAP, Math.floor(maxTokens / 4))), large: maxTokens });

    test('max_tokens sent alone caps the generated tokens', req('REQ-008', 'OBS-001', judges(judgeCompletion, judgeCapInForce)), async ({ target, check, discovery, config }) => {
      const model = chatModel(discovery, config.profile);
      if (!model) return check.skip(noModelReason(discovery));
      const { small } = caps(target.maxTokens);
      const res = await target.chat({ model: model.id, messages: [userMessage(LONG_ANSWER_PROMPT)], max_tokens: small });
      const body = judgeCompletion(check, res, model.id);
      if (!body) return;
      const used = completionTokensOf(body);
      check.observe('OBS-001', { max_tokens: small, completion_tokens: used, finish_reason: finishReasonsOf(body) }, 'finish_reason of an answer stopped by max_tokens', res);
      if (used === undefined) return check.skip('the response carries no usage.completion_tokens, so the cap cannot be observed');
      judgeCapInForce(check, res, used); // REQ-008: max_tokens sent alone
    });

    test('max_completion_tokens sent alone caps the generated tokens', req('REQ-010', 'OBS-001', judges(judgeCompletion, judgeCapInForce)), async ({ target, check, discovery, config }) => {
      const model = chatModel(discovery, config.profile);
      if (!model) return check.skip(noModelReason(discovery));
      const { small } = caps(target.maxTokens);
      const res = await target.chat({ model: model.id, messages: [userMessage(LONG_ANSWER_PROMPT)], max_completion_tokens: small });
      const body = judgeCompletion(check, res, model.id);
      if (!body) return;
      const used = completionTokensOf(body);
      check.observe('OBS-001', { max_completion_tokens: small, completion_tokens: used, finish_reason: finishReasonsOf(body) }, 'finish_reason of an answer stopped by max_completion_tokens', res);
      if (used === undefined) return check.skip('the response carries no usage.completion_tokens, so the cap cannot be observed');
      judgeCapInForce(check, res, used);
    });

    test(
      'max_completion_tokens wins over a larger max_tokens',
      req('REQ-011', 'CHAT-008', judges(judgeCompletion, judgeCapInForce)),
      async ({ target, check, discovery, config }) => {
        const model = chatModel(discovery, config.profile);
        if (!model) return check.skip(noModelReason(discovery));
        const { small, large } = caps(target.maxTokens);
        if (large <= small) return check.skip(`the budget's cap (${large}) leaves no room for a max_tokens larger than max_completion_tokens`);
        const res = await target.chat({ model: model.id, messages: [userMessage(LONG_ANSWER_PROMPT)], max_tokens: large, max_completion_tokens: small });
        const body = judgeCompletion(check, res, model.id);
        if (!body) return;
        const used = completionTokensOf(body);
        if (used === undefined) return check.skip('the response carries no usage.completion_tokens, so the cap cannot be observed');
        judgeCapInForce(check, res, used); // REQ-011 and CHAT-008: both caps sent
      },
    );

    test(
      'max_tokens has no effect when max_completion_tokens is present',
      req('REQ-009', 'REQ-011', judges(judgeCompletion, judgeCapInForce)),
      async ({ target, check, discovery, config }) => {
        const model = chatModel(discovery, config.profile);
        if (!model) return check.skip(noModelReason(discovery));
        const { small, large } = caps(target.maxTokens);
        if (large <= small) return check.skip(`the budget's cap (${large}) leaves no room for a max_completion_tokens larger than max_tokens`);
        const messages = [userMessage(LONG_ANSWER_PROMPT)];
        // The same request twice: once with the large cap alone, once with a small max_tokens added to it.
        const aloneRes = await target.chat({ model: model.id, messages, max_completion_tokens: large });
        const alone = judgeCompletion(check, aloneRes, model.id);
        const bothRes = await target.chat({ model: model.id, messages, max_completion_tokens: large, max_tokens: small });
        const both = judgeCompletion(check, bothRes, model.id);
        const a = completionTokensOf(alone);
        const b = completionTokensOf(both);
        if (!alone || !both) return;
        if (a === undefined || b === undefined) return check.skip('the responses carry no usage.completion_tokens, so the caps cannot be observed');
        judgeCapInForce(check, bothRes, b, ['REQ-011']);
        if (a <= small) return check.skip(`with max_completion_tokens ${large} alone the answer used only ${a} tokens (not more than max_tokens ${small}), so an effect of max_tokens cannot be told`);
        check.that('REQ-009', b > small, () => `with max_completion_tokens ${large} alone the answer used ${a} tokens; adding max_tokens ${small} cut it to ${b}: max_tokens was applied although max_completion_tokens was present`, bothRes);
      },
    );
  });

  test.describe('POST /v1/chat/completions: stream and stream_options', () => {
    test('stream true answers with a server-sent-event stream, with and without include_usage', req('REQ-005', 'CHAT-005', 'REQ-021', judges(judgeEventStreamAnswer)), async ({ target, check, discovery, config }) => {
      const model = chatModel(discovery, config.profile);
      if (!model) return check.skip(noModelReason(discovery));
      const judge = (id: string, res: Awaited<ReturnType<typeof target.chat>>, what: string) => judgeEventStreamAnswer(check, id, res, what);
      const plain = await target.chat({ model: model.id, messages: [userMessage(SHORT_PROMPT)], stream: true, max_completion_tokens: TINY });
      judge('REQ-005', plain, 'stream true');
      judge('CHAT-005', plain, 'stream true');
      const withUsage = await target.chat({ model: model.id, messages: [userMessage(SHORT_PROMPT)], stream: true, stream_options: { include_usage: true }, max_completion_tokens: TINY });
      judge('REQ-021', withUsage, 'stream true with stream_options.include_usage true');
    });

    test('stream_options has no effect unless stream is true', req('REQ-012', judges(judgeCompletion, judgeStreamOptionsIgnored)), async ({ target, check, discovery, config }) => {
      const model = chatModel(discovery, config.profile);
      if (!model) return check.skip(noModelReason(discovery));
      for (const [what, extra] of [
        ['stream absent', {}],
        ['stream false', { stream: false }],
      ] as const) {
        const res = await target.chat({ model: model.id, messages: [userMessage(SHORT_PROMPT)], stream_options: { include_usage: true }, max_completion_tokens: TINY, ...extra });
        judgeStreamOptionsIgnored(check, res, `stream_options.include_usage true with ${what}`);
        judgeCompletion(check, res, model.id);
      }
    });
  });

  test.describe('POST /v1/chat/completions: compressed answers', () => {
    test(
      'an answer compressed as the client allowed (accept-encoding: gzip, deflate, br) is judged, decoded, like any other',
      req('CHAT-004', 'CHAT-005', judges(judgeCompletion, judgeStream)),
      async ({ target, check, discovery, config }) => {
        const model = chatModel(discovery, config.profile);
        if (!model) return check.skip(noModelReason(discovery));
        // HTTP lets a server compress what the client accepts (RFC 9110 12.5.3) and the contract says nothing
        // against it, for streams too: the kit undoes the coding (run/http.ts) and judges the answer it carries.
        const headers = { 'accept-encoding': ACCEPT_ANY_CODING };
        const plain = await target.chat({ model: model.id, messages: [userMessage(SHORT_PROMPT)], max_completion_tokens: TINY }, { headers });
        judgeCompletion(check, plain, model.id);
        const streamed = await target.chat({ model: model.id, messages: [userMessage(SHORT_PROMPT)], stream: true, max_completion_tokens: TINY }, { headers });
        judgeStream(check, streamed, model.id, { expectText: true });
      },
    );
  });

  test.describe('POST /v1/chat/completions: the response', () => {
    test(
      'the assistant message\'s tool calls are well-formed',
      req('RESP-014', judges(judgeCompletion)),
      async ({ target, check, discovery, config }) => {
        const model = chatModel(discovery, config.profile);
        if (!model) return check.skip(noModelReason(discovery));
        const tools = [
          {
            type: 'function',
            function: {
              name: 'get_weather',
              description: 'Current weather of a city.',
              parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
            },
          },
        ];
        const res = await target.chat({ model: model.id, messages: [userMessage('What is the weather in Paris? Use the tool.')], tools, tool_choice: 'required', max_completion_tokens: Math.min(256, target.maxTokens) }); // room for a whole call
        if (res.status !== 200) return check.skip(`the model does not serve a tool request, so returned tool calls cannot be judged: ${res.describe()}`);
        const body = judgeCompletion(check, res, model.id);
        const choice = Array.isArray(body?.choices) ? body.choices[0] : undefined;
        const calls = isObject(choice) && isObject(choice.message) ? choice.message.tool_calls : undefined;
        // The case of the tool-call rules did not come: each ends skipped with that reason, unless judged elsewhere.
        if (!Array.isArray(calls) || calls.length === 0) check.notApplicable(check.declaredIds, `the answer: ${NO_CALL_CAME_BACK}`, res);
      },
    );

    test(
      'prompt caching: cached and written tokens are reported as positive counts within the prompt',
      req('RESP-024', 'RESP-025', 'RESP-026', judges(judgeCompletion)),
      async ({ target, check, discovery, config }) => {
        const model = pickModel(discovery, config.profile, { caching: true });
        if (!model) return check.skip(noModelReason(discovery, 'usable model with supports_caching true'));
        // A prefix long enough for providers that cache only from ~1024 tokens, made unique so no earlier run cached it.
        const nonce = `chatconform-${Date.now()}-${Math.random().toString(36).slice(2)}`;
        const reference = `Reference ${nonce}. ${Array.from({ length: 120 }, (_, i) => `Clause ${i + 1}: the river is blue and the mountain is green.`).join(' ')}`;
        const body = {
          model: model.id,
          messages: [
            { role: 'user', content: [{ type: 'text', text: reference, cache_control: { type: 'ephemeral' } }] },
            userMessage('Reply with the word ok.'),
          ],
          max_completion_tokens: 4,
        };
        const seen: Json[] = [];
        for (const attempt of ['first', 'second']) {
          const completion = judgeCompletion(check, await target.chat(body), model.id);
          const details = usageOf(completion)?.prompt_tokens_details;
          if (isObject(details)) seen.push({ attempt, ...details });
        }
        if (seen.length === 0) return check.skip(`two identical requests with a cache_control part to ${model.id} reported no usage.prompt_tokens_details, so caching was not observable`);
      },
    );
  });

  test.describe('section 1: the widely used shape', () => {
    test('the service is reached over HTTPS and answers in JSON', req('CHAT-002'), async ({ target, check, config }) => {
      const host = new URL(config.baseUrl).hostname;
      if (config.embeddedMock || /^(127\.\d+\.\d+\.\d+|localhost|\[::1\]|::1)$/.test(host)) {
        return check.skip(`the target ${config.baseUrl} is a local (loopback) deployment, which the requirement exempts from the scheme`);
      }
      check.that('CHAT-002', config.baseUrl.startsWith('https://'), () => `the target is reached at ${config.baseUrl}; the service speaks JSON over HTTPS`, null);
      const res = await target.get('/v1/models');
      check.that('CHAT-002', /json/i.test(res.headers['content-type'] ?? ''), () => `GET /v1/models answers with content-type ${JSON.stringify(res.headers['content-type'])}: ${res.describe()}`, res);
    });

    test('standard chat-completions clients work after changing only the base address and the credential', req('CHAT-001'), async ({ target, check, discovery, config }) => {
        test.setTimeout(timeFor(4, config));
      const model = chatModel(discovery, config.profile);
      if (!model) return check.skip(noModelReason(discovery));
      const failure = (err: unknown) => (err instanceof Error ? `${err.name}: ${err.message}` : String(err)).slice(0, 400);
      const messages = [{ role: 'user' as const, content: SHORT_PROMPT }];
      // A client's finding is on the request it sent through `target` (the last since `from`), or on none when it
      // failed before sending one: never on an earlier client's request.
      let from = target.exchanges.length;
      const sent = (): number | null => (target.exchanges.length > from ? target.exchanges.length - 1 : null);
      const next = () => void (from = target.exchanges.length);

      const openai = await openaiClient(target);
      try {
        const c = await openai.chat.completions.create({ model: model.id, messages, max_completion_tokens: TINY });
        check.that('CHAT-001', Array.isArray(c.choices) && c.choices.length > 0, 'openai-node: chat.completions.create returned no choices', sent());
      } catch (err) {
        check.that('CHAT-001', false, `openai-node: chat.completions.create failed: ${failure(err)}`, sent());
      }
      next();
      try {
        const stream = await openai.chat.completions.create({ model: model.id, messages, max_completion_tokens: TINY, stream: true, stream_options: { include_usage: true } });
        let chunks = 0;
        for await (const _ of stream) chunks++;
        check.that('CHAT-001', chunks > 0, 'openai-node: the stream yielded no chunk', sent());
      } catch (err) {
        check.that('CHAT-001', false, `openai-node: iterating a streamed completion failed: ${failure(err)}`, sent());
      }

      const provider = await aiSdkProvider(target);
      const { generateText, streamText } = await import('ai');
      next();
      try {
        const r = await generateText({ model: provider.chatModel(model.id), prompt: SHORT_PROMPT, maxOutputTokens: TINY, maxRetries: 0 });
        check.that('CHAT-001', typeof r.text === 'string', 'AI SDK: generateText returned no text', sent());
      } catch (err) {
        check.that('CHAT-001', false, `AI SDK (openai-compatible): generateText failed: ${failure(err)}`, sent());
      }
      next();
      try {
        let streamError: unknown;
        const r = streamText({ model: provider.chatModel(model.id), prompt: SHORT_PROMPT, maxOutputTokens: TINY, maxRetries: 0, onError: ({ error }) => void (streamError ??= error) });
        await r.consumeStream();
        const finish = await r.finishReason;
        check.that('CHAT-001', streamError === undefined, () => `AI SDK (openai-compatible): streamText reported an error: ${failure(streamError)}`, sent());
        check.that('CHAT-001', finish !== 'error', () => `AI SDK (openai-compatible): streamText finished with reason ${finish}`, sent());
      } catch (err) {
        check.that('CHAT-001', false, `AI SDK (openai-compatible): streamText failed: ${failure(err)}`, sent());
      }
    });
  });
});

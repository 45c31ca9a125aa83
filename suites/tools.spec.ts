// Tool calling (sections 2.1, 2.2, 2.3, 2.4, 4.3 rule 3, 7 rule 2): declaring function tools, tool_choice,
// the calls a completion returns, sending calls and their results back, and the refusal of tool calls that
// no declared tool backs.
import { judges, req, test } from './lib/test-fixtures.ts';
import { judgeCompletion, judgeRefusal } from '../judge/judge-response.ts';
import { judgeStream } from '../judge/judge-response.ts';
import { judgeCallsAgainstTools, judgeForcedCallMade, judgeForcedFunction, type ArgumentedCall } from '../judge/comparisons.ts';
import { judgeAcceptedStatus } from '../judge/acceptance.ts';
import { pickModel, type Discovery, noUsableReason } from './lib/discovery.ts';
import type { Checker } from '../judge/checker.ts';
import type { AssembledChoice, ChatStream } from '../judge/decoding/chat-stream.ts';
import type { Profile } from '../run/profile.ts';
import type { TargetResponse } from '../judge/exchange.ts';
import {
  BARE_TOOL,
  PARALLEL_PROMPT,
  RETURNED_CALL_IDS,
  TIME_TOOL,
  UNITS_PROMPT,
  UNITS_TOOL,
  WEATHER_PROMPT,
  WEATHER_TOOL,
  blamesUpstream,
  callsToSendBack,
  fabricatedCall,
  returnedCalls,
  returnedText,
  type ReturnedCall,
} from './lib/requests/tools.ts';
import { slotsOf } from './lib/slots.ts';

type Json = Record<string, unknown>;

/**
 * Room for a complete tool call: a real model's call JSON takes more than the kit's default cap of 64 tokens, and
 * a call cut by the kit's own cap would judge the kit, not the target. Never above the budget's per-request cap.
 */
const TOOL_CALL_CAP = 256;
const toolCap = (maxTokens: number) => Math.min(TOOL_CALL_CAP, maxTokens);

function modelOrSkip(check: Checker, discovery: Discovery, profile: Profile): string {
  const model = pickModel(discovery, profile);
  if (!model) return check.skip(noUsableReason(discovery));
  return model.id;
}

/** The calls of one assembled streamed choice, read as a non-streamed answer's are. */
const callsOf = (c: AssembledChoice): ReturnedCall[] => c.toolCalls.map((t, position) => ({ position, id: t.id, type: t.type, name: t.name, arguments: t.arguments }));

/** The calls of a complete stream's choice 0 (none when the stream was not judged whole). */
function streamedCalls(s: ChatStream | undefined): ReturnedCall[] {
  const c = s?.outcome === 'complete' ? s.choices.get(0) : undefined;
  return c ? callsOf(c) : [];
}

type FunctionTool = { function: { name: string; parameters?: unknown } };

/** The calls an answer returned, against the tools the request declared (the kit's own tool objects, as sent). */
function judgeCalls(check: Checker, res: TargetResponse, calls: readonly ArgumentedCall[], tools: readonly FunctionTool[], where: string): void {
  judgeCallsAgainstTools(check, res, calls, tools.map((t) => ({ name: t.function.name, ...('parameters' in t.function ? { parameters: t.function.parameters } : {}) })), where);
}

/** The answer's first choice ended at the token cap (finish_reason "length"): a call may have been cut off. */
const cutByCap = (body: Json): boolean => {
  const first = Array.isArray(body.choices) ? (body.choices[0] as Json | undefined) : undefined;
  return first?.finish_reason === 'length';
};

/** A stream that completed and whose choices did not end at the token cap. */
const wholeStream = (s: ChatStream): boolean => s.outcome === 'complete' && [...s.choices.values()].every((c) => !c.finishReasons.includes('length'));

/** The calls of an answer to tool_choice "required", judged as a completion or a stream, and whether it may be cut. */
function forcedAnswer(check: Checker, res: TargetResponse, model: string, stream: boolean): { calls: ReturnedCall[]; cut: boolean } {
  if (stream) {
    const s = judgeStream(check, res, model);
    return { calls: streamedCalls(s), cut: s === undefined || !wholeStream(s) };
  }
  const body = judgeCompletion(check, res, model);
  return { calls: returnedCalls(body), cut: body === undefined || cutByCap(body) };
}

for (const slot of slotsOf(import.meta.url)) test.describe(slot.title, slot.details, () => {
  test.use({ slot });

  test.describe('declaring function tools', () => {
    test('a function tool with a parameters JSON Schema is accepted; a returned call names it and its arguments decode', req('TOOL-001', 'TOOL-004', 'TOOL-006', 'TOOL-009', 'TOOL-015', judges(judgeAcceptedStatus, judgeCompletion, judgeCallsAgainstTools, judgeForcedCallMade), { modelDependent: true }), async ({ target, check, discovery, config }) => {
      const model = modelOrSkip(check, discovery, config.profile);
      const res = await target.chat({ model, messages: [{ role: 'user', content: WEATHER_PROMPT }], tools: [WEATHER_TOOL], tool_choice: 'required', max_completion_tokens: toolCap(target.maxTokens) });
      judgeAcceptedStatus(check, 'TOOL-001', res, 'a request with a tools array');
      judgeAcceptedStatus(check, 'TOOL-004', res, 'a tool of type "function" with a function object');
      judgeAcceptedStatus(check, 'TOOL-009', res, 'a function tool whose parameters is a JSON Schema object');
      const body = judgeCompletion(check, res, model); // arguments a JSON string that decodes: RESP-019, RESP-020
      const calls = returnedCalls(body);
      judgeForcedCallMade(check, res, calls, body === undefined || cutByCap(body), [...RETURNED_CALL_IDS, 'TOOL-006', 'TOOL-015'], 'tool_choice "required" with a parameters JSON Schema');
      judgeCalls(check, res, calls, [WEATHER_TOOL], 'tool_choice "required"');
    });

    test('a function tool without description is accepted', req('TOOL-007', 'TOOL-006', 'TOOL-015', judges(judgeAcceptedStatus, judgeCompletion, judgeCallsAgainstTools)), async ({ target, check, discovery, config }) => {
      const model = modelOrSkip(check, discovery, config.profile);
      const tool = { type: 'function', function: { name: WEATHER_TOOL.function.name, parameters: WEATHER_TOOL.function.parameters } };
      const res = await target.chat({ model, messages: [{ role: 'user', content: WEATHER_PROMPT }], tools: [tool], max_completion_tokens: toolCap(target.maxTokens) });
      judgeAcceptedStatus(check, 'TOOL-007', res, 'a function tool without description (omitted when empty, 2.3)');
      judgeCalls(check, res, returnedCalls(judgeCompletion(check, res, model)), [tool], 'tool without description');
    });

    test('a function tool without parameters is accepted', req('TOOL-008', 'TOOL-006', 'TOOL-015', judges(judgeAcceptedStatus, judgeCompletion, judgeCallsAgainstTools)), async ({ target, check, discovery, config }) => {
      const model = modelOrSkip(check, discovery, config.profile);
      const tool = { type: 'function', function: { name: BARE_TOOL.function.name, description: 'Checks that the service answers; takes no arguments.' } };
      const res = await target.chat({ model, messages: [{ role: 'user', content: 'Is the service up? Call ping_service to find out.' }], tools: [tool], max_completion_tokens: toolCap(target.maxTokens) });
      judgeAcceptedStatus(check, 'TOOL-008', res, 'a function tool without parameters (omitted when the tool takes none, 2.3)');
      judgeCalls(check, res, returnedCalls(judgeCompletion(check, res, model)), [tool], 'tool without parameters');
    });

    test('a function tool without its function object is rejected as a client error', req('TOOL-005'), async ({ target, check, discovery, config }) => {
      const model = modelOrSkip(check, discovery, config.profile);
      const res = await target.chat({ model, messages: [{ role: 'user', content: 'Say hello.' }], tools: [{ type: 'function' }] });
      check.status('TOOL-005', res, (s) => s >= 400 && s < 500, 'for a function tool without "function" (required for a function tool, 2.3), a 4xx status');
    });
  });

  test.describe('returned tool calls, provoked so that they come back', () => {
    // The rules of a returned call (2.4: id, type, name, arguments) are judged by the registered checks on every
    // answer that carries one; these requests make one come back even under a small output cap, and an answer that
    // still carries none leaves those rules skipped with that reason, never passed.
    for (const stream of [false, true] as const) {
      test(`a short call (one enum choice, an optional boolean) comes back whole${stream ? ', streamed' : ''}`, req('TOOL-006', 'TOOL-009', 'TOOL-015', judges(judgeAcceptedStatus, judgeCompletion, judgeStream, judgeCallsAgainstTools, judgeForcedCallMade), { modelDependent: true }), async ({ target, check, discovery, config }) => {
        const model = modelOrSkip(check, discovery, config.profile);
        const res = await target.chat({ model, messages: [{ role: 'user', content: UNITS_PROMPT }], tools: [UNITS_TOOL], tool_choice: 'required', max_completion_tokens: toolCap(target.maxTokens), ...(stream ? { stream: true } : {}) });
        // A refusal is judged here, under the rule it breaks; only an accepted answer is judged as a completion.
        if (!judgeAcceptedStatus(check, 'TOOL-009', res, 'a function tool whose parameters is a JSON Schema object (an enum and a boolean)')) return;
        const { calls, cut } = forcedAnswer(check, res, model, stream);
        judgeForcedCallMade(check, res, calls, cut, [...RETURNED_CALL_IDS, 'TOOL-006', 'TOOL-015'], `tool_choice "required" with ${UNITS_TOOL.function.name}`);
        judgeCalls(check, res, calls, [UNITS_TOOL], `tool_choice "required"${stream ? ', streamed' : ''}`);
      });
    }

    for (const stream of [false, true] as const) {
      test(`parallel calls: two functions asked for at once come back as separate whole calls${stream ? ', streamed' : ''}`, req('TOOL-001', 'TOOL-006', 'TOOL-015', judges(judgeAcceptedStatus, judgeCompletion, judgeStream, judgeCallsAgainstTools, judgeForcedCallMade), { modelDependent: true }), async ({ target, check, discovery, config }) => {
        const model = modelOrSkip(check, discovery, config.profile);
        const res = await target.chat({ model, messages: [{ role: 'user', content: PARALLEL_PROMPT }], tools: [WEATHER_TOOL, TIME_TOOL], tool_choice: 'required', max_completion_tokens: toolCap(target.maxTokens), ...(stream ? { stream: true } : {}) });
        if (!judgeAcceptedStatus(check, 'TOOL-001', res, 'a request with two function tools')) return;
        // Each call assembles on its own (a delta's index keeps the calls apart): ids, names and arguments that decode
        // are judged per call by the registered checks; calls merged by a wrong index do not decode (RESP-020).
        const { calls, cut } = forcedAnswer(check, res, model, stream);
        judgeForcedCallMade(check, res, calls, cut, [...RETURNED_CALL_IDS, 'TOOL-006', 'TOOL-015'], 'two functions asked for at once with tool_choice "required"');
        if (calls.length === 1) check.note(`parallel calls: asked for two functions at once, the target returned one call (${JSON.stringify(calls[0]!.name)}); how many calls a model makes is its choice`);
        judgeCalls(check, res, calls, [WEATHER_TOOL, TIME_TOOL], `parallel calls${stream ? ', streamed' : ''}`);
      });
    }
  });

  test.describe('streamed tool calls', () => {
    test('tool-call deltas assemble into calls that name a declared function and whose arguments decode', req('TOOL-006', 'TOOL-015', judges(judgeStream, judgeCallsAgainstTools, judgeForcedCallMade), { modelDependent: true }), async ({ target, check, discovery, config }) => {
      const model = modelOrSkip(check, discovery, config.profile);
      const res = await target.chat({ model, messages: [{ role: 'user', content: WEATHER_PROMPT }], tools: [WEATHER_TOOL, TIME_TOOL], tool_choice: 'required', stream: true, max_completion_tokens: toolCap(target.maxTokens) });
      // Assembly (id, type function, name, arguments that decode: RESP-015/017/018/020) is judged by judgeStream.
      const s = judgeStream(check, res, model);
      if (!s) return;
      judgeForcedCallMade(check, res, [...s.choices.values()].flatMap(callsOf), !wholeStream(s), [...RETURNED_CALL_IDS, 'TOOL-006', 'TOOL-015'], 'tool_choice "required", streamed');
      for (const c of s.choices.values()) judgeCalls(check, res, callsOf(c), [WEATHER_TOOL, TIME_TOOL], `streamed choice ${c.index}`);
    });
  });

  test.describe('tool_choice', () => {
    test('each string value "auto", "none" and "required" is accepted with tools declared', req('TOOL-002', 'TOOL-006', 'TOOL-015', judges(judgeAcceptedStatus, judgeCompletion, judgeCallsAgainstTools), { modelDependent: true }), async ({ target, check, discovery, config }) => {
      const model = modelOrSkip(check, discovery, config.profile);
      for (const choice of ['auto', 'none', 'required'] as const) {
        const res = await target.chat({ model, messages: [{ role: 'user', content: WEATHER_PROMPT }], tools: [WEATHER_TOOL, TIME_TOOL], tool_choice: choice, max_completion_tokens: toolCap(target.maxTokens) });
        judgeAcceptedStatus(check, 'TOOL-002', res, `tool_choice ${JSON.stringify(choice)}`);
        // What "none" and "required" make the model do is not stated by the contract (2.1 lists the values only).
        judgeCalls(check, res, returnedCalls(judgeCompletion(check, res, model)), [WEATHER_TOOL, TIME_TOOL], `tool_choice ${JSON.stringify(choice)}`);
      }
    });

    test('an object naming one declared function is accepted; which shapes the target takes is recorded', req('TOOL-003', 'TOOL-006', 'TOOL-015', 'TOOL-016', 'OBS-010', judges(judgeAcceptedStatus, judgeCompletion, judgeCallsAgainstTools, judgeForcedFunction), { modelDependent: true }), async ({ target, check, discovery, config }) => {
      const model = modelOrSkip(check, discovery, config.profile);
      const named = TIME_TOOL.function.name;
      const messages = [{ role: 'user', content: 'What time is it in Tokyo?' }];
      // The shape is a gap of the contract (4.3); the kit sends the shape existing clients of this API send.
      const shapes: { label: string; choice: Json }[] = [
        { label: '{type:"function",function:{name}}', choice: { type: 'function', function: { name: named } } },
        { label: '{type:"function",name}', choice: { type: 'function', name: named } },
      ];
      const observed: Json[] = [];
      for (const [i, { label, choice }] of shapes.entries()) {
        const res = await target.chat({ model, messages, tools: [WEATHER_TOOL, TIME_TOOL], tool_choice: choice, max_completion_tokens: toolCap(target.maxTokens) });
        const err = (res.json() as { error?: { code?: unknown } } | undefined)?.error;
        const calls = returnedCalls(res.status === 200 ? (res.json() as Json | undefined) : undefined);
        observed.push({ shape: label, status: res.status, ...(err?.code !== undefined ? { code: err.code } : {}), ...(res.status === 200 ? { called: calls.map((c) => c.name) } : {}) });
        if (i === 0) {
          if (!judgeAcceptedStatus(check, 'TOOL-003', res, `tool_choice ${JSON.stringify(choice)} naming the declared function ${named}`)) continue;
          const body = judgeCompletion(check, res, model);
          const returned = returnedCalls(body);
          judgeCalls(check, res, returned, [WEATHER_TOOL, TIME_TOOL], `tool_choice ${label}`);
          // Forced, the answer calls the named function, not the one "auto" would pick (the prompt names neither).
          if (body) judgeForcedFunction(check, res, returned, named, cutByCap(body), `tool_choice ${label}`);
        }
      }
      check.observe('OBS-010', observed, 'tool_choice object shapes sent, with the status each received and the functions called', null /* one request per tool_choice shape */);
    });
  });

  test.describe('sending tool calls and their results back', () => {
    test('an assistant message with tool_calls and a tool message answering its id are accepted', req('TOOL-010', 'TOOL-011', judges(judgeAcceptedStatus, judgeCompletion)), async ({ target, check, discovery, config }) => {
      const model = modelOrSkip(check, discovery, config.profile);
      const user = { role: 'user', content: WEATHER_PROMPT };
      // The calls the target itself made, when it made well-formed ones; otherwise a call the suite writes,
      // so the round trip is checked whatever the model chose to do.
      const first = await target.chat({ model, messages: [user], tools: [WEATHER_TOOL], tool_choice: 'required', max_completion_tokens: toolCap(target.maxTokens) });
      const firstBody = first.status === 200 ? (first.json() as Json | undefined) : undefined;
      const own = callsToSendBack(returnedCalls(firstBody));
      const calls = own.length > 0 ? own : [fabricatedCall()];
      const source = own.length > 0 ? "the target's own tool calls" : 'a tool call written by the suite (the first request returned none)';
      const results = calls.map((c) => ({ role: 'tool', tool_call_id: c.id, content: JSON.stringify({ city: 'Paris', temperature_c: 18, sky: 'clear' }) }));
      // content is required on a message (2.2): the model's own text when it sent some, else a short line.
      const assistant = { role: 'assistant', content: (own.length > 0 && returnedText(firstBody)) || 'Checking the weather in Paris.', tool_calls: calls };
      const res = await target.chat({ model, messages: [user, assistant, ...results], tools: [WEATHER_TOOL], max_completion_tokens: toolCap(target.maxTokens) });
      judgeAcceptedStatus(check, 'TOOL-010', res, `an assistant message carrying tool_calls (${source}) with tools declared`);
      judgeAcceptedStatus(check, 'TOOL-011', res, `tool messages whose tool_call_id matches ${calls.map((c) => JSON.stringify(c.id)).join(', ')}`);
      judgeCompletion(check, res, model);
    });

    test('tool calls sent with no tools declared are refused as a client error, not an upstream failure', req('TOOL-012', 'TOOL-013', 'TOOL-014', judges(judgeRefusal)), async ({ target, check, discovery, config }) => {
      const model = modelOrSkip(check, discovery, config.profile);
      const call = fabricatedCall();
      const res = await target.chat({
        model,
        messages: [
          { role: 'user', content: WEATHER_PROMPT },
          { role: 'assistant', content: 'Checking the weather in Paris.', tool_calls: [call] },
          { role: 'tool', tool_call_id: call.id, content: '{"temperature_c":18}' },
        ],
      });
      // The exact 4xx is a gap of the contract (section 7); any client-error status passes.
      const error = judgeRefusal(check, res, { id: 'TOOL-014', status: (s) => s >= 400 && s < 500, statusText: 'a client-error (4xx) status' });
      check.status('TOOL-012', res, (s) => s >= 400 && s < 500, 'for tool calls without declared tools, a client-error (4xx) status');
      check.status('TOOL-013', res, (s) => s < 500, 'the rejection must not be reported as an upstream failure: a status that is no server error (not 5xx)');
      const blame = blamesUpstream(error);
      check.that('TOOL-013', blame === undefined, () => `the rejection must not blame the upstream; ${blame} reads as an upstream failure`, res);
    });
  });
});

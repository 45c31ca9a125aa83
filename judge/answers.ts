// An answer judged by what its request asked (judge/asked.ts: read back from the exchange, never told by a caller):
// the kind of answer the stream flag asks for, the cap in force, the model named, the declared tools, hosted search,
// reasoning. Each judgement is an entry point a test may call; ANSWER_RULES pairs each with its precondition, a
// predicate over the request (and, where the rule needs it, the catalog entry of the model it names), and the
// traffic proxy judges every 200 chat answer by every rule whose precondition holds. A precondition holds only where
// the contract's rule applies: a cap is judged only on an answer that reports usage, a returned call only against
// tools the request declared, provenance only where the request asked for search.
import type { Checker } from './checker.ts';
import { isObject, type Json } from './checks/check.ts';
import { assembledCompletion } from './checks/stream.ts';
import { judgeCallsAgainstTools, judgeForcedFunction, judgeModelKept, type ArgumentedCall } from './comparisons.ts';
import { streamUsage, type ChatStream } from './decoding/chat-stream.ts';
import { entryPoint, type JudgeEntry } from './entry.ts';
import type { TargetResponse } from './exchange.ts';
import { judgeCompletion, judgeRefusal, judgeStream } from './judge-response.ts';
import { judgeActionUrls, judgeProvenancePlacement, judgeStreamProvenance, searchReport } from './search.ts';
import { judgeCapInForce } from './token-caps.ts';
import { askedOf, type Asked } from './asked.ts';

const isEventStream = (res: TargetResponse): boolean => /text\/event-stream/i.test(res.headers['content-type'] ?? '');

/** The answer decoded as what the request asked for: a stream, or a JSON completion (undefined when it is neither). */
interface Answer {
  body?: Json;
  stream?: ChatStream;
}

// Decoded once per response: several rules read the same answer (a 9 MB stream is thousands of events).
const decoded = new WeakMap<TargetResponse, Answer>();
function answerOf(res: TargetResponse, asked: Asked): Answer {
  let a = decoded.get(res);
  if (!a) {
    if (asked.stream && isEventStream(res)) a = { stream: res.stream() };
    else {
      const body = res.json();
      a = isObject(body) ? { body } : {};
    }
    decoded.set(res, a);
  }
  return a;
}

/** The completion an answer is or assembles into. */
function completionOf(a: Answer): Json | undefined {
  if (a.body) return a.body;
  return a.stream?.outcome === 'complete' ? assembledCompletion(a.stream) : undefined;
}

/** The model values an answer names: the body's, or each chunk's that names one. */
function namedModels(a: Answer): unknown[] {
  if (a.body) return 'model' in a.body ? [a.body.model] : [];
  return (a.stream?.chunks ?? []).filter((c) => 'model' in c).map((c) => c.model);
}

/** usage.completion_tokens of an answer, when it reports a number. */
function completionTokens(a: Answer): number | undefined {
  const u = a.body ? a.body.usage : a.stream ? streamUsage(a.stream) : undefined;
  return isObject(u) && typeof u.completion_tokens === 'number' ? u.completion_tokens : undefined;
}

/** The calls of every choice of a completion, with their positions. */
function callsOf(completion: Json | undefined): ArgumentedCall[] {
  const choices = Array.isArray(completion?.choices) ? completion.choices.filter(isObject) : [];
  return choices.flatMap((choice) => {
    const message = isObject(choice.message) ? choice.message : {};
    const calls = Array.isArray(message.tool_calls) ? message.tool_calls.filter(isObject) : [];
    return calls.map((call, position) => {
      const fn = isObject(call.function) ? call.function : {};
      return { position, name: fn.name, arguments: fn.arguments };
    });
  });
}

/** What the request of `res` asked; undefined when it cannot be read back (then no rule of what it asked applies). */
const asked = (res: TargetResponse): Asked | undefined => askedOf(res);

/** The answer of a request with stream absent or false is no event stream (STREAM-001). */
export const judgeNoEventStream = entryPoint('STREAM-001', function judgeNoEventStream(check: Checker, res: TargetResponse, what: string): boolean {
  const sse = isEventStream(res) || (/^\s*(data|event|id|:)/m.test(res.text.slice(0, 200)) && !res.isJson);
  return check.that('STREAM-001', !sse, () => `${what}: received an event stream (content-type ${JSON.stringify(res.headers['content-type'])}): ${res.describe()}`, res);
});

/** stream_options sent without stream true has no effect: the answer is a plain JSON completion (REQ-012). */
export const judgeStreamOptionsIgnored = entryPoint('REQ-012', function judgeStreamOptionsIgnored(check: Checker, res: TargetResponse, what: string): boolean {
  const ct = res.headers['content-type'] ?? '';
  return check.that('REQ-012', res.status === 200 && /json/i.test(ct) && res.isJson && !isEventStream(res), () => `${what} with stream_options: expected a plain JSON completion; received content-type ${JSON.stringify(ct)}, ${res.describe()}`, res);
});

/**
 * stream true asks for a server-sent-event answer: status 200, text/event-stream, a complete stream, recorded under
 * `id` (the rule of the request shape that asked for it, which the calling test declares).
 */
export const judgeEventStreamAnswer = entryPoint([], function judgeEventStreamAnswer(check: Checker, id: string, res: TargetResponse, what: string): void {
  if (!check.status(id, res, 200, `for ${what}, status`)) return;
  const ct = res.headers['content-type'] ?? '';
  check.that(id, /^text\/event-stream\b/i.test(ct.trim()), () => `for ${what}, content-type is ${JSON.stringify(ct)}; a stream is text/event-stream`, res);
  const s = res.stream();
  check.that(id, s.chunks.length > 0 && s.outcome === 'complete', () => `for ${what}, the body is not a complete event stream (${s.chunks.length} chunks, outcome ${s.outcome}): ${res.describe()}`, res);
});

/**
 * CHAT-010: the answer names the model its request named (a non-streamed body's model; every chunk that names one);
 * an answer that names none is not judged here (the schema requires it).
 */
export const judgeAnsweredByRequested = entryPoint('CHAT-010', function judgeAnsweredByRequested(check: Checker, res: TargetResponse): boolean | undefined {
  const a = asked(res);
  if (!a?.model) return undefined;
  const named = namedModels(answerOf(res, a));
  if (named.length === 0) return undefined;
  const others = [...new Set(named.filter((m) => m !== a.model))];
  return check.that('CHAT-010', others.length === 0, () => `requested ${JSON.stringify(a.model)}, answered by ${others.map((m) => JSON.stringify(m)).join(', ')}: a request is never silently answered by another model`, res);
});

/** The cap in force of the request on an answer that reports usage.completion_tokens (judgeCapInForce). */
export const judgeCapOfAnswer = entryPoint([judgeCapInForce], function judgeCapOfAnswer(check: Checker, res: TargetResponse): boolean | undefined {
  const a = asked(res);
  if (!a) return undefined;
  const used = completionTokens(answerOf(res, a));
  return used === undefined ? undefined : judgeCapInForce(check, res, used);
});

/** ROUTE-008 on a 200 answer to a request with routing preferences: it names the requested model. */
export const judgeRoutedModelKept = entryPoint([judgeModelKept], function judgeRoutedModelKept(check: Checker, res: TargetResponse): boolean | undefined {
  const a = asked(res);
  if (!a?.model) return undefined;
  return judgeModelKept(check, res, a.model, namedModels(answerOf(res, a)), `provider ${JSON.stringify(a.body.provider)}`);
});

/** The calls a 200 answer returned, against the function tools its request declared (and the one tool_choice forces). */
export const judgeCallsOfAnswer = entryPoint([judgeCallsAgainstTools, judgeForcedFunction], function judgeCallsOfAnswer(check: Checker, res: TargetResponse): void {
  const a = asked(res);
  if (!a || a.functions.length === 0) return;
  const answer = answerOf(res, a);
  const completion = completionOf(answer);
  if (!completion) return;
  const calls = callsOf(completion);
  judgeCallsAgainstTools(check, res, calls, a.functions, 'the answer');
  if (a.forced !== undefined && a.functions.some((f) => f.name === a.forced)) {
    const first = Array.isArray(completion.choices) && isObject(completion.choices[0]) ? completion.choices[0] : undefined;
    judgeForcedFunction(check, res, calls, a.forced, first?.finish_reason === 'length', `tool_choice naming ${JSON.stringify(a.forced)}`);
  }
});

/** Where a 200 answer to a request for hosted search puts its provenance (and, streamed, in a delta). */
export const judgeSearchProvenanceOfAnswer = entryPoint([judgeProvenancePlacement, judgeActionUrls, judgeStreamProvenance], function judgeSearchProvenanceOfAnswer(check: Checker, res: TargetResponse): void {
  const a = asked(res);
  if (!a?.search) return;
  const answer = answerOf(res, a);
  if (answer.stream) {
    if (answer.stream.outcome !== 'complete' || answer.stream.chunks.length === 0) return;
    judgeStreamProvenance(check, answer.stream, res);
  }
  const completion = completionOf(answer);
  if (!completion) return;
  judgeProvenancePlacement(check, searchReport(completion), answer.stream ? 'streamed answer' : 'the answer', res);
  if (answer.body) judgeActionUrls(check, completion, 'the answer', res);
});

/** RSN-008: reasoning_content comes only from an entry that exposes reasoning; `entry` is the catalog entry of the model. */
export const judgeReasoningOnlyWhereExposed = entryPoint('RSN-008', function judgeReasoningOnlyWhereExposed(check: Checker, res: TargetResponse, entry: Json): boolean | undefined {
  const a = asked(res);
  if (!a || entry.supports_reasoning !== false) return undefined;
  const answer = answerOf(res, a);
  const carried = answer.body
    ? (Array.isArray(answer.body.choices) ? answer.body.choices : []).some((c) => isObject(c) && isObject(c.message) && 'reasoning_content' in c.message)
    : [...(answer.stream?.choices.values() ?? [])].some((c) => c.reasoning !== '');
  return check.that('RSN-008', !carried, () => `${JSON.stringify(entry.id)} has supports_reasoning false, yet its answer carries reasoning_content`, res);
});

/** The completion or the stream a 200 answer is, judged by every check of its kind (judgeCompletion, judgeStream). */
export const judgeAnswerOfKind = entryPoint([judgeCompletion, judgeStream], function judgeAnswerOfKind(check: Checker, res: TargetResponse): void {
  const a = asked(res);
  if (!a) return;
  if (a.stream) judgeStream(check, res, a.model ?? '');
  else judgeCompletion(check, res, a.model ?? '');
});

/** The text a stream's deltas carried, over every choice. */
const streamedText = (s: ChatStream): string => [...s.choices.values()].map((c) => c.content).join('');

/**
 * ERR-005: a request that fails before its stream opens (one a server must refuse: no credential, invalid options)
 * is refused with a non-200 JSON error, also with stream true; a 200 event stream holding only an error event is
 * that failure sent after opening. An answer that is no refusal at all breaks the rule of the case, which its own
 * judgement charges: not this one. `refusal`: also judge the refusal's body (judgeRefusal, under ERR-005).
 */
export const judgeRefusedBeforeStream = entryPoint(['ERR-005', judgeRefusal], function judgeRefusedBeforeStream(check: Checker, res: TargetResponse, what: string, refusal = true): void {
  if (res.exchange.status === 200) {
    const stream = isEventStream(res) ? res.stream() : undefined;
    if (stream?.outcome === 'error' && streamedText(stream) === '') {
      check.that('ERR-005', false, () => `${what}: the failure came as a 200 event stream ending on an error event (${JSON.stringify(stream.errorEvent).slice(0, 200)}), not as a non-200 JSON error before the stream opened`, res);
      return;
    }
    check.cannotJudge(['ERR-005'], { message: `${what}: the target did not refuse (HTTP 200), so there is no failure before the stream to judge`, on: res });
    return;
  }
  if (refusal) judgeRefusal(check, res, { id: 'ERR-005', status: (s) => s !== 200, statusText: `${what}: status` });
  if (res.exchange.status !== 0) check.that('ERR-005', !isEventStream(res), () => `${what}: a refusal before the stream opens is JSON, not an event stream (content-type ${JSON.stringify(res.headers['content-type'])})`, res);
});

/**
 * AUTH-006 where the status alone tells: a catalog read with a credential answered with a server error (5xx but a
 * 503, which says "not now") failed to serve the catalog; that is no refusal of the key. Other answers are judged by
 * judgeModelList and judgeModelEntry.
 */
export const judgeCatalogReadServed = entryPoint('AUTH-006', function judgeCatalogReadServed(check: Checker, res: TargetResponse): boolean | undefined {
  if (res.status < 500 || res.status === 503) return undefined;
  return check.that('AUTH-006', false, () => `a catalog read with a credential was answered with a server error, not the catalog: ${res.describe()}`, res);
});

/** A judgement of an answer by what its request asked, with its precondition. */
export interface AnswerRule {
  /** The entry point it runs (its IDs are the rule's). */
  judge: JudgeEntry;
  /** The precondition: a predicate over what the request asked and the catalog entry of its model (when known). */
  when: (asked: Asked, entry: Json | undefined) => boolean;
  /** The precondition in words. */
  applies: string;
  /** Runs the entry point on the answer (`entry` given whenever `when` asked for it). */
  run: (check: Checker, res: TargetResponse, entry: Json | undefined) => unknown;
}

/**
 * Every judgement of a 200 chat answer by what its request asked: the traffic proxy runs each whose precondition
 * the request meets. The suite's tests call the same entry points on what they sent.
 */
export const ANSWER_RULES: readonly AnswerRule[] = [
  { judge: judgeAnswerOfKind, applies: 'always: a completion for stream absent or false, a stream for stream true', when: () => true, run: (c, r) => judgeAnswerOfKind(c, r) },
  { judge: judgeNoEventStream, applies: 'stream absent or false', when: (a) => !a.stream, run: (c, r) => judgeNoEventStream(c, r, 'a request with stream absent or false') },
  { judge: judgeStreamOptionsIgnored, applies: 'stream_options sent with stream absent or false', when: (a) => !a.stream && 'stream_options' in a.body, run: (c, r) => judgeStreamOptionsIgnored(c, r, 'stream absent or false') },
  { judge: judgeCapOfAnswer, applies: 'a token cap sent (judged on an answer that reports usage.completion_tokens)', when: (a) => a.caps.max_tokens !== undefined || a.caps.max_completion_tokens !== undefined, run: (c, r) => judgeCapOfAnswer(c, r) },
  { judge: judgeAnsweredByRequested, applies: 'a model named', when: (a) => a.model !== undefined, run: (c, r) => judgeAnsweredByRequested(c, r) },
  { judge: judgeRoutedModelKept, applies: 'routing preferences sent (a provider object)', when: (a) => a.provider && a.model !== undefined, run: (c, r) => judgeRoutedModelKept(c, r) },
  { judge: judgeCallsOfAnswer, applies: 'function tools declared', when: (a) => a.functions.length > 0, run: (c, r) => judgeCallsOfAnswer(c, r) },
  { judge: judgeSearchProvenanceOfAnswer, applies: 'hosted search asked for (web_search_options or a web_search tool)', when: (a) => a.search, run: (c, r) => judgeSearchProvenanceOfAnswer(c, r) },
  { judge: judgeReasoningOnlyWhereExposed, applies: 'include_reasoning true to a model whose catalog entry says supports_reasoning false', when: (a, e) => a.includeReasoning && e?.supports_reasoning === false, run: (c, r, e) => (e ? judgeReasoningOnlyWhereExposed(c, r, e) : undefined) },
];

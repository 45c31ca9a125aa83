// Checks of a chat completion's meaning (2.9, 2.4, 2.7, 4.3): what a schema cannot state. They judge a
// non-streamed completion and, through its assembled equivalent, a streamed one. Each is one requirement.
import { check, holds, isObject, notApplicable, parsesAsJson, quote, type Json } from './check.ts';
import { contentText } from '../content-text.ts';

/** A completion to judge: the body (or a stream assembled into one), the model the request named. */
export interface Completion {
  body: Json;
  model: string;
  /** "completion" or "streamed completion", for messages. */
  what: string;
  /** The token cap the request carried, when it carried one. */
  cap?: number;
}

/** Seconds either side of now within which `created` counts as current (clock skew, slow targets). */
export const CREATED_SLACK_S = 24 * 3600;

/**
 * The smallest `created` read as milliseconds: 1e11 seconds is the year 5138, while every millisecond time since
 * 1973 is above it, so the two readings never overlap.
 */
export const CREATED_MS_FLOOR = 1e11;

/** Why a `created` value is no Unix time in seconds (2.9: "Unix timestamp"), or undefined when it is one. */
export function createdNotSeconds(created: number): string | undefined {
  if (created < 0) return `created ${created} is negative; a Unix timestamp counts seconds since the epoch`;
  if (created >= CREATED_MS_FLOOR) return `created ${created} is no Unix time in seconds: milliseconds?`;
  return undefined;
}

/** Why a `created` in seconds is far from now (a SHOULD: the contract says "Unix timestamp", not "now"), or undefined. */
export function createdFarFromNow(created: number): string | undefined {
  const now = Date.now() / 1000;
  if (Math.abs(created - now) <= CREATED_SLACK_S) return undefined;
  return `created ${created} is ${Math.round(Math.abs(created - now) / 3600)} h ${created < now ? 'before' : 'after'} now (${Math.round(now)}): a stale clock or a cached answer?`;
}

const choicesOf = (c: Completion): Json[] => (Array.isArray(c.body.choices) ? c.body.choices.filter(isObject) : []);
const messageOf = (choice: Json): Json => (isObject(choice.message) ? choice.message : {});
const usageOf = (c: Completion): Json | undefined => (isObject(c.body.usage) ? c.body.usage : undefined);
/** Whether some choice returned a tool call: the case of the tool-call rules. */
const returnedCalls = (c: Completion): boolean => choicesOf(c).some((choice) => Array.isArray(messageOf(choice).tool_calls) && (messageOf(choice).tool_calls as unknown[]).length > 0);

export const idNotEmpty = check('RESP-002', function idNotEmpty(c: Completion) {
  if (typeof c.body.id !== 'string') return undefined;
  return holds(c.body.id.length > 0, () => `${c.what}: id is an empty string; it identifies the completion`);
});

const createdOf = (c: Completion): number | undefined => (typeof c.body.created === 'number' ? c.body.created : undefined);

/**
 * `created` is a Unix timestamp (2.9): seconds, never milliseconds or a negative count. A string or a fraction is
 * the schema's finding (RESP-004); a time far from now is RESP-030's.
 */
export const createdIsUnixSeconds = check('RESP-005', function createdIsUnixSeconds(c: Completion) {
  const created = createdOf(c);
  if (created === undefined) return undefined;
  const problem = createdNotSeconds(created);
  return problem === undefined ? [] : [`${c.what}: ${problem}`];
});

/** `created` is near the time of the request (a SHOULD). Judged only on a value in seconds: otherwise RESP-005's. */
export const createdNearNow = check('RESP-030', function createdNearNow(c: Completion) {
  const created = createdOf(c);
  if (created === undefined || createdNotSeconds(created) !== undefined) return undefined;
  const problem = createdFarFromNow(created);
  return problem === undefined ? [] : [`${c.what}: ${problem}`];
});

export const choicesNotEmpty = check('RESP-007', function choicesNotEmpty(c: Completion) {
  if (!Array.isArray(c.body.choices)) return undefined;
  return holds(c.body.choices.length > 0, () => `${c.what}: choices is an empty array; a completion returns one choice per completion`);
});

export const choiceIndexIsPosition = check('RESP-009', function choiceIndexIsPosition(c: Completion) {
  if (!Array.isArray(c.body.choices)) return undefined;
  const problems: string[] = [];
  c.body.choices.forEach((choice, position) => {
    if (isObject(choice) && typeof choice.index === 'number' && choice.index !== position) problems.push(`${c.what}: choices[${position}].index is ${choice.index}; it is the position of the choice`);
  });
  return problems;
});

export const answeredByRequestedModel = check('CHAT-009', function answeredByRequestedModel(c: Completion) {
  if (!('model' in c.body)) return undefined;
  return holds(c.body.model === c.model, () => `${c.what}: requested model ${quote(c.model)}, the response names ${quote(c.body.model)}`);
});

/**
 * A returned tool call's id is a non-empty string (2.4: the result message answers it through tool_call_id, and
 * "" answers nothing). The schema states the type only; a call without an id is the schema's finding.
 */
export const toolCallIdNotEmpty = check('RESP-015', function toolCallIdNotEmpty(c: Completion) {
  const problems: string[] = [];
  let judged = false;
  choicesOf(c).forEach((choice, position) => {
    const calls = messageOf(choice).tool_calls;
    if (!Array.isArray(calls)) return;
    calls.filter(isObject).forEach((call, i) => {
      if (typeof call.id !== 'string') return;
      judged = true;
      if (call.id === '') problems.push(`${c.what}, choice ${position}: tool call ${i} has "id": ""; a tool result answers a call through its id, so it is a non-empty string`);
    });
  });
  return judged ? problems : returnedCalls(c) ? undefined : notApplicable();
}, { when: 'a tool call came back' });

/** The calls of one message have distinct ids (2.4, 2.2: tool_call_id matches one call's id). */
export const toolCallIdsDistinct = check('RESP-016', function toolCallIdsDistinct(c: Completion) {
  const problems: string[] = [];
  let judged = false;
  choicesOf(c).forEach((choice, position) => {
    const calls = messageOf(choice).tool_calls;
    if (!Array.isArray(calls) || calls.length === 0) return;
    judged = true;
    // An empty or missing id is RESP-015's (or the schema's) finding, not a repeat.
    const ids = calls.filter(isObject).map((call) => call.id).filter((id) => typeof id === 'string' && id !== '');
    if (new Set(ids).size !== ids.length) problems.push(`${c.what}, choice ${position}: tool call ids repeat: ${quote(ids, 300)}; a tool result answers one call through its tool_call_id, so each call of a message needs its own`);
  });
  return judged ? problems : notApplicable();
}, { when: 'a tool call came back' });

/**
 * Whether the cap may have cut this choice: it says so (finish_reason "length"), or it reports no finish_reason
 * (optional) and its usage either is absent or reaches the cap.
 */
function mayBeCutByCap(c: Completion, choice: Json): boolean {
  if (choice.finish_reason === 'length') return true;
  if ('finish_reason' in choice) return false;
  const used = usageOf(c)?.completion_tokens;
  return typeof used !== 'number' || (c.cap !== undefined && used >= c.cap);
}

/**
 * Tool-call arguments decode as JSON (2.4). A choice the token cap may have cut is not judged: a call cut short by
 * the caller's own cap is an unfinished call, not a malformed one.
 */
export const toolArgumentsDecode = check('RESP-020', function toolArgumentsDecode(c: Completion) {
  const problems: string[] = [];
  let judged = false;
  let cut = false;
  choicesOf(c).forEach((choice, position) => {
    const calls = messageOf(choice).tool_calls;
    if (!Array.isArray(calls)) return;
    const decodes = calls.filter(isObject).every((call) => !isObject(call.function) || typeof call.function.arguments !== 'string' || parsesAsJson(call.function.arguments));
    if (!decodes && mayBeCutByCap(c, choice)) {
      cut = true;
      return;
    }
    for (const call of calls.filter(isObject)) {
      const args = isObject(call.function) ? call.function.arguments : undefined;
      if (typeof args !== 'string') continue;
      judged = true;
      if (!parsesAsJson(args)) problems.push(`${c.what}, choice ${position}: the arguments of ${call.id === undefined ? 'a call without an id' : quote(call.id)} do not decode as JSON: ${quote(args, 200)}`);
    }
  });
  if (judged) return problems;
  if (cut) return notApplicable('no case: the token cap may have cut the tool call, so its arguments are not judged');
  return returnedCalls(c) ? undefined : notApplicable();
}, { when: 'a tool call came back' });

export const totalIsSum = check('RESP-023', function totalIsSum(c: Completion) {
  const u = usageOf(c);
  const p = u?.prompt_tokens;
  const n = u?.completion_tokens;
  const t = u?.total_tokens;
  if (!u) return notApplicable();
  if (typeof p !== 'number' || typeof n !== 'number' || typeof t !== 'number') return undefined;
  return holds(t === p + n, () => `${c.what}: usage.total_tokens is ${t}; prompt_tokens ${p} + completion_tokens ${n} = ${p + n}`);
}, { when: 'the answer reports usage' });

export const cachedWithinPrompt = check('RESP-025', function cachedWithinPrompt(c: Completion) {
  const u = usageOf(c);
  const details = u && isObject(u.prompt_tokens_details) ? u.prompt_tokens_details : undefined;
  const cached = details?.cached_tokens;
  const p = u?.prompt_tokens;
  if (cached === undefined) return notApplicable();
  if (typeof cached !== 'number' || typeof p !== 'number') return undefined;
  return holds(cached <= p, () => `${c.what}: prompt_tokens_details.cached_tokens ${cached} exceeds prompt_tokens ${p}; cached tokens are input tokens`);
}, { when: 'usage reports cached_tokens' });

export const annotationsAreCitations = check('SEARCH-029', function annotationsAreCitations(c: Completion) {
  const problems: string[] = [];
  let judged = false;
  choicesOf(c).forEach((choice, position) => {
    const annotations = messageOf(choice).annotations;
    if (!Array.isArray(annotations)) return;
    judged = true;
    const others = annotations.filter((a) => !isObject(a) || a.type !== 'url_citation');
    if (others.length > 0) problems.push(`${c.what}, choice ${position}: annotations holds entries that are not url_citation: ${quote(others, 300)}`);
  });
  return judged ? problems : notApplicable();
}, { when: 'an answer carried annotations (a search result)' });

/** The units a citation offset may count the final text in: the spec does not say which (a gap, OBS). */
export type OffsetUnit = 'utf16' | 'codepoints' | 'bytes';

/** The length of `text` in each unit. */
export function textLengths(text: string): Record<OffsetUnit, number> {
  return { utf16: text.length, codepoints: [...text].length, bytes: Buffer.byteLength(text, 'utf8') };
}

/** The citation spans of one message, with the units in which every span fits the final text. */
export function citationSpans(message: Json): { spans: { start: number; end: number }[]; units: OffsetUnit[]; text: string } {
  const text = contentText(message.content) ?? '';
  const spans: { start: number; end: number }[] = [];
  for (const a of Array.isArray(message.annotations) ? message.annotations : []) {
    const u = isObject(a) && isObject(a.url_citation) ? a.url_citation : undefined;
    if (u && typeof u.start_index === 'number' && typeof u.end_index === 'number') spans.push({ start: u.start_index, end: u.end_index });
  }
  const lengths = textLengths(text);
  const units = (Object.keys(lengths) as OffsetUnit[]).filter((unit) => spans.every((s) => s.start >= 0 && s.start <= s.end && s.end <= lengths[unit]));
  return { spans, units, text };
}

/**
 * Citation offsets are bounded to the final text (2.9). The unit is not stated, so a span passes when it fits in
 * any of UTF-16 units, code points or UTF-8 bytes (the unit that fits is observed under OBS by the search spec);
 * it fails only when it fits in none.
 */
export const citationsWithinText = check('SEARCH-027', function citationsWithinText(c: Completion) {
  const problems: string[] = [];
  let judged = false;
  choicesOf(c).forEach((choice, position) => {
    const { spans, units, text } = citationSpans(messageOf(choice));
    if (spans.length === 0) return;
    judged = true;
    if (units.length === 0) {
      const l = textLengths(text);
      const bad = spans.filter((s) => !(s.start >= 0 && s.start <= s.end && s.end <= Math.max(l.utf16, l.codepoints, l.bytes)));
      const shown = (bad.length > 0 ? bad : spans).slice(0, 3).map((s) => `[${s.start}, ${s.end}]`).join(', ');
      problems.push(`${c.what}, choice ${position}: citation span(s) ${shown} do not fit the final text in any unit (length ${l.utf16} UTF-16 units, ${l.codepoints} code points, ${l.bytes} bytes)`);
    }
  });
  return judged ? problems : notApplicable();
}, { when: 'an answer carried citations with offsets (a search result)' });

export const searchCallsCountCompleted = check('SEARCH-039', function searchCallsCountCompleted(c: Completion) {
  const u = usageOf(c);
  if (!u || !('service_web_search_calls' in u)) return notApplicable();
  const n = u.service_web_search_calls;
  return holds(typeof n === 'number' && n >= 1, () => `${c.what}: usage.service_web_search_calls is ${quote(n)}; it is omitted when no search completed`);
}, { when: 'usage reports service_web_search_calls (a search result)' });

/**
 * Input tokens of a request that carried a prompt: the kit never sends an empty conversation. Cache-write tokens are
 * additional to prompt_tokens (2.9), so a prompt written to the cache whole reads as prompt_tokens 0 beside them.
 */
export const promptTokensCountInput = check('RESP-021', function promptTokensCountInput(c: Completion) {
  const u = usageOf(c);
  if (!u) return notApplicable();
  const p = u.prompt_tokens;
  if (typeof p !== 'number') return undefined;
  const details = u.prompt_tokens_details;
  const written = details !== null && typeof details === 'object' && typeof (details as Record<string, unknown>).cache_write_tokens === 'number' ? ((details as Record<string, unknown>).cache_write_tokens as number) : 0;
  return holds(p + written >= 1, () => `${c.what}: usage.prompt_tokens is ${p}${written > 0 ? ` and cache_write_tokens ${written}` : ''} for a request whose messages carry text; input tokens were read`);
}, { when: 'the answer reports usage' });

/** Generated tokens: an answer that carries text or a tool call was generated, so it counts at least one token. */
export const completionTokensCountOutput = check('RESP-022', function completionTokensCountOutput(c: Completion) {
  const u = usageOf(c);
  if (!u) return notApplicable();
  const n = u.completion_tokens;
  if (typeof n !== 'number') return undefined;
  const generated = choicesOf(c).some((choice) => {
    const m = messageOf(choice);
    return (contentText(m.content) ?? '') !== '' || (Array.isArray(m.tool_calls) && m.tool_calls.length > 0);
  });
  if (!generated) return notApplicable('no case: the answer carries no generated text or tool call');
  return holds(n >= 1, () => `${c.what}: usage.completion_tokens is ${n}, yet the answer carries generated text or tool calls`);
}, { when: 'the answer reports usage' });

/**
 * usage.service_web_search_calls counts actions that completed: never more than the actions the message lists
 * (4.3 rule 6 puts every action performed in message.service_web_search). Judged only when the field reports a
 * completed search (n >= 1): a count of none is SEARCH-039's.
 */
export const searchCallsWithinActions = check('SEARCH-038', function searchCallsWithinActions(c: Completion) {
  const n = usageOf(c)?.service_web_search_calls;
  const listed = choicesOf(c).reduce((sum, choice) => {
    const actions = messageOf(choice).service_web_search;
    return sum + (Array.isArray(actions) ? actions.length : 0);
  }, 0);
  if (n === undefined || (typeof n === 'number' && n < 1)) return notApplicable();
  if (typeof n !== 'number') return undefined;
  return holds(n <= listed, () => `${c.what}: usage.service_web_search_calls is ${n}, more than the ${listed} search action(s) message.service_web_search lists`);
}, { when: 'a search completed (usage.service_web_search_calls of 1 or more)' });

/**
 * A search that completed is counted (2.9: service_web_search_calls is "omitted when none", so only then): an answer
 * whose message lists search actions and that reports usage carries the count. An answer without usage says
 * nothing of its searches (usage is omitted when unavailable); how many it counts is SEARCH-038's.
 */
export const searchCallsReported = check('SEARCH-053', function searchCallsReported(c: Completion) {
  const listed = choicesOf(c).reduce((sum, choice) => {
    const actions = messageOf(choice).service_web_search;
    return sum + (Array.isArray(actions) ? actions.length : 0);
  }, 0);
  const u = usageOf(c);
  if (listed === 0 || !u) return notApplicable();
  return holds('service_web_search_calls' in u, () => `${c.what}: message.service_web_search lists ${listed} search action(s) and usage is reported, but usage.service_web_search_calls is omitted; it is omitted only when no search completed`);
}, { when: 'a search action came back with usage reported' });

/** A choice that returns tool calls ends with finish_reason "tool_calls" (what clients branch on; CLIENT-NOTES). */
export const finishReasonNamesToolCalls = check('CHAT-001', function finishReasonNamesToolCalls(c: Completion) {
  const withCalls = choicesOf(c).filter((choice) => Array.isArray(messageOf(choice).tool_calls) && (messageOf(choice).tool_calls as unknown[]).length > 0 && 'finish_reason' in choice);
  if (withCalls.length === 0) return returnedCalls(c) ? undefined : notApplicable();
  return withCalls
    .filter((choice) => choice.finish_reason !== 'tool_calls' && choice.finish_reason !== 'length')
    .map((choice) => `${c.what}: choice ${String(choice.index)} returns tool calls with finish_reason ${quote(choice.finish_reason)}, not "tool_calls" (standard clients rely on it; not a contract MUST)`);
}, { when: 'a tool call came back' });

/** Every check of a completion's meaning. */
export const COMPLETION_CHECKS = [
  idNotEmpty,
  createdIsUnixSeconds,
  createdNearNow,
  choicesNotEmpty,
  choiceIndexIsPosition,
  answeredByRequestedModel,
  toolCallIdNotEmpty,
  toolCallIdsDistinct,
  toolArgumentsDecode,
  totalIsSum,
  cachedWithinPrompt,
  annotationsAreCitations,
  citationsWithinText,
  searchCallsCountCompleted,
  promptTokensCountInput,
  completionTokensCountOutput,
  searchCallsWithinActions,
  searchCallsReported,
  finishReasonNamesToolCalls,
] as const;

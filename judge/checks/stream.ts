// Checks of a streamed chat completion (section 6, 2.9, 4.3), each one requirement. The bytes are decoded by the
// one reference consumer (`res.stream()`: judge/decoding/sse.ts + judge/decoding/chat-stream.ts); these only judge what it decoded.
// What is a MUST is what the contract says. What real clients need beyond it (shared/CLIENT-NOTES.md) is
// charged to CHAT-001 (SHOULD: "a standard chat-completions client works"): a warning, never a failed MUST.
import type { AssembledChoice, ChatStream } from '../decoding/chat-stream.ts';
import type { TargetResponse } from '../exchange.ts';
import { check, holds, isObject, notApplicable, quote, type Json } from './check.ts';
import { createdFarFromNow, createdNotSeconds } from './completion.ts';
import { contentText } from '../content-text.ts';

/** A stream to judge: the response it came in, the decoded stream, and what the request asked for. */
export interface StreamSubject {
  res: TargetResponse;
  stream: ChatStream;
  model: string;
  /** The request sent stream_options.include_usage true. */
  includeUsage?: boolean;
  /** The prompt calls for text (no tools, no reasoning model): deltas must carry some. */
  expectText?: boolean;
}

const QUOTE = 5;

export const servedAsEventStream = check('CHAT-005', function servedAsEventStream(s: StreamSubject) {
  const ct = s.res.headers['content-type'] ?? '';
  return holds(/^\s*text\/event-stream\s*(;|$)/i.test(ct), () => `a streamed completion is served as text/event-stream; received content-type ${quote(ct)}`);
});

/**
 * Only the default event type reaches a standard consumer's message handler: an event named anything but
 * `message` hides its data. `event: message`, `id:` and `retry:` lines are legal SSE fields and pass.
 */
export const eventsUnnamed = check('STREAM-002', function eventsUnnamed(s: StreamSubject) {
  const named = s.stream.transcript.events.map((e) => e.event).filter((e): e is string => e !== undefined && e !== 'message');
  return holds(named.length === 0, () => `events are unnamed data: events; received events named ${quote([...new Set(named)].slice(0, QUOTE))}, which standard consumers do not deliver`);
});

export const linesAreSseFields = check('STREAM-002', function linesAreSseFields(s: StreamSubject) {
  const unknown = s.stream.transcript.unknownLines;
  return holds(unknown.length === 0, () => `each event is made of data: lines; received lines that are no SSE field: ${unknown.slice(0, QUOTE).map((l) => quote(l)).join(', ')}`);
});

/** Several JSON documents (or [DONE]) on consecutive data: lines: events run together without a blank line. */
export function isGluedEvents(payload: string): boolean {
  const lines = payload.split('\n');
  if (lines.length < 2) return false;
  return lines.every((l) => {
    if (l.trim() === '[DONE]') return true;
    try {
      JSON.parse(l);
      return true;
    } catch {
      return false;
    }
  });
}

export const eventsSeparatedByBlankLine = check('STREAM-009', function eventsSeparatedByBlankLine(s: StreamSubject) {
  const glued = s.stream.nonJsonPayloads.filter(isGluedEvents);
  return holds(glued.length === 0, () => `events are separated by a blank line; ${glued.length} payload(s) hold several events run together, e.g. ${quote(glued[0]!, 200)}`);
});

export const payloadsAreJsonObjects = check('STREAM-003', function payloadsAreJsonObjects(s: StreamSubject) {
  const malformed = s.stream.nonJsonPayloads.filter((p) => !isGluedEvents(p));
  const problems: string[] = [];
  if (malformed.length) problems.push(`payloads that are not JSON: ${malformed.slice(0, QUOTE).map((p) => quote(p)).join(', ')}`);
  if (s.stream.nonObjectPayloads.length) problems.push(`payloads that are JSON but not an object: ${s.stream.nonObjectPayloads.slice(0, QUOTE).map((p) => quote(p)).join(', ')}`);
  if (s.stream.transcript.decodeError) problems.push(`the stream's bytes are not valid UTF-8 text: ${s.stream.transcript.decodeError}`);
  return problems;
});

/** The stream ends with [DONE], once and after every chunk, or on an error event; never in silence. */
export const endsWithDone = check('STREAM-004', function endsWithDone(s: StreamSubject) {
  const { stream, res } = s;
  if (stream.transcript.events.length === 0) {
    return [`the body holds no server-sent event at all (${stream.transcript.decodeError ? `undecodable: ${stream.transcript.decodeError}; ` : ''}${res.describe()})`];
  }
  if (stream.outcome === 'error') return undefined; // judged where an error was provoked (section 6 rule 10)
  if (res.exchange.error) return [`the stream was cut before it completed (${res.exchange.error}); received ${stream.chunks.length} chunk(s) and no [DONE]`];
  if (stream.outcome === 'truncated') return [`the body ended after ${stream.transcript.events.length} event(s) without [DONE] and without an error event`];
  return holds(stream.donePositions.length === 1 && stream.eventsAfterDone === 0, () => `[DONE] is sent once, after every chunk; received it ${stream.donePositions.length} time(s) with ${stream.eventsAfterDone} event(s) after the first`);
});

export const chunksNameRequestedModel = check('CHAT-009', function chunksNameRequestedModel(s: StreamSubject) {
  const chunks = s.stream.chunks.filter((c) => 'model' in c);
  if (chunks.length === 0) return undefined;
  const wrong = s.stream.chunks.map((c, i) => ({ c, i })).filter(({ c }) => 'model' in c && c.model !== s.model);
  return wrong.slice(0, QUOTE).map(({ c, i }) => `chunk ${i}: requested model ${quote(s.model)}, the chunk names ${quote(c.model)}`);
});

/** Streamed text arrives as choices[].delta.content: carried elsewhere while the delta lacks it, it is lost. */
export const textInDeltaContent = check('STREAM-012', function textInDeltaContent(s: StreamSubject) {
  const problems: string[] = [];
  s.stream.chunks.forEach((chunk, i) => {
    const choices = Array.isArray(chunk.choices) ? chunk.choices : [];
    choices.forEach((c, j) => {
      if (!isObject(c)) return;
      const inDelta = isObject(c.delta) && typeof c.delta.content === 'string';
      const elsewhere = [
        typeof c.text === 'string' && c.text !== '' ? 'choices[].text' : '',
        isObject(c.message) && (contentText(c.message.content) ?? '') !== '' ? 'choices[].message.content' : '',
      ].filter(Boolean);
      if (!inDelta && elsewhere.length > 0) problems.push(`chunk ${i} choice ${j}: streamed text arrives as choices[].delta.content; it came as ${elsewhere.join(' and ')}`);
    });
  });
  if (s.expectText && s.stream.outcome === 'complete') {
    const choices = [...s.stream.choices.values()];
    const text = choices.map((c) => c.content).join('');
    const calls = choices.reduce((n, c) => n + c.toolCalls.length, 0);
    if (text.length === 0 && calls === 0) problems.push(`no text arrived as choices[].delta.content in ${s.stream.chunks.length} chunk(s) (and no tool call)`);
  }
  return problems;
});

export const usageWhenAsked = check('STREAM-016', function usageWhenAsked(s: StreamSubject) {
  if (!s.includeUsage) return notApplicable();
  if (s.stream.outcome !== 'complete') return undefined;
  return holds(s.stream.usageChunks.length >= 1, () => `stream_options.include_usage was true but no chunk carries a usage object (${s.stream.chunks.length} chunk(s))`);
}, { when: 'the request asked for usage (stream_options.include_usage true)' });

const assembledCalls = (s: StreamSubject) =>
  s.stream.outcome === 'complete' ? [...s.stream.choices.values()].flatMap((c) => c.toolCalls.map((call) => ({ c, call, at: `choice ${c.index}, tool call index ${call.index}` }))) : [];
/** No assembled call: the case did not come on a complete stream; an incomplete one is STREAM-004's finding. */
const noCall = (s: StreamSubject) => (s.stream.outcome === 'complete' ? notApplicable() : undefined);
const TOOL_CALL = { when: 'a tool call came back' };

export const streamedCallHasId = check('RESP-015', function streamedCallHasId(s: StreamSubject) {
  const calls = assembledCalls(s);
  if (calls.length === 0) return noCall(s);
  return calls.filter(({ call }) => !(typeof call.id === 'string' && call.id !== '')).map(({ call, at }) => `${at}: no delta carried a non-empty id (${call.deltas} delta(s))`);
}, TOOL_CALL);

/**
 * A call has one identifier (2.4): a later delta of a call may repeat its id, never change it. A client keying calls
 * by id would split one call in two, and the result message could answer only one of them.
 */
export const streamedCallOneId = check('RESP-031', function streamedCallOneId(s: StreamSubject) {
  const calls = assembledCalls(s);
  if (calls.length === 0) return noCall(s);
  return calls.filter(({ call }) => call.ids.length > 1).map(({ call, at }) => `${at}: its deltas carry ${call.ids.length} different ids ${quote(call.ids.slice(0, QUOTE))}; a call has one identifier`);
}, TOOL_CALL);

export const streamedCallIsFunction = check('RESP-017', function streamedCallIsFunction(s: StreamSubject) {
  const calls = assembledCalls(s);
  if (calls.length === 0) return noCall(s);
  return calls
    .filter(({ call }) => call.type !== 'function')
    .map(({ call, at }) => `${at}: ${call.type === undefined ? 'no delta carried a type' : `the assembled type is ${quote(call.type)}`}; a tool call's type is always "function"`);
}, TOOL_CALL);

export const streamedCallHasName = check('RESP-018', function streamedCallHasName(s: StreamSubject) {
  const calls = assembledCalls(s);
  if (calls.length === 0) return noCall(s);
  return calls.filter(({ call }) => !(typeof call.name === 'string' && call.name !== '')).map(({ at }) => `${at}: no delta carried function.name`);
}, TOOL_CALL);

/**
 * A stream is one completion (4.3), and `id` is the identifier of the completion (2.9): every chunk that carries
 * an id carries that one. A chunk without one is the schema's finding.
 */
export const oneIdPerStream = check('RESP-002', function oneIdPerStream(s: StreamSubject) {
  const ids = [...new Set(s.stream.chunks.filter((c) => 'id' in c).map((c) => c.id))];
  if (ids.length === 0) return undefined;
  return holds(ids.length === 1, () => `every chunk of a stream carries the id of its one completion; received ${ids.length} ids: ${quote(ids.slice(0, QUOTE))}`);
});

/** The chunks whose numeric `created` `problem` finds fault with, one finding each (the first few). */
function createdFindings(s: StreamSubject, problem: (created: number) => string | undefined): string[] | undefined {
  const stamped = s.stream.chunks.map((c, i) => ({ c, i })).filter(({ c }) => typeof c.created === 'number');
  if (stamped.length === 0) return undefined;
  return stamped.flatMap(({ c, i }) => {
    const p = problem(c.created as number);
    return p === undefined ? [] : [`chunk ${i}: ${p}`];
  }).slice(0, QUOTE);
}

/** `created` is a Unix timestamp in seconds (2.9) in every chunk, not only in the first, which the assembled completion keeps. */
export const chunksCreatedInSeconds = check('RESP-005', function chunksCreatedInSeconds(s: StreamSubject) {
  return createdFindings(s, createdNotSeconds);
});

/** Every chunk's `created` in seconds is near now (a SHOULD); one not in seconds is RESP-005's. */
export const chunksCreatedNearNow = check('RESP-030', function chunksCreatedNearNow(s: StreamSubject) {
  return createdFindings(s, (created) => (createdNotSeconds(created) === undefined ? createdFarFromNow(created) : undefined));
});

// ---- What standard clients need beyond the contract (CHAT-001, SHOULD) ----

const client = (problem: string) => `${problem} (standard clients rely on it; not a contract MUST)`;


export const firstDeltaHasRole = check('CHAT-001', function firstDeltaHasRole(s: StreamSubject) {
  const choices = [...s.stream.choices.values()];
  if (choices.length === 0) return undefined;
  return choices
    .filter((c) => !(c.firstDeltaHadRole && c.roles[0] === 'assistant'))
    .map((c) => client(`choice ${c.index}: the first delta carries role "assistant"; it carried ${c.firstDeltaHadRole ? quote(c.roles[0]) : 'no role'}`));
});

export const finishReasonReported = check('CHAT-001', function finishReasonReported(s: StreamSubject) {
  if (s.stream.outcome !== 'complete') return undefined;
  const problems: string[] = [];
  for (const c of s.stream.choices.values()) {
    if (c.finishReasons.length === 0) problems.push(client(`choice ${c.index}: the final chunk of a choice carries finish_reason; none did`));
    else if (c.toolCalls.length > 0 && c.finishReasons.at(-1) !== 'tool_calls' && c.finishReasons.at(-1) !== 'length') {
      problems.push(client(`choice ${c.index}: tool calls were emitted but finish_reason is ${quote(c.finishReasons.at(-1))}, not "tool_calls"`));
    }
  }
  return problems;
});

export const usageChunkCount = check('CHAT-001', function usageChunkCount(s: StreamSubject) {
  if (s.stream.outcome !== 'complete') return undefined;
  const n = s.stream.usageChunks.length;
  if (s.includeUsage) return holds(n <= 1, () => client(`with include_usage, exactly one usage chunk; received ${n}`));
  return holds(n === 0, () => client(`without stream_options.include_usage, no usage chunk; received ${n}`));
});

/** A usage-only chunk sends `choices: []`: the AI SDK requires the array (the contract defines no more). */
export const chunksCarryChoices = check('CHAT-001', function chunksCarryChoices(s: StreamSubject) {
  if (s.stream.chunks.length === 0) return undefined;
  const bare = s.stream.chunks.map((c, i) => ({ c, i })).filter(({ c }) => !Array.isArray(c.choices));
  return holds(bare.length === 0, () => client(`every chunk carries a choices array (a usage-only chunk sends choices: []); chunk(s) ${bare.slice(0, QUOTE).map((b) => b.i).join(', ')} have none`));
});

/**
 * Tool-call deltas: the first delta of a call has id, type "function" and function.name; later ones omit them
 * (never ""); every delta carries a function object.
 */
export const toolCallDeltasWellFormed = check('CHAT-001', function toolCallDeltasWellFormed(s: StreamSubject) {
  const seen = new Set<string>();
  const problems: string[] = [];
  s.stream.chunks.forEach((chunk, i) => {
    const choices = Array.isArray(chunk.choices) ? chunk.choices : [];
    for (const ch of choices) {
      if (!isObject(ch) || !isObject(ch.delta) || !Array.isArray(ch.delta.tool_calls)) continue;
      for (const tc of ch.delta.tool_calls) {
        if (!isObject(tc)) continue;
        const key = `${String(ch.index)}/${String(tc.index)}`;
        const fn = isObject(tc.function) ? tc.function : undefined;
        if (!fn) problems.push(`chunk ${i}, call ${key}: the delta has no function object`);
        const first = !seen.has(key);
        seen.add(key);
        if (first) {
          const missing = [typeof tc.id === 'string' && tc.id !== '' ? '' : 'id', tc.type === 'function' ? '' : 'type', typeof fn?.name === 'string' && fn.name !== '' ? '' : 'function.name'].filter(Boolean);
          if (missing.length) problems.push(`chunk ${i}, call ${key}: the first delta of a call lacks ${missing.join(', ')}`);
        } else {
          const empty = [tc.id === '' ? 'id' : '', tc.type === '' ? 'type' : '', fn?.name === '' ? 'function.name' : ''].filter(Boolean);
          if (empty.length) problems.push(`chunk ${i}, call ${key}: a later delta sends ${empty.join(', ')} as "" (omit it instead)`);
        }
      }
    }
  });
  if (seen.size === 0) return noCall(s);
  return problems.slice(0, QUOTE).map(client);
}, TOOL_CALL);

/** Every check of a stream's framing and chunks (the assembled completion is judged by COMPLETION_CHECKS). */
export const STREAM_CHECKS = [
  servedAsEventStream,
  eventsUnnamed,
  linesAreSseFields,
  eventsSeparatedByBlankLine,
  payloadsAreJsonObjects,
  endsWithDone,
  chunksNameRequestedModel,
  textInDeltaContent,
  usageWhenAsked,
  streamedCallHasId,
  streamedCallOneId,
  streamedCallIsFunction,
  streamedCallHasName,
  oneIdPerStream,
  chunksCreatedInSeconds,
  chunksCreatedNearNow,
  firstDeltaHasRole,
  finishReasonReported,
  usageChunkCount,
  chunksCarryChoices,
  toolCallDeltasWellFormed,
] as const;

/** The assembled message of one choice, shaped like a non-streamed assistant message (2.9). */
export function assembledMessage(c: AssembledChoice): Json {
  const m: Json = { role: typeof c.roles[0] === 'string' ? c.roles[0] : 'assistant' };
  if (c.content !== '' || c.toolCalls.length === 0) m.content = c.content;
  if (c.reasoning !== '') m.reasoning_content = c.reasoning;
  if (c.toolCalls.length > 0) {
    m.tool_calls = c.toolCalls.map((t) => {
      const call: Json = { function: { ...(t.name !== undefined ? { name: t.name } : {}), arguments: t.arguments } };
      if (t.id !== undefined) call.id = t.id;
      if (t.type !== undefined) call.type = t.type;
      return call;
    });
  }
  if (c.annotations.length > 0) m.annotations = c.annotations;
  if (c.searchActions.length > 0) m.service_web_search = c.searchActions;
  return m;
}

/**
 * The whole stream shaped like a non-streamed chat completion (2.9): id, object, created and model of the
 * first chunk, one choice per streamed choice, the last usage block. Undefined when no chunk arrived.
 */
export function assembledCompletion(s: ChatStream): Json | undefined {
  const first = s.chunks[0];
  if (!first) return undefined;
  const out: Json = {};
  for (const k of ['id', 'object', 'created', 'model']) if (k in first) out[k] = first[k];
  out.choices = [...s.choices.values()]
    .sort((a, b) => a.index - b.index)
    .map((c) => {
      const choice: Json = { index: c.index, message: assembledMessage(c) };
      const finish = c.finishReasons[c.finishReasons.length - 1];
      if (finish !== undefined) choice.finish_reason = finish;
      return choice;
    });
  const usage = s.usageChunks[s.usageChunks.length - 1]?.chunk.usage;
  if (isObject(usage)) out.usage = usage;
  return out;
}

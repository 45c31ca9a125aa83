// Judges a streamed chat completion (section 6, 2.9, 4.3) against requirement IDs. The bytes are decoded by
// the one reference consumer (`res.stream()`: lib/sse.ts + lib/chat-stream.ts); this module only judges what
// it decoded. Spread CHAT_STREAM_IDS into `req(...)` of a test that calls checkChatStream.
//
// What is a MUST here is what the contract says: status 200 + text/event-stream (CHAT-005), unnamed `data:`
// events (STREAM-002), JSON-object payloads (STREAM-003), [DONE] once and last in a completed stream
// (STREAM-004), blank-line separation (STREAM-009), every chunk in the chunk shape with each field charged to
// its rule (CHAT_CHUNK_RULES, nulls to RESP-001), text in delta.content (STREAM-012), a usage block when asked
// (STREAM-016), the requested model on every chunk (CHAT-009), assembled tool calls with id, type function,
// name and arguments that decode (RESP-015/017/018/020).
// What real clients need beyond the contract (shared/CLIENT-NOTES.md: role on the first delta, a final
// finish_reason, one id for every chunk, exactly one usage chunk and none unasked, id/type/name on the first
// tool-call delta and never "") is charged to CHAT-001 (SHOULD: "a standard chat-completions client works"):
// a failure is a warning, never a failed MUST.
import { test } from '@playwright/test';
import type { Checker } from './check.ts';
import { checkCompletionSemantics } from './chat-checks.ts';
import type { AssembledChoice, ChatStream } from './chat-stream.ts';
import { CHAT_CHUNK_RULES, checkBySchema, ruleIds } from './schema-checks.ts';
import type { TargetResponse } from './target.ts';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Every ID checkChatStream may charge. */
export const CHAT_STREAM_IDS: string[] = ruleIds(
  CHAT_CHUNK_RULES,
  'CHAT-001',
  'CHAT-005',
  'CHAT-009',
  'STREAM-002',
  'STREAM-003',
  'STREAM-004',
  'STREAM-009',
  'STREAM-012',
  'STREAM-016',
  'RESP-001',
  'RESP-005',
  'RESP-007',
  'RESP-015',
  'RESP-016',
  'RESP-017',
  'RESP-018',
  'RESP-020',
  'SEARCH-027',
  'SEARCH-029',
  'SEARCH-039',
);

export interface StreamCheckOptions {
  /** The request sent stream_options.include_usage true. False or absent: it did not. */
  includeUsage?: boolean;
  /** The prompt calls for text (no tools, no reasoning model): a stream whose deltas carry no text fails STREAM-012. */
  expectText?: boolean;
  /**
   * The request provoked an error inside the stream. Without it, a stream that ends on an error event (legal,
   * section 6 rule 10) leaves nothing to judge: the test is skipped with that reason, never passed.
   */
  expectError?: boolean;
}

/** Most offending items quoted in one message. */
const QUOTE = 5;

/** Collects pass/fail per ID over many items (chunks) so one check per ID reaches the record, not one per chunk. */
class Tally {
  private readonly failures = new Map<string, string[]>();
  that(id: string, ok: boolean, failure: string | (() => string)): boolean {
    const list = this.failures.get(id) ?? [];
    if (!ok) list.push(typeof failure === 'function' ? failure() : failure);
    this.failures.set(id, list);
    return ok;
  }
  flush(check: Checker): void {
    for (const [id, list] of this.failures) {
      check.that(id, list.length === 0, () => list.slice(0, QUOTE).join('\n') + (list.length > QUOTE ? `\n… and ${list.length - QUOTE} more` : ''));
    }
    this.failures.clear();
  }
}

const quote = (s: string, n = 120) => JSON.stringify(s.length > n ? `${s.slice(0, n)}…` : s);

/**
 * A streamed completion for `model`. Returns the decoded stream (to read facts from, e.g. `streamedAnswer`),
 * or undefined when there is no event stream to judge. See the module comment for what is judged how.
 */
export function checkChatStream(check: Checker, res: TargetResponse, model: string, opts: StreamCheckOptions = {}): ChatStream | undefined {
  if (!check.status('CHAT-005', res, 200, 'for a streamed completion, status')) return undefined;
  const ct = res.headers['content-type'] ?? '';
  check.that('CHAT-005', /^\s*text\/event-stream\s*(;|$)/i.test(ct), () => `a streamed completion is served as text/event-stream; received content-type ${JSON.stringify(ct)} and ${res.describe()}`);
  const s = res.stream();
  const t = s.transcript;
  if (t.events.length === 0) {
    check.that('STREAM-004', false, () => `the body holds no server-sent event at all (${t.decodeError ? `undecodable: ${t.decodeError}; ` : ''}${res.describe()})`);
    return undefined;
  }

  // Framing: only unnamed events made of data: lines (comments are legal keep-alives).
  const named = t.events.filter((e) => e.event !== undefined).map((e) => e.event!);
  check.that('STREAM-002', named.length === 0, () => `events must be unnamed data: events; received named events ${JSON.stringify([...new Set(named)].slice(0, QUOTE))}`);
  const withId = t.events.filter((e) => e.id !== undefined).length;
  check.that('STREAM-002', withId === 0, () => `each event is made of data: lines only; ${withId} event(s) carry an id: line`);
  check.that('STREAM-002', t.unknownLines.length === 0, () => `each event line starts with data:; received lines ${t.unknownLines.slice(0, QUOTE).map((l) => quote(l)).join(', ')}`);

  // Payloads: JSON objects, except [DONE]. A payload made of several JSON documents joined by newlines is
  // several events that were not separated by a blank line (STREAM-009), not one malformed event.
  const glued = s.nonJsonPayloads.filter(isGluedEvents);
  const malformed = s.nonJsonPayloads.filter((p) => !isGluedEvents(p));
  check.that('STREAM-009', glued.length === 0, () => `events must be separated by a blank line; ${glued.length} payload(s) hold several events run together, e.g. ${quote(glued[0]!, 200)}`);
  check.that('STREAM-003', malformed.length === 0 && s.nonObjectPayloads.length === 0, () =>
    [
      malformed.length ? `payloads that are not JSON: ${malformed.slice(0, QUOTE).map((p) => quote(p)).join(', ')}` : '',
      s.nonObjectPayloads.length ? `payloads that are JSON but not an object: ${s.nonObjectPayloads.slice(0, QUOTE).map((p) => JSON.stringify(p)).join(', ')}` : '',
    ].filter(Boolean).join('; '),
  );
  if (t.decodeError) check.that('STREAM-003', false, `the stream's bytes are not valid UTF-8 text: ${t.decodeError}`);

  // The end of the stream: [DONE] once and last, or an error event (judged by the caller), never just silence.
  if (res.exchange.error && s.outcome !== 'error') {
    check.that('STREAM-004', false, () => `the stream was cut before it completed (${res.exchange.error}); received ${s.chunks.length} chunk(s) and no [DONE]`);
  } else if (s.outcome === 'truncated') {
    check.that('STREAM-004', false, () => `the body ended after ${t.events.length} event(s) without [DONE] and without an error event`);
  } else if (s.outcome === 'complete') {
    check.that('STREAM-004', s.donePositions.length === 1 && s.eventsAfterDone === 0, () =>
      `[DONE] is sent once, after every chunk; received it ${s.donePositions.length} time(s) with ${s.eventsAfterDone} event(s) after the first`,
    );
  }

  // Every chunk in the chunk shape, each issue charged to the field's requirement; the requested model.
  const tally = new Tally();
  s.chunks.forEach((chunk, i) => {
    checkBySchema(tally as unknown as Checker, 'chat-chunk', chunk, CHAT_CHUNK_RULES, { what: `chunk ${i}`, fallbackId: 'STREAM-003', nullId: 'RESP-001' });
    tally.that('CHAT-009', chunk.model === model, () => `chunk ${i}: requested model ${JSON.stringify(model)}, the chunk names ${JSON.stringify(chunk.model)}`);
    const choices = Array.isArray(chunk.choices) ? chunk.choices : [];
    choices.forEach((c, j) => {
      if (!isObject(c)) return;
      // Extra fields are tolerated; text carried elsewhere while the delta lacks it is not.
      const inDelta = isObject(c.delta) && typeof c.delta.content === 'string';
      const elsewhere = [
        typeof c.text === 'string' && c.text !== '' ? 'choices[].text' : '',
        isObject(c.message) && typeof c.message.content === 'string' && c.message.content !== '' ? 'choices[].message.content' : '',
      ].filter(Boolean);
      tally.that('STREAM-012', inDelta || elsewhere.length === 0, () => `chunk ${i} choice ${j}: streamed text arrives as choices[].delta.content; it came as ${elsewhere.join(' and ')}`);
    });
  });
  tally.flush(check);

  if (s.outcome === 'error' && !opts.expectError) {
    return check.skip(`the stream ended on an in-stream error event (allowed by section 6 rule 10), so the completion could not be judged: ${JSON.stringify(s.errorEvent).slice(0, 300)}`);
  }
  if (s.outcome === 'error') return s;

  // What the chunks assemble into.
  const choices = [...s.choices.values()];
  if (opts.expectText) {
    const text = choices.map((c) => c.content).join('');
    const calls = choices.reduce((n, c) => n + c.toolCalls.length, 0);
    check.that('STREAM-012', text.length > 0 || calls > 0, () => `no text arrived as choices[].delta.content in ${s.chunks.length} chunk(s) (and no tool call)`);
  }
  for (const c of choices) checkAssembledToolCalls(check, c);
  if (s.chunks.length > 0) {
    const assembled = assembledCompletion(s);
    if (assembled) checkCompletionSemantics(check, assembled, model);
  }

  // Usage: a block when asked (STREAM-016).
  if (opts.includeUsage) {
    check.that('STREAM-016', s.usageChunks.length >= 1, () => `stream_options.include_usage was true but no chunk carries a usage object (${s.chunks.length} chunk(s))`);
  }

  checkClientConventions(check, s, opts);
  return s;
}

/** Several JSON documents (or [DONE]) on consecutive data: lines: events glued together without a blank line. */
function isGluedEvents(payload: string): boolean {
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

/** The tool calls a choice's deltas assemble into: id, type function, name and decodable arguments (2.4). */
function checkAssembledToolCalls(check: Checker, c: AssembledChoice): void {
  for (const call of c.toolCalls) {
    const at = `choice ${c.index}, tool call index ${call.index}`;
    check.that('RESP-015', typeof call.id === 'string' && call.id !== '', () => `${at}: no delta carried a non-empty id (${call.deltas} delta(s))`);
    check.that('RESP-017', call.type === 'function', () => `${at}: assembled type is ${JSON.stringify(call.type)}; a tool call's type is always "function"`);
    check.that('RESP-018', typeof call.name === 'string' && call.name !== '', () => `${at}: no delta carried function.name`);
    // RESP-020 (arguments decode) is judged on the assembled message by checkCompletionSemantics.
  }
}

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
 * Lets the non-streamed semantic checks (checkCompletionSemantics, checkProvenance) judge a stream.
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

/** The usage block the stream reported (the last one), if any. */
export function streamUsage(s: ChatStream): Json | undefined {
  const u = s.usageChunks[s.usageChunks.length - 1]?.chunk.usage;
  return isObject(u) ? u : undefined;
}

/**
 * What standard clients need beyond the contract (CLIENT-NOTES): warnings under CHAT-001 (SHOULD), never a
 * failed MUST.
 */
function checkClientConventions(check: Checker, s: ChatStream, opts: StreamCheckOptions): void {
  const client = (ok: boolean, message: () => string) => check.that('CHAT-001', ok, () => `${message()} (standard clients rely on it; not a contract MUST)`);
  const ids = [...new Set(s.chunks.map((c) => c.id))];
  client(ids.length <= 1, () => `every chunk of a stream carries the same id; received ${ids.length} ids: ${JSON.stringify(ids.slice(0, QUOTE))}`);
  for (const c of s.choices.values()) {
    client(c.firstDeltaHadRole && c.roles[0] === 'assistant', () => `choice ${c.index}: the first delta carries role "assistant"; it carried ${c.firstDeltaHadRole ? JSON.stringify(c.roles[0]) : 'no role'}`);
    client(c.finishReasons.length > 0, () => `choice ${c.index}: the final chunk of a choice carries finish_reason; none did`);
    if (c.toolCalls.length > 0 && c.finishReasons.length > 0) {
      const last = c.finishReasons[c.finishReasons.length - 1];
      client(last === 'tool_calls', () => `choice ${c.index}: tool calls were emitted but finish_reason is ${JSON.stringify(last)}, not "tool_calls"`);
    }
  }
  if (opts.includeUsage) {
    client(s.usageChunks.length <= 1, () => `with include_usage, exactly one usage chunk; received ${s.usageChunks.length}`);
  } else {
    client(s.usageChunks.length === 0, () => `without stream_options.include_usage, no usage chunk; received ${s.usageChunks.length}`);
  }
  // Tool-call deltas: the first delta of a call has id, type "function" and function.name; later ones omit them
  // (never ""); every delta carries a function object.
  const seen = new Set<string>();
  const problems: string[] = [];
  s.chunks.forEach((chunk, i) => {
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
  if (seen.size > 0) client(problems.length === 0, () => problems.slice(0, QUOTE).join('; '));
}

/**
 * STREAM-015: search provenance arrives inside a delta (choices[].delta.annotations / service_web_search),
 * never elsewhere in a chunk. Returns whether any provenance arrived in a delta. Declare STREAM-015.
 */
export function checkStreamProvenance(check: Checker, s: ChatStream): boolean {
  // Extra fields are legal: provenance placed elsewhere fails only when the deltas do not carry it too.
  const inDelta = [...s.choices.values()].some((c) => c.provenanceChunks.length > 0);
  const elsewhere: string[] = [];
  s.chunks.forEach((chunk, i) => {
    for (const k of ['annotations', 'service_web_search', 'citations']) if (k in chunk) elsewhere.push(`chunk ${i}: top-level ${k}`);
    const choices = Array.isArray(chunk.choices) ? chunk.choices : [];
    choices.forEach((c, j) => {
      if (!isObject(c)) return;
      for (const k of ['annotations', 'service_web_search']) if (k in c) elsewhere.push(`chunk ${i} choice ${j}: ${k} beside the delta`);
      if (isObject(c.message) && ('annotations' in c.message || 'service_web_search' in c.message)) elsewhere.push(`chunk ${i} choice ${j}: provenance in choices[].message`);
    });
  });
  check.that('STREAM-015', inDelta || elsewhere.length === 0, () => `search provenance arrives inside a delta; found it only elsewhere: ${elsewhere.slice(0, QUOTE).join('; ')}`);
  return inDelta;
}

/** Record a client-note convention that fits no requirement as a warning annotation (never a failure). */
export function warnClientNote(message: string): void {
  test.info().annotations.push({ type: 'warning', description: message });
}

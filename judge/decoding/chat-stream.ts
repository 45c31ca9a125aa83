// Interprets a decoded chat-completion stream (section 6): which payloads were chunks, the sentinel, an
// in-stream error; and what the chunks assemble into (text, tool calls, provenance, usage).
// It states facts only; the checks in judge/checks/stream.ts judge them against requirement IDs.
import { transcribeSse, type SseTranscript } from './sse.ts';

export interface AssembledToolCall {
  index: number;
  id?: string;
  /** Every distinct non-empty id its deltas carried, in order (one for a well-formed call: 2.4, a call has one id). */
  ids: string[];
  type?: string;
  name?: string;
  arguments: string;
  /** Number of deltas that contributed to this call. */
  deltas: number;
}

export interface AssembledChoice {
  index: number;
  /** Roles seen on deltas, in order (normally one: "assistant", on the first delta). */
  roles: unknown[];
  /** Whether the first delta of this choice carried a role. */
  firstDeltaHadRole: boolean;
  content: string;
  reasoning: string;
  toolCalls: AssembledToolCall[];
  finishReasons: string[];
  annotations: unknown[];
  searchActions: unknown[];
  /** Chunk positions (in `chunks`) that carried provenance (annotations or service_web_search). */
  provenanceChunks: number[];
}

export type StreamOutcome =
  | 'complete' // [DONE] arrived and no error event
  | 'error' // an error event arrived after the stream opened: a failure, never a shorter answer
  | 'truncated'; // the body ended without [DONE] and without an error event

export interface ChatStream {
  transcript: SseTranscript;
  /** Parsed JSON payloads that are chunks (not the sentinel, not an error event), in order. */
  chunks: Record<string, unknown>[];
  /** Payloads that are neither JSON nor the sentinel. */
  nonJsonPayloads: string[];
  /** Payloads that are JSON but not an object. */
  nonObjectPayloads: unknown[];
  /** The first event carrying a top-level `error` object, if any. */
  errorEvent?: Record<string, unknown>;
  /** Event index of each `[DONE]` sentinel. */
  donePositions: number[];
  /** Number of events that came after the first `[DONE]` (counted only: none of them is read as a chunk). */
  eventsAfterDone: number;
  /** Number of events that came after the error event. */
  eventsAfterError: number;
  choices: Map<number, AssembledChoice>;
  /** Chunks carrying a `usage` object, with their position in `chunks`. */
  usageChunks: { position: number; chunk: Record<string, unknown> }[];
  outcome: StreamOutcome;
}

export class StreamFailure extends Error {
  constructor(
    message: string,
    readonly stream: ChatStream,
  ) {
    super(message);
    this.name = 'StreamFailure';
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export function readChatStream(body: Iterable<Uint8Array | string>): ChatStream {
  return interpretTranscript(transcribeSse(body));
}

export function interpretTranscript(transcript: SseTranscript): ChatStream {
  const s: ChatStream = {
    transcript,
    chunks: [],
    nonJsonPayloads: [],
    nonObjectPayloads: [],
    donePositions: [],
    eventsAfterDone: 0,
    eventsAfterError: 0,
    choices: new Map(),
    usageChunks: [],
    outcome: 'truncated',
  };
  transcript.events.forEach((event, position) => {
    if (s.donePositions.length > 0) s.eventsAfterDone++;
    if (s.errorEvent) s.eventsAfterError++;
    if (event.data === '[DONE]') {
      s.donePositions.push(position);
      return;
    }
    // [DONE] ends the stream (section 6 rule 4): what follows is counted, never read as part of it, as a client
    // that stops at the sentinel never sees it (usage sent after [DONE] is usage the client did not get).
    if (s.donePositions.length > 0) return;
    let payload: unknown;
    try {
      payload = JSON.parse(event.data);
    } catch {
      s.nonJsonPayloads.push(event.data);
      return;
    }
    if (!isObject(payload)) {
      s.nonObjectPayloads.push(payload);
      return;
    }
    // An error after the stream opened (section 6 rule 10). A chunk with a falsy `error` is not one:
    // clients only treat a truthy `error` key as a failure.
    if (isObject(payload.error) || (payload.error && !('choices' in payload))) {
      s.errorEvent ??= payload;
      return;
    }
    s.chunks.push(payload);
    absorbChunk(s, payload, s.chunks.length - 1);
  });
  s.outcome = s.errorEvent ? 'error' : s.donePositions.length > 0 ? 'complete' : 'truncated';
  return s;
}

function choiceFor(s: ChatStream, index: number): AssembledChoice {
  let c = s.choices.get(index);
  if (!c) {
    c = {
      index,
      roles: [],
      firstDeltaHadRole: false,
      content: '',
      reasoning: '',
      toolCalls: [],
      finishReasons: [],
      annotations: [],
      searchActions: [],
      provenanceChunks: [],
    };
    s.choices.set(index, c);
  }
  return c;
}

function absorbChunk(s: ChatStream, chunk: Record<string, unknown>, position: number): void {
  if (isObject(chunk.usage)) s.usageChunks.push({ position, chunk });
  if (!Array.isArray(chunk.choices)) return;
  for (const raw of chunk.choices) {
    if (!isObject(raw)) continue;
    const index = typeof raw.index === 'number' ? raw.index : 0;
    const isFirst = !s.choices.has(index);
    const c = choiceFor(s, index);
    const delta = isObject(raw.delta) ? raw.delta : {};
    if (isFirst) c.firstDeltaHadRole = 'role' in delta && delta.role !== undefined;
    if ('role' in delta) c.roles.push(delta.role);
    if (typeof delta.content === 'string') c.content += delta.content;
    if (typeof delta.reasoning_content === 'string') c.reasoning += delta.reasoning_content;
    let provenance = false;
    if (Array.isArray(delta.annotations)) {
      c.annotations.push(...delta.annotations);
      provenance = true;
    }
    if (Array.isArray(delta.service_web_search)) {
      c.searchActions.push(...delta.service_web_search);
      provenance = true;
    }
    if (provenance) c.provenanceChunks.push(position);
    if (Array.isArray(delta.tool_calls)) {
      for (const tc of delta.tool_calls) absorbToolCallDelta(c, tc);
    }
    if (typeof raw.finish_reason === 'string') c.finishReasons.push(raw.finish_reason);
  }
}

function absorbToolCallDelta(c: AssembledChoice, tc: unknown): void {
  if (!isObject(tc)) return;
  const index = typeof tc.index === 'number' ? tc.index : -1;
  let call = c.toolCalls.find((t) => t.index === index);
  if (!call) {
    call = { index, ids: [], arguments: '', deltas: 0 };
    c.toolCalls.push(call);
  }
  call.deltas++;
  if (typeof tc.id === 'string' && tc.id !== '') {
    call.id ??= tc.id;
    if (!call.ids.includes(tc.id)) call.ids.push(tc.id);
  }
  if (typeof tc.type === 'string' && tc.type !== '') call.type ??= tc.type;
  const fn = isObject(tc.function) ? tc.function : {};
  if (typeof fn.name === 'string' && fn.name !== '') call.name ??= fn.name;
  if (typeof fn.arguments === 'string') call.arguments += fn.arguments;
}

/**
 * The answer a client may use: only a complete stream has one. An error event, or a body that ended
 * without the sentinel, is a failure, never a shorter answer (section 6 rule 10).
 */
export function streamedAnswer(s: ChatStream, choiceIndex = 0): AssembledChoice {
  if (s.outcome === 'error') throw new StreamFailure(`stream failed with an error event: ${JSON.stringify(s.errorEvent)}`, s);
  if (s.outcome === 'truncated') throw new StreamFailure('stream ended without [DONE]', s);
  const c = s.choices.get(choiceIndex);
  if (!c) throw new StreamFailure(`stream carried no choice ${choiceIndex}`, s);
  return c;
}

/** The usage block the stream reported (the last one), if any. */
export function streamUsage(s: ChatStream): Record<string, unknown> | undefined {
  const u = s.usageChunks[s.usageChunks.length - 1]?.chunk.usage;
  return isObject(u) ? u : undefined;
}

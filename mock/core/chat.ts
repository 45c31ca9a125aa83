// Chat completion: from a validated request and its resolved entry to a completion, then to the non-streamed
// JSON response or the list of stream chunks. Pure functions; the response shapes are built only here.
import { MockHttpError } from './errors.ts';
import type { ChatRequest, ToolCall } from './request.ts';
import { encodeStream, type SsePayload } from './sse-encoder.ts';
import type { Scenario } from './scenario.ts';
import { answerTokens, defaultLength, reasoningTokens } from './text.ts';
import { countTokens, fnv1a, stableStringify, tokenize } from './tokens.ts';
import { buildToolCalls, checkToolConversation, chooseTools } from './tools.ts';
import type { FixtureEntry, MockOptions, MockRoute } from './types.ts';
import { buildUsage, cacheablePrefix, promptTokens, type PromptCache, type Usage } from './usage.ts';
import { boundCitations, checkSearchAdmission, requestedCap, runSearch, searchRequested, type Citation, type SearchAction } from './web-search.ts';
import { pickRoute } from './routing.ts';

/** Reasoning length (tokens) per effort; the default effort is medium. */
export const REASONING_TOKENS: Record<string, number> = { minimal: 6, low: 12, medium: 20, high: 32, xhigh: 48 };

/** Everything a completion says, before it is shaped as JSON or as chunks. */
export interface Completion {
  model: string;
  route: MockRoute;
  content?: string;
  /** content split into stream deltas (joined they give `content`) */
  contentDeltas: string[];
  reasoning?: string;
  reasoningDeltas: string[];
  toolCalls: ToolCall[];
  citations: Citation[];
  actions: SearchAction[];
  finishReason: 'stop' | 'length' | 'tool_calls';
  usage: Usage;
}

/** The seed of a request: what it asks, not how (stream, caps and routing preferences do not change the text). */
export function requestSeed(req: ChatRequest): string {
  return stableStringify({
    model: req.model,
    messages: req.messages,
    tools: req.tools,
    tool_choice: req.tool_choice,
    web_search_options: req.web_search_options,
    reasoning: req.reasoning,
    include_reasoning: req.include_reasoning,
    temperature: req.temperature,
    top_p: req.top_p,
  });
}

/** Semantic checks that depend on the entry (images, reasoning effort, tools, search, routing). */
export function admit(req: ChatRequest, entry: FixtureEntry): { route: MockRoute; search: boolean } {
  if (!entry.supports_images) {
    req.messages.forEach((m, i) => {
      if (Array.isArray(m.content) && m.content.some((p) => p.type === 'image_url')) {
        throw new MockHttpError(400, 'images_not_supported', `messages[${i}] has an image part but model ${entry.id} does not accept images (supports_images is false)`);
      }
    });
  }
  const effort = req.reasoning?.effort;
  if (entry.supports_reasoning && effort !== undefined) {
    const accepted = entry.mock.reasoning_efforts ?? ['low', 'medium', 'high'];
    if (!accepted.includes(effort)) {
      throw new MockHttpError(400, 'invalid_reasoning_effort', `reasoning.effort "${effort}" is not accepted by model ${entry.id}; accepted: ${accepted.join(', ')}`);
    }
  }
  checkToolConversation(req);
  const search = searchRequested(req);
  if (search) checkSearchAdmission(req, entry);
  const route = pickRoute(req, entry, search);
  return { route, search };
}

function wantsReasoning(req: ChatRequest, entry: FixtureEntry): boolean {
  if (!entry.supports_reasoning) return false;
  if (req.include_reasoning !== undefined) return req.include_reasoning;
  return req.reasoning !== undefined;
}

/** Groups tokens into deltas of `size` tokens. */
function groupDeltas(tokens: string[], size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < tokens.length; i += size) out.push(tokens.slice(i, i + size).join(''));
  return out;
}

/** Builds the completion. `cache` is the mock instance's prompt cache (read/written for caching entries). */
export function complete(req: ChatRequest, entry: FixtureEntry, route: MockRoute, search: boolean, cache: PromptCache): Completion {
  const seedText = requestSeed(req);
  const seed = fnv1a(seedText);
  const prompt = promptTokens(req);
  if (entry.context_window !== undefined && prompt > entry.context_window) {
    throw new MockHttpError(400, 'context_length_exceeded', `the prompt has ${prompt} tokens; model ${entry.id} has a context window of ${entry.context_window}`);
  }
  const caps = [requestedCap(req), entry.max_tokens].filter((c): c is number => c !== undefined);
  const cap = caps.length > 0 ? Math.min(...caps) : undefined;

  const completion: Completion = {
    model: entry.id,
    route,
    contentDeltas: [],
    reasoningDeltas: [],
    toolCalls: [],
    citations: [],
    actions: [],
    finishReason: 'stop',
    usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
  };
  let used = 0;

  if (wantsReasoning(req, entry)) {
    let n = REASONING_TOKENS[req.reasoning?.effort ?? 'medium'] ?? 20;
    if (req.reasoning?.max_tokens !== undefined) n = Math.min(n, req.reasoning.max_tokens);
    if (cap !== undefined) n = Math.min(n, Math.floor(cap / 2));
    if (n > 0) {
      const toks = reasoningTokens(seed, n);
      completion.reasoning = toks.join('');
      completion.reasoningDeltas = groupDeltas(toks, 4);
      used += n;
    }
  }

  const toCall = chooseTools(req);
  if (toCall.length > 0) {
    completion.toolCalls = buildToolCalls(toCall, seedText);
    completion.finishReason = 'tool_calls';
    for (const c of completion.toolCalls) used += countTokens(c.function.name) + countTokens(c.function.arguments);
  } else {
    let tokens: string[] = [];
    if (search) {
      const outcome = runSearch(req, seed);
      tokens = tokenize(outcome.preamble);
      completion.citations = outcome.citations;
      completion.actions = outcome.actions;
    }
    tokens.push(...answerTokens(seed, defaultLength(seed)));
    const room = cap === undefined ? Infinity : Math.max(0, cap - used);
    if (tokens.length > room) {
      tokens = tokens.slice(0, room);
      completion.finishReason = 'length';
      const last = tokens.length - 1;
      if (last >= 0) tokens[last] = tokens[last]!.trimEnd();
    }
    completion.content = tokens.join('');
    completion.contentDeltas = groupDeltas(tokens, 3);
    completion.citations = boundCitations(completion.citations, completion.content);
    used += tokens.length;
  }

  let cached = 0;
  let written = 0;
  if (entry.supports_caching) {
    const prefix = cacheablePrefix(req);
    if (prefix && prefix.tokens > 0) {
      if (cache.readOrWrite(prefix.key)) cached = prefix.tokens;
      else written = prefix.tokens;
    }
  }
  completion.usage = buildUsage(entry, prompt, used, { cached, written }, completion.actions.length);
  return completion;
}

export interface Envelope {
  id: string;
  created: number;
}

/** The non-streamed response body (2.9). Optional fields are omitted, never null. */
export function toResponseBody(c: Completion, env: Envelope, _options: MockOptions): Record<string, unknown> {
  const message: Record<string, unknown> = { role: 'assistant' };
  if (c.content !== undefined) message.content = c.content;
  if (c.reasoning !== undefined) message.reasoning_content = c.reasoning;
  if (c.toolCalls.length > 0) message.tool_calls = c.toolCalls;
  if (c.citations.length > 0) message.annotations = c.citations;
  if (c.actions.length > 0) message.service_web_search = c.actions;
  return {
    id: env.id,
    object: 'chat.completion',
    created: env.created,
    model: c.model,
    choices: [{ index: 0, message, finish_reason: c.finishReason }],
    usage: c.usage,
  };
}

/** Splits a string into `parts` pieces by code point (never inside a character). */
function splitInto(s: string, parts: number): string[] {
  const cps = Array.from(s);
  const n = Math.max(1, Math.min(parts, cps.length));
  const size = Math.ceil(cps.length / n);
  const out: string[] = [];
  for (let i = 0; i < cps.length; i += size) out.push(cps.slice(i, i + size).join(''));
  return out.length > 0 ? out : [''];
}

/**
 * The stream's JSON payloads (section 6), without [DONE]: first delta with the role, reasoning deltas, content
 * deltas (provenance in the last one), tool-call deltas, the final chunk with finish_reason, and with
 * include_usage exactly one usage chunk with `choices: []`.
 */
export function toChunks(c: Completion, env: Envelope, includeUsage: boolean, _options: MockOptions): Record<string, unknown>[] {
  const base = { id: env.id, object: 'chat.completion.chunk', created: env.created, model: c.model };
  const chunk = (delta: Record<string, unknown>, finish?: string): Record<string, unknown> => {
    const choice: Record<string, unknown> = { index: 0, delta };
    if (finish !== undefined) choice.finish_reason = finish;
    return { ...base, choices: [choice] };
  };
  const out: Record<string, unknown>[] = [chunk({ role: 'assistant' })];
  for (const r of c.reasoningDeltas) out.push(chunk({ reasoning_content: r }));
  const provenance: Record<string, unknown> = {};
  if (c.citations.length > 0) provenance.annotations = c.citations;
  if (c.actions.length > 0) provenance.service_web_search = c.actions;
  c.contentDeltas.forEach((d, i) => {
    const last = i === c.contentDeltas.length - 1;
    out.push(chunk(last ? { content: d, ...provenance } : { content: d }));
  });
  if (c.contentDeltas.length === 0 && Object.keys(provenance).length > 0) out.push(chunk(provenance));
  c.toolCalls.forEach((call, index) => {
    const pieces = splitInto(call.function.arguments, 3);
    out.push(chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } }] }));
    for (const p of pieces) out.push(chunk({ tool_calls: [{ index, function: { arguments: p } }] }));
  });
  out.push(chunk({}, c.finishReason));
  if (includeUsage) out.push({ ...base, choices: [], usage: c.usage });
  return out;
}

/** In-stream error event (gap of the spec): a chunk with a top-level error object; the stream then ends. */
export function streamErrorPayload(code: string, message: string): Record<string, unknown> {
  return { error: { type: 'api_error', code, message } };
}

/** The stream as encoded pieces: chunks then [DONE]; with x-mock-fail-after N, N chunks then an error event. */
export function streamPieces(chunks: Record<string, unknown>[], scenario: Scenario): string[] {
  let payloads: SsePayload[];
  if (scenario.failAfter !== undefined) {
    payloads = [
      ...chunks.slice(0, scenario.failAfter),
      streamErrorPayload('upstream_error', `the stream failed after ${Math.min(scenario.failAfter, chunks.length)} chunks (x-mock-fail-after)`),
    ];
  } else payloads = [...chunks, '[DONE]'];
  return encodeStream(payloads, { framing: scenario.framing });
}

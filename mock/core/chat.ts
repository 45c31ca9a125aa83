// Chat completion (2.9, 4.3, 6): from a validated request and its resolved entry to a completion, then to the
// non-streamed JSON response or the stream's chunks and events. Pure functions; the contract's response shapes
// are built only here.
import { MockHttpError } from './errors.ts';
import type { ChatRequest, ToolCall } from './request.ts';
import type { SsePayload } from './sse-encoder.ts';
import { answerTokens, defaultLength, reasoningTokens } from './text.ts';
import { countTokens, digest, stableHash, stableStringify, tokenize } from '../engine/tokens.ts';
import { buildToolCalls, checkToolConversation, chooseTools } from './tools.ts';
import type { FixtureEntry, MockRoute } from './types.ts';
import { buildUsage, cacheablePrefix, promptTokens, type PromptCache, type Usage } from './usage.ts';
import { boundCitations, checkSearchAdmission, runSearch, searchRequested, type Citation, type SearchAction } from './web-search.ts';

/** Reasoning length (tokens) per effort; the default effort is medium. */
export const REASONING_TOKENS: Record<string, number> = { minimal: 6, low: 12, medium: 20, high: 32, xhigh: 48 };

/** Everything a completion says, before it is shaped as JSON or as chunks. */
export interface Completion {
  model: string;
  route: MockRoute;
  content?: string;
  /** content as tokens (joined they give `content`); the stream groups them into deltas */
  contentTokens: string[];
  reasoning?: string;
  /** reasoning as tokens (joined they give `reasoning`) */
  reasoningPieces: string[];
  toolCalls: ToolCall[];
  citations: Citation[];
  actions: SearchAction[];
  /** usage.service_web_search_calls when it is not the number of actions (a scripted answer's `completed`) */
  searchCalls?: number;
  finishReason: 'stop' | 'length' | 'tool_calls';
  /** token counts the usage is computed from (the usage stage turns them into 2.9 Usage) */
  tokens: { prompt: number; completion: number; reasoning: number; cached: number; written: number };
  /** filled by the usage stage */
  usage: Usage;
}

/** What a request asks, not how (stream, caps and routing preferences do not change the text). */
// honours: REQ-013 (a top-level field 2.1 does not list is not read: it does not change the answer)
const seedFields = (req: ChatRequest): Record<string, unknown> => ({
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

/** The seed text of a request: the canonical JSON of what it asks. */
export function requestSeed(req: ChatRequest): string {
  return stableStringify(seedFields(req));
}

/** A request's seeds, as requestSeedHash and requestSeedDigest give them. */
export interface RequestSeeds {
  hash: number;
  /** only for a request that declares tools (the seed of tool calls) */
  digest?: string;
}

/**
 * Seeds computed elsewhere, from the very bytes the request was decoded from: a worker that parsed a large body
 * (mock/engine/checked-bodies.ts) hashes it there, so the serving thread does not walk the whole request again.
 */
const knownSeeds = new WeakMap<ChatRequest, RequestSeeds>();

/** Records the seeds of `req`, computed elsewhere from the same request. */
export function presetSeeds(req: ChatRequest, seeds: RequestSeeds): void {
  knownSeeds.set(req, seeds);
}

/** The seeds of a request that declares tools, or the hash alone. */
export function seedsOf(req: ChatRequest): RequestSeeds {
  const hash = requestSeedHash(req);
  return req.tools !== undefined && req.tools.length > 0 ? { hash, digest: requestSeedDigest(req) } : { hash };
}

/** The seed of a request: fnv1a(requestSeed(req)), computed without the text. */
export function requestSeedHash(req: ChatRequest): number {
  return knownSeeds.get(req)?.hash ?? stableHash(seedFields(req));
}

/** The seed of a request's tool calls: digest(requestSeed(req)). */
export function requestSeedDigest(req: ChatRequest): string {
  return knownSeeds.get(req)?.digest ?? digest(requestSeed(req));
}

/** The reasoning efforts an entry accepts (2.6). */
// honours: RSN-005
export function acceptedEfforts(entry: FixtureEntry): string[] {
  return entry.mock.reasoning_efforts ?? ['low', 'medium', 'high'];
}

/**
 * Admission (2.5 images, 2.6 and 7 rule 1 reasoning effort, 4.3 rule 3 tool calls, 2.7 and 7 search): the
 * semantic checks that depend on the entry. Returns whether search was requested.
 */
export function admit(req: ChatRequest, entry: FixtureEntry): { search: boolean } {
  // honours: IMG-005, IMG-006
  if (!entry.supports_images) {
    req.messages.forEach((m, i) => {
      if (Array.isArray(m.content) && m.content.some((p) => p.type === 'image_url')) {
        throw new MockHttpError(400, 'images_not_supported', `messages[${i}] has an image part but model ${entry.id} does not accept images (supports_images is false)`);
      }
    });
  }
  const effort = req.reasoning?.effort;
  // honours: RSN-006, RSN-010
  if (entry.supports_reasoning && effort !== undefined) {
    const accepted = acceptedEfforts(entry);
    if (!accepted.includes(effort)) {
      throw new MockHttpError(400, 'invalid_reasoning_effort', `reasoning.effort "${effort}" is not accepted by model ${entry.id}; accepted: ${accepted.join(', ')}`);
    }
  }
  checkToolConversation(req);
  const search = searchRequested(req);
  if (search) checkSearchAdmission(req, entry);
  return { search };
}

/** The output cap (4.3 rule 2, section 8): max_completion_tokens wins over max_tokens; the entry's max_tokens caps too. */
// honours: REQ-009, REQ-011, CHAT-008
export function capOf(req: ChatRequest, entry: FixtureEntry): number | undefined {
  const requested = req.max_completion_tokens ?? req.max_tokens;
  const caps = [requested, entry.max_tokens].filter((c): c is number => c !== undefined);
  return caps.length > 0 ? Math.min(...caps) : undefined;
}

// honours: RSN-003, RSN-008 (reasoning_content only from an entry that exposes reasoning)
function wantsReasoning(req: ChatRequest, entry: FixtureEntry): boolean {
  if (!entry.supports_reasoning) return false;
  if (req.include_reasoning !== undefined) return req.include_reasoning;
  return req.reasoning !== undefined;
}

/** The tokens as one text (a loop of `+=` is about three times as fast as `join('')` for these short strings). */
function joined(tokens: readonly string[]): string {
  let text = '';
  for (let i = 0; i < tokens.length; i++) text += tokens[i];
  return text;
}

/** Groups tokens into deltas of `size` tokens. */
function groupDeltas(tokens: string[], size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < tokens.length; i += size) out.push(joined(tokens.slice(i, i + size)));
  return out;
}

/**
 * Builds the completion (2.9): reasoning, then tool calls or text (with search provenance), within `cap`.
 * `cache` is the mock instance's prompt cache (read/written for caching entries).
 */
export function complete(req: ChatRequest, entry: FixtureEntry, route: MockRoute, search: boolean, requestedCap: number | undefined, cache: PromptCache): Completion {
  const seed = requestSeedHash(req);
  const prompt = promptTokens(req);
  if (entry.context_window !== undefined && prompt > entry.context_window) {
    throw new MockHttpError(400, 'context_length_exceeded', `the prompt has ${prompt} tokens; model ${entry.id} has a context window of ${entry.context_window}`);
  }
  const cap = capWithinWindow(requestedCap, entry, prompt);
  const completion: Completion = {
    model: entry.id,
    route,
    contentTokens: [],
    reasoningPieces: [],
    toolCalls: [],
    citations: [],
    actions: [],
    finishReason: 'stop',
    tokens: { prompt, completion: 0, reasoning: 0, cached: 0, written: 0 },
    usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
  };
  let used = 0;

  if (wantsReasoning(req, entry)) {
    let n = REASONING_TOKENS[req.reasoning?.effort ?? 'medium'] ?? 20;
    // honours: RSN-004
    if (req.reasoning?.max_tokens !== undefined) n = Math.min(n, req.reasoning.max_tokens);
    if (cap !== undefined) n = Math.min(n, Math.floor(cap / 2));
    if (n > 0) {
      const toks = reasoningTokens(seed, n);
      completion.reasoning = toks.join('');
      completion.reasoningPieces = toks;
      completion.tokens.reasoning = n;
      used += n;
    }
  }

  const toCall = chooseTools(req);
  if (toCall.length > 0) {
    // Tool calls are never cut by the cap: a cut call is not a call.
    completion.toolCalls = buildToolCalls(toCall, requestSeedDigest(req));
    completion.finishReason = 'tool_calls';
    used += toolCallTokens(completion.toolCalls);
  } else {
    let tokens = answerTokens(seed, defaultLength(seed));
    if (search) {
      const outcome = runSearch(req, seed);
      tokens = [...tokenize(outcome.preamble), ...tokens];
      completion.citations = outcome.citations;
      completion.actions = outcome.actions;
    }
    const room = cap === undefined ? Infinity : Math.max(0, cap - used);
    // honours: REQ-008, REQ-010, LIMIT-005 (a text answer is cut at the cap)
    if (tokens.length > room) {
      tokens = tokens.slice(0, room);
      completion.finishReason = 'length';
      const last = tokens.length - 1;
      if (last >= 0) tokens[last] = tokens[last]!.trimEnd();
    }
    completion.content = joined(tokens);
    completion.contentTokens = tokens;
    completion.citations = boundCitations(completion.citations, completion.content);
    used += tokens.length;
  }

  if (entry.supports_caching) {
    const prefix = cacheablePrefix(req);
    if (prefix && prefix.tokens > 0) {
      if (cache.readOrWrite(prefix.key)) completion.tokens.cached = prefix.tokens;
      else completion.tokens.written = prefix.tokens;
    }
  }
  completion.tokens.completion = used;
  checkWithinWindow(completion, entry);
  return completion;
}

/**
 * The cap of an answer to a prompt of `prompt` tokens: the cap asked for, bounded by the room the entry's context
 * window leaves after the prompt (section 8: the window is input plus output).
 */
// honours: LIMIT-006 (a text answer is cut where the window ends, finish_reason length)
export function capWithinWindow(cap: number | undefined, entry: FixtureEntry, prompt: number): number | undefined {
  if (entry.context_window === undefined) return cap;
  const room = Math.max(0, entry.context_window - prompt);
  return cap === undefined ? room : Math.min(cap, room);
}

/**
 * Tool calls are never cut (a cut call is not a call): calls that do not fit in the room the window leaves are
 * refused, before any answer, as a prompt over the window is.
 */
// honours: LIMIT-006 (prompt plus completion never over the window)
export function checkWithinWindow(c: Completion, entry: FixtureEntry): void {
  const window = entry.context_window;
  if (window === undefined || c.tokens.prompt + c.tokens.completion <= window) return;
  throw new MockHttpError(
    400,
    'context_length_exceeded',
    `the prompt has ${c.tokens.prompt} tokens and the answer needs ${c.tokens.completion}; model ${entry.id} has a context window of ${window}`,
  );
}

/** Tokens of tool calls as usage counts them: name and arguments of each. */
export function toolCallTokens(calls: readonly ToolCall[]): number {
  let n = 0;
  for (const c of calls) n += countTokens(c.function.name) + countTokens(c.function.arguments);
  return n;
}

/** The usage of a completion (2.9 Usage). */
export function usageOf(c: Completion, entry: FixtureEntry): Usage {
  const t = c.tokens;
  return buildUsage(entry, t.prompt, t.completion, { cached: t.cached, written: t.written }, c.searchCalls ?? c.actions.length);
}

export interface Envelope {
  id: string;
  created: number;
  /** the model the response names (4.3 rule 4: the entry that produced the completion) */
  model: string;
}

/** A tool call as the response carries it (2.4: arguments is a JSON-encoded string). */
export function wireToolCall(call: ToolCall, args: string): Record<string, unknown> {
  return { id: call.id, type: call.type, function: { name: call.function.name, arguments: args } };
}

/** The non-streamed response body (2.9). Optional fields are omitted, never null. */
// honours: RESP-001, RESP-003, RESP-007, RESP-008, RESP-009, RESP-010, RESP-011, RESP-012, RESP-013, RESP-014, RSN-007
// honours: SEARCH-021, SEARCH-028, SEARCH-029, SEARCH-041, SEARCH-042 (citations in annotations, actions in service_web_search)
export function toResponseBody(c: Completion, env: Envelope): Record<string, unknown> {
  const message: Record<string, unknown> = { role: 'assistant' };
  if (c.content !== undefined) message.content = c.content;
  if (c.reasoning !== undefined) message.reasoning_content = c.reasoning;
  if (c.toolCalls.length > 0) message.tool_calls = c.toolCalls.map((t) => wireToolCall(t, t.function.arguments));
  if (c.citations.length > 0) message.annotations = c.citations;
  if (c.actions.length > 0) message.service_web_search = c.actions;
  return {
    id: env.id,
    object: 'chat.completion',
    created: env.created,
    model: env.model,
    choices: [{ index: 0, message, finish_reason: c.finishReason }],
    usage: c.usage,
  };
}

/** Splits a string into `parts` pieces by code point (never inside a character). */
export function splitInto(s: string, parts: number): string[] {
  const cps = Array.from(s);
  const n = Math.max(1, Math.min(parts, cps.length));
  const size = Math.ceil(cps.length / n);
  const out: string[] = [];
  for (let i = 0; i < cps.length; i += size) out.push(cps.slice(i, i + size).join(''));
  return out.length > 0 ? out : [''];
}

/**
 * The stream's JSON payloads (section 6), without [DONE]: first delta with the role, reasoning deltas, content
 * deltas (provenance in the last one, 6 rule 8), tool-call deltas, the final chunk with finish_reason, and with
 * include_usage (6 rule 9) exactly one usage chunk with `choices: []`.
 */
// honours: STREAM-003, STREAM-012, STREAM-013, STREAM-015, STREAM-016, RESP-031 (a call's id on its first delta only)
export function toChunks(c: Completion, env: Envelope, includeUsage: boolean): Record<string, unknown>[] {
  const chunk = (delta: Record<string, unknown>, finish?: string): Record<string, unknown> => {
    const choice: Record<string, unknown> = { index: 0, delta };
    if (finish !== undefined) choice.finish_reason = finish;
    return { id: env.id, object: 'chat.completion.chunk', created: env.created, model: env.model, choices: [choice] };
  };
  const out: Record<string, unknown>[] = [chunk({ role: 'assistant' })];
  for (const r of groupDeltas(c.reasoningPieces, 4)) out.push(chunk({ reasoning_content: r }));
  const provenance: Record<string, unknown> = {};
  if (c.citations.length > 0) provenance.annotations = c.citations;
  if (c.actions.length > 0) provenance.service_web_search = c.actions;
  const contentDeltas = groupDeltas(c.contentTokens, 3);
  contentDeltas.forEach((d, i) => {
    const last = i === contentDeltas.length - 1;
    out.push(chunk(last ? { content: d, ...provenance } : { content: d }));
  });
  if (contentDeltas.length === 0 && Object.keys(provenance).length > 0) out.push(chunk(provenance));
  c.toolCalls.forEach((call, index) => {
    out.push(chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } }] }));
    for (const p of splitInto(call.function.arguments, 3)) out.push(chunk({ tool_calls: [{ index, function: { arguments: p } }] }));
  });
  out.push(chunk({}, c.finishReason));
  if (includeUsage) out.push({ id: env.id, object: 'chat.completion.chunk', created: env.created, model: env.model, choices: [], usage: c.usage });
  return out;
}

/** In-stream error event (6 rule 10, a gap of the spec): a chunk with a top-level error object; the stream then ends. */
// honours: STREAM-017, STREAM-019, STREAM-020, ERR-010
export function streamErrorPayload(code: string, message: string): Record<string, unknown> {
  return { error: { type: 'api_error', code, message } };
}

/** The stream's events (6 rule 4): the chunks, then the sentinel [DONE]. */
// honours: STREAM-004 ([DONE] once, after every chunk)
export function toEvents(chunks: readonly unknown[]): SsePayload[] {
  return [...chunks, '[DONE]'];
}

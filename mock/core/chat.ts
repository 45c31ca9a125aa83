// Chat completion: from a validated request and its resolved entry to a completion, then to the non-streamed
// JSON response or the list of stream chunks. Pure functions; the response shapes are built only here.
import { MockHttpError } from './errors.ts';
import type { ChatRequest, ToolCall } from './request.ts';
import { encodeStream, type SsePayload } from './sse-encoder.ts';
import type { Scenario } from './scenario.ts';
import { answerTokens, defaultLength, reasoningTokens } from './text.ts';
import { countTokens, digest, fnv1a, stableStringify, tokenize } from './tokens.ts';
import { buildToolCalls, checkToolConversation, chooseTools } from './tools.ts';
import type { FixtureEntry, MockOptions, MockRoute } from './types.ts';
import { buildUsage, cacheablePrefix, promptTokens, type PromptCache, type Usage } from './usage.ts';
import { boundCitations, checkSearchAdmission, requestedCap, runSearch, searchRequested, type Citation, type SearchAction } from './web-search.ts';
import { pickRoute, rankedRouteAvailable } from './routing.ts';
import { defectOn, shapeJson, VENDOR_EXTRA, variantOn } from './modes.ts';

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
  /** whether the request declared function tools */
  toolsDeclared?: boolean;
  /** facts of the request that some defect modes key on */
  asked?: { searchSize?: string; searchViaToolOnly?: boolean; streamOptionsUnstreamed?: boolean };
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

/**
 * Semantic checks that depend on the entry (images, reasoning effort, tools, search, routing). `substitute`
 * is set by the defect routing-substitute-model when no ranked route can serve: another entry answers.
 */
export function admit(req: ChatRequest, entry: FixtureEntry, options: MockOptions = {}): { route: MockRoute; search: boolean; substitute?: boolean } {
  if (!entry.supports_images && !defectOn(options, 'image-to-non-image-answered')) {
    req.messages.forEach((m, i) => {
      if (Array.isArray(m.content) && m.content.some((p) => p.type === 'image_url')) {
        throw new MockHttpError(400, 'images_not_supported', `messages[${i}] has an image part but model ${entry.id} does not accept images (supports_images is false)`);
      }
    });
  }
  const effort = req.reasoning?.effort;
  if (entry.supports_reasoning && effort !== undefined) {
    const accepted = entry.mock.reasoning_efforts ?? ['low', 'medium', 'high'];
    if (!accepted.includes(effort) && defectOn(options, 'effort-accepted')) {
      req.reasoning = { ...req.reasoning, effort: accepted.includes('medium') ? 'medium' : accepted[0]! };
    } else if (!accepted.includes(effort)) {
      throw new MockHttpError(400, 'invalid_reasoning_effort', `reasoning.effort "${effort}" is not accepted by model ${entry.id}; accepted: ${accepted.join(', ')}`);
    }
  }
  checkToolConversation(req);
  const search = searchRequested(req);
  if (search) checkSearchAdmission(req, entry);
  if (defectOn(options, 'routing-substitute-model') && req.provider !== undefined && !rankedRouteAvailable(req, entry, search)) {
    return { route: pickRoute(req, entry, search, { defect: 'allow-fallbacks-ignored' }), search, substitute: true };
  }
  const route = pickRoute(req, entry, search, options);
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
export function complete(req: ChatRequest, entry: FixtureEntry, route: MockRoute, search: boolean, cache: PromptCache, options: MockOptions = {}): Completion {
  const seedText = requestSeed(req);
  const seed = fnv1a(seedText);
  const prompt = promptTokens(req);
  if (entry.context_window !== undefined && prompt > entry.context_window) {
    throw new MockHttpError(400, 'context_length_exceeded', `the prompt has ${prompt} tokens; model ${entry.id} has a context window of ${entry.context_window}`);
  }
  // Defects: max-tokens-wins (the legacy cap wins when both are sent), cap-ignored (no requested cap at all).
  const requested = defectOn(options, 'cap-ignored') ? undefined : defectOn(options, 'max-tokens-wins') ? (req.max_tokens ?? req.max_completion_tokens) : requestedCap(req);
  const caps = [requested, entry.max_tokens].filter((c): c is number => c !== undefined);
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

  completion.toolsDeclared = (req.tools ?? []).some((t) => t.type === 'function');
  completion.asked = {
    searchSize: req.web_search_options?.search_context_size ?? 'medium',
    searchViaToolOnly: req.web_search_options === undefined && (req.tools ?? []).some((t) => t.type === 'web_search'),
    streamOptionsUnstreamed: req.stream_options !== undefined && req.stream !== true,
  };
  const toCall = chooseTools(req);
  const longArguments = variantOn(options, 'long-tool-arguments');
  if (toCall.length > 0) {
    completion.toolCalls = buildToolCalls(toCall, digest(seedText), longArguments ? LONG_ARGUMENT_PADDING : undefined);
    if (defectOn(options, 'tool-call-undeclared-name')) {
      completion.toolCalls = completion.toolCalls.map((c) => ({ ...c, function: { ...c.function, name: `${c.function.name}_v2` } }));
    }
    completion.finishReason = 'tool_calls';
    // Variant long-tool-arguments: the cap cuts a call as it cuts text (the clean mock never cuts a call).
    if (longArguments && cap !== undefined) {
      const cut = cutToolCalls(completion.toolCalls, Math.max(0, cap - used));
      if (cut !== undefined) {
        completion.toolCalls = cut;
        completion.finishReason = 'length';
        if (cut.length === 0) completion.content = '';
      }
    }
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
    completion.citations = shapeCitations(completion.citations, completion.content, options, completion.asked);
    completion.actions = shapeActions(completion.actions, options);
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
  completion.usage = shapeUsage(buildUsage(entry, prompt, used, { cached, written }, completion.actions.length), options, {
    caching: entry.supports_caching,
    reasoningTokens: completion.reasoning !== undefined ? countTokens(completion.reasoning) : 0,
    streamOptionsUnstreamed: completion.asked.streamOptionsUnstreamed === true,
  });
  return completion;
}

/** Variant long-tool-arguments: text added to the arguments so that one complete call needs more than 64 tokens. */
export const LONG_ARGUMENT_PADDING = ` (${Array.from({ length: 5 }, () => 'the mock pads this argument so that one complete call needs more than sixty-four tokens').join(' ')})`;

/**
 * The calls that fit in `room` tokens (name and arguments each counted as usage counts them): the call that
 * crosses the cap keeps the prefix of its arguments that fits, later calls are dropped. undefined: all fit.
 */
export function cutToolCalls(calls: ToolCall[], room: number): ToolCall[] | undefined {
  let left = room;
  const out: ToolCall[] = [];
  for (const c of calls) {
    const nameTokens = countTokens(c.function.name);
    const argTokens = countTokens(c.function.arguments);
    if (nameTokens + argTokens <= left) {
      out.push(c);
      left -= nameTokens + argTokens;
      continue;
    }
    if (nameTokens <= left) {
      let keep = left - nameTokens;
      let args = '';
      for (const t of tokenize(c.function.arguments)) {
        const counted = !/^\s+$/u.test(t);
        if (counted && keep === 0) break;
        if (counted) keep--;
        args += t;
      }
      out.push({ ...c, function: { ...c.function, arguments: args.trimEnd() } });
    }
    return out;
  }
  return undefined;
}

/** Citation defects: citation-out-of-bounds, citation-http-url, search-actions-in-annotations (below); variant optional-omitted drops titles. */
function shapeCitations(citations: Citation[], content: string, options: MockOptions, asked: Completion['asked'] = {}): Citation[] {
  return citations.map((c) => {
    const u = { ...c.url_citation };
    // Defect citation-out-of-bounds: with search_context_size high the indices count in the expanded context
    // document the upstream saw (the answer appended to it), not in the final text.
    if (defectOn(options, 'citation-out-of-bounds') && asked.searchSize === 'high') {
      u.start_index += content.length;
      u.end_index += content.length;
    }
    // Defect citation-http-url: the bare web_search tool goes through a legacy plugin that reports http:// links.
    if (defectOn(options, 'citation-http-url') && asked.searchViaToolOnly) u.url = u.url.replace(/^https:/, 'http:');
    if (variantOn(options, 'optional-omitted')) delete u.title;
    return { ...c, url_citation: u };
  });
}

/** Defect search-action-url-on-search: a multi-query search action carries the url of its first result page. */
function shapeActions(actions: SearchAction[], options: MockOptions): SearchAction[] {
  if (!defectOn(options, 'search-action-url-on-search')) return actions;
  return actions.map((a) => (a.type === 'search' && a.queries !== undefined ? { ...a, url: `https://search.example.com/?q=${encodeURIComponent(a.queries[0] ?? '')}` } : a));
}

/** Usage defects (cached-tokens-zero, usage-total-mismatch) and variant optional-omitted. */
function shapeUsage(usage: Usage, options: MockOptions, facts: { caching: boolean; reasoningTokens: number; streamOptionsUnstreamed: boolean }): Usage {
  const u: Usage = { ...usage };
  // Defect cached-tokens-zero: caching entries always send the details block, zeros included.
  if (defectOn(options, 'cached-tokens-zero') && facts.caching) u.prompt_tokens_details = { cached_tokens: 0, cache_write_tokens: 0, ...u.prompt_tokens_details };
  // Defect usage-total-mismatch: reasoning tokens are counted in completion_tokens and added to the total again.
  if (defectOn(options, 'usage-total-mismatch') && facts.reasoningTokens > 0) u.total_tokens += facts.reasoningTokens;
  // Defect search-calls-zero: stream_options on a non-streamed request makes the usage come from the streaming
  // aggregator, which starts every counter at 0 and sends them all.
  if (defectOn(options, 'search-calls-zero') && facts.streamOptionsUnstreamed && u.service_web_search_calls === undefined) u.service_web_search_calls = 0;
  if (variantOn(options, 'optional-omitted')) {
    delete u.cost;
    delete u.cost_details;
  }
  return u;
}

/** Annotations as the message carries them (defect search-actions-in-annotations: the stream merger mixes the actions in). */
function annotationsOf(c: Completion, options: MockOptions, streamed: boolean): unknown[] {
  return streamed && defectOn(options, 'search-actions-in-annotations') ? [...c.citations, ...c.actions] : c.citations;
}

/** A tool call as the response carries it (defects tool-arguments-object in streams, tool-arguments-not-json). */
function shapeToolCall(call: ToolCall, options: MockOptions, streamed: boolean): Record<string, unknown> {
  const fn: Record<string, unknown> = { ...call.function };
  if (streamed && defectOn(options, 'tool-arguments-object')) fn.arguments = JSON.parse(call.function.arguments) as unknown;
  if (defectOn(options, 'tool-arguments-not-json')) fn.arguments = pythonRepr(JSON.parse(call.function.arguments));
  return { ...call, function: fn };
}

/** Python's repr of a decoded JSON value: single quotes, True/False/None. */
function pythonRepr(v: unknown): string {
  if (v === null) return 'None';
  if (v === true) return 'True';
  if (v === false) return 'False';
  if (typeof v === 'string') return `'${v.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  if (Array.isArray(v)) return `[${v.map(pythonRepr).join(', ')}]`;
  if (typeof v === 'object') return `{${Object.entries(v as Record<string, unknown>).map(([k, x]) => `'${k}': ${pythonRepr(x)}`).join(', ')}}`;
  return String(v);
}

/** `created` as the mode shows it (defect created-milliseconds: Date.now()). */
function createdOf(env: Envelope, options: MockOptions): number {
  return defectOn(options, 'created-milliseconds') ? env.created * 1000 + 123 : env.created;
}

export interface Envelope {
  id: string;
  created: number;
  /** the model the response names (the requested id, unless a defect names another) */
  model?: string;
}

/** The non-streamed response body (2.9). Optional fields are omitted, never null (unless a defect says otherwise). */
export function toResponseBody(c: Completion, env: Envelope, options: MockOptions): Record<string, unknown> {
  const extra = variantOn(options, 'extra-fields');
  const omit = variantOn(options, 'optional-omitted');
  const message: Record<string, unknown> = { role: 'assistant' };
  if (c.content !== undefined) message.content = c.content;
  if (c.reasoning !== undefined) message.reasoning_content = c.reasoning;
  if (c.toolCalls.length > 0) message.tool_calls = c.toolCalls.map((t) => shapeToolCall(t, options, false));
  if (c.citations.length > 0) message.annotations = annotationsOf(c, options, false);
  if (c.actions.length > 0) message.service_web_search = c.actions;
  // Defect message-null-fields: with function tools declared, a text answer says "tool_calls": null.
  if (defectOn(options, 'message-null-fields') && c.toolsDeclared && c.toolCalls.length === 0) message.tool_calls = null;
  if (extra) Object.assign(message, { refusal_reason: 'none', ...VENDOR_EXTRA });
  const choice: Record<string, unknown> = { index: 0, message };
  // Defect finish-reason-null: the upstream stop reason "tool_use" has no mapping, so tool-call answers say null.
  if (defectOn(options, 'finish-reason-null') && c.finishReason === 'tool_calls') choice.finish_reason = null;
  else if (!omit) choice.finish_reason = c.finishReason;
  if (extra) Object.assign(choice, VENDOR_EXTRA);
  const body: Record<string, unknown> = {
    id: env.id,
    object: 'chat.completion',
    created: createdOf(env, options),
    model: env.model ?? c.model,
    choices: [choice],
  };
  if (!omit) body.usage = extra ? { ...c.usage, ...VENDOR_EXTRA } : c.usage;
  if (extra) Object.assign(body, { system_fingerprint: 'fp_mock', service_tier: 'default', ...VENDOR_EXTRA });
  return shapeJson(options, body);
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
export function toChunks(c: Completion, env: Envelope, includeUsage: boolean, options: MockOptions): Record<string, unknown>[] {
  const extra = variantOn(options, 'extra-fields');
  const base: Record<string, unknown> = { id: env.id, object: 'chat.completion.chunk', created: createdOf(env, options), model: env.model ?? c.model };
  if (extra) Object.assign(base, { system_fingerprint: 'fp_mock', ...VENDOR_EXTRA });
  const chunk = (delta: Record<string, unknown>, finish?: string): Record<string, unknown> => {
    const choice: Record<string, unknown> = { index: 0, delta: extra ? { ...delta, ...VENDOR_EXTRA } : delta };
    if (finish !== undefined && !variantOn(options, 'optional-omitted')) choice.finish_reason = finish;
    // Defect stream-finish-reason-null: in a stream of tool calls every chunk before the last says null.
    else if (finish === undefined && c.toolCalls.length > 0 && defectOn(options, 'stream-finish-reason-null')) choice.finish_reason = null;
    if (extra) Object.assign(choice, VENDOR_EXTRA);
    return { ...base, choices: [choice] };
  };
  const out: Record<string, unknown>[] = [chunk({ role: 'assistant' })];
  for (const r of c.reasoningDeltas) out.push(chunk({ reasoning_content: r }));
  const provenance: Record<string, unknown> = {};
  if (c.citations.length > 0) provenance.annotations = annotationsOf(c, options, true);
  if (c.actions.length > 0) provenance.service_web_search = c.actions;
  c.contentDeltas.forEach((d, i) => {
    const last = i === c.contentDeltas.length - 1;
    out.push(chunk(last ? { content: d, ...provenance } : { content: d }));
  });
  if (c.contentDeltas.length === 0 && Object.keys(provenance).length > 0) out.push(chunk(provenance));
  c.toolCalls.forEach((call, index) => {
    const shaped = shapeToolCall(call, options, true);
    const args = (shaped.function as { arguments: unknown }).arguments;
    out.push(chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } }] }));
    // An object cannot be cut into string pieces: defect tool-arguments-object sends it whole in one delta.
    if (typeof args !== 'string') out.push(chunk({ tool_calls: [{ index, function: { arguments: args } }] }));
    else for (const p of splitInto(args, 3)) out.push(chunk({ tool_calls: [{ index, function: { arguments: p } }] }));
  });
  out.push(chunk({}, c.finishReason));
  // Defect stream-usage-missing: the hosted-search pipeline drops stream_options, so search streams lack usage.
  if (includeUsage && !(defectOn(options, 'stream-usage-missing') && c.actions.length > 0)) {
    const usage = extra ? { ...c.usage, ...VENDOR_EXTRA } : c.usage;
    // Variant usage-chunk-bare: the usage-only chunk has no choices key at all.
    out.push(variantOn(options, 'usage-chunk-bare') ? { ...base, usage } : { ...base, choices: [], usage });
  }
  return out.map((x) => shapeJson(options, x));
}

/** In-stream error event (gap of the spec): a chunk with a top-level error object; the stream then ends. */
export function streamErrorPayload(code: string, message: string): Record<string, unknown> {
  return { error: { type: 'api_error', code, message } };
}

/**
 * The stream as encoded pieces: chunks then [DONE]; with x-mock-fail-after N, N chunks then an error event.
 * Defects stream-no-done, stream-events-after-done, stream-named-events and stream-no-blank-line change the
 * sequence and the framing.
 */
export function streamPieces(chunks: Record<string, unknown>[], scenario: Scenario, options: MockOptions = {}): string[] {
  let payloads: SsePayload[];
  if (scenario.failAfter !== undefined) {
    payloads = [
      ...chunks.slice(0, scenario.failAfter),
      shapeJson(options, streamErrorPayload('upstream_error', `the stream failed after ${Math.min(scenario.failAfter, chunks.length)} chunks (x-mock-fail-after)`)),
    ];
  } else if (defectOn(options, 'stream-no-done') && chunks.some(hasToolCallDelta)) {
    // The tool-call path returns before the sentinel is written.
    payloads = [...chunks];
  } else if (defectOn(options, 'stream-events-after-done') && chunks.some(hasProvenance)) {
    // Search provenance comes back late from the search backend: flushed after the sentinel, then [DONE] again.
    const late = chunks.filter(hasProvenance);
    payloads = [...chunks.filter((x) => !hasProvenance(x)), '[DONE]', ...late, '[DONE]'];
  } else payloads = [...chunks, '[DONE]'];
  return encodeStream(payloads, {
    framing: scenario.framing,
    // Defect stream-named-events: reasoning deltas go out as named "event: reasoning" events.
    ...(defectOn(options, 'stream-named-events') ? { eventNameOf: (p: SsePayload) => (hasReasoningDelta(p) ? 'reasoning' : undefined) } : {}),
    ...(defectOn(options, 'stream-no-blank-line') ? { noBlankLine: true } : {}),
    ...(variantOn(options, 'sse-fields') ? { sseFields: true } : {}),
  });
}

const deltasOf = (p: unknown): Record<string, unknown>[] => {
  const choices = (p as { choices?: unknown } | null)?.choices;
  if (!Array.isArray(choices)) return [];
  return choices.map((c) => (c as { delta?: unknown })?.delta).filter((d): d is Record<string, unknown> => typeof d === 'object' && d !== null);
};
const hasToolCallDelta = (p: unknown): boolean => deltasOf(p).some((d) => 'tool_calls' in d);
const hasProvenance = (p: unknown): boolean => deltasOf(p).some((d) => 'annotations' in d || 'service_web_search' in d);
const hasReasoningDelta = (p: unknown): boolean => deltasOf(p).some((d) => 'reasoning_content' in d);

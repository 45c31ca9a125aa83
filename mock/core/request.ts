// Decoding and validating a chat request body: malformed JSON (400 invalid_json), schema violations
// (400 invalid_request naming the field), and the section-7 rows of web_search_options with their exact text.
import { validate, type ValidationIssue } from '../../spec/validator.ts';
import { MESSAGES, MockHttpError } from './errors.ts';
import { jsonDepthExceeds, MAX_JSON_DEPTH } from '../engine/json-depth.ts';
import { LISTED_FIELDS } from '../../spec/listed-fields.ts';

export interface ContentPart {
  type: 'text' | 'image_url';
  text?: string;
  image_url?: { url: string; detail?: string };
  cache_control?: { type: string };
}

export interface ToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export interface RequestMessage {
  role: string;
  content: string | ContentPart[];
  name?: string;
  tool_calls?: ToolCall[];
  tool_call_id?: string;
  reasoning_content?: string;
}

export interface FunctionTool {
  type: 'function';
  function: { name: string; description?: string; parameters?: Record<string, unknown> };
}

export type Tool = FunctionTool | { type: string; function?: unknown };

export type ToolChoice = 'auto' | 'none' | 'required' | { type?: string; function?: { name?: unknown } };

export interface UserLocationFields {
  country?: string;
  city?: string;
  region?: string;
  timezone?: string;
}

export interface WebSearchOptions {
  search_context_size?: 'low' | 'medium' | 'high';
  user_location?: { type: 'approximate'; approximate?: UserLocationFields } & UserLocationFields;
}

export interface ChatRequest {
  model: string;
  messages: RequestMessage[];
  stream?: boolean;
  temperature?: number;
  top_p?: number;
  max_tokens?: number;
  max_completion_tokens?: number;
  tools?: Tool[];
  tool_choice?: ToolChoice;
  web_search_options?: WebSearchOptions;
  reasoning?: { max_tokens?: number; effort?: string };
  include_reasoning?: boolean;
  provider?: { sort?: string; order?: unknown[]; allow_fallbacks?: boolean };
  stream_options?: { include_usage?: boolean };
}

const invalid = (message: string): MockHttpError => new MockHttpError(400, 'invalid_request', message);

/** "messages[0].role" from "/messages/0/role"; "request body" for the root. */
export function fieldName(pointer: string): string {
  if (pointer === '') return 'request body';
  return pointer
    .split('/')
    .slice(1)
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((acc, t) => (/^\d+$/.test(t) ? `${acc}[${t}]` : acc === '' ? t : `${acc}.${t}`), '');
}

export function issueMessage(issue: ValidationIssue): string {
  return `invalid request: ${fieldName(issue.pointer)}: ${issue.message}`;
}

/** The location fields of 2.7, flat or nested. */
export const LOCATION_FIELDS = ['country', 'city', 'region', 'timezone'] as const;

/**
 * The section-7 rows for web_search_options, in this order: search_context_size, user_location.type,
 * nested-and-flat mixed, unknown or malformed fields. Throws 400 invalid_web_search_options with the fixed text.
 */
// honours: SEARCH-005, SEARCH-006, SEARCH-007, SEARCH-008, SEARCH-011, SEARCH-046, SEARCH-047, SEARCH-048
export function checkWebSearchOptions(options: unknown): void {
  if (options === undefined) return;
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw invalid('invalid request: web_search_options must be an object');
  }
  const o = options as Record<string, unknown>;
  const bad = (message: string): MockHttpError => new MockHttpError(400, 'invalid_web_search_options', message);
  if ('search_context_size' in o) {
    const s = o.search_context_size;
    if (s !== 'low' && s !== 'medium' && s !== 'high') throw bad(MESSAGES.contextSize);
  }
  if (!('user_location' in o)) return;
  const loc = o.user_location;
  if (loc === null || typeof loc !== 'object' || Array.isArray(loc)) throw bad(MESSAGES.locationMalformed);
  const l = loc as Record<string, unknown>;
  if (l.type !== 'approximate') throw bad(MESSAGES.locationType);
  if ('approximate' in l && LOCATION_FIELDS.some((f) => f in l)) throw bad(MESSAGES.locationMixed);
  // honours: SEARCH-009, SEARCH-010, SEARCH-012, SEARCH-013, SEARCH-014, SEARCH-015, SEARCH-016, SEARCH-017, SEARCH-018
  // honours: SEARCH-019, SEARCH-049 (user_location decodes strictly)
  if (!validate('user-location', loc, { firstIssue: true }).valid) throw bad(MESSAGES.locationMalformed);
}

/** The top-level fields of 2.1; any other field is not read. */
export const REQUEST_FIELDS: ReadonlySet<string> = LISTED_FIELDS.request;

/**
 * An assistant turn that carries tool calls is sent back by every widely used client without `content`
 * or with `content: null` (openai-node, runTools, the AI SDK), and section 1 promises those clients work
 * unchanged. The contract does not say such a message must be refused, so the mock reads it as empty
 * text instead of failing the tool loop; the schema itself stays as the contract states it.
 */
// honours: CHAT-001, TOOL-010 (the tool loop of standard clients works unchanged)
function acceptToolCallTurnsWithoutContent(messages: unknown[]): void {
  for (const m of messages) {
    if (m === null || typeof m !== 'object' || Array.isArray(m)) continue;
    const msg = m as Record<string, unknown>;
    if (msg.role === 'assistant' && Array.isArray(msg.tool_calls) && msg.tool_calls.length > 0 && (msg.content === undefined || msg.content === null)) {
      msg.content = '';
    }
  }
}

/**
 * The nesting bound of a body (json-depth.ts), answered 400 nesting_too_deep. Checked on the text before parsing:
 * the parse and every recursive walk after it cost in proportion to the depth (the replay's request key too).
 */
export function checkNesting(text: string): void {
  if (jsonDepthExceeds(text) !== undefined) {
    throw new MockHttpError(400, 'nesting_too_deep', `the request body nests objects and arrays more than ${MAX_JSON_DEPTH} levels deep`);
  }
}

/** One decoder for every body (decode() without `stream` keeps no state between calls). */
const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** The body as text (400 invalid_json when it is not UTF-8). */
export function bodyText(bytes: Uint8Array): string {
  try {
    return UTF8.decode(bytes);
  } catch {
    throw new MockHttpError(400, 'invalid_json', 'the request body is not valid UTF-8');
  }
}

/** Parses the body text as JSON (400 invalid_json) and validates it as a chat request (400 invalid_request). */
export function parseChatRequest(bytes: Uint8Array): ChatRequest {
  const text = bodyText(bytes);
  // honours: CHAT-013 (a POST without a body is answered at once: 400 with a JSON error)
  if (text.trim() === '') throw new MockHttpError(400, 'invalid_json', 'the request body is empty; send a JSON object');
  checkNesting(text);
  let body: unknown;
  try {
    // honours: CHAT-003
    body = JSON.parse(text);
  } catch (err) {
    throw new MockHttpError(400, 'invalid_json', `the request body is not valid JSON: ${(err as Error).message}`);
  }
  return validChatRequest(body);
}

/**
 * The request of a body that parseChatRequest has already accepted (elsewhere: mock/engine/checked-bodies.ts), as
 * parseChatRequest returns it, without checking it again.
 */
export function decodeAcceptedChatRequest(bytes: Uint8Array): ChatRequest {
  return acceptedChatRequest(JSON.parse(bodyText(bytes)));
}

/** The request of the decoded value of a body that parseChatRequest has already accepted, as it returns it. */
export function acceptedChatRequest(body: unknown): ChatRequest {
  const req = body as ChatRequest;
  acceptToolCallTurnsWithoutContent(req.messages);
  dropUnlistedNested(req);
  return req;
}

/** Deletes the fields `listed` does not name from `o`, when it is an object. */
function keepListed(o: unknown, listed: ReadonlySet<string>): void {
  if (o === null || typeof o !== 'object' || Array.isArray(o)) return;
  const obj = o as Record<string, unknown>;
  for (const k of Object.keys(obj)) if (!listed.has(k)) delete obj[k];
}

/**
 * A field a nested object does not list is not read (2.1): dropped once the request is accepted, so that nothing
 * after the decoding can read it (the seed of the answer, the prompt's tokens, the prompt cache's key, the seed of
 * tool calls). The top-level fields are left to the stages, which read only those 2.1 lists.
 */
// honours: REQ-014 (an unlisted field of a message, content part, tool, function or provider changes nothing)
function dropUnlistedNested(req: ChatRequest): void {
  for (const m of req.messages) {
    keepListed(m, LISTED_FIELDS.message);
    if (Array.isArray(m.content)) for (const p of m.content) keepListed(p, LISTED_FIELDS.contentPart);
  }
  if (Array.isArray(req.tools)) {
    for (const t of req.tools) {
      keepListed(t, LISTED_FIELDS.tool);
      keepListed(t.function, LISTED_FIELDS.function);
    }
  }
  keepListed(req.provider, LISTED_FIELDS.provider);
}

/** A parsed body validated as a chat request (400 invalid_request naming the first issue). */
function validChatRequest(body: unknown): ChatRequest {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw invalid('invalid request: the request body must be a JSON object');
  }
  const b = body as Record<string, unknown>;
  // The two required fields first, with the plainest message.
  // honours: REQ-002, REQ-004
  if (!('model' in b)) throw invalid('invalid request: model is required');
  if (typeof b.model !== 'string') throw invalid('invalid request: model must be a string');
  if (!('messages' in b)) throw invalid('invalid request: messages is required');
  if (!Array.isArray(b.messages)) throw invalid('invalid request: messages must be an array');
  checkWebSearchOptions(b.web_search_options);
  acceptToolCallTurnsWithoutContent(b.messages);
  // The answer names one issue: the validator stops at it, so the work stays linear in the body however many
  // issues it holds (collecting every issue of 40,000 bad messages took seconds: spec/validator.ts).
  // honours: REQ-001, REQ-003, REQ-006, REQ-007, REQ-013, REQ-015, REQ-016, REQ-017, REQ-018, REQ-019, REQ-020, REQ-021
  // honours: TOOL-001, TOOL-004, TOOL-005, TOOL-007, TOOL-009, IMG-001, IMG-002, IMG-003, IMG-004
  // honours: ROUTE-001, ROUTE-002, ROUTE-003, ROUTE-004, RSN-001, RSN-002, RSN-009, SEARCH-001 (the schemas of 2.1-2.8)
  const result = validate('chat-request', body, { firstIssue: true });
  if (!result.valid) {
    const first = result.errors[0]!;
    throw invalid(issueMessage(first));
  }
  // Rules the schema leaves to code.
  for (const field of ['max_tokens', 'max_completion_tokens'] as const) {
    const v = b[field];
    if (typeof v === 'number' && v < 0) throw invalid(`invalid request: ${field} must be >= 0 (got integer ${v})`);
  }
  const reasoning = b.reasoning as { max_tokens?: number } | undefined;
  if (typeof reasoning?.max_tokens === 'number' && reasoning.max_tokens < 0) {
    throw invalid(`invalid request: reasoning.max_tokens must be >= 0 (got integer ${reasoning.max_tokens})`);
  }
  if (b.messages.length === 0) throw invalid('invalid request: messages must have at least 1 item');
  // After validation: a response-only field of a message (2.9) is refused above, not dropped.
  dropUnlistedNested(body as ChatRequest);
  return body as ChatRequest;
}

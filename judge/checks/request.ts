// Checks of a request a client sent (the traffic proxy judges clients as well as servers). The suite writes its
// own requests, so it never needs these; a client author's SDK or app does. Each finding is charged to the
// requirement whose rule the request breaks: a message with tool calls and no declared tools breaks what TOOL-012
// says gets rejected; an image part to an entry with supports_images false breaks IMG-007 (4.3 rule 7).
// `advice` checks find what the contract says is not read (fields 2.1 does not list): the client is told its
// intent is ignored, as a warning, never as a breach.
import { check, holds, isObject, quote, type Check, type Json } from './check.ts';
import { schemaChecks, type PointerRule, type SchemaSubject } from './schema.ts';
import { LISTED_FIELDS } from '../../spec/listed-fields.ts';

/** A chat request as the client sent it, with the catalog entry of the model it names (when the proxy knows it). */
export interface OutgoingRequest {
  body: unknown;
  /** The catalog entry whose id is body.model; undefined when the catalog was not available. */
  entry?: Json;
}

const msg = '/messages/\\d+';
const part = `${msg}/content/\\d+`;
const location = '/web_search_options/user_location';

/** The request schema's issues, each charged to the requirement of the field it points at (most specific first). */
const REQUEST_RULES: readonly PointerRule[] = [
  { id: 'SEARCH-047', scope: new RegExp(`^${location}/type$`) },
  // Mixed nested and flat fields come by the schema node's x-requirement (user-location.schema.json); a nested
  // approximate that is no object is a malformed field (SEARCH-049), not a mix.
  { id: 'SEARCH-048', scope: new RegExp(`^${location}$`) },
  { id: 'SEARCH-049', scope: new RegExp(`^${location}(?:/.*)?$`) },
  { id: 'SEARCH-046', scope: /^\/web_search_options\/search_context_size$/ },
  { id: 'SEARCH-001', scope: /^\/web_search_options(?:\/.*)?$/ },
  { id: 'IMG-003', scope: new RegExp(`^${part}/image_url(?:/.*)?$`) },
  { id: 'IMG-004', scope: new RegExp(`^${part}/cache_control(?:/.*)?$`) },
  { id: 'IMG-002', scope: new RegExp(`^${part}/text$`) },
  { id: 'IMG-001', scope: new RegExp(`^${part}(?:/type)?$`) },
  { id: 'TOOL-011', scope: new RegExp(`^${msg}/tool_call_id$`) },
  { id: 'TOOL-010', scope: new RegExp(`^${msg}/tool_calls(?:/.*)?$`) },
  { id: 'REQ-015', scope: new RegExp(`^${msg}/role$`) },
  { id: 'REQ-020', scope: new RegExp(`^${msg}/name$`) },
  { id: 'REQ-017', scope: new RegExp(`^${msg}/content$`) },
  { id: 'REQ-003', scope: new RegExp(`^/messages(?:/\\d+)?$`) },
  { id: 'TOOL-006', scope: /^\/tools\/\d+\/function\/name$/ },
  { id: 'TOOL-009', scope: /^\/tools\/\d+\/function\/parameters$/ },
  { id: 'TOOL-004', scope: /^\/tools\/\d+(?:\/.*)?$/ },
  { id: 'TOOL-001', scope: /^\/tools$/ },
  { id: 'TOOL-002', scope: /^\/tool_choice(?:\/.*)?$/ },
  { id: 'REQ-021', scope: /^\/stream_options(?:\/.*)?$/ },
  { id: 'REQ-001', scope: /^\/model$/ },
  { id: 'REQ-005', scope: /^\/stream$/ },
  { id: 'REQ-006', scope: /^\/temperature$/ },
  { id: 'REQ-007', scope: /^\/top_p$/ },
  { id: 'REQ-008', scope: /^\/max_tokens$/ },
  { id: 'REQ-010', scope: /^\/max_completion_tokens$/ },
];

/** The request against the contract's request schema (spec/schemas/chat-request.schema.json). */
export const REQUEST_SCHEMA_CHECKS: readonly Check<SchemaSubject>[] = schemaChecks('chat-request', REQUEST_RULES, { fallbackId: 'REQ-003' });

const messagesOf = (body: unknown): Json[] => (isObject(body) && Array.isArray(body.messages) ? body.messages.filter(isObject) : []);
const declaresTools = (body: Json): boolean => Array.isArray(body.tools) && body.tools.some((t) => isObject(t) && t.type === 'function');

/** 4.3 rule 3: tool calls in a message need declared tools (else the request is refused). */
export const toolCallsNeedTools = check('TOOL-012', function toolCallsNeedTools(r: OutgoingRequest) {
  if (!isObject(r.body)) return undefined;
  const calling = messagesOf(r.body).filter((m) => Array.isArray(m.tool_calls) && m.tool_calls.length > 0);
  if (calling.length === 0) return undefined;
  return holds(declaresTools(r.body), () => `the request sends ${calling.length} message(s) carrying tool calls but declares no function tools: section 4.3 rule 3 says it is rejected`);
});

const imageParts = (body: unknown): number => messagesOf(body).reduce((n, m) => n + (Array.isArray(m.content) ? m.content.filter((p) => isObject(p) && p.type === 'image_url').length : 0), 0);

/** 4.3 rule 7: a model whose entry says supports_images false is not sent image parts. */
export const imagesOnlyToImageModels = check('IMG-007', function imagesOnlyToImageModels(r: OutgoingRequest) {
  const images = imageParts(r.body);
  if (images === 0 || r.entry === undefined) return undefined;
  return holds(r.entry.supports_images !== false, () => `the request sends ${images} image part(s) to ${quote(r.entry!.id)}, whose catalog entry has supports_images false (section 4.3 rule 7)`);
});

const unlisted = (value: unknown, listed: ReadonlySet<string>, at: string): string[] => (isObject(value) ? Object.keys(value).filter((k) => !listed.has(k)).map((k) => `${at}/${k}`) : []);

/** Advice (2.1): a top-level field the contract does not list is not read, so what the client meant by it is lost. */
export const unlistedTopLevel = check('REQ-013', function unlistedTopLevel(r: OutgoingRequest) {
  if (!isObject(r.body)) return undefined;
  const extra = unlisted(r.body, LISTED_FIELDS.request, '');
  return holds(extra.length === 0, () => `the request sends fields section 2.1 does not list, which the service does not read: ${extra.join(', ')}`);
});

/** Advice (2.2-2.5, 2.8): the same for nested objects (messages, tools, functions, content parts, provider). */
export const unlistedNested = check('REQ-014', function unlistedNested(r: OutgoingRequest) {
  if (!isObject(r.body)) return undefined;
  const body = r.body;
  const extra: string[] = [];
  messagesOf(body).forEach((m, i) => {
    extra.push(...unlisted(m, LISTED_FIELDS.message, `/messages/${i}`));
    if (Array.isArray(m.content)) m.content.forEach((p, j) => extra.push(...unlisted(p, LISTED_FIELDS.contentPart, `/messages/${i}/content/${j}`)));
  });
  if (Array.isArray(body.tools)) {
    body.tools.forEach((t, i) => {
      extra.push(...unlisted(t, LISTED_FIELDS.tool, `/tools/${i}`));
      if (isObject(t)) extra.push(...unlisted(t.function, LISTED_FIELDS.function, `/tools/${i}/function`));
    });
  }
  extra.push(...unlisted(body.provider, LISTED_FIELDS.provider, '/provider'));
  return holds(extra.length === 0, () => `the request sends nested fields the contract does not list, which the service does not read: ${extra.slice(0, 8).join(', ')}${extra.length > 8 ? ` and ${extra.length - 8} more` : ''}`);
});

/** Checks of a request that break the contract: the client's fault. */
export const REQUEST_CHECKS: readonly Check<OutgoingRequest>[] = [toolCallsNeedTools, imagesOnlyToImageModels];
/** Checks that find what the service will not read: a warning to the client. */
export const REQUEST_ADVICE: readonly Check<OutgoingRequest>[] = [unlistedTopLevel, unlistedNested];

/** The refusal a broken request is owed: the requirement that names it, and what section 7 fixes of it. */
export interface OwedRefusal {
  id: string;
  status?: (s: number) => boolean;
  code?: string;
  message?: string;
}

const clientError = (s: number): boolean => s >= 400 && s < 500;
const searchRefusal = (id: string, message: string): OwedRefusal => ({ id, status: (s) => s === 400, code: 'invalid_web_search_options', message });

/**
 * What the server owes a request that broke `broken` (requirement IDs the client's request failed): the
 * refusals the contract names for it. A server that answers such a request instead breaks these, not the client.
 */
export function owedRefusals(r: OutgoingRequest, broken: ReadonlySet<string>): OwedRefusal[] {
  const owed: OwedRefusal[] = [];
  const body = isObject(r.body) ? r.body : undefined;
  if (broken.has('TOOL-012')) owed.push({ id: 'TOOL-012', status: clientError });
  if (broken.has('IMG-007')) owed.push({ id: 'IMG-006' });
  if (broken.has('SEARCH-046')) owed.push(searchRefusal('SEARCH-046', 'search_context_size must be one of: low, medium, high'));
  // One refusal per request: the first of the location rules it broke, in the order section 7 lists them.
  if (broken.has('SEARCH-047')) owed.push(searchRefusal('SEARCH-047', 'user_location.type must be "approximate"'));
  else if (broken.has('SEARCH-048')) owed.push(searchRefusal('SEARCH-048', 'user_location must not mix nested approximate and flat fields'));
  else if (broken.has('SEARCH-049')) owed.push(searchRefusal('SEARCH-049', 'user_location has unknown or malformed fields'));
  if (body && !('model' in body)) owed.push({ id: 'REQ-002', status: clientError });
  if (body && !('messages' in body)) owed.push({ id: 'REQ-004', status: clientError });
  if (messagesOf(body).some((m) => !('role' in m))) owed.push({ id: 'REQ-016', status: clientError });
  return owed;
}

/**
 * The body as the request schema judges a client: over-long city and region values are cut to the schema's
 * bound first, because that bound (100 characters) is the kit's choice where section 8 leaves a gap.
 */
export function schemaSubjectOf(body: unknown): SchemaSubject {
  if (!isObject(body) || !isObject(body.web_search_options) || !isObject(body.web_search_options.user_location)) return { values: [{ label: 'request', data: body }] };
  const cut = (loc: unknown): unknown => {
    if (!isObject(loc)) return loc;
    const out: Json = { ...loc };
    for (const f of ['city', 'region']) if (typeof out[f] === 'string' && (out[f] as string).length > 100) out[f] = (out[f] as string).slice(0, 100);
    if (isObject(out.approximate)) out.approximate = cut(out.approximate);
    return out;
  };
  const data = { ...body, web_search_options: { ...body.web_search_options, user_location: cut(body.web_search_options.user_location) } };
  return { values: [{ label: 'request', data }] };
}

// Checks every area reuses: a non-streamed chat completion (2.9, 4.3) and a section 7 error response.
// Spread the exported ID lists into `req(...)` of a test that calls the matching function.
import type { Checker } from './check.ts';
import { CHAT_RESPONSE_RULES, ERROR_BODY_RULES, checkBySchema, ruleIds } from './schema-checks.ts';
import type { TargetResponse } from './target.ts';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Seconds either side of now within which `created` counts as plausible (clock skew, slow targets). */
const CREATED_SLACK_S = 24 * 3600;

export const CHAT_COMPLETION_IDS = ruleIds(CHAT_RESPONSE_RULES, 'CHAT-004', 'CHAT-009', 'RESP-001', 'RESP-005', 'RESP-016', 'RESP-020', 'SEARCH-027', 'SEARCH-029', 'SEARCH-039');

/**
 * A 200 JSON chat completion for `model`: status, content type, every field rule charged to its
 * requirement, and the semantic rules a schema cannot state. Returns the body, or undefined when there
 * is no usable completion.
 */
export function checkChatCompletion(check: Checker, res: TargetResponse, model: string): Json | undefined {
  if (!check.status('CHAT-004', res, 200, 'for a non-streamed completion, status')) return undefined;
  const body = res.json();
  if (!check.that('CHAT-004', isObject(body) && /json/i.test(res.headers['content-type'] ?? ''), () => `expected a JSON chat completion; received content-type ${res.headers['content-type']} and ${res.describe()}`)) return undefined;
  const b = body as Json;
  checkBySchema(check, 'chat-response', b, CHAT_RESPONSE_RULES, { what: 'chat completion', fallbackId: 'CHAT-004', nullId: 'RESP-001' });
  checkCompletionSemantics(check, b, model);
  return b;
}

/** The rules no schema can state; shared by the streamed path through an assembled equivalent. */
export function checkCompletionSemantics(check: Checker, b: Json, model: string): void {
  checkResponseArithmetic(check, b);
  const created = b.created;
  if (typeof created === 'number') {
    const now = Date.now() / 1000;
    check.that('RESP-005', Math.abs(created - now) <= CREATED_SLACK_S, () => `created ${created} is not a Unix time in seconds near now (${Math.round(now)})${created > now * 100 ? ': milliseconds?' : ''}`);
  }
  check.that('CHAT-009', b.model === model, () => `requested model ${JSON.stringify(model)}, response names ${JSON.stringify(b.model)}`);
  const choices = Array.isArray(b.choices) ? b.choices.filter(isObject) : [];
  choices.forEach((choice, position) => {
    const message = isObject(choice.message) ? choice.message : {};
    const calls = Array.isArray(message.tool_calls) ? message.tool_calls.filter(isObject) : [];
    if (calls.length > 0) {
      const ids = calls.map((c) => c.id);
      check.that('RESP-016', new Set(ids).size === ids.length, () => `choice ${position}: tool call ids repeat: ${JSON.stringify(ids)}`);
      for (const call of calls) {
        const args = isObject(call.function) ? call.function.arguments : undefined;
        if (typeof args === 'string') check.that('RESP-020', parses(args), () => `choice ${position}: arguments of ${JSON.stringify(call.id)} do not decode as JSON: ${args.slice(0, 200)}`);
      }
    }
    checkProvenance(check, message, `choice ${position}`);
  });
  const usage = isObject(b.usage) ? b.usage : undefined;
  if (usage && 'service_web_search_calls' in usage) {
    check.that('SEARCH-039', typeof usage.service_web_search_calls === 'number' && usage.service_web_search_calls >= 1, () => `usage.service_web_search_calls is ${JSON.stringify(usage.service_web_search_calls)}; it is omitted when no search completed`);
  }
}

/**
 * The rules of 2.9 a schema cannot state: a non-empty id, a non-empty choices array whose indices are the
 * positions, total_tokens the sum of the two counts, cached_tokens within prompt_tokens.
 */
function checkResponseArithmetic(check: Checker, body: Json): void {
  if (typeof body.id === 'string') check.that('RESP-002', body.id.length > 0, 'id is an empty string; it identifies the completion');
  if (Array.isArray(body.choices)) {
    const choices = body.choices;
    check.that('RESP-007', choices.length > 0, 'choices is an empty array; a completion returns one choice per completion');
    choices.forEach((c, position) => {
      if (isObject(c) && typeof c.index === 'number') {
        check.that('RESP-009', c.index === position, () => `choices[${position}].index is ${c.index}; it is the position of the choice`);
      }
    });
  }
  const usage = isObject(body.usage) ? body.usage : undefined;
  if (!usage) return;
  const { prompt_tokens: p, completion_tokens: c, total_tokens: t } = usage;
  if (typeof p === 'number' && typeof c === 'number' && typeof t === 'number') {
    check.that('RESP-023', t === p + c, () => `usage.total_tokens is ${t}; prompt_tokens ${p} + completion_tokens ${c} = ${p + c}`);
  }
  const cached = isObject(usage.prompt_tokens_details) ? usage.prompt_tokens_details.cached_tokens : undefined;
  if (typeof cached === 'number' && typeof p === 'number') {
    check.that('RESP-025', cached <= p, () => `prompt_tokens_details.cached_tokens ${cached} exceeds prompt_tokens ${p}; cached tokens are input tokens`);
  }
}

/** Citations bounded to the final text; nothing but url_citation in annotations. */
export function checkProvenance(check: Checker, message: Json, where: string): void {
  if (!Array.isArray(message.annotations)) return;
  const text = typeof message.content === 'string' ? message.content : '';
  const notCitations = message.annotations.filter((a) => !isObject(a) || a.type !== 'url_citation');
  check.that('SEARCH-029', notCitations.length === 0, () => `${where}: annotations holds entries that are not url_citation: ${JSON.stringify(notCitations).slice(0, 300)}`);
  for (const a of message.annotations) {
    const c = isObject(a) && isObject(a.url_citation) ? a.url_citation : undefined;
    if (!c || typeof c.start_index !== 'number' || typeof c.end_index !== 'number') continue;
    // The spec does not say which unit counts the text; a span inside the text in UTF-16 units or in code points passes.
    const bound = Math.max(text.length, [...text].length);
    check.that('SEARCH-027', c.start_index >= 0 && c.start_index <= c.end_index && c.end_index <= bound, () => `${where}: citation [${c.start_index}, ${c.end_index}] is not inside the final text of length ${text.length}`);
  }
}

function parses(s: string): boolean {
  try {
    JSON.parse(s);
    return true;
  } catch {
    return false;
  }
}

export const ERROR_RESPONSE_IDS = ruleIds(ERROR_BODY_RULES, 'ERR-001');

export interface ExpectedError {
  /** The requirement that names this refusal (its status and code). */
  id: string;
  /** Expected status(es), or a predicate (e.g. any 4xx). Omit when the status is a gap of the spec. */
  status?: number | readonly number[] | ((s: number) => boolean);
  statusText?: string;
  /** Expected error.code, when the contract fixes it. */
  code?: string;
  /** Expected error.message: exact text, or a pattern. */
  message?: string | RegExp;
}

/**
 * A refusal: a non-200 status, the section 7 error body (charged to ERR-001..004), and the status, code and
 * message the named requirement fixes. Returns the error object when there is one.
 */
export function checkErrorResponse(check: Checker, res: TargetResponse, expected: ExpectedError): Json | undefined {
  const refused = res.exchange.status !== 0 && res.status !== 200;
  check.that(expected.id, refused, () => `expected a refusal; received ${res.describe()}`);
  if (!refused) return undefined;
  if (expected.status !== undefined) check.status(expected.id, res, expected.status, expected.statusText ?? 'status');
  const body = res.json();
  check.that('ERR-001', isObject(body) && isObject(body.error), () => `a non-200 response must carry a JSON object with an error object; received ${res.describe()}`);
  checkBySchema(check, 'error', body, ERROR_BODY_RULES, { what: `error body of HTTP ${res.status}`, fallbackId: 'ERR-001' });
  const error = isObject(body) && isObject(body.error) ? body.error : undefined;
  if (expected.code !== undefined) check.that(expected.id, error?.code === expected.code, () => `expected error.code ${JSON.stringify(expected.code)}; received ${JSON.stringify(error?.code)} (${res.describe()})`);
  if (expected.message !== undefined) {
    const m = error?.message;
    const ok = typeof m === 'string' && (typeof expected.message === 'string' ? m === expected.message : expected.message.test(m));
    check.that(expected.id, ok, () => `expected error.message ${String(expected.message)}; received ${JSON.stringify(m)}`);
  }
  return error;
}

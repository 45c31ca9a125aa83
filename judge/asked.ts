// What a chat request asked, read back from the exchange that carried it: the judge reads the request that was sent,
// never a caller's account of it, so a test and the traffic proxy judge the same answer to the same request alike.
import { isObject, type Json } from './checks/check.ts';
import type { Exchange, TargetResponse } from './exchange.ts';

/** A function tool as the request declared it: its name and, when it takes arguments, their JSON Schema. */
export interface DeclaredFunction {
  name: string;
  parameters?: unknown;
}

/** The token caps a request sent (numbers only). */
export interface CapPair {
  max_tokens?: number;
  max_completion_tokens?: number;
}

export interface Asked {
  /** The request body as sent. */
  body: Json;
  /** `model`, when it is a string. */
  model?: string;
  /** stream: true. */
  stream: boolean;
  /** stream_options.include_usage, when stream_options is an object that sets it to a boolean. */
  includeUsage?: boolean;
  caps: CapPair;
  /** The function tools it declared. */
  functions: DeclaredFunction[];
  /** The function a tool_choice object names (either shape of 4.3), when it names one. */
  forced?: string;
  /** It asked for hosted search: web_search_options, or a bare web_search tools entry (2.7). */
  search: boolean;
  /** It carried routing preferences (a provider object). */
  provider: boolean;
  /** Image parts across its messages. */
  imageParts: number;
  /** A message carries tool calls. */
  sendsToolCalls: boolean;
  /** include_reasoning: true. */
  includeReasoning: boolean;
}

/** The body of a request as a JSON object, or undefined (no body, not JSON, or cut short as evidence). */
function bodyOf(x: Exchange): Json | undefined {
  if (x.requestBody === undefined) return undefined;
  try {
    const v: unknown = JSON.parse(x.requestBody);
    return isObject(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

/** What the chat request answered by `res` asked; undefined when its body cannot be read back as a JSON object. */
export function askedOf(res: TargetResponse): Asked | undefined {
  const body = isObject(res.sent) ? res.sent : bodyOf(res.exchange);
  return body === undefined ? undefined : askedOfBody(body);
}

/** What a chat request body asked. */
export function askedOfBody(body: Json): Asked {
  const so = body.stream_options;
  const caps: CapPair = {};
  if (typeof body.max_tokens === 'number') caps.max_tokens = body.max_tokens;
  if (typeof body.max_completion_tokens === 'number') caps.max_completion_tokens = body.max_completion_tokens;
  const tools = Array.isArray(body.tools) ? body.tools.filter(isObject) : [];
  const functions = tools.flatMap((t): DeclaredFunction[] => {
    const f = t.function;
    if (t.type !== 'function' || !isObject(f) || typeof f.name !== 'string') return [];
    return [{ name: f.name, ...('parameters' in f ? { parameters: f.parameters } : {}) }];
  });
  const choice = body.tool_choice;
  const forced = isObject(choice) ? (isObject(choice.function) && typeof choice.function.name === 'string' ? choice.function.name : typeof choice.name === 'string' ? choice.name : undefined) : undefined;
  const messages = Array.isArray(body.messages) ? body.messages.filter(isObject) : [];
  const imageParts = messages.reduce((n, m) => n + (Array.isArray(m.content) ? m.content.filter((p) => isObject(p) && p.type === 'image_url').length : 0), 0);
  return {
    body,
    ...(typeof body.model === 'string' ? { model: body.model } : {}),
    stream: body.stream === true,
    ...(isObject(so) && typeof so.include_usage === 'boolean' ? { includeUsage: so.include_usage } : {}),
    caps,
    functions,
    ...(forced !== undefined ? { forced } : {}),
    search: isObject(body.web_search_options) || tools.some((t) => t.type === 'web_search'),
    provider: isObject(body.provider),
    imageParts,
    sendsToolCalls: messages.some((m) => Array.isArray(m.tool_calls) && m.tool_calls.length > 0),
    includeReasoning: body.include_reasoning === true,
  };
}

// Helpers of the chat, auth, errors and limits specs: the requests they send, reading a completion's usage and
// an error's fields without trusting the target, and the response rules no schema can state (sums, bounds,
// positions). Judgement stays in the specs and in chat-checks.ts; this file only builds and reads.
import { randomBytes } from 'node:crypto';
import type { Checker } from '../../../judge/checker.ts';
import type { RunConfig } from '../../../run/config.ts';
import { judgeCompletion } from '../../../judge/judge-response.ts';
import { noUsableReason, pickModel, type Discovery, type ModelEntry } from '../discovery.ts';
import type { Profile } from '../../../run/profile.ts';
import type { Target, TargetResponse } from '../../../run/target.ts';

export type Json = Record<string, unknown>;
export const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A prompt any model answers at length, so a small cap is what stops it. */
export const LONG_ANSWER_PROMPT = 'Count from 1 to 200, one number per word, separated by spaces.';
export const SHORT_PROMPT = 'Say hello.';

export const userMessage = (content: string): Json => ({ role: 'user', content });

/**
 * The model plain chat tests use: the cheapest usable one without reasoning (a reasoning model may spend a
 * small cap on reasoning), else the cheapest usable one.
 */
export function chatModel(discovery: Discovery, profile: Profile): ModelEntry | undefined {
  return pickModel(discovery, profile, { reasoning: false }) ?? pickModel(discovery, profile);
}

/** The reason a test that needs a model skips with. */
export function noModelReason(discovery: Discovery, what = 'a usable model'): string {
  return noUsableReason(discovery, what);
}

/** A model id that is certainly not in the catalog (never a guess at a real one). */
export function unknownModelId(discovery: Discovery): string {
  const listed = new Set(discovery.models.map((m) => m.id));
  let id: string;
  do id = `chatconform-no-such-model-${randomBytes(6).toString('hex')}`;
  while (listed.has(id));
  return id;
}

/** A credential that is certainly not valid: well-formed, random, never issued. */
export function invalidKey(): string {
  return `sk-chatconform-invalid-${randomBytes(16).toString('hex')}`;
}

export interface Usage {
  prompt_tokens?: number;
  completion_tokens?: number;
  total_tokens?: number;
  prompt_tokens_details?: { cached_tokens?: number; cache_write_tokens?: number };
  [field: string]: unknown;
}

/** `usage` of a completion when it is an object, else undefined (usage is optional: omitted when unavailable). */
export function usageOf(body: Json | undefined): Usage | undefined {
  return body && isObject(body.usage) ? (body.usage as Usage) : undefined;
}

/** usage.completion_tokens when it is a number. */
export function completionTokensOf(body: Json | undefined): number | undefined {
  const n = usageOf(body)?.completion_tokens;
  return typeof n === 'number' ? n : undefined;
}

/** finish_reason of each choice (undefined where omitted). */
export function finishReasonsOf(body: Json | undefined): unknown[] {
  return Array.isArray(body?.choices) ? body.choices.map((c) => (isObject(c) ? c.finish_reason : undefined)) : [];
}


export interface ErrorFields {
  status: number;
  type?: unknown;
  code?: unknown;
  message?: unknown;
}

/** What a refusal says, read defensively (for observations and messages). */
export function errorFieldsOf(res: TargetResponse): ErrorFields {
  const body = res.json();
  const error = isObject(body) && isObject(body.error) ? body.error : undefined;
  const out: ErrorFields = { status: res.exchange.error ? 0 : res.status };
  if (error) {
    if ('type' in error) out.type = error.type;
    if ('code' in error) out.code = error.code;
    if ('message' in error) out.message = typeof error.message === 'string' ? error.message.slice(0, 200) : error.message;
  }
  return out;
}

/** Who answered a 200, for messages. */
export function answeredBy(res: TargetResponse): string {
  const body = res.json();
  return isObject(body) ? `answered with status 200 by model ${JSON.stringify(body.model)}` : `answered with status 200: ${res.describe()}`;
}

/**
 * Why a response is not a section 7 refusal (a non-200 status with an error object), or undefined when it is
 * one: no response, a 200 answer (and by whom), or a non-200 without the error object.
 */
export function notARefusal(res: TargetResponse): string | undefined {
  if (res.exchange.error) return `no response (${res.exchange.error})`;
  if (res.status === 200) return answeredBy(res);
  const body = res.json();
  if (!isObject(body) || !isObject(body.error)) return `refused with status ${res.status} but without a section 7 error object: ${res.describe()}`;
  return undefined;
}

/** How a request fared, for an observation: status, and the error's code and type when refused. */
export function outcomeOf(res: TargetResponse): Json {
  if (res.exchange.error) return { status: 0, error: res.exchange.error };
  if (res.status === 200) return { status: 200 };
  const e = errorFieldsOf(res);
  const out: Json = { status: res.status };
  if (e.code !== undefined) out.code = e.code;
  if (e.type !== undefined) out.type = e.type;
  return out;
}

/** Headers of a response that speak of rate limits, quotas or retrying (names and values). */
export function limitHeaders(res: TargetResponse, pattern = /rate-?limit|retry-after|quota/i): Json {
  return Object.fromEntries(Object.entries(res.headers).filter(([k]) => pattern.test(k)));
}

/**
 * Sends one request per value of `field`, recording how each fared (for range observations of the spec's
 * gaps). A target that stops answering is not asked further.
 */
export async function probeValues(target: Target, base: Json, field: string, values: readonly unknown[]): Promise<Json[]> {
  const out: Json[] = [];
  for (const value of values) {
    const res = await target.chat({ ...base, [field]: value });
    out.push({ [field]: value, ...outcomeOf(res) });
    if (res.exchange.error) break;
  }
  return out;
}

/** A test timeout that lets `requests` requests each run to the per-request timeout (never below the default). */
export function timeFor(requests: number, config: RunConfig): number {
  return Math.max(60_000, requests * config.requestTimeoutMs + 15_000);
}

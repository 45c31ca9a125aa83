// Helpers for tests that send an optional request feature (routing preferences, content parts, reasoning): the
// parts and caps they send, and what an observation records of an answer. Whether the target accepted the feature
// is judged in judge/acceptance.ts.
import type { TargetResponse } from '../../../judge/exchange.ts';

type Json = Record<string, unknown>;
export const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A 1x1 PNG as an inline data URL: an image part that needs no fetch and costs the least. */
export const TINY_PNG_DATA_URL =
  'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

/** The smallest useful cap for a probe whose answer is not read: at most 8 tokens, never above the budget's. */
export function probeCap(maxTokensPerRequest: number): number {
  return Math.max(1, Math.min(8, maxTokensPerRequest));
}

/** What a response was, in the terms an observation records: status, and the error code and type when refused. */
export function outcomeOf(res: TargetResponse): { status: number; code?: unknown; type?: unknown; error?: string } {
  if (res.exchange.error) return { status: 0, error: res.exchange.error };
  if (res.status === 200) return { status: 200 };
  const body = res.json();
  const error = isObject(body) && isObject(body.error) ? body.error : undefined;
  return { status: res.status, ...(error && 'code' in error ? { code: error.code } : {}), ...(error && 'type' in error ? { type: error.type } : {}) };
}

/** The assistant message of a completion's first choice, guarded against any shape. */
export function firstMessage(body: Json | undefined): Json | undefined {
  const choices = body && Array.isArray(body.choices) ? body.choices : [];
  const first = choices.find(isObject);
  return first && isObject(first.message) ? first.message : undefined;
}

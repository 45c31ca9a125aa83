// Small readers and builders the modes share: where a chunk's deltas are, a 200 stream that fails, the first key.
import { MockHttpError } from '../core/errors.ts';
import type { CoreRequest, CoreResult } from '../core/http.ts';
import { streamError } from '../core/pipeline.ts';
import type { ChatRequest } from '../core/request.ts';
import type { ApiKey } from '../core/types.ts';
import type { ModeContext } from './mode.ts';

export const deltasOf = (p: unknown): Record<string, unknown>[] => {
  const choices = (p as { choices?: unknown } | null)?.choices;
  if (!Array.isArray(choices)) return [];
  return choices.map((c) => (c as { delta?: unknown })?.delta).filter((d): d is Record<string, unknown> => typeof d === 'object' && d !== null);
};
export const hasToolCallDelta = (p: unknown): boolean => deltasOf(p).some((d) => 'tool_calls' in d);
export const hasProvenance = (p: unknown): boolean => deltasOf(p).some((d) => 'annotations' in d || 'service_web_search' in d);
export const hasReasoningDelta = (p: unknown): boolean => deltasOf(p).some((d) => 'reasoning_content' in d);

/** The choices of a chunk or body (an empty list when there are none). */
export const choicesOf = (p: Record<string, unknown>): Record<string, unknown>[] =>
  Array.isArray(p.choices) ? (p.choices as Record<string, unknown>[]) : [];

/** The first fixture key (whom a lenient gateway serves a request it should refuse as). */
export function firstKey(ctx: ModeContext): ApiKey {
  const key = ctx.i.keys.values().next().value;
  if (!key) throw new MockHttpError(500, 'internal_error', 'the mock has no keys');
  return key;
}

/** A 200 stream that opens, says `text`, then fails with an in-stream error event. */
export function failingStream(ctx: ModeContext, request: CoreRequest, req: ChatRequest | undefined, err: MockHttpError, text: string): CoreResult {
  const { s, i } = ctx;
  const base = { id: i.newId(), object: 'chat.completion.chunk', created: Math.floor(i.now() / 1000), model: req?.model ?? 'unknown' };
  const events: unknown[] = [s.json({ ...base, choices: [{ index: 0, delta: { role: 'assistant' } }] })];
  if (text) events.push(s.json({ ...base, choices: [{ index: 0, delta: { content: text } }] }));
  events.push(streamError(s, err.code, err.message));
  return s.streamResult({ request, events });
}

/** Fields a vendor adds beside the contract's. */
export const VENDOR_EXTRA = { x_vendor_extra: { region: 'mock-1', trace: 'f00d' } } as const;

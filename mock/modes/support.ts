// What the modes share: readers of a chunk's deltas, a 200 stream that fails, the first key, and the hooks that
// exist only for modes (the core never needs them): extra lines of an event, an entry's alias, whether a ranked
// route could serve, tool calls cut to a cap, the fields 2.10 requires.
import type { Catalog } from '../core/catalog.ts';
import { streamErrorPayload } from '../core/chat.ts';
import { MockHttpError } from '../core/errors.ts';
import type { CoreRequest, CoreResult } from '../core/http.ts';
import type { ChatRequest, ToolCall } from '../core/request.ts';
import { rankRoutes } from '../core/routing.ts';
import { endsWithBlankLine, eolOf, type FramingOptions, type SsePayload } from '../core/sse-encoder.ts';
import { countTokens, tokenize } from '../engine/tokens.ts';
import type { ApiKey, FixtureEntry, PublicCatalogEntry } from '../core/types.ts';
import type { ModeContext, StageWrappers } from './mode.ts';

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
  const events: unknown[] = [{ ...base, choices: [{ index: 0, delta: { role: 'assistant' } }] }];
  if (text) events.push({ ...base, choices: [{ index: 0, delta: { content: text } }] });
  events.push(streamErrorPayload(err.code, err.message));
  return s.streamResult({ request, events });
}

/** Fields a vendor adds beside the contract's. */
export const VENDOR_EXTRA = { x_vendor_extra: { region: 'mock-1', trace: 'f00d' } } as const;

/** The fields 2.10 requires on every entry (spec/schemas/model.schema.json); the others are optional. */
export const REQUIRED_FIELDS: ReadonlySet<string> = new Set([
  'id', 'name', 'min_tier', 'supports_images', 'supports_caching', 'supports_reasoning', 'supports_global_endpoint', 'is_featured',
]);

/** Lines a mode adds to every event, beyond the framings section 6 allows (core/sse-encoder.ts). */
export interface EventLines {
  /** the `event:` name of a payload, when it gets one (none: unnamed events, as clients need) */
  eventNameOf?: (payload: SsePayload) => string | undefined;
  /** events are not separated by a blank line (not SSE: the events run together) */
  noBlankLine?: boolean;
  /** every event also carries `event: message`, `id: <n>` and `retry: 3000` lines (standard SSE fields) */
  sseFields?: boolean;
}

/** The reconnection time announced by `sseFields` (SSE `retry:` field, ms). */
export const SSE_RETRY_MS = 3000;

type LinedFraming = FramingOptions & EventLines;
const hasLines = (f: FramingOptions): f is LinedFraming => 'eventNameOf' in f || 'noBlankLine' in f || 'sseFields' in f;

/**
 * A mode's wrappers that give every event the lines `lines` asks: the framing carries them (so the lines of every
 * active mode add up), and the outermost `event` wrapper writes them around the contract's event text, once.
 */
export function eventLines(lines: EventLines): StageWrappers {
  return {
    framing: (next) => (input) => {
      const f: LinedFraming = { ...next(input), ...lines };
      return f;
    },
    event: (next) => (input) => {
      const f = input.framing;
      if (!hasLines(f)) return next(input);
      // The wrappers below (other modes' eventLines among them) see a framing without lines: they pass through.
      const { eventNameOf, noBlankLine, sseFields, ...plain } = f;
      const text = next({ ...input, framing: plain });
      const eol = eolOf(plain);
      const name = eventNameOf?.(input.payload);
      let head = name !== undefined ? `event: ${name}${eol}` : sseFields ? `event: message${eol}` : '';
      // `message` is the default event type, so standard consumers see the same data; id and retry are legal fields.
      if (sseFields) head += `id: ${input.index + 1}${eol}retry: ${SSE_RETRY_MS}${eol}`;
      const body = noBlankLine && endsWithBlankLine(plain, input.final) ? text.slice(0, -eol.length) : text;
      return head + body;
    },
  };
}

/** The alias of `id`: the next listed entry (among those `like` accepts) after it, wrapping around; `id` itself when there is no other. */
export function aliasOf(catalog: Catalog, id: string, like: (e: PublicCatalogEntry) => boolean = () => true): string {
  const ids = catalog.listedEntries.filter((e) => e.id === id || like(e)).map((e) => e.id).filter((x, i, all) => all.indexOf(x) === i);
  const i = ids.indexOf(id);
  return ids[(i + 1) % ids.length] ?? id;
}

/** Whether a route the preferences rank can serve the request (false: only a fallback could). */
export function rankedRouteAvailable(req: ChatRequest, entry: FixtureEntry, search: boolean): boolean {
  const { ranked, usable } = rankRoutes(req, entry, search);
  return ranked.some(usable);
}

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

/** Whether a payload is an in-stream error event (a top-level error object). */
const isErrorEvent = (p: SsePayload): p is Record<string, unknown> & { error: Record<string, unknown> } =>
  typeof p === 'object' && p !== null && typeof (p as { error?: unknown }).error === 'object' && (p as { error?: unknown }).error !== null;

/**
 * The events of a 200 stream with its error event (the scenario's `x-mock-fail-after`) replaced by what `instead`
 * makes of it, given the stream's envelope (id, object, created, model of its first chunk) and whether a chunk came
 * before it. Wraps `streamResult`, the one stage that sees the events after the scenario layer added the error;
 * `chunks`, under that layer, still sees every chunk, so the envelope is kept from there (the scenario may cut every
 * chunk away).
 */
export function replacingErrorEvent(instead: (error: Record<string, unknown>, envelope: Record<string, unknown>, first: boolean) => SsePayload[]): () => StageWrappers {
  return () => {
    const envelopes = new WeakMap<CoreRequest, Record<string, unknown>>();
    return {
      chunks: (next) => (input) => {
        const chunks = next(input);
        const first = chunks[0];
        if (first) envelopes.set(input.request, { id: first.id, object: first.object, created: first.created, model: first.model });
        return chunks;
      },
      streamResult: (next) => (input) => {
        const at = input.events.findIndex(isErrorEvent);
        if (at < 0) return next(input);
        const error = (input.events[at] as { error: Record<string, unknown> }).error;
        return next({ ...input, events: [...input.events.slice(0, at), ...instead(error, envelopes.get(input.request) ?? {}, at === 0)] });
      },
    };
  };
}

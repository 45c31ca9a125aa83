// What a mode is: one named change layered over the contract's stages (mock/core/pipeline.ts). A defect breaks
// one requirement on purpose; a variant shows behaviour the contract allows but the clean mock does not. A mode
// either wraps named stages, `(next) => (input) => ...` (msw's `use()` overrides in spirit: the override sits
// over the happy path, never an `if` inside it), or transforms an output (body, chunks, events, error). Adding a
// mode is one object in one file of mock/modes/ and its name in the registry list (mock/defects.ts or
// mock/variants.ts).
import type { CoreResult } from '../core/http.ts';
import type { ErrorInput, Instance, StageWrapper, Stages, Turn } from '../core/pipeline.ts';
import type { Completion, Envelope } from '../core/chat.ts';
import type { CoreRequest } from '../core/http.ts';
import type { SsePayload } from '../core/sse-encoder.ts';
import type { CoreOptions } from '../core/types.ts';

/** What a mode's layer is built with, once per mock instance. */
export interface ModeContext {
  /** the instance's final stage table (call through it, never hold a stage) */
  readonly s: Stages;
  /** fixtures, keys, catalog (the catalog is ready by the first request, not while layers are built) */
  readonly i: Instance;
  readonly options: CoreOptions & { slow?: { headersMs?: number; eventMs?: number } };
}

export type StageWrappers = Partial<{ [K in keyof Stages]: StageWrapper<K> }>;

/** Output transformers: sugar for a wrapper that changes what a stage returned. */
export interface OutputTransformers {
  /** the non-streamed response body (2.9), before JSON shaping */
  body?(body: Record<string, unknown>, input: Turn & { completion: Completion; envelope: Envelope }): Record<string, unknown>;
  /** the stream's chunks (6), before JSON shaping */
  chunks?(chunks: Record<string, unknown>[], input: Turn & { completion: Completion; envelope: Envelope }): Record<string, unknown>[];
  /** the stream's event sequence (6 rule 4) */
  events?(events: SsePayload[], input: { request: CoreRequest; chunks: Record<string, unknown>[] }): SsePayload[];
  /** an error response (7) */
  error?(result: CoreResult, input: ErrorInput): CoreResult;
  /**
   * every JSON value as it leaves (bodies, chunks, events, errors, the catalog), after every layer: applied by
   * the instance outermost (`leavingLayer`), so what other modes change is changed too
   */
  json?<T>(value: T): T;
}

interface ModeBase<N extends string> {
  name: N;
  description: string;
  /** wrappers around named stages, built once per instance (state a mode keeps lives in this closure) */
  stages?: (ctx: ModeContext) => StageWrappers;
  output?: OutputTransformers;
}

/** Areas of the contract a defect belongs to (every one of them has defects). */
export const DEFECT_SECTIONS = [
  'catalog',
  'auth',
  'request rules',
  'response shape',
  'tools',
  'web search',
  'routing',
  'streaming',
  'errors',
  'limits',
] as const;
export type DefectSection = (typeof DEFECT_SECTIONS)[number];

export interface DefectMode<N extends string = string> extends ModeBase<N> {
  kind: 'defect';
  /** The requirement ID (spec/requirements) the defect violates. */
  breaks: string;
  section: DefectSection;
  /** 'fail' (default): breaks a MUST, the verdict fails. 'warn': breaks a SHOULD, the suite warns and passes. */
  expect?: 'fail' | 'warn';
  /**
   * 'core' (default): the defects that span every section of the contract, from which `npm test` draws its sample.
   * 'extended': the rest. `npm run test:matrix` (and .ci/run) runs both tiers; every one of them is caught.
   */
  tier?: 'core' | 'extended';
  /**
   * Set when only a cooperating target can show the defect: what the suite needs from the profile to provoke it
   * (a restricted key, an unavailable model, scenario headers). A black-box run cannot see it.
   */
  cooperation?: string;
}

export interface VariantMode<N extends string = string> extends ModeBase<N> {
  kind: 'variant';
  /** What the contract allows that the variant exercises (section of the spec). */
  allows: string;
}

export type Mode = DefectMode | VariantMode;

/** A defect mode (keeps its literal name for DefectName). */
export const defect = <const N extends string>(m: Omit<DefectMode<N>, 'kind'>): DefectMode<N> => ({ kind: 'defect', ...m });

/** A legal variant (keeps its literal name for VariantName). */
export const variant = <const N extends string>(m: Omit<VariantMode<N>, 'kind'>): VariantMode<N> => ({ kind: 'variant', ...m });

/** The stage wrappers of a mode for one instance: its own wrappers, then its output transformers. */
export function layerOf(mode: Mode, ctx: ModeContext): StageWrappers[] {
  const layers: StageWrappers[] = [];
  if (mode.stages) layers.push(mode.stages(ctx));
  const o = mode.output;
  if (o) {
    const w: StageWrappers = {};
    if (o.body) {
      const f = o.body;
      w.responseBody = (next) => (input) => f(next(input), input);
    }
    if (o.chunks) {
      const f = o.chunks;
      w.chunks = (next) => (input) => f(next(input), input);
    }
    if (o.events) {
      const f = o.events;
      w.events = (next) => (input) => f(next(input), input);
    }
    if (o.error) {
      const f = o.error;
      w.error = (next) => (input) => f(next(input), input);
    }
    layers.push(w);
  }
  return layers;
}

/** The modes' `output.json` transformers in registry order, as one function; undefined when no mode has one. */
export function leavingOf(modes: readonly Mode[]): (<T>(value: T) => T) | undefined {
  const all = modes.flatMap((m) => (m.output?.json ? [m.output.json] : []));
  if (all.length === 0) return undefined;
  return <T>(value: T): T => all.reduce((v, f) => f(v), value);
}

/** A JSON result with `leave` applied to its body (any other result as it is). */
export const leaveResult = (leave: <T>(value: T) => T, result: CoreResult): CoreResult =>
  result.kind === 'json' ? { ...result, body: leave(result.body) } : result;

/** The outermost layer: `leave` on every JSON answer and every streamed payload (not [DONE]) as it leaves. */
export function leavingLayer(leave: <T>(value: T) => T): StageWrappers {
  return {
    handle: (next) => async (request) => leaveResult(leave, await next(request)),
    event: (next) => (input) => next(input.payload === '[DONE]' ? input : { ...input, payload: leave(input.payload) }),
  };
}

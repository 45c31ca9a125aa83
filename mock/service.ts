// One mock instance: the contract's stages (mock/core/pipeline.ts) with the instance's modes and the scenario
// headers layered on top, composed once here. Both adapters (mock/handlers.ts, mock/server.ts) call `handle`.
import { indexKeys } from './core/auth.ts';
import type { Catalog } from './core/catalog.ts';
import { catalogOf, keysOf } from './core/fixture-data.ts';
import type { CoreRequest, CoreResult } from './core/http.ts';
import { buildInstance, type ErrorInput, type Stages } from './core/pipeline.ts';
import { DEFECTS, isDefectName } from './defects.ts';
import { checkedBodies, type BodyChecker } from './engine/checked-bodies.ts';
import { fairTurns } from './engine/fair-turns.ts';
import type { LargeBodyGate } from './engine/large-body-gate.ts';
import { control } from './harness/control.ts';
import { Harness } from './harness/harness.ts';
import { isControlPath } from './harness/names.ts';
import { layerOf, leaveResult, leavingLayer, leavingOf, type Mode } from './modes/mode.ts';
import type { MockOptions } from './options.ts';
import { scenarioLayer } from './scenario.ts';
import { ALL_VARIANTS, isVariantName } from './variants.ts';

export interface MockService {
  readonly options: MockOptions;
  readonly catalog: Catalog;
  /** The body limit the instance applies (bytes). */
  readonly bodyLimit: number;
  /** Answers one request. Never throws: every failure is an error response (section 7). */
  handle(request: CoreRequest): Promise<CoreResult>;
  /** An error response from the one error builder, shaped by the instance's modes (for the transport's own refusals). */
  error(input: ErrorInput): CoreResult;
  /** Forgets the prompt cache. */
  resetCache(): void;
  /** The client author's harness of the instance: runtime faults, the journal, scripts (mock/harness/). */
  readonly harness: Harness;
}

const list = <T>(v: T | readonly T[] | undefined): readonly T[] => (v === undefined ? [] : Array.isArray(v) ? (v as readonly T[]) : [v as T]);

/** The modes `options` switches on, in registry order (defects, then variants); unknown names throw. */
export function modesOf(options: MockOptions): Mode[] {
  const defects: readonly string[] = list(options.defect);
  const variants: readonly string[] = list(options.variant);
  for (const d of defects) if (!isDefectName(d)) throw new Error(`unknown defect mode "${String(d)}" (npm run mock -- --list-defects)`);
  for (const v of variants) if (!isVariantName(v)) throw new Error(`unknown variant "${String(v)}" (npm run mock -- --list-variants)`);
  return [...DEFECTS.filter((d) => defects.includes(d.name)), ...ALL_VARIANTS.filter((v) => variants.includes(v.name))];
}

/** What the host running the instance lends it (the node:http server: a thread that checks large bodies, and the bound on large bodies in flight). */
export interface ServiceHost {
  checkBody?: BodyChecker;
  largeBodies?: LargeBodyGate;
}

export function createMockService(options: MockOptions = {}, host: ServiceHost = {}): MockService {
  const modes = modesOf(options);
  const harness = new Harness(options);
  // What modes change on every JSON value as it leaves (key-order), after every layer.
  const leave = leavingOf(modes);
  // Scripted answers sit right over the contract's `complete`, under the modes; the harness's faults reach the
  // scenario layer, outermost, as a source of scenario fields.
  const { instance, stages } = buildInstance(
    options,
    (i, s: Stages) => [
      ...(host.checkBody ? [checkedBodies(host.checkBody, host.largeBodies, i.bodyLimit)] : []),
      fairTurns,
      harness.stages(),
      ...modes.flatMap((m) => layerOf(m, { s, i, options })),
      scenarioLayer(s, harness.scenarioSource),
      ...(leave ? [leavingLayer(leave)] : []),
    ],
    catalogOf(options),
    indexKeys(keysOf(options)),
  );
  const contract = (request: CoreRequest): Promise<CoreResult> => stages.handle(request);
  // Errors answered outside `handle` (the transport's, the harness's) leave the same way.
  const error = leave ? (input: ErrorInput): CoreResult => leaveResult(leave, stages.error(input)) : (input: ErrorInput): CoreResult => stages.error(input);
  return {
    options,
    catalog: instance.catalog,
    bodyLimit: instance.bodyLimit,
    harness,
    handle: (request) => (isControlPath(request.path) ? control(harness, request) : harness.handle(request, contract, error)),
    error,
    resetCache: () => instance.cache.clear(),
  };
}

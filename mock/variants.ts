// Legal variants: behaviour the contract allows but the clean mock does not show by default. A conformance
// suite must pass every one of them (tests/integration/defect-matrix.spec.ts): failing one is a false alarm.
//
//   npm run mock -- --variant crlf --variant key-order      startMockServer({ variant: ['crlf', 'key-order'] })
//   npm run mock -- --list-variants
//
// Variants combine freely with each other (and with scenario headers: a framing asked for by x-mock-framing
// is added to the variant's framings).
//
// Each variant is one object in mock/modes/variants/*.ts: its spec and the stages it wraps. This file is the
// registry (the order of VARIANTS is the order the defect matrix runs them).
import type { VariantMode } from './modes/mode.ts';
import { FRAMING_VARIANTS, SSE_FIELDS_VARIANT } from './modes/variants/framings.ts';
import { GAP_STATUSES_VARIANT } from './modes/variants/gap-statuses.ts';
import { LOCATION_BOUNDS_VARIANT } from './modes/variants/location-bounds.ts';
import { LONG_TOOL_ARGUMENTS_VARIANT } from './modes/variants/long-tool-arguments.ts';
import {
  CATALOG_PAGE_FIELDS_VARIANT,
  CONTENT_PARTS_VARIANT,
  CREATED_SKEWED_VARIANT,
  EXTRA_FIELDS_VARIANT,
  KEY_ORDER_VARIANT,
  OPTIONAL_OMITTED_VARIANT,
  SEARCH_CALLS_PARTIAL_VARIANT,
  USAGE_CHUNK_BARE_VARIANT,
} from './modes/variants/response-shape.ts';
import { SYSTEM_ROLE_REFUSED_VARIANT } from './modes/variants/roles.ts';
import { SLOW_VARIANT } from './modes/variants/slow.ts';
import { STREAM_ERROR_FINISH_CHUNK_VARIANT } from './modes/variants/stream-errors.ts';
import { TOOL_ARGUMENTS_SPACED_VARIANT, TOOL_CALL_ID_REPEATED_VARIANT, TOOL_CALL_IDS_SHORT_VARIANT, TOOL_CALL_WITH_TEXT_VARIANT } from './modes/variants/tool-calls.ts';
import { COMPRESSED_VARIANT } from './modes/variants/compressed.ts';

/** A variant as the registry lists it: name, what the contract allows, description (and its layer). */
export type VariantSpec = VariantMode;

export const VARIANTS = [
  ...FRAMING_VARIANTS,
  KEY_ORDER_VARIANT,
  OPTIONAL_OMITTED_VARIANT,
  EXTRA_FIELDS_VARIANT,
  GAP_STATUSES_VARIANT,
  SSE_FIELDS_VARIANT,
  USAGE_CHUNK_BARE_VARIANT,
  LONG_TOOL_ARGUMENTS_VARIANT,
  COMPRESSED_VARIANT,
  CREATED_SKEWED_VARIANT,
  TOOL_CALL_ID_REPEATED_VARIANT,
  TOOL_CALL_IDS_SHORT_VARIANT,
  TOOL_ARGUMENTS_SPACED_VARIANT,
  TOOL_CALL_WITH_TEXT_VARIANT,
  SEARCH_CALLS_PARTIAL_VARIANT,
  CATALOG_PAGE_FIELDS_VARIANT,
  STREAM_ERROR_FINISH_CHUNK_VARIANT,
  CONTENT_PARTS_VARIANT,
  LOCATION_BOUNDS_VARIANT,
  SYSTEM_ROLE_REFUSED_VARIANT,
] as const satisfies readonly VariantSpec[];

/**
 * Variants outside the defect matrix, which runs exactly VARIANTS (tests/integration/defect-matrix.spec.ts):
 * selectable and listed like the others. `slow` makes a whole suite run take minutes, so npm test checks it with
 * a run of its own (tests/integration/slow-target.spec.ts).
 */
export const PENDING_VARIANTS = [SLOW_VARIANT] as const satisfies readonly VariantSpec[];

/** Every variant: those of the defect matrix, then the pending ones. */
export const ALL_VARIANTS: readonly VariantSpec[] = [...VARIANTS, ...PENDING_VARIANTS];

export type VariantName = (typeof VARIANTS)[number]['name'] | (typeof PENDING_VARIANTS)[number]['name'];

const BY_NAME = new Map<string, VariantSpec>(ALL_VARIANTS.map((v) => [v.name, v]));

export function isVariantName(name: string): name is VariantName {
  return BY_NAME.has(name);
}

export function variantSpec(name: string): VariantSpec | undefined {
  return BY_NAME.get(name);
}

export function formatVariants(): string {
  const width = Math.max(...ALL_VARIANTS.map((v) => v.name.length));
  return ALL_VARIANTS.map((v: VariantSpec) => `${v.name.padEnd(width)}  allowed by ${v.allows}: ${v.description}`).join('\n');
}

// Legal variants: behaviour the contract allows but the clean mock does not show by default. A conformance
// suite must pass every one of them (tests/integration/defect-matrix.spec.ts): failing one is a false alarm.
//
//   npm run mock -- --variant crlf --variant key-order      startMockServer({ variant: ['crlf', 'key-order'] })
//   npm run mock -- --list-variants
//
// Variants combine freely with each other (and with scenario headers: a framing asked for by x-mock-framing
// is added to the variant's framings).
import type { Framing } from './core/scenario.ts';

export interface VariantSpec {
  name: string;
  /** What the contract allows that the variant exercises (section of the spec). */
  allows: string;
  description: string;
  /** Stream framings the variant switches on for every stream (mock/core/sse-encoder.ts). */
  framing?: Framing;
}

export const VARIANTS = [
  { name: 'crlf', framing: 'crlf', allows: '6 rule 3', description: 'every stream line ends with CRLF' },
  { name: 'multiline', framing: 'multiline', allows: '6 rule 2', description: 'each event spreads its JSON over several data: lines' },
  { name: 'bytewise', framing: 'bytewise', allows: '6 rule 7', description: 'streams go out one byte per network write, so UTF-8 characters are split across writes' },
  { name: 'no-final-blank', framing: 'no-final-blank', allows: '6 rule 5', description: 'the final event ([DONE]) lacks its terminating blank line' },
  { name: 'comments', framing: 'comments', allows: '6 (SSE comment lines)', description: '": keep-alive" comment lines before every event' },
  { name: 'no-space', framing: 'no-space', allows: '6 rule 1', description: 'data: lines without the optional space after the colon' },
  {
    name: 'key-order',
    allows: '2 (JSON objects are unordered)',
    description: 'every JSON object (responses, chunks, catalog, errors) is serialised with its keys in reverse order',
  },
  {
    name: 'optional-omitted',
    allows: '2.9, 2.10 (optional fields omitted when unavailable)',
    description:
      'every optional field that may be omitted is omitted: usage (non-streamed), usage.cost and cost_details, finish_reason, citation titles, and every optional catalog field',
  },
  {
    name: 'extra-fields',
    allows: '1 (the widely used shape carries more fields than the contract lists)',
    description:
      'unknown extra fields on responses, choices, messages, deltas, chunks, usage, the model list object and error bodies (x_vendor_extra, system_fingerprint, ...); never on catalog entries, which 2.10 closes',
  },
  {
    name: 'gap-statuses',
    allows: '7 gaps (statuses the contract leaves open)',
    description:
      '422 for tool calls without declared tools, web_search_not_supported and the output-budget refusal; 400 for an unknown model; 403 for a missing credential; 409 for an allow_fallbacks refusal; 400 for an oversized body',
  },
  {
    name: 'sse-fields',
    allows: '6 (standard SSE fields; message is the default event type)',
    description: 'every stream event also carries "event: message", "id: <n>" and "retry: 3000" lines; standard consumers see the same data',
  },
  {
    name: 'usage-chunk-bare',
    allows: '6 rule 9 (the chunk shape beyond choices[].delta.content is not defined)',
    description: 'with include_usage, the usage-only chunk has no choices key at all (clients want choices: [], so the suite warns)',
  },
  {
    name: 'long-tool-arguments',
    allows: '2.4 (arguments is a JSON string) and 4.3 rule 2 (the cap bounds generated tokens)',
    description:
      'tool-call arguments are padded (an extra string property where the schema allows, else the first free string) so one call needs more than 64 tokens; a cap below that cuts the call (finish_reason length)',
  },
] as const satisfies readonly VariantSpec[];

/**
 * Variants outside the defect matrix, which runs exactly VARIANTS (tests/integration/defect-matrix.spec.ts):
 * selectable and listed like the others. `slow` makes a whole suite run take minutes, so npm test checks it with
 * a run of its own (tests/integration/slow-target.spec.ts).
 */
export const PENDING_VARIANTS = [
  {
    name: 'slow',
    allows: '(no latency bound in the contract)',
    description: 'every answer waits before its headers (slow.headersMs, default 3000 ms) and every stream event waits too (slow.eventMs, default 100 ms)',
  },
] as const satisfies readonly VariantSpec[];

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

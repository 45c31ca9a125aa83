// The options of a mock instance: the core's (fixtures, limits, ids, time) and the modes it runs in.
import type { CoreOptions } from './core/types.ts';
import type { DefectName } from './defects.ts';
import type { HarnessOptions } from './harness/harness.ts';
import type { VariantName } from './variants.ts';

/** The core's options, the modes, and the client author's harness (faults, seed, script, journal, prefix). */
export interface MockOptions extends CoreOptions, HarnessOptions {
  /** defect mode(s): deliberate contract violations (mock/defects.ts); unknown names throw */
  defect?: DefectName | readonly DefectName[];
  /** legal variant(s) the contract allows (mock/variants.ts); unknown names throw */
  variant?: VariantName | readonly VariantName[];
  /** delays of the variant slow: before every answer's headers (default 3000 ms) and before every stream event (default 100 ms) */
  slow?: { headersMs?: number; eventMs?: number };
}

// The defect modes and legal variants a mock instance runs in (mock/defects.ts, mock/variants.ts), read from
// MockOptions once per options object. The core asks `defectOn(options, name)` / `variantOn(options, name)` at
// the places where the contract's shapes are built; unknown names are refused when the service is created.
import { isDefectName, type DefectName } from '../defects.ts';
import { ALL_VARIANTS, isVariantName, type VariantName } from '../variants.ts';
import type { Framing } from './scenario.ts';
import type { MockOptions } from './types.ts';

export interface Modes {
  defects: ReadonlySet<DefectName>;
  variants: ReadonlySet<VariantName>;
  /** Stream framings switched on by the variants. */
  framing: ReadonlySet<Framing>;
}

const cache = new WeakMap<MockOptions, Modes>();
const NONE: Modes = { defects: new Set(), variants: new Set(), framing: new Set() };

const list = <T>(v: T | readonly T[] | undefined): readonly T[] => (v === undefined ? [] : Array.isArray(v) ? (v as readonly T[]) : [v as T]);

/** The modes of `options`; throws on an unknown defect or variant name. */
export function modesOf(options: MockOptions): Modes {
  let m = cache.get(options);
  if (m) return m;
  const defects = list(options.defect);
  const variants = list(options.variant);
  if (defects.length === 0 && variants.length === 0) m = NONE;
  else {
    for (const d of defects) if (!isDefectName(d)) throw new Error(`unknown defect mode "${String(d)}" (npm run mock -- --list-defects)`);
    for (const v of variants) if (!isVariantName(v)) throw new Error(`unknown variant "${String(v)}" (npm run mock -- --list-variants)`);
    const framing = new Set<Framing>();
    for (const spec of ALL_VARIANTS) if (spec.framing !== undefined && variants.includes(spec.name as VariantName)) framing.add(spec.framing);
    m = { defects: new Set(defects), variants: new Set(variants), framing };
  }
  cache.set(options, m);
  return m;
}

export function defectOn(options: MockOptions, name: DefectName): boolean {
  return modesOf(options).defects.has(name);
}

export function variantOn(options: MockOptions, name: VariantName): boolean {
  return modesOf(options).variants.has(name);
}

/** A copy of a JSON value with every object's keys in reverse order (variant key-order). */
export function reverseKeys<T>(value: T): T {
  if (Array.isArray(value)) return value.map((v) => reverseKeys(v)) as T;
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(value as Record<string, unknown>).reverse()) out[k] = reverseKeys((value as Record<string, unknown>)[k]);
  return out as T;
}

/** Fields a vendor adds beside the contract's (variant extra-fields). */
export const VENDOR_EXTRA = { x_vendor_extra: { region: 'mock-1', trace: 'f00d' } } as const;

/** The JSON of a response body as the variants shape it (key order); identity without variants. */
export function shapeJson<T>(options: MockOptions, value: T): T {
  return variantOn(options, 'key-order') ? reverseKeys(value) : value;
}

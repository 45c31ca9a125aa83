// Tool-call arguments generated from a tool's `parameters` JSON Schema, within documented bounds
// (mock/README.md, "Tool arguments"). Every size the schema can ask for is checked against a bound before
// anything of that size is built, every step is counted, and the clock is read as it goes: a schema the
// generator cannot satisfy within the bounds raises ArgumentBoundError, which the caller answers with a 400
// before any response (or stream) starts. No regular expression is ever built from the schema.
import { stableStringify } from './tokens.ts';

export const ARGUMENT_BOUNDS = {
  /** most items of a generated array (a larger minItems is refused) */
  maxItems: 256,
  /** longest generated string (a larger minLength is refused) */
  maxStringLength: 4096,
  /** deepest nesting of the generated value */
  maxDepth: 32,
  /** schema nodes visited for one request's tool calls (anyOf fallbacks, allOf merges and $ref hops included) */
  maxSteps: 20_000,
  /** approximate characters of one request's generated arguments */
  maxOutputChars: 1_000_000,
  /** wall-clock budget of one request's argument generation */
  timeBudgetMs: 20,
  /** $ref hops resolved for one schema node */
  maxRefHops: 32,
  /** below this depth optional properties and extra array items are generated; deeper, only what is required */
  fullDepth: 4,
} as const;

export type ArgumentBound = keyof typeof ARGUMENT_BOUNDS | 'unsatisfiable' | 'cycle' | 'pattern';

/** The schema cannot be satisfied within ARGUMENT_BOUNDS (or at all); `bound` names which. */
export class ArgumentBoundError extends Error {
  readonly bound: ArgumentBound;
  /** false for budget bounds (steps, time, size): trying another anyOf branch would not help */
  readonly branchLocal: boolean;
  constructor(bound: ArgumentBound, message: string, branchLocal = true) {
    // Raised once per failed anyOf branch, so no stack trace: it is an answer, not a bug.
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = limit;
    this.name = 'ArgumentBoundError';
    this.bound = bound;
    this.branchLocal = branchLocal;
  }
}

type Schema = Record<string, unknown>;
const asSchema = (s: unknown): Schema => (s !== null && typeof s === 'object' && !Array.isArray(s) ? (s as Schema) : {});
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/** Short display of a schema-supplied string in a message. */
const show = (s: string): string => JSON.stringify(s.length > 60 ? `${s.slice(0, 60)}...` : s);

/** Formats whose example value the generator knows (others are annotations: a plain string is generated). */
const FORMAT_EXAMPLES: Record<string, string> = {
  date: '2024-01-15',
  'date-time': '2024-01-15T12:00:00Z',
  time: '12:00:00Z',
  email: 'mock@example.com',
  uri: 'https://example.com/mock',
  'uri-reference': 'https://example.com/mock',
  uuid: '00000000-0000-4000-8000-000000000000',
  ipv4: '192.0.2.1',
  ipv6: '2001:db8::1',
  hostname: 'mock.example.com',
};

interface Options {
  /** extra text for callers that need long arguments: the first string with room for it (or an extra property) gets it */
  padding?: string;
  /** shared by every call of one request (default: a fresh one) */
  budget?: ArgumentBudget;
}

/** The step, size and time budgets, shared by all the tool calls of one request. */
export class ArgumentBudget {
  steps = 0;
  chars = 0;
  readonly started = performance.now();
}

/** One generation: the root schema for $ref, the random source, and the counters of the bounds. */
class Generator {
  private readonly budget: ArgumentBudget;
  /** $refs being expanded in required-only mode on the current path: re-entering one never ends */
  private readonly requiredRefs = new Set<string>();

  /** the padding, until it has been placed once */
  private padding: string | undefined;

  constructor(
    private readonly root: unknown,
    private readonly rnd: () => number,
    opts: Options,
  ) {
    this.padding = opts.padding;
    this.budget = opts.budget ?? new ArgumentBudget();
  }

  value(schema: unknown, name: string, depth: number): unknown {
    this.tick();
    if (depth > ARGUMENT_BOUNDS.maxDepth) {
      throw new ArgumentBoundError('maxDepth', `the arguments would nest deeper than ${ARGUMENT_BOUNDS.maxDepth} levels`);
    }
    if (schema === false) throw new ArgumentBoundError('unsatisfiable', 'a "false" schema admits no value');
    const { schema: s, refs } = this.resolve(asSchema(schema));
    const minimal = depth > ARGUMENT_BOUNDS.fullDepth;
    const entered: string[] = [];
    if (minimal) {
      for (const ref of refs) {
        if (this.requiredRefs.has(ref)) {
          throw new ArgumentBoundError('cycle', `the recursive $ref ${show(ref)} is required at every level, so no finite value satisfies it`);
        }
        this.requiredRefs.add(ref);
        entered.push(ref);
      }
    }
    try {
      return this.shaped(s, name, depth, minimal);
    } finally {
      for (const ref of entered) this.requiredRefs.delete(ref);
    }
  }

  private shaped(s: Schema, name: string, depth: number, minimal: boolean): unknown {
    if (s.type === UNSATISFIABLE) throw new ArgumentBoundError('unsatisfiable', 'allOf parts ask for types that do not overlap');
    if ('const' in s) {
      if (!fits(s.const, s)) throw new ArgumentBoundError('unsatisfiable', '"const" does not meet the other keywords of its schema');
      return this.count(s.const);
    }
    if (Array.isArray(s.enum)) {
      // Only members that meet the node's other keywords (allOf may have merged a type or bounds in).
      const start = Math.floor(this.rnd() * s.enum.length);
      for (let i = 0; i < s.enum.length; i++) {
        if ((i & 1023) === 1023) this.tick();
        const member: unknown = s.enum[(start + i) % s.enum.length];
        if (fits(member, s)) return this.count(member);
      }
      throw new ArgumentBoundError('unsatisfiable', 'no "enum" member meets the other keywords of its schema');
    }
    const branches = (Array.isArray(s.anyOf) ? s.anyOf : Array.isArray(s.oneOf) ? s.oneOf : undefined) as unknown[] | undefined;
    if (branches && branches.length > 0) return this.firstBranch(s, branches, name, depth);
    let type = s.type;
    if (Array.isArray(type)) type = type.find((t) => t !== 'null') ?? type[0];
    if (type === undefined) {
      if (s.properties !== undefined || s.required !== undefined) type = 'object';
      else if (s.items !== undefined || s.prefixItems !== undefined) type = 'array';
      else type = 'string';
    }
    switch (type) {
      case 'object':
        return this.object(s, depth, minimal);
      case 'array':
        return this.array(s, name, depth, minimal);
      case 'integer':
        return this.integer(s);
      case 'number':
        return this.number(s);
      case 'boolean':
        return this.rnd() < 0.5;
      case 'null':
        return null;
      default:
        return this.string(s, name);
    }
  }

  /** anyOf/oneOf: the first branch that can be satisfied (the rest of the node merged into it). */
  private firstBranch(s: Schema, branches: unknown[], name: string, depth: number): unknown {
    const { anyOf: _a, oneOf: _o, ...rest } = s;
    let last: ArgumentBoundError | undefined;
    for (const branch of branches) {
      try {
        const b = this.resolve(asSchema(branch)).schema;
        return this.value(Object.keys(rest).length > 0 ? merge(rest, b) : b, name, depth);
      } catch (err) {
        if (!(err instanceof ArgumentBoundError) || !err.branchLocal) throw err;
        last = err;
      }
    }
    throw last ?? new ArgumentBoundError('unsatisfiable', 'no anyOf/oneOf branch can be satisfied');
  }

  private object(s: Schema, depth: number, minimal: boolean): Record<string, unknown> {
    const props = asSchema(s.properties);
    const required = Array.isArray(s.required) ? s.required.filter((r): r is string => typeof r === 'string') : [];
    const maxProps = num(s.maxProperties);
    if (maxProps !== undefined && new Set(required).size > maxProps) {
      throw new ArgumentBoundError('unsatisfiable', `${required.length} required properties exceed maxProperties ${maxProps}`);
    }
    let keys = minimal ? [...new Set(required)] : [...new Set([...required, ...Object.keys(props)])];
    if (maxProps !== undefined) keys = keys.slice(0, Math.max(maxProps, new Set(required).size));
    const extra = s.additionalProperties;
    // No prototype: a property named "__proto__" is just a key.
    const out: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
    // Padding: an extra property where the schema allows one, else the first free string.
    const open = extra !== false && s.propertyNames === undefined && s.patternProperties === undefined && s.unevaluatedProperties === undefined;
    if (this.padding !== undefined && depth === 0 && open && (maxProps ?? Infinity) > keys.length && !keys.includes('mock_padding')) {
      out.mock_padding = this.count(this.padding);
      this.padding = undefined;
    }
    for (const k of keys) {
      this.budget.chars += k.length + 4;
      out[k] = this.value(Object.prototype.hasOwnProperty.call(props, k) ? props[k] : extra !== null && typeof extra === 'object' ? extra : {}, k, depth + 1);
    }
    const minProps = num(s.minProperties) ?? 0;
    if (minProps > keys.length) {
      if (extra === false) throw new ArgumentBoundError('unsatisfiable', `minProperties ${minProps} with additionalProperties false and ${keys.length} properties`);
      if (minProps > ARGUMENT_BOUNDS.maxItems) {
        throw new ArgumentBoundError('maxItems', `minProperties ${minProps} exceeds the mock's bound of ${ARGUMENT_BOUNDS.maxItems}`);
      }
      for (let i = 0; Object.keys(out).length < minProps; i++) {
        const k = `extra_${i}`;
        if (!(k in out)) out[k] = this.value(extra !== null && typeof extra === 'object' ? extra : {}, k, depth + 1);
      }
    }
    return out;
  }

  private array(s: Schema, name: string, depth: number, minimal: boolean): unknown[] {
    const prefix = Array.isArray(s.prefixItems) ? s.prefixItems : Array.isArray(s.items) ? (s.items as unknown[]) : [];
    const rest = Array.isArray(s.items) ? (s.additionalItems ?? {}) : (s.items ?? {});
    const min = Math.max(0, Math.ceil(num(s.minItems) ?? 0));
    const max = num(s.maxItems);
    if (max !== undefined && max < min) throw new ArgumentBoundError('unsatisfiable', `maxItems ${max} is below minItems ${min}`);
    if (min > ARGUMENT_BOUNDS.maxItems) {
      throw new ArgumentBoundError('maxItems', `minItems ${min} exceeds the mock's bound of ${ARGUMENT_BOUNDS.maxItems} generated items`);
    }
    const wanted = minimal ? min : Math.max(min, 1 + Math.floor(this.rnd() * 2));
    const n = Math.min(wanted, max ?? Infinity, rest === false ? prefix.length : Infinity);
    if (n < min) throw new ArgumentBoundError('unsatisfiable', `minItems ${min} needs more items than the schema allows`);
    const out: unknown[] = [];
    const seen = new Set<string>();
    for (let i = 0; i < n; i++) {
      const itemSchema = i < prefix.length ? prefix[i] : rest;
      let item = this.value(itemSchema, `${name}${i}`, depth + 1);
      if (s.uniqueItems === true) {
        // A few fresh draws for a duplicate; a schema with too few distinct values cannot be met.
        for (let tries = 0; seen.has(stableStringify(item)) && tries < 4; tries++) item = this.value(itemSchema, `${name}${i}_${tries}`, depth + 1);
        const key = stableStringify(item);
        if (seen.has(key)) {
          if (i >= min) break;
          throw new ArgumentBoundError('unsatisfiable', `uniqueItems with minItems ${min}: not enough distinct values`);
        }
        seen.add(key);
      }
      out.push(item);
    }
    return out;
  }

  private integer(s: Schema): number {
    const { lo, hi } = bounds(s, 1);
    const step = num(s.multipleOf);
    const m = step !== undefined && Number.isInteger(step) && step > 0 ? step : 1;
    const first = Math.ceil(Math.ceil(lo) / m) * m;
    const last = Math.floor(Math.floor(hi) / m) * m;
    if (!(first <= last) || !Number.isSafeInteger(first)) {
      throw new ArgumentBoundError('unsatisfiable', `no integer${m > 1 ? ` multiple of ${m}` : ''} lies within the minimum and maximum`);
    }
    const count = Math.floor((last - first) / m);
    return this.count(first + m * Math.floor(this.rnd() * Math.min(count + 1, 1e9)));
  }

  private number(s: Schema): number {
    const { lo, hi } = bounds(s, Number.EPSILON);
    if (!(lo <= hi)) throw new ArgumentBoundError('unsatisfiable', 'no number lies within the minimum and maximum');
    const ok = (v: number): boolean => v >= lo && v <= hi;
    const step = num(s.multipleOf);
    if (step !== undefined && step > 0) {
      // Whole multiples only, each checked, so float rounding never yields a non-multiple.
      for (let k = Math.ceil(lo / step), tries = 0; tries < 8; k++, tries++) {
        const v = k * step;
        if (ok(v) && Number.isInteger(v / step)) return this.count(v);
      }
      throw new ArgumentBoundError('unsatisfiable', `no multiple of ${step} lies within the minimum and maximum`);
    }
    const v = Math.round((lo + this.rnd() * (hi - lo)) * 100) / 100;
    return this.count(ok(v) ? v : (lo + hi) / 2);
  }

  private string(s: Schema, name: string): string {
    const min = Math.max(0, Math.ceil(num(s.minLength) ?? 0));
    const max = num(s.maxLength) ?? Infinity;
    if (max < min) throw new ArgumentBoundError('unsatisfiable', `maxLength ${max} is below minLength ${min}`);
    if (min > ARGUMENT_BOUNDS.maxStringLength) {
      throw new ArgumentBoundError('maxStringLength', `minLength ${min} exceeds the mock's bound of ${ARGUMENT_BOUNDS.maxStringLength} generated characters`);
    }
    if (typeof s.pattern === 'string') {
      // The schema author's own example satisfies the pattern; the mock never compiles it.
      const example = [s.default, ...(Array.isArray(s.examples) ? s.examples : [])].find((e): e is string => typeof e === 'string');
      if (example !== undefined) return this.count(example);
      throw new ArgumentBoundError('pattern', `a string with "pattern" needs an "enum", "const", "default" or "examples" value: the mock builds no regular expression from a request`);
    }
    let str = FORMAT_EXAMPLES[typeof s.format === 'string' ? s.format : ''] ?? `${name.slice(0, 40)}-${Math.floor(this.rnd() * 1000)}`;
    if (this.padding !== undefined && s.format === undefined && str.length + this.padding.length <= max) {
      str += this.padding;
      this.padding = undefined;
    }
    if (str.length < min) str += 'x'.repeat(min - str.length);
    if (str.length > max) str = str.slice(0, max);
    return this.count(str);
  }

  /** $ref to #, #/$defs/... or #/definitions/..., merged with the node's other keywords; allOf merged in. */
  private resolve(schema: Schema): { schema: Schema; refs: string[] } {
    let s = schema;
    const refs: string[] = [];
    while (typeof s.$ref === 'string') {
      this.tick();
      const ref = s.$ref;
      if (refs.includes(ref)) throw new ArgumentBoundError('cycle', `$ref ${show(ref)} refers to itself without any value in between`);
      if (refs.length >= ARGUMENT_BOUNDS.maxRefHops) throw new ArgumentBoundError('maxRefHops', `more than ${ARGUMENT_BOUNDS.maxRefHops} $ref hops`);
      refs.push(ref);
      const { $ref: _r, ...rest } = s;
      s = merge(lookup(this.root, ref), rest);
    }
    if (Array.isArray(s.allOf)) {
      const { allOf, ...rest } = s;
      let merged: Schema = rest;
      for (const sub of allOf as unknown[]) {
        const r = this.resolve(asSchema(sub));
        refs.push(...r.refs);
        merged = merge(merged, r.schema);
      }
      s = merged;
    }
    return { schema: s, refs };
  }

  /** Counts a step against the step and time budgets. */
  private tick(): void {
    if (++this.budget.steps > ARGUMENT_BOUNDS.maxSteps) {
      throw new ArgumentBoundError('maxSteps', `the schema needs more than ${ARGUMENT_BOUNDS.maxSteps} generation steps`, false);
    }
    if ((this.budget.steps & 63) === 0 && performance.now() - this.budget.started > ARGUMENT_BOUNDS.timeBudgetMs) {
      throw new ArgumentBoundError('timeBudgetMs', `generating the arguments took more than ${ARGUMENT_BOUNDS.timeBudgetMs} ms`, false);
    }
  }

  /** Counts a generated leaf against the output-size budget. */
  private count<T>(v: T): T {
    this.budget.chars += typeof v === 'string' ? v.length + 2 : v !== null && typeof v === 'object' ? stableStringify(v).length : 8;
    if (this.budget.chars > ARGUMENT_BOUNDS.maxOutputChars) {
      throw new ArgumentBoundError('maxOutputChars', `the arguments would exceed ${ARGUMENT_BOUNDS.maxOutputChars} characters`, false);
    }
    return v;
  }
}

/** Inclusive range from minimum/maximum and their exclusive forms (`gap` = the step past an exclusive bound). */
function bounds(s: Schema, gap: number): { lo: number; hi: number } {
  const exLo = num(s.exclusiveMinimum);
  const exHi = num(s.exclusiveMaximum);
  let lo = num(s.minimum) ?? -Infinity;
  let hi = num(s.maximum) ?? Infinity;
  if (exLo !== undefined) lo = Math.max(lo, exLo + Math.max(gap, Math.abs(exLo) * Number.EPSILON * 2));
  if (exHi !== undefined) hi = Math.min(hi, exHi - Math.max(gap, Math.abs(exHi) * Number.EPSILON * 2));
  if (lo === -Infinity && hi === Infinity) return { lo: 0, hi: 100 };
  if (lo === -Infinity) return { lo: hi - 100, hi };
  if (hi === Infinity) return { lo, hi: lo + 100 };
  return { lo, hi };
}

function lookup(root: unknown, ref: string): Schema {
  if (ref === '#') return asSchema(root);
  if (!ref.startsWith('#/')) return {};
  let node: unknown = root;
  for (const part of ref.slice(2).split('/')) {
    const key = part.replace(/~1/g, '/').replace(/~0/g, '~');
    const obj = asSchema(node);
    node = Object.prototype.hasOwnProperty.call(obj, key) ? obj[key] : undefined;
  }
  return asSchema(node);
}

/** Marks a merged node whose parts ask for types with nothing in common. */
const UNSATISFIABLE = '\u0000unsatisfiable';

const JSON_TYPES = ['object', 'array', 'string', 'integer', 'number', 'boolean', 'null'];
const typesOf = (t: unknown): string[] => (typeof t === 'string' ? [t] : Array.isArray(t) ? t.filter((x): x is string => typeof x === 'string') : JSON_TYPES);
const typeOfValue = (v: unknown): string =>
  v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v === 'number' ? (Number.isInteger(v) ? 'integer' : 'number') : typeof v;

/** Whether a value meets a node's type and size keywords (used to pick const and enum members; no recursion). */
function fits(v: unknown, s: Schema): boolean {
  if (s.type !== undefined) {
    const t = typeOfValue(v);
    const allowed = typesOf(s.type);
    if (!allowed.includes(t) && !(t === 'integer' && allowed.includes('number'))) return false;
  }
  if ('const' in s && stableStringify(s.const) !== stableStringify(v)) return false;
  // A const or enum member merged in from allOf must also meet the node's anyOf / oneOf (a $ref inside a branch
  // is not followed here).
  if (Array.isArray(s.anyOf) && !s.anyOf.some((b) => fits(v, asSchema(b)))) return false;
  if (Array.isArray(s.oneOf) && s.oneOf.filter((b) => fits(v, asSchema(b))).length !== 1) return false;
  const within = (n: number, lo: unknown, hi: unknown): boolean => !(typeof lo === 'number' && n < lo) && !(typeof hi === 'number' && n > hi);
  if (typeof v === 'string') return within(Array.from(v).length, s.minLength, s.maxLength) && typeof s.pattern !== 'string';
  if (typeof v === 'number') {
    return (
      within(v, s.minimum, s.maximum) &&
      !(typeof s.exclusiveMinimum === 'number' && v <= s.exclusiveMinimum) &&
      !(typeof s.exclusiveMaximum === 'number' && v >= s.exclusiveMaximum) &&
      !(typeof s.multipleOf === 'number' && s.multipleOf > 0 && !Number.isInteger(v / s.multipleOf))
    );
  }
  if (Array.isArray(v)) return within(v.length, s.minItems, s.maxItems) && s.items === undefined && s.prefixItems === undefined;
  if (v !== null && typeof v === 'object') {
    const keys = Object.keys(v);
    const required = Array.isArray(s.required) ? s.required : [];
    return within(keys.length, s.minProperties, s.maxProperties) && required.every((r) => keys.includes(r as string)) && s.properties === undefined;
  }
  return true;
}

const LOWER_BOUNDS = ['minimum', 'exclusiveMinimum', 'minLength', 'minItems', 'minProperties'];
const UPPER_BOUNDS = ['maximum', 'exclusiveMaximum', 'maxLength', 'maxItems', 'maxProperties'];

/** Two schemas that must both hold (allOf, or an anyOf branch with its node), keyword by keyword. */
function merge(a: Schema, b: Schema): Schema {
  const out: Schema = { ...a, ...b };
  if (a.properties || b.properties) {
    const pa = asSchema(a.properties);
    const pb = asSchema(b.properties);
    const props: Schema = { ...pa, ...pb };
    for (const k of Object.keys(pa)) if (Object.prototype.hasOwnProperty.call(pb, k)) props[k] = { allOf: [pa[k], pb[k]] };
    out.properties = props;
  }
  const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
  if (a.required || b.required) out.required = [...new Set([...list(a.required), ...list(b.required)])];
  for (const k of LOWER_BOUNDS) if (typeof a[k] === 'number' && typeof b[k] === 'number') out[k] = Math.max(a[k] as number, b[k] as number);
  for (const k of UPPER_BOUNDS) if (typeof a[k] === 'number' && typeof b[k] === 'number') out[k] = Math.min(a[k] as number, b[k] as number);
  if (a.type !== undefined && b.type !== undefined) {
    const tb = typesOf(b.type);
    const common = typesOf(a.type).flatMap((t) => (tb.includes(t) ? [t] : t === 'number' && tb.includes('integer') ? ['integer'] : t === 'integer' && tb.includes('number') ? ['integer'] : []));
    out.type = common.length === 0 ? UNSATISFIABLE : common.length === 1 ? common[0] : [...new Set(common)];
  }
  if (Array.isArray(a.enum) && Array.isArray(b.enum)) {
    const inB = new Set(b.enum.map((v) => stableStringify(v)));
    out.enum = a.enum.filter((v) => inB.has(stableStringify(v)));
  } else if (Array.isArray(a.enum) || Array.isArray(b.enum)) out.enum = a.enum ?? b.enum;
  if ('const' in a && 'const' in b && stableStringify(a.const) !== stableStringify(b.const)) out.type = UNSATISFIABLE;
  else if ('const' in a) out.const = a.const;
  if (a.items !== undefined && b.items !== undefined && !Array.isArray(a.items) && !Array.isArray(b.items)) out.items = { allOf: [a.items, b.items] };
  if (a.additionalProperties === false || b.additionalProperties === false) out.additionalProperties = false;
  if (typeof a.multipleOf === 'number' && typeof b.multipleOf === 'number' && a.multipleOf !== b.multipleOf) {
    // Both hold for their product when both are integers; otherwise the merge cannot promise both.
    out.multipleOf = Number.isInteger(a.multipleOf) && Number.isInteger(b.multipleOf) ? a.multipleOf * b.multipleOf : b.multipleOf;
  }
  return out;
}

/**
 * Arguments satisfying `schema` (the keywords listed in mock/README.md), or ArgumentBoundError naming the bound
 * that stops it. `padding` is extra text placed once (see Options.padding).
 */
export function generateArguments(schema: unknown, rnd: () => number, options: Options = {}): unknown {
  return new Generator(schema, rnd, options).value(schema, 'value', 0);
}

// The single validator of the contract's resources, shared by the mock server and the conformance suite.
// Schemas live in spec/schemas/<name>.schema.json (JSON Schema 2020-12); each is compiled once, on its first use.
// Ajv's raw errors are turned into readable issues that name the offending field through a JSON pointer.

import { readdirSync, readFileSync } from 'node:fs';
import Ajv2020 from 'ajv/dist/2020.js';
import type { ErrorObject, ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';

export type SchemaName =
  | 'chat-request'
  | 'message'
  | 'tool'
  | 'tool-call'
  | 'content-part'
  | 'reasoning'
  | 'stream-options'
  | 'web-search-options'
  | 'user-location'
  | 'provider'
  | 'chat-response'
  | 'choice'
  | 'assistant-message'
  | 'url-citation-annotation'
  | 'search-action'
  | 'usage'
  | 'chat-chunk'
  | 'stream-error-event'
  | 'model'
  | 'model-list'
  | 'error'
  | 'profile'
  | 'expected-failures'
  | 'config-file'
  | 'mock-catalog'
  | 'mock-keys'
  | 'recording'
  | 'mock-script'
  | 'conformance-report'
  | 'conformance-report-v1';

export const schemaNames: readonly SchemaName[] = Object.freeze([
  'chat-request',
  'message',
  'tool',
  'tool-call',
  'content-part',
  'reasoning',
  'stream-options',
  'web-search-options',
  'user-location',
  'provider',
  'chat-response',
  'choice',
  'assistant-message',
  'url-citation-annotation',
  'search-action',
  'usage',
  'chat-chunk',
  'stream-error-event',
  'model',
  'model-list',
  'error',
  'profile',
  'expected-failures',
  'config-file',
  'mock-catalog',
  'mock-keys',
  'recording',
  'mock-script',
  'conformance-report',
  'conformance-report-v1',
] as const);

/** One problem found in a value. `pointer` is a JSON pointer into the validated data ("" is the root). */
export interface ValidationIssue {
  pointer: string;
  message: string;
  /** The requirement the failing schema node names with `x-requirement`, when it names one. */
  requirement?: string;
  /** The offending value is null (a field sent as null instead of omitted). */
  isNull?: boolean;
}

export interface ValidationResult {
  valid: boolean;
  errors: ValidationIssue[];
}

/** Base of every schema `$id`: `${SCHEMA_ID_BASE}<name>.schema.json`. */
export const SCHEMA_ID_BASE = 'https://chatconform.dev/schemas/';

/** Folder holding the schema files. */
export const SCHEMA_DIR = new URL('./schemas/', import.meta.url);

/**
 * Annotation keyword a schema node may carry to replace the default message of an ajv keyword failing on it,
 * e.g. `"x-error-messages": { "pattern": "must be an HTTPS link" }`.
 */
export const ERROR_MESSAGES_KEYWORD = 'x-error-messages';

/**
 * Annotation keyword naming the requirement a schema node states, e.g. `"x-requirement": "SEARCH-035"`: an issue
 * found on that node (or a missing property the node describes) is charged to it, never by its message's wording.
 */
export const REQUIREMENT_KEYWORD = 'x-requirement';

// ---------------------------------------------------------------------------------------------------------------
// IANA time-zone names

const NUMERIC_OFFSET = /^[+\-\u2212]?\d{1,2}(:?\d{2})?$/;
// tz database names: '/'-separated components, each starting with an uppercase ASCII letter (the reference
// implementation is case-sensitive: 'utc' and 'europe/paris' are not names), made of letters, digits, '_', '-', '+'.
const TZ_NAME_SHAPE = /^[A-Z][A-Za-z0-9_+-]*(?:\/[A-Z][A-Za-z0-9_+-]*)*$/;

let supportedZones: Set<string> | undefined;
let supportedZonesLower: Map<string, string> | undefined;
const zoneCache = new Map<string, boolean>();

function runtimeZones(): { exact: Set<string>; lower: Map<string, string> } {
  if (!supportedZones || !supportedZonesLower) {
    const zones = Intl.supportedValuesOf('timeZone');
    supportedZones = new Set(zones);
    supportedZonesLower = new Map(zones.map((z) => [z.toLowerCase(), z]));
  }
  return { exact: supportedZones, lower: supportedZonesLower };
}

/**
 * Whether `name` is an IANA time-zone name known to this runtime: a canonical name of
 * `Intl.supportedValuesOf('timeZone')`, or a name (such as `UTC`, `Etc/GMT+5` or the alias `Asia/Kolkata`) that
 * `Intl.DateTimeFormat` accepts. Numeric offsets (`+05:00`) and wrongly cased spellings (`utc`,
 * `europe/paris`) are not names. The set comes from the runtime's ICU data, never from a list kept here.
 */
export function isIanaTimeZone(name: string): boolean {
  if (typeof name !== 'string') return false;
  const cached = zoneCache.get(name);
  if (cached !== undefined) return cached;
  const result = checkTimeZone(name);
  // Only name-sized keys: a request's 10 MB "time zone" is checked, never kept.
  if (zoneCache.size < 10_000 && name.length <= 64) zoneCache.set(name, result);
  return result;
}

function checkTimeZone(name: string): boolean {
  const { exact, lower } = runtimeZones();
  if (exact.has(name)) return true;
  if (NUMERIC_OFFSET.test(name) || !TZ_NAME_SHAPE.test(name)) return false;
  // A case variant of a listed name is not the name.
  if (lower.has(name.toLowerCase())) return false;
  let resolved: string;
  try {
    resolved = new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return false;
  }
  // The runtime resolved it to a different spelling of the same name: a case variant.
  if (resolved !== name && resolved.toLowerCase() === name.toLowerCase()) return false;
  return true;
}

// ---------------------------------------------------------------------------------------------------------------
// Compilation

type AjvInstance = InstanceType<typeof Ajv2020>;

/** The two modes of collection: every error (reports, the suite), or the first one only (a server answering one message). */
type Collection = 'all' | 'first';

const ajvWithSchemas = new Map<Collection, AjvInstance>();
/** Validators compiled so far, per mode; each schema is compiled on its first use (a process that validates one schema, the mock, compiles only that one and its references). */
const compiled: Record<Collection, Map<SchemaName, ValidateFunction>> = { all: new Map(), first: new Map() };

/** Reads every `*.schema.json` of spec/schemas; keyed by file stem. */
export function loadSchemaFiles(): Map<string, Record<string, unknown>> {
  const out = new Map<string, Record<string, unknown>>();
  for (const file of readdirSync(SCHEMA_DIR).sort()) {
    if (!file.endsWith('.schema.json')) continue;
    const text = readFileSync(new URL(file, SCHEMA_DIR), 'utf8');
    out.set(file.slice(0, -'.schema.json'.length), JSON.parse(text) as Record<string, unknown>);
  }
  return out;
}

function createAjv(collection: Collection): AjvInstance {
  const ajv = new Ajv2020({
    // Collecting every error costs more than linear time: ajv appends the errors of each call of a non-inlined
    // $ref (a message of chat-request) with concat, copying all the errors so far, so 40,000 bad messages take
    // seconds. The first error costs nothing of the kind: validation stops at it.
    allErrors: collection === 'all',
    strict: true,
    allowUnionTypes: true,
    verbose: true, // errors carry the failing schema node (for x-error-messages) and the data
  });
  addFormats(ajv);
  ajv.addFormat('iana-time-zone', { type: 'string', validate: isIanaTimeZone });
  ajv.addKeyword({ keyword: ERROR_MESSAGES_KEYWORD, schemaType: 'object' });
  ajv.addKeyword({ keyword: REQUIREMENT_KEYWORD, schemaType: 'string' });
  return ajv;
}

function schemaAjv(collection: Collection): AjvInstance {
  const existing = ajvWithSchemas.get(collection);
  if (existing) return existing;
  const ajv = createAjv(collection);
  const files = loadSchemaFiles();
  for (const [stem, schema] of files) {
    const expectedId = `${SCHEMA_ID_BASE}${stem}.schema.json`;
    if (schema.$id !== expectedId) {
      throw new Error(`spec/schemas/${stem}.schema.json: $id must be ${expectedId}, found ${String(schema.$id)}`);
    }
    ajv.addSchema(schema);
  }
  for (const name of schemaNames) {
    if (!files.has(name)) throw new Error(`schema "${name}" not found: expected spec/schemas/${name}.schema.json`);
  }
  ajvWithSchemas.set(collection, ajv);
  return ajv;
}

function validatorFor(name: SchemaName, collection: Collection): ValidateFunction | undefined {
  let fn = compiled[collection].get(name);
  if (fn) return fn;
  if (!schemaNames.includes(name)) return undefined;
  fn = schemaAjv(collection).getSchema(`${SCHEMA_ID_BASE}${name}.schema.json`);
  if (fn) compiled[collection].set(name, fn);
  return fn;
}

// ---------------------------------------------------------------------------------------------------------------
// Public API

export interface ValidateOptions {
  /**
   * Stop at the first failing keyword: `errors` then holds the first issue (or the issues of the branches of
   * the first failing oneOf/anyOf), a number bounded by the schema, never by the data, and the work stays linear
   * in the data. For a server that answers one message per request (the mock); reports want every issue.
   */
  firstIssue?: boolean;
}

export function validate(name: SchemaName, data: unknown, options: ValidateOptions = {}): ValidationResult {
  const fn = validatorFor(name, options.firstIssue === true ? 'first' : 'all');
  if (!fn) throw new Error(`unknown schema name "${String(name)}"; known: ${schemaNames.join(', ')}`);
  if (fn(data)) return { valid: true, errors: [] };
  const errors = ajvErrorsToIssues(fn.errors ?? []);
  // Never report "invalid" without a reason.
  if (errors.length === 0) errors.push({ pointer: '', message: 'is invalid' });
  return { valid: false, errors };
}

export function assertValid(name: SchemaName, data: unknown): void {
  const result = validate(name, data);
  if (!result.valid) {
    throw new Error(`invalid ${name}:\n${formatIssues(result.errors)}`);
  }
}

/** A compiled declared schema, by its JSON text (the suite declares a handful, each judged many times). */
const declared = new Map<string, ValidateFunction | undefined>();
let declaredAjv: AjvInstance | undefined;

/**
 * Validates `data` against a JSON Schema a request declared (a function tool's `parameters`, 2.3): not one of the
 * contract's schemas, so compiled leniently (unknown keywords ignored), once per distinct schema. Undefined when
 * the schema does not compile: nothing can be judged against it.
 */
export function validateDeclared(schema: unknown, data: unknown): ValidationResult | undefined {
  const key = JSON.stringify(schema);
  if (!declared.has(key)) {
    declaredAjv ??= addFormats(new Ajv2020({ allErrors: true, strict: false, allowUnionTypes: true, verbose: true }));
    let fn: ValidateFunction | undefined;
    try {
      fn = declaredAjv.compile(schema as Record<string, unknown>);
    } catch {
      fn = undefined;
    }
    declared.set(key, fn);
  }
  const fn = declared.get(key);
  if (!fn) return undefined;
  return fn(data) ? { valid: true, errors: [] } : { valid: false, errors: ajvErrorsToIssues(fn.errors ?? []) };
}

/** The ` (got …)` that ends a message naming the offending value (describeValue's forms). */
const GOT_SUFFIX = / \(got (?:string "(?:[^"\\]|\\.)*"|(?:integer|number|boolean) [^)]*|[a-z]+)\)$/;

/**
 * The issues, one per line. `values: false` leaves out what the offending value was: for a file people write by
 * hand (a config file, a profile), where a key pasted into the wrong field must not be echoed into a CI log.
 */
export function formatIssues(issues: ValidationIssue[], options: { values?: boolean } = {}): string {
  const message = (m: string): string => (options.values === false ? m.replace(GOT_SUFFIX, '') : m);
  return issues.map((i) => `${i.pointer === '' ? '(root)' : i.pointer}: ${message(i.message)}`).join('\n');
}

// ---------------------------------------------------------------------------------------------------------------
// Turning ajv errors into issues

function escapePointerToken(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

function childPointer(parent: string, property: string): string {
  return `${parent}/${escapePointerToken(property)}`;
}

function depth(pointer: string): number {
  return pointer === '' ? 0 : pointer.split('/').length - 1;
}

/** Short description of a value for "got ..." suffixes; never dumps large values. */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  switch (typeof value) {
    case 'string': {
      const s = JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
      return `string ${s}`;
    }
    case 'number':
      return Number.isInteger(value) ? `integer ${value}` : `number ${value}`;
    case 'boolean':
      return `boolean ${value}`;
    case 'object':
      return 'object';
    default:
      return typeof value;
  }
}

function withArticle(type: string): string {
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}

function expectedTypes(param: unknown): string {
  const types = (Array.isArray(param) ? param : String(param).split(',')).map((t) => withArticle(String(t)));
  return types.length <= 1 ? (types[0] ?? 'a value') : `${types.slice(0, -1).join(', ')} or ${types.at(-1)}`;
}

function literal(value: unknown): string {
  return JSON.stringify(value) ?? String(value);
}

function customMessage(err: ErrorObject): string | undefined {
  const parent = err.parentSchema as Record<string, unknown> | undefined;
  const table = parent?.[ERROR_MESSAGES_KEYWORD];
  if (table && typeof table === 'object') {
    const msg = (table as Record<string, unknown>)[err.keyword];
    if (typeof msg === 'string') return msg;
  }
  return undefined;
}

const VALUE_KEYWORDS = new Set(['type', 'const', 'enum']);

/** The `x-requirement` of the node that failed, or of the property node a `required` failure is about. */
function requirementOf(err: ErrorObject): string | undefined {
  const parent = err.parentSchema as Record<string, unknown> | undefined;
  if (err.keyword === 'required') {
    const props = parent?.properties as Record<string, Record<string, unknown>> | undefined;
    const named = props?.[String((err.params as { missingProperty?: unknown }).missingProperty)]?.[REQUIREMENT_KEYWORD];
    if (typeof named === 'string') return named;
  }
  const own = parent?.[REQUIREMENT_KEYWORD];
  return typeof own === 'string' ? own : undefined;
}

function toIssue(err: ErrorObject): ValidationIssue {
  const params = err.params as Record<string, unknown>;
  const custom = customMessage(err);
  const got = describeValue(err.data);

  // A listed field is never null: say so, whatever keyword noticed it.
  if (err.data === null && VALUE_KEYWORDS.has(err.keyword)) {
    let expected: string;
    if (err.keyword === 'type') expected = expectedTypes(params.type);
    else if (err.keyword === 'const') expected = literal(params.allowedValue);
    else expected = `one of ${((params.allowedValues as unknown[]) ?? []).map(literal).join(', ')}`;
    return {
      pointer: err.instancePath,
      message: `must not be null: expected ${expected} (a field without a value is omitted, never null)`,
    };
  }

  switch (err.keyword) {
    case 'required':
      return {
        pointer: childPointer(err.instancePath, String(params.missingProperty)),
        message: custom ?? 'required property is missing',
      };
    case 'additionalProperties':
      return {
        pointer: childPointer(err.instancePath, String(params.additionalProperty)),
        message: custom ?? 'property is not allowed',
      };
    case 'type':
      return { pointer: err.instancePath, message: `${custom ?? `must be ${expectedTypes(params.type)}`} (got ${got})` };
    case 'const':
      return { pointer: err.instancePath, message: `${custom ?? `must be ${literal(params.allowedValue)}`} (got ${got})` };
    case 'enum': {
      const allowed = ((params.allowedValues as unknown[]) ?? []).map(literal).join(', ');
      return { pointer: err.instancePath, message: `${custom ?? `must be one of ${allowed}`} (got ${got})` };
    }
    case 'pattern':
      return { pointer: err.instancePath, message: `${custom ?? `must match pattern ${String(params.pattern)}`} (got ${got})` };
    case 'format': {
      const format = String(params.format);
      const fallback = format === 'iana-time-zone' ? 'must be a valid IANA time-zone name' : format === 'uri' ? 'must be an absolute URI' : `must be a valid ${format}`;
      return { pointer: err.instancePath, message: `${custom ?? fallback} (got ${got})` };
    }
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return { pointer: err.instancePath, message: `${custom ?? `must be ${String(params.comparison)} ${String(params.limit)}`} (got ${got})` };
    case 'minLength':
      return { pointer: err.instancePath, message: custom ?? `must be at least ${String(params.limit)} character(s) long` };
    case 'maxLength':
      return { pointer: err.instancePath, message: custom ?? `must be at most ${String(params.limit)} characters long` };
    case 'minItems':
      return { pointer: err.instancePath, message: custom ?? `must have at least ${String(params.limit)} item(s)` };
    case 'maxItems':
      return { pointer: err.instancePath, message: custom ?? `must have at most ${String(params.limit)} items` };
    case 'minProperties':
      return { pointer: err.instancePath, message: custom ?? `must have at least ${String(params.limit)} propert(ies)` };
    case 'not':
      return { pointer: err.instancePath, message: custom ?? 'is not allowed here' };
    case 'false schema':
      return { pointer: err.instancePath, message: custom ?? 'is not allowed here' };
    case 'dependentRequired':
      return {
        pointer: childPointer(err.instancePath, String(params.missingProperty)),
        message: custom ?? `required property is missing (required when ${String(params.property)} is present)`,
      };
    default:
      return { pointer: err.instancePath, message: custom ?? err.message ?? `fails ${err.keyword}` };
  }
}

function branchIndex(combinatorPath: string, err: ErrorObject): number | undefined {
  const prefix = `${combinatorPath}/`;
  if (!err.schemaPath.startsWith(prefix)) return undefined;
  const n = Number.parseInt(err.schemaPath.slice(prefix.length).split('/')[0] ?? '', 10);
  return Number.isNaN(n) ? undefined : n;
}

/**
 * Collapses the fan-out of a failed oneOf/anyOf: keeps the errors of the branch that got deepest into the data
 * (ties: fewest errors), drops the other branches and the summary error. When no branch got past the value itself
 * (e.g. every branch failed on its type), emits one summary naming the accepted types or values.
 */
function collapseCombinators(errors: ErrorObject[]): ErrorObject[] {
  let out = errors;
  const combinators = errors.filter((e) => e.keyword === 'oneOf' || e.keyword === 'anyOf');
  for (const combo of combinators) {
    if (!out.includes(combo)) continue;
    const branches = new Map<number, ErrorObject[]>();
    for (const e of out) {
      if (e === combo || !e.instancePath.startsWith(combo.instancePath)) continue;
      const i = branchIndex(combo.schemaPath, e);
      if (i === undefined) continue;
      const list = branches.get(i) ?? [];
      list.push(e);
      branches.set(i, list);
    }
    if (combo.keyword === 'oneOf' && (combo.params as { passingSchemas?: unknown }).passingSchemas) {
      // Several branches matched: the summary is the useful message, branch errors (if any) are noise.
      const drop = new Set([...branches.values()].flat());
      out = out.filter((e) => !drop.has(e));
      continue;
    }
    if (branches.size === 0) continue;
    let best: ErrorObject[] | undefined;
    let bestDepth = -1;
    for (const list of branches.values()) {
      const d = Math.max(...list.map((e) => depth(e.instancePath) + (e.keyword === 'required' || e.keyword === 'additionalProperties' ? 1 : 0)));
      if (d > bestDepth || (d === bestDepth && best && list.length < best.length)) {
        best = list;
        bestDepth = d;
      }
    }
    const all = new Set([...branches.values()].flat());
    const keep = new Set(best ?? []);
    const shallow = bestDepth <= depth(combo.instancePath);
    if (shallow) {
      // No branch got further than the value itself: one summary of what is accepted.
      const accepted: string[] = [];
      for (const list of branches.values()) {
        for (const e of list) {
          const p = e.params as Record<string, unknown>;
          if (e.keyword === 'type') accepted.push(expectedTypes(p.type));
          else if (e.keyword === 'const') accepted.push(literal(p.allowedValue));
          else if (e.keyword === 'enum') accepted.push(...((p.allowedValues as unknown[]) ?? []).map(literal));
        }
      }
      const summary: ErrorObject = {
        ...combo,
        keyword: 'x-summary',
        message:
          accepted.length > 0
            ? `must be ${[...new Set(accepted)].join(' or ')} (got ${describeValue(combo.data)})`
            : `must match one of the accepted forms (got ${describeValue(combo.data)})`,
      };
      if (combo.data === null) summary.message = 'must not be null (a field without a value is omitted, never null)';
      out = out.flatMap((e) => (e === combo ? [summary] : all.has(e) ? [] : [e]));
    } else {
      out = out.filter((e) => e !== combo && (!all.has(e) || keep.has(e)));
    }
  }
  return out;
}

/** Converts ajv errors (from a validator compiled with `verbose: true`) into readable, de-duplicated issues. */
export function ajvErrorsToIssues(errors: readonly ErrorObject[]): ValidationIssue[] {
  // if/then: the "must match then schema" error only repeats what the then-branch errors say.
  let list = errors.filter((e) => e.keyword !== 'if');
  list = collapseCombinators(list);
  const seen = new Set<string>();
  const issues: ValidationIssue[] = [];
  for (const err of list) {
    const issue: ValidationIssue = err.keyword === 'x-summary' ? { pointer: err.instancePath, message: err.message ?? '' } : toIssue(err);
    const requirement = requirementOf(err);
    if (requirement) issue.requirement = requirement;
    if (err.data === null && err.keyword !== 'required') issue.isNull = true;
    const key = `${issue.pointer}\u0000${issue.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    issues.push(issue);
  }
  return issues;
}

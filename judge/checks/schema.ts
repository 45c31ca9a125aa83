// Schema checks: the validator's issues, each charged to the requirement that governs the field it points at,
// so a report says "RESP-019: /choices/0/message/tool_calls/0/function/arguments must be a string", not just
// "invalid response". `schemaChecks` turns a rule table into one check per requirement ID; each is judged only
// where the data reaches it: a response without annotations neither passes nor fails the annotation rules.
// The value is validated once per subject, whichever check asks first.
import { formatIssues, validate, type SchemaName, type ValidationIssue } from '../../spec/validator.ts';
import { check, notApplicable, type Check } from './check.ts';
import { BACKEND_FIELD_NAMES } from './catalog.ts';

export interface PointerRule {
  id: string;
  /** Matches the JSON pointers (of data or of issues) this requirement governs: exactly its field. */
  scope: RegExp;
  /** Where the rule is judged when no issue is charged to it (default: where `scope` matches a pointer present). */
  reach?: RegExp;
}

export interface SchemaCheckOptions {
  /** Requirement charged with every issue no rule claims; judged on every value. */
  fallbackId: string;
  /** Requirement charged, in addition, with every "must not be null" issue; judged on every value. */
  nullId?: string;
}

/** Every JSON pointer inside a value (objects and arrays), the root excluded. */
export function pointersOf(value: unknown, base = ''): string[] {
  const out: string[] = [];
  const walk = (v: unknown, at: string) => {
    if (Array.isArray(v)) v.forEach((x, i) => visit(x, `${at}/${i}`));
    else if (typeof v === 'object' && v !== null) for (const [k, x] of Object.entries(v)) visit(x, `${at}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`);
  };
  const visit = (v: unknown, at: string) => {
    out.push(at);
    walk(v, at);
  };
  walk(value, base);
  return out;
}


/** One value's validation, its issues charged to requirement IDs, and the pointers present in it. */
interface Blame {
  charged: Map<string, ValidationIssue[]>;
  present: string[];
}

/**
 * Validates `data` and charges each issue to a requirement: the one its schema node names (`x-requirement`), else
 * the rule whose scope matches the pointer first, else the fallback. A null where a value belongs is charged to
 * the null requirement alone: one deviation, one requirement.
 */
function blame(schema: SchemaName, data: unknown, rules: readonly PointerRule[], opts: SchemaCheckOptions): Blame {
  const charged = new Map<string, ValidationIssue[]>();
  const charge = (id: string, issue: ValidationIssue) => charged.set(id, [...(charged.get(id) ?? []), issue]);
  for (const issue of validate(schema, data).errors) {
    if (opts.nullId && issue.isNull) {
      charge(opts.nullId, issue);
      continue;
    }
    const named = issue.requirement && rules.some((r) => r.id === issue.requirement) ? issue.requirement : undefined;
    charge(named ?? rules.find((r) => r.scope.test(issue.pointer))?.id ?? opts.fallbackId, issue);
  }
  return { charged, present: pointersOf(data) };
}

/** What a schema check judges: one value, or several (the chunks of a stream), each with a label for messages. */
export interface SchemaSubject {
  values: readonly { label: string; data: unknown }[];
}

/**
 * One check per requirement the rule table names (plus the fallback and the null requirement). Each check
 * returns the issues charged to its ID over every value of the subject, or nothing when no value reaches it.
 */
export function schemaChecks(schema: SchemaName, rules: readonly PointerRule[], opts: SchemaCheckOptions): Check<SchemaSubject>[] {
  const cache = new WeakMap<SchemaSubject, Blame[]>();
  const blamesOf = (s: SchemaSubject) => {
    let b = cache.get(s);
    if (!b) {
      b = s.values.map((v) => blame(schema, v.data, rules, opts));
      cache.set(s, b);
    }
    return b;
  };
  const always = new Set([opts.fallbackId, ...(opts.nullId ? [opts.nullId] : [])]);
  const ids = [...new Set([...rules.map((r) => r.id), ...always])];
  return ids.map((id) => {
    const scopes = rules.filter((r) => r.id === id).map((r) => r.reach ?? r.scope);
    return check(id, function schemaRule(s: SchemaSubject) {
      if (s.values.length === 0) return undefined;
      const blames = blamesOf(s);
      const reached = always.has(id) || blames.some((b) => b.charged.has(id) || b.present.some((p) => scopes.some((sc) => sc.test(p))));
      if (!reached) return notApplicable();
      const problems: string[] = [];
      blames.forEach((b, i) => {
        const issues = b.charged.get(id);
        if (issues?.length) problems.push(`${s.values[i]!.label}:\n${formatIssues(issues)}`);
      });
      return problems;
    }, { when: 'an answer carries the field the rule governs' });
  });
}

// ---------------------------------------------------------------------------------------------------------
// Rule tables: most specific first.

const msg = '/choices/\\d+/(?:message|delta)';

/** Fields of an assistant message or a stream delta, relative to a choice. */
const messageRules: PointerRule[] = [
  { id: 'RESP-019', scope: new RegExp(`^${msg}/tool_calls/\\d+/function/arguments$`) },
  { id: 'RESP-018', scope: new RegExp(`^${msg}/tool_calls/\\d+/function(?:/name)?$`) },
  { id: 'RESP-017', scope: new RegExp(`^${msg}/tool_calls/\\d+/type$`) },
  { id: 'RESP-015', scope: new RegExp(`^${msg}/tool_calls/\\d+/id$`) },
  { id: 'RESP-014', scope: new RegExp(`^${msg}/tool_calls(?:/\\d+(?:/index)?)?$`) },
  { id: 'SEARCH-023', scope: new RegExp(`^${msg}/annotations/\\d+/url_citation/url$`) },
  { id: 'SEARCH-024', scope: new RegExp(`^${msg}/annotations/\\d+/url_citation/title$`) },
  { id: 'SEARCH-025', scope: new RegExp(`^${msg}/annotations/\\d+/url_citation/start_index$`) },
  { id: 'SEARCH-026', scope: new RegExp(`^${msg}/annotations/\\d+/url_citation/end_index$`) },
  { id: 'SEARCH-022', scope: new RegExp(`^${msg}/annotations/\\d+(?:/type|/url_citation)?$`) },
  { id: 'SEARCH-021', scope: new RegExp(`^${msg}/annotations$`) },
  { id: 'SEARCH-034', scope: new RegExp(`^${msg}/service_web_search/\\d+/url$`) },
  { id: 'SEARCH-031', scope: new RegExp(`^${msg}/service_web_search/\\d+/type$`) },
  { id: 'SEARCH-032', scope: new RegExp(`^${msg}/service_web_search/\\d+/query$`) },
  { id: 'SEARCH-033', scope: new RegExp(`^${msg}/service_web_search/\\d+/queries(?:/\\d+)?$`) },
  { id: 'SEARCH-037', scope: new RegExp(`^${msg}/service_web_search/\\d+/pattern$`) },
  { id: 'SEARCH-028', scope: new RegExp(`^${msg}/service_web_search(?:/\\d+)?$`) },
  // Reached by every action; its issues come by the schema node's x-requirement (url on a "search" action).
  { id: 'SEARCH-035', scope: new RegExp(`^${msg}/service_web_search/\\d+$`) },
  { id: 'RSN-007', scope: new RegExp(`^${msg}/reasoning_content$`) },
  { id: 'RESP-012', scope: new RegExp(`^${msg}/role$`) },
  { id: 'RESP-013', scope: new RegExp(`^${msg}/content(?:/.*)?$`) },
];

const usageRules: PointerRule[] = [
  { id: 'SEARCH-038', scope: /^\/usage\/service_web_search_calls$/ },
  { id: 'RESP-025', scope: /^\/usage\/prompt_tokens_details\/cached_tokens$/ },
  { id: 'RESP-026', scope: /^\/usage\/prompt_tokens_details\/cache_write_tokens$/ },
  { id: 'RESP-024', scope: /^\/usage\/prompt_tokens_details$/ },
  { id: 'RESP-029', scope: /^\/usage\/cost_details\/upstream_inference_cost$/ },
  { id: 'RESP-028', scope: /^\/usage\/cost_details$/ },
  { id: 'RESP-027', scope: /^\/usage\/cost$/ },
  { id: 'RESP-021', scope: /^\/usage\/prompt_tokens$/ },
  { id: 'RESP-022', scope: /^\/usage\/completion_tokens$/ },
  { id: 'RESP-023', scope: /^\/usage\/total_tokens$/ },
  { id: 'RESP-008', scope: /^\/usage$/ },
];

export const CHAT_RESPONSE_RULES: readonly PointerRule[] = [
  ...messageRules,
  ...usageRules,
  { id: 'RESP-011', scope: /^\/choices\/\d+\/finish_reason$/ },
  { id: 'RESP-010', scope: /^\/choices\/\d+\/message$/ },
  { id: 'RESP-009', scope: /^\/choices\/\d+\/index$/ },
  { id: 'RESP-007', scope: /^\/choices(?:\/\d+)?$/ },
  { id: 'RESP-002', scope: /^\/id$/ },
  { id: 'RESP-003', scope: /^\/object$/ },
  { id: 'RESP-004', scope: /^\/created$/ },
  { id: 'RESP-006', scope: /^\/model$/ },
];

/** Stream chunks: the same field rules (deltas instead of messages), judged per chunk. */
export const CHAT_CHUNK_RULES: readonly PointerRule[] = CHAT_RESPONSE_RULES.filter((r) => !['RESP-010', 'RESP-007'].includes(r.id));

/** The 23 fields 2.10 lists for a catalog entry, each with the requirement that governs it. */
const ENTRY_FIELDS: readonly (readonly [field: string, id: string])[] = [
  ['id', 'CAT-004'],
  ['name', 'CAT-005'],
  ['min_tier', 'CAT-006'],
  ['max_tokens', 'CAT-007'],
  ['context_window', 'CAT-008'],
  ['supports_images', 'CAT-009'],
  ['supports_caching', 'CAT-010'],
  ['supports_reasoning', 'CAT-011'],
  ['input_price', 'CAT-012'],
  ['output_price', 'CAT-013'],
  ['cache_write_price', 'CAT-014'],
  ['cache_read_price', 'CAT-015'],
  ['description', 'CAT-016'],
  ['temperature', 'CAT-017'],
  ['api_format', 'CAT-018'],
  ['supports_global_endpoint', 'CAT-019'],
  ['thinking_config', 'CAT-020'],
  ['tiers', 'CAT-021'],
  ['is_featured', 'CAT-022'],
  ['featured_label', 'CAT-023'],
  ['featured_tab', 'CAT-024'],
  ['display_order', 'CAT-025'],
  ['credit_tier', 'CAT-026'],
];

/** The optional entry fields (present only when published) and their requirements: what a catalog may never carry. */
export const OPTIONAL_ENTRY_FIELDS: readonly (readonly [field: string, id: string])[] = ENTRY_FIELDS.filter(([, id]) => !['CAT-004', 'CAT-005', 'CAT-006', 'CAT-009', 'CAT-010', 'CAT-011', 'CAT-019', 'CAT-022'].includes(id));

/**
 * The entry rules a catalog read as 200 leaves unjudged, with why, the same on every target: an optional field no
 * entry carries ("no entry carries max_tokens"), or every entry rule when the list holds no entry. A field carried
 * as null is carried (CAT-027 judges the null).
 */
export function unjudgedEntryFields(entries: readonly Record<string, unknown>[]): { id: string; reason: string }[] {
  if (entries.length === 0) return [...ENTRY_FIELDS.map(([, id]) => id), 'CAT-001'].map((id) => ({ id, reason: 'the catalog lists no entry' }));
  return OPTIONAL_ENTRY_FIELDS.filter(([field]) => !entries.some((m) => field in m)).map(([field, id]) => ({ id, reason: `no entry carries ${field}` }));
}

/**
 * The rules of one entry at `at` (the root of GET /v1/models/{id}, or /data/N of the list). Each rule claims
 * exactly its field, so no rule depends on another coming first: CAT-001 claims only the fields 2.10 does not list
 * (and that name no backend, CAT-002's), though it is judged on every entry that has a field at all.
 */
function entryRules(at: string): PointerRule[] {
  const listed = ENTRY_FIELDS.map(([f]) => f).join('|');
  // Backend names in any case (CAT-002 is case-blind); the listed names exactly as 2.10 spells them.
  const backend = BACKEND_FIELD_NAMES.map((n) => [...n].map((c) => `[${c.toLowerCase()}${c.toUpperCase()}]`).join('')).join('|');
  return [
    ...ENTRY_FIELDS.map(([field, id]) => ({ id, scope: new RegExp(`^${at}/${field}(?:/.*)?$`) })),
    // A field naming the backend is the deviation CAT-002 states (the field the contract removed), charged there alone.
    { id: 'CAT-002', scope: new RegExp(`^${at}/(?:${BACKEND_FIELD_NAMES.join('|')})$`, 'i') },
    {
      id: 'CAT-001',
      scope: new RegExp(`^${at}/(?!(?:${listed})(?:/|$))(?!(?:${backend})$)[^/]+$`),
      reach: new RegExp(`^${at}/[^/]+$`),
    },
  ];
}

/** GET /v1/models/{id}: one entry, its fields at the root. */
export const CATALOG_ENTRY_RULES: readonly PointerRule[] = entryRules('');

/** The model list: its own two fields, and the entries under /data/N (never the list's own fields). */
export const MODEL_LIST_RULES: readonly PointerRule[] = [{ id: 'CAT-029', scope: /^\/data(?:\/\d+)?$/ }, { id: 'CAT-028', scope: /^\/object$/ }, ...entryRules('/data/\\d+')];

export const ERROR_BODY_RULES: readonly PointerRule[] = [
  { id: 'ERR-002', scope: /^\/error\/type$/ },
  { id: 'ERR-003', scope: /^\/error\/code$/ },
  { id: 'ERR-004', scope: /^\/error\/message$/ },
  { id: 'ERR-001', scope: /^\/error$/ },
];

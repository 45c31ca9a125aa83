// Defect modes: deliberate contract violations the reference mock can be switched into, each one a mistake
// real servers make. They measure the conformance suite's power: run against the mock in a defect mode, the
// suite must fail, and its failed MUST requirement IDs must include the one the defect `breaks`
// (tests/integration/defect-matrix.spec.ts). A defect whose requirement is a SHOULD is marked `expect: 'warn'`:
// the suite must warn on that ID and still pass.
//
//   npm run mock -- --defect stream-no-done          startMockServer({ defect: 'stream-no-done' })
//   npm run mock -- --list-defects                   createHandlers({ defect: ['a', 'b'] })
//
// The hooks live where the contract's shapes are built (mock/core/*.ts); each reads `defectOn(options, name)`.

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

export interface DefectSpec {
  /** The name given to --defect and to the `defect` option. */
  name: string;
  /** The requirement ID (spec/requirements) the defect violates. */
  breaks: string;
  section: DefectSection;
  /** What the defective mock does, and why a real server ends up doing it. */
  description: string;
  /** 'fail' (default): breaks a MUST, the verdict fails. 'warn': breaks a SHOULD, the suite warns and passes. */
  expect?: 'fail' | 'warn';
  /**
   * 'core' (default): in the matrix `npm test` runs. 'extended': run only by the full matrix
   * (CHATCONFORM_MATRIX=full), to keep `npm test` within its time budget; every one of them is caught too.
   */
  tier?: 'core' | 'extended';
  /**
   * Set when only a cooperating target can show the defect: what the suite needs from the profile to provoke it
   * (a restricted key, an unavailable model, scenario headers). A black-box run cannot see it.
   */
  cooperation?: string;
}

export const DEFECTS = [
  // ---- catalog (2.10, 2.11, 4.1, 4.2) ----
  {
    name: 'catalog-null-optional',
    breaks: 'CAT-027',
    section: 'catalog',
    description: 'unpublished optional entry fields are sent as null instead of being omitted (a serializer that writes every struct field)',
  },
  {
    name: 'catalog-backend-field',
    breaks: 'CAT-002',
    section: 'catalog',
    description: 'every entry carries "provider" naming the backend route that serves it (the field the contract deliberately removes)',
  },
  {
    name: 'catalog-openai-fields',
    tier: 'extended',
    breaks: 'CAT-001',
    section: 'catalog',
    description: 'entries carry OpenAI\'s model-object fields "object": "model" and "created", which 2.10 does not list',
  },
  {
    name: 'catalog-price-strings',
    tier: 'extended',
    breaks: 'CAT-012',
    section: 'catalog',
    description: 'prices are JSON strings ("0.15") rather than numbers, as some routers publish them to keep decimals exact',
  },
  {
    name: 'catalog-requires-credential',
    breaks: 'AUTH-005',
    section: 'catalog',
    description: 'GET /v1/models and GET /v1/models/{id} answer 401 without a credential (authentication middleware on every route)',
  },
  {
    name: 'catalog-lists-deactivated',
    breaks: 'CAT-039',
    section: 'catalog',
    description: 'deactivated entries stay in GET /v1/models (the list filters on "exists", not on "active")',
  },
  {
    name: 'catalog-duplicate-entry',
    tier: 'extended',
    breaks: 'CAT-030',
    section: 'catalog',
    description: 'the first entry is listed twice (a join over two region tables without DISTINCT)',
  },
  {
    name: 'catalog-get-differs',
    breaks: 'CAT-037',
    section: 'catalog',
    description: 'the list is a summary view without "description"; GET /v1/models/{id} returns the detailed entry with it',
  },
  // ---- auth (5) ----
  {
    name: 'chat-without-credential',
    breaks: 'AUTH-002',
    section: 'auth',
    description: 'POST /v1/chat/completions without an Authorization header is served with a default key',
  },
  {
    name: 'invalid-key-accepted',
    tier: 'extended',
    breaks: 'AUTH-003',
    section: 'auth',
    description: 'any well-formed but unknown bearer key is accepted (keys validated by prefix only)',
  },
  {
    name: 'restricted-key-rerouted',
    breaks: 'AUTH-008',
    section: 'auth',
    description: 'a key limited to a model list asking for another model is silently served by the first model on its list',
    cooperation: 'a key restricted to a list of models (profile.restrictedKey)',
  },
  {
    name: 'tier-not-enforced',
    tier: 'extended',
    breaks: 'AUTH-010',
    section: 'auth',
    description: 'min_tier is published but never enforced: a free-tier key is served pro entries',
  },
  // ---- request rules (2.1, 2.5, 2.6, 4.3) ----
  {
    name: 'max-tokens-wins',
    breaks: 'REQ-011',
    section: 'request rules',
    description: 'when both caps are sent, the legacy max_tokens wins over max_completion_tokens',
  },
  {
    name: 'cap-ignored',
    breaks: 'REQ-010',
    section: 'request rules',
    description: 'max_completion_tokens and max_tokens are ignored: the answer runs to its natural length',
  },
  {
    name: 'unknown-field-rejected',
    tier: 'extended',
    breaks: 'REQ-013',
    section: 'request rules',
    description: 'strict request decoding: a top-level field 2.1 does not list is refused with 400 instead of being ignored',
  },
  {
    name: 'effort-accepted',
    breaks: 'RSN-006',
    section: 'request rules',
    description: 'a reasoning.effort outside the entry\'s set is silently mapped to "medium" instead of being refused with 400',
  },
  {
    name: 'image-to-non-image-answered',
    breaks: 'IMG-006',
    section: 'request rules',
    description: 'image parts sent to an entry with supports_images false are dropped and the request is answered',
  },
  // ---- response shape (2.9) ----
  {
    name: 'message-null-fields',
    breaks: 'RESP-001',
    section: 'response shape',
    description: 'with function tools declared, a text answer carries "tool_calls": null instead of omitting it',
  },
  {
    name: 'finish-reason-null',
    tier: 'extended',
    // A null where a value belongs is charged to the rule against nulls alone: one deviation, one requirement.
    breaks: 'RESP-001',
    section: 'response shape',
    description: 'the upstream stop reason "tool_use" has no mapping: an answer with tool calls reports "finish_reason": null',
  },
  {
    name: 'response-model-rerouted',
    breaks: 'CHAT-009',
    section: 'response shape',
    description: 'requests carrying a reasoning object are routed to the alias that implements it, and the response "model" names that other entry (the next reasoning entry of the catalog)',
  },
  {
    name: 'cached-tokens-zero',
    tier: 'extended',
    breaks: 'RESP-025',
    section: 'response shape',
    description: 'caching entries always send usage.prompt_tokens_details, with "cached_tokens": 0 and "cache_write_tokens": 0 when nothing was cached',
  },
  {
    name: 'usage-total-mismatch',
    tier: 'extended',
    breaks: 'RESP-023',
    section: 'response shape',
    description: 'reasoning tokens are counted in completion_tokens and added to total_tokens a second time',
  },
  {
    name: 'created-milliseconds',
    breaks: 'RESP-005',
    section: 'response shape',
    expect: 'warn',
    description: '"created" is a Unix time in milliseconds (Date.now()), not seconds (a SHOULD: the suite warns)',
  },
  // ---- tools (2.3, 2.4, 4.3 rule 3, 7 rule 2) ----
  {
    name: 'tool-arguments-object',
    breaks: 'RESP-019',
    section: 'tools',
    description: 'in a stream, function.arguments is sent as one JSON object delta instead of JSON-encoded string fragments',
  },
  {
    name: 'tool-arguments-not-json',
    tier: 'extended',
    breaks: 'RESP-020',
    section: 'tools',
    description: 'function.arguments is a Python dict repr ({\'city\': \'Paris\'}) that JSON.parse rejects',
  },
  {
    name: 'tool-call-undeclared-name',
    tier: 'extended',
    breaks: 'TOOL-006',
    section: 'tools',
    description: 'the model calls a function the request did not declare (the name gets a "_v2" suffix)',
  },
  {
    name: 'tools-undeclared-500',
    breaks: 'TOOL-013',
    section: 'tools',
    description: 'tool calls sent without declared tools go upstream and come back as 500 upstream_error',
  },
  // ---- web search (2.7, 2.9, 4.3 rule 6, 7) ----
  {
    name: 'search-refusal-message',
    breaks: 'SEARCH-045',
    section: 'web search',
    description: 'web_search_not_supported carries "web search is not supported by this model", not the fixed text of section 7',
  },
  {
    name: 'search-context-size-lenient',
    tier: 'extended',
    breaks: 'SEARCH-007',
    section: 'web search',
    description: 'an unknown search_context_size is quietly read as "medium" instead of being rejected with 400',
  },
  {
    name: 'search-action-url-on-search',
    breaks: 'SEARCH-035',
    section: 'web search',
    description: 'a multi-query "search" action carries the url of its first result page',
  },
  {
    name: 'citation-out-of-bounds',
    breaks: 'SEARCH-027',
    section: 'web search',
    description: 'with search_context_size "high", citation indices count in the expanded context document the upstream saw, so they point past the end of the final text',
  },
  {
    name: 'citation-http-url',
    breaks: 'SEARCH-023',
    section: 'web search',
    description: 'search requested by a bare web_search tool goes through a legacy plugin whose citation urls are plain http:// links',
  },
  {
    name: 'search-actions-in-annotations',
    breaks: 'SEARCH-029',
    section: 'web search',
    description: 'in a streamed search answer, the stream merger appends the search actions to delta.annotations, next to the url_citation entries',
  },
  {
    name: 'search-calls-zero',
    breaks: 'SEARCH-039',
    section: 'web search',
    description: 'stream_options on a non-streamed request makes the usage come from the streaming aggregator, which says "service_web_search_calls": 0 when nothing was searched',
  },
  {
    name: 'search-refusal-streamed',
    breaks: 'SEARCH-043',
    section: 'web search',
    description: 'with stream true, a search refusal opens a 200 stream, sends some text, then an error event',
  },
  // ---- routing (2.8, 4.3 rules 4-5, 7 rule 3) ----
  {
    name: 'allow-fallbacks-ignored',
    tier: 'extended',
    breaks: 'ROUTE-005',
    section: 'routing',
    description: 'provider.allow_fallbacks false is not forwarded: with no ranked route up, an unranked route serves',
  },
  {
    name: 'routing-substitute-model',
    breaks: 'ROUTE-008',
    section: 'routing',
    description: 'when no route the preferences rank can serve, another catalog entry answers (the response names the substitute)',
  },
  // ---- streaming (6) ----
  {
    name: 'stream-no-done',
    breaks: 'STREAM-004',
    section: 'streaming',
    description: 'a stream that ends with tool calls stops after the last chunk without data: [DONE] (the tool-call path returns early)',
  },
  {
    name: 'stream-events-after-done',
    breaks: 'STREAM-004',
    section: 'streaming',
    description: 'search provenance comes back late: in a streamed search answer, the chunk carrying it is sent after data: [DONE], then [DONE] again',
  },
  {
    name: 'stream-named-events',
    breaks: 'STREAM-002',
    section: 'streaming',
    description: 'reasoning deltas go out as named events ("event: reasoning" before their data: line)',
  },
  {
    name: 'stream-usage-missing',
    breaks: 'STREAM-016',
    section: 'streaming',
    description: 'the hosted-search pipeline drops stream_options: a streamed search answer carries no usage although include_usage was true',
  },
  {
    name: 'stream-finish-reason-null',
    breaks: 'RESP-001',
    section: 'streaming',
    description: 'in a stream of tool calls every chunk before the last carries "finish_reason": null, as many OpenAI-compatible servers send it',
  },
  {
    name: 'stream-no-blank-line',
    tier: 'extended',
    breaks: 'STREAM-009',
    section: 'streaming',
    description: 'events are separated by a single newline, not by a blank line',
  },
  {
    name: 'stream-wrong-content-type',
    tier: 'extended',
    breaks: 'CHAT-005',
    section: 'streaming',
    description: 'the event stream is served as "application/json"',
  },
  // ---- errors (7, 4.3) ----
  {
    name: 'unavailable-500',
    breaks: 'ERR-008',
    section: 'errors',
    description: 'model_unavailable is answered with status 500 instead of 503',
    cooperation: 'a model that cannot currently be served (profile.unavailableModel)',
  },
  {
    name: 'deactivated-404',
    tier: 'extended',
    breaks: 'ERR-007',
    section: 'errors',
    description: 'a deactivated model is answered 404 (code model_not_found) instead of 403',
  },
  {
    name: 'error-plain-text',
    breaks: 'ERR-001',
    section: 'errors',
    description: 'the authorization gateway in front answers its 403 refusals as text/plain ("403 Forbidden: model_not_allowed"), not as a JSON error object',
    cooperation: 'a refusal of a restricted key (profile.restrictedKey): the only refusals the gateway answers as text',
  },
  {
    name: 'error-no-code',
    breaks: 'ERR-003',
    section: 'errors',
    description: 'upstream failures (5xx) are passed through with error.type and error.message but no error.code',
    cooperation: 'an upstream failure, which only the scenario headers (profile.scenarioHeaders) or an unavailable model provoke',
  },
  {
    name: 'stream-error-as-200',
    tier: 'extended',
    breaks: 'ERR-005',
    section: 'errors',
    description: 'with stream true, a failure before the stream opens (no key, deactivated model) is a 200 stream holding an error event',
  },
  // ---- limits (8, 4.3 rule 1) ----
  {
    name: 'oversized-accepted',
    breaks: 'LIMIT-001',
    section: 'limits',
    description: 'no request-body limit: a body over 10 MB is read, parsed and answered',
  },
  {
    name: 'oversized-parsed-first',
    tier: 'extended',
    breaks: 'LIMIT-002',
    section: 'limits',
    description: 'the body is parsed before its size is checked: an oversized body that is not JSON gets 400 invalid_json, a valid one 413',
  },
  {
    name: 'body-limit-1mb',
    tier: 'extended',
    breaks: 'LIMIT-003',
    section: 'limits',
    description: 'the body limit is 1,000,000 bytes instead of 10 MB, so a 1 MiB request is refused with 413',
  },
] as const satisfies readonly DefectSpec[];

export type DefectName = (typeof DEFECTS)[number]['name'];

/** The defects of the matrix `npm test` runs (the others are tier 'extended'). */
export const CORE_DEFECTS: readonly DefectSpec[] = DEFECTS.filter((d: DefectSpec) => d.tier !== 'extended');

const BY_NAME = new Map<string, DefectSpec>(DEFECTS.map((d) => [d.name, d]));

export function isDefectName(name: string): name is DefectName {
  return BY_NAME.has(name);
}

export function defectSpec(name: string): DefectSpec | undefined {
  return BY_NAME.get(name);
}

/** One line per defect: name, the requirement it breaks, its section, what it does. */
export function formatDefects(): string {
  const width = Math.max(...DEFECTS.map((d) => d.name.length));
  return DEFECTS.map(
    (d: DefectSpec) =>
      `${d.name.padEnd(width)}  breaks ${d.breaks.padEnd(10)} ${`[${d.section}]`.padEnd(17)} ${d.tier === 'extended' ? '(extended) ' : ''}${d.expect === 'warn' ? '(SHOULD: the suite warns) ' : ''}${d.description}`,
  ).join('\n');
}

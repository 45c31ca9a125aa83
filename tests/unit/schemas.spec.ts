// Valid and invalid examples for every schema of spec/schemas, through the shared validator.
// Every invalid case asserts that the reported issue NAMES the offending field (its JSON pointer).

import { readdirSync, readFileSync } from 'node:fs';
import { test, expect } from '@playwright/test';
import Ajv2020 from 'ajv/dist/2020.js';
import {
  ajvErrorsToIssues,
  assertValid,
  formatIssues,
  isIanaTimeZone,
  schemaNames,
  validate,
  type SchemaName,
  type ValidationIssue,
} from '../../spec/validator.ts';

const SCHEMA_DIR = new URL('../../spec/schemas/', import.meta.url);

// ---------------------------------------------------------------------------------------------------------------
// helpers

function clone<T>(v: T): T {
  return structuredClone(v);
}

function expectValid(name: SchemaName, data: unknown): void {
  const r = validate(name, data);
  expect(r.errors, `${name} should be valid:\n${formatIssues(r.errors)}`).toEqual([]);
  expect(r.valid).toBe(true);
}

/** Asserts `data` is invalid and that one issue sits at `pointer` and its message contains every fragment. */
function expectIssue(name: SchemaName, data: unknown, pointer: string, ...fragments: string[]): ValidationIssue {
  const r = validate(name, data);
  expect(r.valid, `${name} should be invalid at ${pointer}`).toBe(false);
  const hit = r.errors.find((i) => i.pointer === pointer && fragments.every((f) => i.message.includes(f)));
  expect(hit, `expected an issue at ${pointer} containing ${JSON.stringify(fragments)}; got:\n${formatIssues(r.errors)}`).toBeDefined();
  return hit!;
}

function decodeToken(t: string): string {
  return t.replace(/~1/g, '/').replace(/~0/g, '~');
}

function setAt(root: unknown, pointer: string, value: unknown): unknown {
  const copy = clone(root) as Record<string, unknown>;
  const tokens = pointer.split('/').slice(1).map(decodeToken);
  let node: Record<string, unknown> = copy;
  for (const t of tokens.slice(0, -1)) node = node[t] as Record<string, unknown>;
  node[tokens.at(-1)!] = value;
  return copy;
}

function deleteAt(root: unknown, pointer: string): unknown {
  const copy = clone(root) as Record<string, unknown>;
  const tokens = pointer.split('/').slice(1).map(decodeToken);
  let node: Record<string, unknown> = copy;
  for (const t of tokens.slice(0, -1)) node = node[t] as Record<string, unknown>;
  delete node[tokens.at(-1)!];
  return copy;
}

/** Every pointer of a value below the root, skipping the insides of the given (free-form) containers. */
function pointersOf(value: unknown, freeForm: readonly string[] = [], base = ''): string[] {
  if (freeForm.includes(base)) return [];
  if (value === null || typeof value !== 'object') return [];
  const out: string[] = [];
  const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v] as const) : Object.entries(value);
  for (const [k, v] of entries) {
    const p = `${base}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`;
    out.push(p, ...pointersOf(v, freeForm, p));
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// valid examples (complete: every listed field present, no unlisted field)

const textPart = { type: 'text', text: 'Describe this.', cache_control: { type: 'ephemeral' } };
const imagePart = { type: 'image_url', image_url: { url: 'https://example.com/cat.png', detail: 'low' } };
const toolCall = { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } };
const functionTool = {
  type: 'function',
  function: { name: 'get_weather', description: 'Current weather', parameters: { type: 'object', properties: {} } },
};
const flatLocation = { type: 'approximate', country: 'FR', city: 'Paris', region: 'Ile-de-France', timezone: 'Europe/Paris' };
const nestedLocation = {
  type: 'approximate',
  approximate: { country: 'IN', city: 'Mumbai', region: 'Maharashtra', timezone: 'Asia/Kolkata' },
};
const userMessage = { role: 'user', content: [textPart, imagePart], name: 'alice' };
const assistantRequestMessage = {
  role: 'assistant',
  content: '',
  tool_calls: [toolCall],
  reasoning_content: 'Need the weather.',
};
const toolResultMessage = { role: 'tool', content: '{"temp":21}', tool_call_id: 'call_1' };

const fullRequest = {
  model: 'vendor/model-a',
  messages: [{ role: 'system', content: 'Be brief.' }, userMessage, assistantRequestMessage, toolResultMessage],
  stream: true,
  temperature: 0.7,
  top_p: 1,
  max_tokens: 256,
  max_completion_tokens: 512,
  tools: [functionTool, { type: 'web_search' }],
  tool_choice: { type: 'function', function: { name: 'get_weather' } },
  web_search_options: { search_context_size: 'medium', user_location: flatLocation },
  reasoning: { max_tokens: 1024, effort: 'high' },
  include_reasoning: true,
  provider: { sort: 'price', order: ['route-a', 'route-b'], allow_fallbacks: false },
  stream_options: { include_usage: true },
};
// Free-form containers of the request: their insides carry no rule (gap or "any object").
const requestFreeForm = ['/tool_choice', '/provider/order', '/tools/0/function/parameters'];

const citation = {
  type: 'url_citation',
  url_citation: { url: 'https://example.com/weather', title: 'Weather', start_index: 0, end_index: 12 },
};
const searchAction = { type: 'search', query: 'paris weather', queries: ['paris weather', 'paris forecast'] };
const openPage = { type: 'open_page', url: 'https://example.com/weather' };
const findInPage = { type: 'find_in_page', url: 'https://example.com/weather', pattern: 'degrees' };
const usage = {
  prompt_tokens: 100,
  completion_tokens: 20,
  total_tokens: 120,
  prompt_tokens_details: { cached_tokens: 64, cache_write_tokens: 10 },
  cost: 0.0012,
  cost_details: { upstream_inference_cost: 0.001 },
  service_web_search_calls: 2,
};
const assistantMessage = {
  role: 'assistant',
  content: 'It is sunny in Paris.',
  tool_calls: [toolCall],
  reasoning_content: 'Checked the page.',
  annotations: [citation],
  service_web_search: [searchAction, openPage, findInPage],
};
const choice = { index: 0, message: assistantMessage, finish_reason: 'stop' };
const response = { id: 'cmpl-1', object: 'chat.completion', created: 1_700_000_000, model: 'vendor/model-a', choices: [choice], usage };

const chunk = {
  id: 'cmpl-1',
  object: 'chat.completion.chunk',
  created: 1_700_000_000,
  model: 'vendor/model-a',
  choices: [
    {
      index: 0,
      delta: {
        role: 'assistant',
        content: 'It is',
        tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"ci' } }],
        reasoning_content: 'thinking',
        annotations: [citation],
        service_web_search: [searchAction],
      },
      finish_reason: 'tool_calls',
    },
  ],
  usage,
};
const usageOnlyChunk = { id: 'cmpl-1', object: 'chat.completion.chunk', created: 1_700_000_000, model: 'm', choices: [], usage };
const laterToolDeltaChunk = {
  id: 'cmpl-1',
  object: 'chat.completion.chunk',
  created: 1_700_000_000,
  model: 'm',
  choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: 'ty":"Paris"}' } }] } }],
};

const fullModel = {
  id: 'vendor/model-a',
  name: 'Model A',
  min_tier: 'pro',
  max_tokens: 8192,
  context_window: 200_000,
  supports_images: true,
  supports_caching: true,
  supports_reasoning: true,
  input_price: 3,
  output_price: 15,
  cache_write_price: 3.75,
  cache_read_price: 0.3,
  description: 'A capable model.',
  temperature: 1,
  api_format: 'chat',
  supports_global_endpoint: true,
  thinking_config: { budget: 'x', nested: { anything: null } },
  tiers: { pro: { rpm: 10 } },
  is_featured: true,
  featured_label: 'New',
  featured_tab: 'Popular',
  display_order: 3,
  credit_tier: 'standard',
};
const minimalModel = {
  id: 'vendor/model-b',
  name: 'Model B',
  min_tier: 'free',
  supports_images: false,
  supports_caching: false,
  supports_reasoning: false,
  supports_global_endpoint: false,
  is_featured: false,
};
const modelFreeForm = ['/thinking_config', '/tiers'];
const modelList = { object: 'list', data: [fullModel, minimalModel] };
const errorBody = { error: { type: 'invalid_request_error', code: 'invalid_web_search_options', message: 'search_context_size must be one of: low, medium, high', param: 'web_search_options' } };
const streamError = { error: { message: 'upstream failed', type: 'server_error', code: 'model_unavailable' } };

/** One complete valid example per schema, with the containers whose insides are free-form. */
const examples: Record<SchemaName, { data: unknown; freeForm?: string[] }> = {
  'chat-request': { data: fullRequest, freeForm: requestFreeForm },
  message: { data: assistantRequestMessage },
  tool: { data: functionTool, freeForm: ['/function/parameters'] },
  'tool-call': { data: toolCall },
  'content-part': { data: { ...textPart, image_url: imagePart.image_url } },
  reasoning: { data: { max_tokens: 10, effort: 'low' } },
  'stream-options': { data: { include_usage: false } },
  'web-search-options': { data: { search_context_size: 'high', user_location: nestedLocation } },
  'user-location': { data: flatLocation },
  provider: { data: { sort: 'latency', order: ['a'], allow_fallbacks: true }, freeForm: ['/order'] },
  'chat-response': { data: response },
  choice: { data: choice },
  'assistant-message': { data: assistantMessage },
  'url-citation-annotation': { data: citation },
  'search-action': { data: findInPage },
  usage: { data: usage },
  'chat-chunk': { data: chunk },
  // The event's listed fields are the error object and its message; its type and code are open (6 Gaps).
  'stream-error-event': { data: { error: { message: streamError.error.message } } },
  model: { data: fullModel, freeForm: modelFreeForm },
  'model-list': { data: modelList, freeForm: ['/data/0/thinking_config', '/data/0/tiers'] },
  error: { data: { error: { type: 'invalid_request_error', code: 'model_unavailable', message: 'retry later' } } },
  'config-file': {
    data: {
      baseUrl: 'https://api.example.com/v1-prefix',
      apiKeyEnv: 'ACME_API_KEY',
      profile: 'profiles/acme.json',
      reportDir: 'reports',
      seed: 7,
      fuzzRuns: 10,
      requestTimeoutMs: 20_000,
      maxRetries: 2,
      maxRetryWaitMs: 10_000,
      maxRps: 2,
      expectedFailures: 'expected-failures.yaml',
      failOn: 'warn',
      models: ['acme/chat-small'],
      requirements: ['STREAM-004'],
      sections: ['6'],
      levels: ['MUST'],
      excludeRequirements: ['SEARCH-001'],
      workers: 2,
    },
    freeForm: ['/models'],
  },
  'mock-catalog': {
    data: {
      tiers_order: ['free', 'pro'],
      entries: [
        {
          id: 'acme/m',
          mock: {
            family: 'acme',
            state: 'active',
            routes: [{ name: 'r', price_rank: 1, latency_rank: 1, throughput_rank: 1, available: true, web_search: false }],
            reasoning_efforts: ['low'],
            search_min_output_tokens: 512,
            upstream_cost: true,
          },
        },
      ],
    },
    freeForm: ['/tiers_order', '/entries/0/mock/reasoning_efforts'],
  },
  'mock-keys': {
    data: { keys: [{ key: 'sk-custom-0123456789', name: 'custom', tier: 'pro', models: ['acme/m'] }] },
    freeForm: ['/keys/0/models'],
  },
  recording: {
    data: {
      format: 'chatconform-recording/1',
      recordedAt: '2026-11-24T10:00:00.000Z',
      request: { method: 'POST', path: '/v1/chat/completions', headers: { 'content-type': 'application/json' }, body: { model: 'm', messages: [] } },
      response: { status: 200, headers: { 'content-type': 'text/event-stream' }, events: [{ data: '{"id":"c"}' }, { data: '[DONE]' }], complete: true },
    },
    // A recorded body is whatever JSON the exchange carried, null included.
    freeForm: ['/request/body'],
  },
  'mock-script': {
    data: {
      $schema: 'https://chatconform.dev/schemas/mock-script.schema.json',
      rules: [
        {
          name: 'first round',
          match: { model: 'acme/chat-small', user_contains: 'weather', user_matches: '^what', tool_result: false, turn: 0 },
          answer: { content: 'Let me look.', reasoning: 'The user wants the weather.', tool_calls: [{ name: 'get_weather', arguments: { city: 'Paris' }, id: 'call_1' }], finish_reason: 'tool_calls', fault: 'fail-after=3' },
        },
      ],
    },
    freeForm: ['/rules/0/answer/tool_calls/0/arguments'],
  },
  'expected-failures': {
    data: { target: 'https://api.example.com', expectedFailures: [{ id: 'STREAM-004', reason: 'the stream ends without [DONE] (ticket 12)' }] },
  },
  profile: {
    data: {
      name: 'example',
      restrictedKey: { key: 'sk-r', allowedModels: ['m1'] },
      lowTierKey: { key: 'sk-l', deniedModels: ['m2'] },
      deactivatedModel: 'm3',
      unavailableModel: 'm4',
      models: ['m1'],
      scenarioHeaders: true,
      webSearch: { models: ['m1'], unsupportedModels: ['m2'] },
      budget: { maxRequests: 10, maxTokensPerRequest: 16, maxCost: 0.5, fuzzRuns: 5, maxSearchProbes: 1, requestsPerMinute: 30 },
      secrets: ['s'],
    },
    freeForm: ['/restrictedKey/allowedModels', '/lowTierKey/deniedModels', '/models', '/webSearch/models', '/webSearch/unsupportedModels', '/secrets'],
  },
  'conformance-report': {
    data: {
      $schema: 'https://chatconform.dev/schemas/conformance-report.schema.json',
      reportVersion: 2,
      kit: { name: 'chatconform', version: '0.1.0' },
      spec: { file: 'chat-completion-service.md', sha256: 'a'.repeat(64), catalogRecords: 2, requirements: 1, observations: 1 },
      target: { url: 'http://127.0.0.1:8787', embeddedMock: true, profile: { name: 'mock', path: 'fixtures/profiles/mock.json' } },
      run: {
        startedAt: '2025-01-01T00:00:00.000Z', durationMs: 1200, seed: 42, fuzzRuns: 25, requests: 3, cost: 0.5, costedResponses: 1, stopReason: 'completed', caseKind: 'test',
        tests: { total: 2, judged: 2, unfinished: 0, skipped: 0, notRun: 0 },
      },
      verdict: { result: 'fail', exitCode: 1, summary: '1 MUST requirement failed', mustFailed: ['CAT-027'], requirementsPassed: 0, requirementsTotal: 1 },
      counts: { pass: 0, fail: 1, warn: 0, skip: 0, observed: 1, untested: 0, total: 2 },
      sections: [{ section: '2', title: 'Resources and their fields', pass: 0, fail: 1, warn: 0, skip: 0, observed: 1, untested: 0, total: 2 }],
      subsections: [{ section: '2.10', title: 'Model catalog entry', pass: 0, fail: 1, warn: 0, skip: 0, observed: 1, untested: 0, total: 2 }],
      requirements: [
        {
          id: 'CAT-027', section: '2.10', level: 'MUST', kind: 'requirement', check: 'black-box', statement: 'No field is null.', status: 'fail',
          reason: '/data/0/name: must not be null', skipReasons: ['not reached'],
          tests: [{ title: 'lists models', file: 'suites/catalog.spec.ts', line: 39, status: 'judged', error: 'Error: CAT-027' }],
          testsOmitted: 0,
          byModel: { 'acme/x': { tests: 1, failed: 1 } },
          records: { pass: 0, fail: 1, warn: 0, skip: 1, observed: 0 },
          evidence: [{
            status: 'fail', test: 'lists models', location: 'suites/catalog.spec.ts:39', message: '/data/0/name: must not be null', fromTestError: true,
            exchange: {
              method: 'POST', url: 'http://127.0.0.1:8787/v1/chat/completions', status: 0, requestHeaders: { authorization: '***REDACTED***' }, requestBody: '{}',
              responseHeaders: { 'content-type': 'application/json' }, responseBody: '', error: 'ECONNRESET', durationMs: 3, curl: 'curl -sS http://127.0.0.1:8787/v1/models',
            },
          }],
          evidenceOmitted: 0,
        },
        {
          id: 'OBS-003', section: '2.10', level: 'none', kind: 'observation', check: 'black-box', statement: 'min_tier values.', status: 'observed', reason: 'min_tier values',
          tests: [], testsOmitted: 0, records: { pass: 0, fail: 0, warn: 0, skip: 0, observed: 1 },
          evidence: [{ status: 'observed', test: 'records', location: 'suites/catalog.spec.ts:55', observed: ['free', 'pro'] }], evidenceOmitted: 0,
        },
      ],
      failedTests: [{ title: 'lists models', file: 'suites/catalog.spec.ts', line: 39, status: 'judged', error: 'Error: CAT-027', failed: ['CAT-027'] }, { title: '#3 GET /v1/models', exchange: 3, status: 'unfinished', unfinished: 'timeout', error: 'timed out', failed: [] }],
      errors: ['global setup failed'],
    },
    freeForm: ['/requirements/1/evidence/0/observed'],
  },
  // The report of the 0.2 kit, which the kit still reads (report/load.ts).
  'conformance-report-v1': {
    data: {
      $schema: 'https://chatconform.dev/schemas/conformance-report.schema.json',
      reportVersion: 1,
      kit: { name: 'chatconform', version: '0.1.0' },
      spec: { file: 'chat-completion-service.md', sha256: 'a'.repeat(64), catalogRecords: 2, requirements: 1, observations: 1 },
      target: { url: 'http://127.0.0.1:8787', embeddedMock: true, profile: { name: 'mock', path: 'fixtures/profiles/mock.json' } },
      run: {
        startedAt: '2025-01-01T00:00:00.000Z', durationMs: 1200, seed: 42, fuzzRuns: 25, requests: 3, cost: 0.5, costedResponses: 1, playwrightStatus: 'failed',
        tests: { total: 2, passed: 1, failed: 1, timedOut: 0, skipped: 0, interrupted: 0, notRun: 0 },
      },
      verdict: { result: 'fail', exitStatus: 'failed', exitCode: 1, summary: '1 MUST requirement failed', mustFailed: ['CAT-027'], requirementsPassed: 0, requirementsTotal: 1 },
      counts: { pass: 0, fail: 1, warn: 0, skip: 0, observed: 1, untested: 0, total: 2 },
      sections: [{ section: '2', title: 'Resources and their fields', pass: 0, fail: 1, warn: 0, skip: 0, observed: 1, untested: 0, total: 2 }],
      subsections: [{ section: '2.10', title: 'Model catalog entry', pass: 0, fail: 1, warn: 0, skip: 0, observed: 1, untested: 0, total: 2 }],
      requirements: [
        {
          id: 'CAT-027', section: '2.10', level: 'MUST', kind: 'requirement', check: 'black-box', statement: 'No field is null.', status: 'fail',
          reason: '/data/0/name: must not be null', skipReasons: ['not reached'],
          tests: [{ title: 'lists models', file: 'suites/catalog.spec.ts', line: 39, status: 'failed', error: 'Error: CAT-027' }],
          records: { pass: 0, fail: 1, warn: 0, skip: 1, observed: 0 },
          evidence: [{
            status: 'fail', test: 'lists models', location: 'suites/catalog.spec.ts:39', message: '/data/0/name: must not be null', fromTestError: true,
            exchange: {
              method: 'POST', url: 'http://127.0.0.1:8787/v1/chat/completions', status: 0, requestHeaders: { authorization: '***REDACTED***' }, requestBody: '{}',
              responseHeaders: { 'content-type': 'application/json' }, responseBody: '', error: 'ECONNRESET', durationMs: 3, curl: 'curl -sS http://127.0.0.1:8787/v1/models',
            },
          }],
          evidenceOmitted: 0,
        },
        {
          id: 'OBS-003', section: '2.10', level: 'none', kind: 'observation', check: 'black-box', statement: 'min_tier values.', status: 'observed', reason: 'min_tier values',
          tests: [], records: { pass: 0, fail: 0, warn: 0, skip: 0, observed: 1 },
          evidence: [{ status: 'observed', test: 'records', location: 'suites/catalog.spec.ts:55', observed: ['free', 'pro'] }], evidenceOmitted: 0,
        },
      ],
      failedTests: [{ title: 'lists models', file: 'suites/catalog.spec.ts', line: 39, status: 'failed', error: 'Error: CAT-027', failed: ['CAT-027'] }],
      errors: ['global setup failed'],
    },
    freeForm: ['/requirements/1/evidence/0/observed'],
  },
};

// ---------------------------------------------------------------------------------------------------------------
// registry

test.describe('schema registry', () => {
  test('schemaNames matches the files of spec/schemas exactly', () => {
    const stems = readdirSync(SCHEMA_DIR)
      .filter((f) => f.endsWith('.schema.json'))
      .map((f) => f.slice(0, -'.schema.json'.length))
      .sort();
    expect([...schemaNames].sort()).toEqual(stems);
    expect(readdirSync(SCHEMA_DIR).filter((f) => !f.endsWith('.schema.json'))).toEqual([]);
  });

  test('every schema file is 2020-12, has the $id of its name, and is reachable through validate', () => {
    for (const name of schemaNames) {
      const schema = JSON.parse(readFileSync(new URL(`${name}.schema.json`, SCHEMA_DIR), 'utf8')) as Record<string, unknown>;
      expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
      expect(schema.$id).toBe(`https://chatconform.dev/schemas/${name}.schema.json`);
      const r = validate(name, examples[name].data);
      expect(r.valid, `${name}:\n${formatIssues(r.errors)}`).toBe(true);
      expect(validate(name, 'not an object').valid).toBe(false);
    }
  });

  test('an unknown schema name is refused', () => {
    expect(() => validate('no-such-schema' as SchemaName, {})).toThrow(/unknown schema name "no-such-schema"/);
  });

  test('a non-object at the root is reported at (root)', () => {
    const r = validate('chat-request', []);
    expect(formatIssues(r.errors)).toBe('(root): must be an object (got array)');
  });
});

// ---------------------------------------------------------------------------------------------------------------
// null: no listed field admits null, in any schema

test.describe('no listed field admits null', () => {
  for (const name of schemaNames) {
    test(`${name}: every present field set to null is reported at its pointer`, () => {
      const { data, freeForm = [] } = examples[name];
      const pointers = pointersOf(data, freeForm);
      expect(pointers.length).toBeGreaterThan(0);
      for (const p of pointers) {
        const issue = expectIssue(name, setAt(data, p, null), p, 'must not be null');
        expect(issue.message).toContain('never null');
      }
    });
  }

  test('null at the root is reported at (root)', () => {
    expect(formatIssues(validate('model', null).errors)).toMatch(/^\(root\): must not be null/);
  });
});

// ---------------------------------------------------------------------------------------------------------------
// request side

test.describe('chat-request', () => {
  test('valid: minimal, complete, and with unlisted fields (not read, admitted)', () => {
    expectValid('chat-request', { model: 'm', messages: [{ role: 'user', content: 'hi' }] });
    expectValid('chat-request', fullRequest);
    expectValid('chat-request', { model: 'm', messages: [], user: 'u-1', seed: 7, logit_bias: {} });
    for (const tc of ['auto', 'none', 'required']) expectValid('chat-request', { model: 'm', messages: [], tool_choice: tc });
    // Numeric ranges are a gap: no bound is invented.
    expectValid('chat-request', { model: 'm', messages: [], temperature: 99, top_p: -3, max_tokens: 0 });
  });

  test('invalid: required fields missing', () => {
    expectIssue('chat-request', { messages: [] }, '/model', 'required property is missing');
    expectIssue('chat-request', { model: 'm' }, '/messages', 'required property is missing');
  });

  test('invalid: wrong types name the field', () => {
    expectIssue('chat-request', { model: 1, messages: [] }, '/model', 'must be a string');
    expectIssue('chat-request', { model: 'm', messages: {} }, '/messages', 'must be an array');
    expectIssue('chat-request', { model: 'm', messages: [], stream: 'true' }, '/stream', 'must be a boolean');
    expectIssue('chat-request', { model: 'm', messages: [], max_tokens: 1.5 }, '/max_tokens', 'must be an integer', '1.5');
    expectIssue('chat-request', { model: 'm', messages: [], max_completion_tokens: '5' }, '/max_completion_tokens', 'must be an integer');
    expectIssue('chat-request', { model: 'm', messages: [], temperature: 'hot' }, '/temperature', 'must be a number');
    expectIssue('chat-request', { model: 'm', messages: [], include_reasoning: 1 }, '/include_reasoning', 'must be a boolean');
  });

  test('invalid: tool_choice string outside auto/none/required, or neither string nor object', () => {
    expectIssue('chat-request', { model: 'm', messages: [], tool_choice: 'any' }, '/tool_choice', '"auto", "none", "required"', '"any"');
    expectIssue('chat-request', { model: 'm', messages: [], tool_choice: ['auto'] }, '/tool_choice', 'must be a string or an object');
    // Only the useful message: the if/then fan-out is collapsed.
    expect(validate('chat-request', { model: 'm', messages: [], tool_choice: 'any' }).errors).toHaveLength(1);
  });

  test('invalid: nested request objects report deep pointers', () => {
    const bad = {
      model: 'm',
      messages: [{ role: 'user', content: [{ type: 'video', text: 'x' }] }],
      tools: [{ type: 'function' }],
      reasoning: { max_tokens: 'lots' },
      stream_options: { include_usage: 'yes' },
      provider: { allow_fallbacks: 'no', order: 'a,b' },
    };
    expectIssue('chat-request', bad, '/messages/0/content/0/type', '"text", "image_url"', '"video"');
    expectIssue('chat-request', bad, '/tools/0/function', 'required property is missing');
    expectIssue('chat-request', bad, '/reasoning/max_tokens', 'must be an integer');
    expectIssue('chat-request', bad, '/stream_options/include_usage', 'must be a boolean');
    expectIssue('chat-request', bad, '/provider/allow_fallbacks', 'must be a boolean');
    expectIssue('chat-request', bad, '/provider/order', 'must be an array');
  });

  test('invalid: annotations / service_web_search in a request message (response-only)', () => {
    const req = { model: 'm', messages: [{ role: 'assistant', content: 'x', annotations: [citation], service_web_search: [searchAction] }] };
    expectIssue('chat-request', req, '/messages/0/annotations', 'response-only');
    expectIssue('chat-request', req, '/messages/0/service_web_search', 'response-only');
  });
});

test.describe('message', () => {
  test('valid: string content, parts content, tool call, tool result, unlisted field', () => {
    expectValid('message', { role: 'user', content: 'hi' });
    expectValid('message', userMessage);
    expectValid('message', assistantRequestMessage);
    expectValid('message', toolResultMessage);
    expectValid('message', { role: 'developer', content: 'x', some_client_field: true }); // role values: gap
  });

  test('invalid', () => {
    expectIssue('message', { content: 'x' }, '/role', 'required property is missing');
    expectIssue('message', { role: 'user' }, '/content', 'required property is missing');
    expectIssue('message', { role: 'user', content: 5 }, '/content', 'must be a string or an array', 'integer 5');
    expectIssue('message', { role: 'user', content: [{ text: 'x' }] }, '/content/0/type', 'required property is missing');
    expectIssue('message', { role: 'user', content: ['x'] }, '/content/0', 'must be an object');
    expectIssue('message', { role: 'tool', content: 'x', tool_call_id: 7 }, '/tool_call_id', 'must be a string');
    expectIssue('message', { role: 'user', content: 'x', name: {} }, '/name', 'must be a string');
    expectIssue('message', { role: 'user', content: 'x', reasoning_content: [] }, '/reasoning_content', 'must be a string');
    expectIssue('message', { role: 'user', content: 'x', annotations: [] }, '/annotations', 'response-only');
    expectIssue('message', { role: 'user', content: 'x', service_web_search: [] }, '/service_web_search', 'response-only');
    const argsObject = clone(assistantRequestMessage) as { tool_calls: Array<{ function: Record<string, unknown> }> };
    argsObject.tool_calls[0]!.function.arguments = { city: 'Paris' };
    expectIssue('message', argsObject, '/tool_calls/0/function/arguments', 'must be a string');
  });
});

test.describe('tool', () => {
  test('valid: function tool (minimal and complete), bare web_search, unlisted field', () => {
    expectValid('tool', functionTool);
    expectValid('tool', { type: 'function', function: { name: 'f' } });
    expectValid('tool', { type: 'web_search' });
    expectValid('tool', { type: 'function', function: { name: 'f', strict: true }, extra: 1 });
  });

  test('invalid', () => {
    expectIssue('tool', {}, '/type', 'required property is missing');
    expectIssue('tool', { type: 'function' }, '/function', 'required property is missing');
    expect(validate('tool', { type: 'function' }).errors).toHaveLength(1); // no if/then noise
    expectIssue('tool', { type: 'function', function: {} }, '/function/name', 'required property is missing');
    expectIssue('tool', { type: 'function', function: { name: 'f', parameters: '{}' } }, '/function/parameters', 'must be an object');
    expectIssue('tool', { type: 'function', function: { name: 'f', description: 1 } }, '/function/description', 'must be a string');
    expectIssue('tool', { type: 3 }, '/type', 'must be a string');
  });
});

test.describe('tool-call', () => {
  test('valid', () => {
    expectValid('tool-call', toolCall);
    expectValid('tool-call', { id: 'c', type: 'function', function: { name: 'f', arguments: '{}' }, extra: 'x' });
  });

  test('invalid: arguments as an object says arguments must be a string', () => {
    const issue = expectIssue('tool-call', { ...toolCall, function: { name: 'f', arguments: { a: 1 } } }, '/function/arguments', 'must be a string');
    expect(issue.message).toContain('got object');
  });

  test('invalid: other fields', () => {
    expectIssue('tool-call', { ...toolCall, type: 'tool' }, '/type', 'must be "function"', '"tool"');
    expectIssue('tool-call', { type: 'function', function: toolCall.function }, '/id', 'required property is missing');
    expectIssue('tool-call', { id: 'c', type: 'function', function: { arguments: '{}' } }, '/function/name', 'required property is missing');
    expectIssue('tool-call', { id: 'c', type: 'function', function: { name: 'f' } }, '/function/arguments', 'required property is missing');
    expectIssue('tool-call', { id: 'c', type: 'function' }, '/function', 'required property is missing');
  });
});

test.describe('content-part', () => {
  test('valid', () => {
    expectValid('content-part', textPart);
    expectValid('content-part', imagePart);
    expectValid('content-part', { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' }, extra: 1 });
  });

  test('invalid', () => {
    expectIssue('content-part', { type: 'audio' }, '/type', '"text", "image_url"', '"audio"');
    expectIssue('content-part', {}, '/type', 'required property is missing');
    expectIssue('content-part', { type: 'image_url', image_url: {} }, '/image_url/url', 'required property is missing');
    expectIssue('content-part', { type: 'image_url', image_url: 'https://x' }, '/image_url', 'must be an object');
    expectIssue('content-part', { type: 'image_url', image_url: { url: 'https://x', detail: 1 } }, '/image_url/detail', 'must be a string');
    expectIssue('content-part', { type: 'text', text: 'x', cache_control: {} }, '/cache_control/type', 'required property is missing');
    expectIssue('content-part', { type: 'text', text: 42 }, '/text', 'must be a string');
  });
});

test.describe('reasoning and stream-options', () => {
  test('valid', () => {
    expectValid('reasoning', {});
    expectValid('reasoning', { effort: 'xhigh' }); // the accepted set is per entry: no enum
    expectValid('stream-options', { include_usage: true });
  });

  test('invalid', () => {
    expectIssue('reasoning', { max_tokens: 1.5 }, '/max_tokens', 'must be an integer');
    expectIssue('reasoning', { effort: 3 }, '/effort', 'must be a string');
    expectIssue('stream-options', { include_usage: 'true' }, '/include_usage', 'must be a boolean');
  });
});

test.describe('web-search-options and user-location', () => {
  test('valid: flat, nested, type only, each context size, unlisted field on web_search_options', () => {
    expectValid('user-location', flatLocation);
    expectValid('user-location', nestedLocation);
    expectValid('user-location', { type: 'approximate' });
    expectValid('user-location', { type: 'approximate', approximate: {} });
    for (const size of ['low', 'medium', 'high']) expectValid('web-search-options', { search_context_size: size });
    expectValid('web-search-options', {});
    expectValid('web-search-options', { user_location: nestedLocation, some_future_option: 1 });
    for (const tz of ['UTC', 'America/New_York', 'Asia/Calcutta', 'Asia/Kolkata', 'Etc/GMT+5']) {
      expectValid('user-location', { type: 'approximate', timezone: tz });
    }
  });

  test('invalid: search_context_size huge', () => {
    expectIssue('web-search-options', { search_context_size: 'huge' }, '/search_context_size', '"low", "medium", "high"', '"huge"');
  });

  test('invalid: type not approximate, or missing', () => {
    expectIssue('user-location', { ...flatLocation, type: 'exact' }, '/type', 'must be "approximate"', '"exact"');
    expectIssue('user-location', { country: 'FR' }, '/type', 'required property is missing');
  });

  test('invalid: nested and flat fields mixed', () => {
    const mixed = { type: 'approximate', approximate: { country: 'FR' }, city: 'Paris' };
    const issue = expectIssue('web-search-options', { user_location: mixed }, '/user_location/city', 'never both');
    expect(issue.message).toContain('approximate');
    const all = { ...nestedLocation, country: 'IN', region: 'x', timezone: 'UTC', city: 'y' };
    for (const f of ['country', 'city', 'region', 'timezone']) expectIssue('user-location', all, `/${f}`, 'never both');
  });

  test('invalid: unknown fields at both levels', () => {
    expectIssue('user-location', { ...flatLocation, zip: '75001' }, '/zip', 'property is not allowed');
    expectIssue('user-location', { type: 'approximate', approximate: { country: 'FR', postcode: '1' } }, '/approximate/postcode', 'property is not allowed');
    expectIssue('web-search-options', { user_location: { type: 'approximate', lat: 1 } }, '/user_location/lat', 'property is not allowed');
  });

  test('invalid: country not two uppercase letters (USA, u1, fr)', () => {
    for (const country of ['USA', 'u1', 'fr', 'F', '']) {
      expectIssue('user-location', { type: 'approximate', country }, '/country', 'two uppercase letters');
      expectIssue('user-location', { type: 'approximate', approximate: { country } }, '/approximate/country', 'two uppercase letters');
    }
    expectIssue('user-location', { type: 'approximate', country: 33 }, '/country', 'must be a string');
  });

  test('invalid: bogus timezone, numeric offset, wrong case', () => {
    for (const timezone of ['Mars/Olympus', '+05:00', '-0800', 'GMT+5', 'utc', 'europe/paris', '']) {
      expectIssue('user-location', { type: 'approximate', timezone }, '/timezone', 'IANA time-zone');
      expectIssue('user-location', { type: 'approximate', approximate: { timezone } }, '/approximate/timezone', 'IANA time-zone');
    }
  });

  test('invalid: city and region length-bounded (1..100)', () => {
    expectIssue('user-location', { type: 'approximate', city: '' }, '/city', 'at least 1');
    expectIssue('user-location', { type: 'approximate', region: 'x'.repeat(101) }, '/region', 'at most 100');
    expectValid('user-location', { type: 'approximate', region: 'x'.repeat(100) });
    expectIssue('user-location', { type: 'approximate', approximate: { city: 'x'.repeat(101) } }, '/approximate/city', 'at most 100');
  });
});

test.describe('provider', () => {
  test('valid: sort values and order elements are a gap', () => {
    expectValid('provider', { sort: 'anything', order: [1, 'b', { id: 'c' }], allow_fallbacks: false });
    expectValid('provider', { unknown_preference: true });
  });

  test('invalid', () => {
    expectIssue('provider', { sort: 1 }, '/sort', 'must be a string');
    expectIssue('provider', { order: 'a' }, '/order', 'must be an array');
    expectIssue('provider', { allow_fallbacks: 'false' }, '/allow_fallbacks', 'must be a boolean');
  });
});

// ---------------------------------------------------------------------------------------------------------------
// response side

test.describe('chat-response, choice, assistant-message', () => {
  test('valid: complete, minimal, extra fields, tool-call-only message', () => {
    expectValid('chat-response', response);
    expectValid('chat-response', { id: 'c', object: 'x', created: 0, model: 'm', choices: [] });
    expectValid('chat-response', { ...response, system_fingerprint: 'fp', service_tier: 'default' });
    expectValid('choice', { index: 0, message: { role: 'assistant', tool_calls: [toolCall] }, finish_reason: 'tool_calls', logprobs: {} });
    expectValid('choice', { index: 1, message: { role: 'assistant', content: 'x' } }); // finish_reason omitted
    expectValid('assistant-message', { role: 'assistant', content: [{ type: 'text', text: 'x' }], refusal_extra: 'ok' });
  });

  test('invalid: response', () => {
    for (const f of ['id', 'object', 'created', 'model', 'choices']) {
      expectIssue('chat-response', deleteAt(response, `/${f}`), `/${f}`, 'required property is missing');
    }
    expectIssue('chat-response', { ...response, created: 1.5 }, '/created', 'must be an integer');
    expectIssue('chat-response', { ...response, created: '1700000000' }, '/created', 'must be an integer');
    expectIssue('chat-response', { ...response, usage: { prompt_tokens: 1 } }, '/usage/completion_tokens', 'required property is missing');
  });

  test('invalid: choice', () => {
    expectIssue('choice', { message: assistantMessage }, '/index', 'required property is missing');
    expectIssue('choice', { index: 0 }, '/message', 'required property is missing');
    expectIssue('choice', { ...choice, index: 0.5 }, '/index', 'must be an integer');
    expectIssue('choice', { ...choice, index: -1 }, '/index', '>= 0');
    expectIssue('choice', { ...choice, finish_reason: 1 }, '/finish_reason', 'must be a string');
  });

  test('invalid: assistant message', () => {
    expectIssue('assistant-message', { ...assistantMessage, role: 'user' }, '/role', 'must be "assistant"');
    expectIssue('assistant-message', { content: 'x' }, '/role', 'required property is missing');
    expectIssue('assistant-message', { role: 'assistant', content: 1 }, '/content', 'must be a string or an array');
    expectIssue('assistant-message', { role: 'assistant', annotations: {} }, '/annotations', 'must be an array');
    expectIssue('assistant-message', { role: 'assistant', annotations: [searchAction] }, '/annotations/0/type', 'must be "url_citation"');
    expectIssue('assistant-message', { role: 'assistant', service_web_search: [{ type: 'browse' }] }, '/service_web_search/0/type', '"search", "open_page", "find_in_page"');
    expectIssue('chat-response', setAt(response, '/choices/0/message/tool_calls/0/function/arguments', { city: 'Paris' }), '/choices/0/message/tool_calls/0/function/arguments', 'must be a string');
  });
});

test.describe('url-citation-annotation', () => {
  test('valid: with and without title', () => {
    expectValid('url-citation-annotation', citation);
    expectValid('url-citation-annotation', { type: 'url_citation', url_citation: { url: 'https://a.example/p?q=1#x', start_index: 5, end_index: 5 }, extra: 1 });
  });

  test('invalid: http (not https) URL', () => {
    expectIssue('url-citation-annotation', setAt(citation, '/url_citation/url', 'http://example.com/'), '/url_citation/url', 'HTTPS', '"http://example.com/"');
  });

  test('invalid: not a URI at all', () => {
    const r = validate('url-citation-annotation', setAt(citation, '/url_citation/url', 'not a url'));
    expect(r.errors.map((e) => e.pointer)).toEqual(['/url_citation/url', '/url_citation/url']);
    expectIssue('url-citation-annotation', setAt(citation, '/url_citation/url', 'not a url'), '/url_citation/url', 'absolute URI');
  });

  test('invalid: float and negative indices', () => {
    expectIssue('url-citation-annotation', setAt(citation, '/url_citation/start_index', 1.5), '/url_citation/start_index', 'must be an integer', '1.5');
    expectIssue('url-citation-annotation', setAt(citation, '/url_citation/end_index', 2.25), '/url_citation/end_index', 'must be an integer');
    expectIssue('url-citation-annotation', setAt(citation, '/url_citation/start_index', -1), '/url_citation/start_index', '>= 0');
  });

  test('invalid: type, missing fields, title type', () => {
    expectIssue('url-citation-annotation', { ...citation, type: 'file_citation' }, '/type', 'must be "url_citation"');
    expectIssue('url-citation-annotation', { type: 'url_citation' }, '/url_citation', 'required property is missing');
    for (const f of ['url', 'start_index', 'end_index']) {
      expectIssue('url-citation-annotation', deleteAt(citation, `/url_citation/${f}`), `/url_citation/${f}`, 'required property is missing');
    }
    expectIssue('url-citation-annotation', setAt(citation, '/url_citation/title', 5), '/url_citation/title', 'must be a string');
  });
});

test.describe('search-action', () => {
  test('valid: each type; url optional on open_page and find_in_page', () => {
    expectValid('search-action', searchAction);
    expectValid('search-action', openPage);
    expectValid('search-action', findInPage);
    expectValid('search-action', { type: 'open_page' }); // unattested source: url absent is normal
    expectValid('search-action', { type: 'search', extra_field: 1 });
  });

  test('invalid: url on a search action', () => {
    expectIssue('search-action', { ...searchAction, url: 'https://example.com' }, '/url', 'absent on a "search" action');
    expect(validate('search-action', { ...searchAction, url: 'https://example.com' }).errors).toHaveLength(1);
  });

  test('invalid: other', () => {
    expectIssue('search-action', { type: 'click' }, '/type', '"search", "open_page", "find_in_page"', '"click"');
    expectIssue('search-action', { query: 'x' }, '/type', 'required property is missing');
    expectIssue('search-action', { type: 'search', queries: ['a', 2] }, '/queries/1', 'must be a string');
    expectIssue('search-action', { type: 'search', queries: 'a' }, '/queries', 'must be an array');
    expectIssue('search-action', { type: 'search', query: ['a'] }, '/query', 'must be a string');
    expectIssue('search-action', { type: 'find_in_page', pattern: 1 }, '/pattern', 'must be a string');
    expectIssue('search-action', { type: 'open_page', url: 1 }, '/url', 'must be a string');
  });
});

test.describe('usage', () => {
  test('valid: minimal, complete, extra fields', () => {
    expectValid('usage', { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 });
    expectValid('usage', usage);
    expectValid('usage', { ...usage, completion_tokens_details: { reasoning_tokens: 3 } });
  });

  test('invalid', () => {
    for (const f of ['prompt_tokens', 'completion_tokens', 'total_tokens']) {
      expectIssue('usage', deleteAt(usage, `/${f}`), `/${f}`, 'required property is missing');
      expectIssue('usage', setAt(usage, `/${f}`, 1.5), `/${f}`, 'must be an integer');
      expectIssue('usage', setAt(usage, `/${f}`, -1), `/${f}`, '>= 0');
    }
    expectIssue('usage', setAt(usage, '/prompt_tokens_details/cached_tokens', 2.5), '/prompt_tokens_details/cached_tokens', 'must be an integer');
    expectIssue('usage', setAt(usage, '/prompt_tokens_details/cached_tokens', 0), '/prompt_tokens_details/cached_tokens', 'omitted when zero');
    expectIssue('usage', setAt(usage, '/prompt_tokens_details/cache_write_tokens', 0), '/prompt_tokens_details/cache_write_tokens', 'omitted when zero');
    expectIssue('usage', setAt(usage, '/cost', '0.1'), '/cost', 'must be a number');
    expectIssue('usage', setAt(usage, '/cost_details', {}), '/cost_details', 'omitted when unavailable');
    expectIssue('usage', setAt(usage, '/cost_details/upstream_inference_cost', 'x'), '/cost_details/upstream_inference_cost', 'must be a number');
    expectIssue('usage', setAt(usage, '/service_web_search_calls', 0), '/service_web_search_calls', 'omitted when no search');
    expectIssue('usage', setAt(usage, '/service_web_search_calls', 1.5), '/service_web_search_calls', 'must be an integer');
  });
});

test.describe('chat-chunk', () => {
  test('valid: complete, usage-only (choices: []), later tool-call delta, empty delta, extra fields', () => {
    expectValid('chat-chunk', chunk);
    expectValid('chat-chunk', usageOnlyChunk);
    expectValid('chat-chunk', laterToolDeltaChunk);
    expectValid('chat-chunk', { id: 'c', object: 'o', created: 1, model: 'm', choices: [{ index: 0, delta: {} }], system_fingerprint: 'x' });
  });

  test('invalid', () => {
    for (const f of ['id', 'object', 'created', 'model']) {
      expectIssue('chat-chunk', deleteAt(usageOnlyChunk, `/${f}`), `/${f}`, 'required property is missing');
    }
    // The contract defines no chunk shape beyond choices[].delta.content: a usage chunk without choices is valid
    // (clients want choices: [], which the suite warns about under CHAT-001).
    expectValid('chat-chunk', deleteAt(usageOnlyChunk, '/choices'));
    expectIssue('chat-chunk', setAt(chunk, '/choices/0/finish_reason', null), '/choices/0/finish_reason', 'must not be null');
    expectIssue('chat-chunk', deleteAt(chunk, '/choices/0/delta'), '/choices/0/delta', 'required property is missing');
    expectIssue('chat-chunk', setAt(chunk, '/choices/0/delta/role', ''), '/choices/0/delta/role', 'must be "assistant"');
    expectIssue('chat-chunk', setAt(chunk, '/choices/0/delta/content', ['x']), '/choices/0/delta/content', 'must be a string');
    expectIssue('chat-chunk', deleteAt(chunk, '/choices/0/delta/tool_calls/0/index'), '/choices/0/delta/tool_calls/0/index', 'required property is missing');
    expectIssue('chat-chunk', setAt(chunk, '/choices/0/delta/tool_calls/0/index', '0'), '/choices/0/delta/tool_calls/0/index', 'must be an integer');
    expectIssue('chat-chunk', setAt(chunk, '/choices/0/delta/tool_calls/0/index', 0.5), '/choices/0/delta/tool_calls/0/index', 'must be an integer');
    expectIssue('chat-chunk', setAt(chunk, '/choices/0/delta/tool_calls/0/type', 'fn'), '/choices/0/delta/tool_calls/0/type', 'must be "function"');
    expectIssue('chat-chunk', setAt(chunk, '/choices/0/delta/tool_calls/0/function/arguments', {}), '/choices/0/delta/tool_calls/0/function/arguments', 'must be a string');
    expectIssue('chat-chunk', setAt(chunk, '/choices/0/delta/annotations/0/url_citation/url', 'http://x.example'), '/choices/0/delta/annotations/0/url_citation/url', 'HTTPS');
    const onSearch = expectIssue('chat-chunk', setAt(chunk, '/choices/0/delta/service_web_search/0/url', 'https://x.example'), '/choices/0/delta/service_web_search/0/url', 'absent on a "search" action');
    expect(onSearch.requirement, 'the schema node names its requirement (x-requirement)').toBe('SEARCH-035');
    expect(expectIssue('chat-chunk', setAt(chunk, '/choices/0/finish_reason', null), '/choices/0/finish_reason', 'must not be null').isNull).toBe(true);
    expectIssue('chat-chunk', setAt(usageOnlyChunk, '/usage/total_tokens', '120'), '/usage/total_tokens', 'must be an integer');
    expectIssue('chat-chunk', setAt(chunk, '/created', 1.5), '/created', 'must be an integer');
  });
});

test.describe('stream-error-event', () => {
  test('valid: full, message only, with chunk fields around it', () => {
    expectValid('stream-error-event', streamError);
    expectValid('stream-error-event', { error: { message: 'boom' } });
    expectValid('stream-error-event', { id: 'c', object: 'chat.completion.chunk', error: { message: 'boom', param: null } });
  });

  test('invalid', () => {
    expectIssue('stream-error-event', {}, '/error', 'required property is missing');
    expectIssue('stream-error-event', { error: 'boom' }, '/error', 'must be an object');
    expectIssue('stream-error-event', { error: { type: 'x' } }, '/error/message', 'required property is missing');
  });

  // Section 6 leaves the event's shape open and section 7 types `code` only for non-200 answers: a numeric code (as
  // llama-server sends) is no deviation of the event.
  test('the fields beside the message are not typed', () => {
    expectValid('stream-error-event', { error: { message: 'x', code: 503, type: 7 } });
  });
});

test.describe('error', () => {
  test('valid: with extra param (an unlisted field may even be null)', () => {
    expectValid('error', errorBody);
    expectValid('error', setAt(errorBody, '/error/param', null));
    expectValid('error', { error: { type: 't', code: 'model_not_allowed', message: '' } });
  });

  test('invalid', () => {
    for (const f of ['type', 'code', 'message']) {
      expectIssue('error', deleteAt(errorBody, `/error/${f}`), `/error/${f}`, 'required property is missing');
      expectIssue('error', setAt(errorBody, `/error/${f}`, 1), `/error/${f}`, 'must be a string');
    }
    expectIssue('error', { message: 'x' }, '/error', 'required property is missing');
  });
});

// ---------------------------------------------------------------------------------------------------------------
// catalog

test.describe('model (catalog entry)', () => {
  test('valid: complete, minimal, featured without label', () => {
    expectValid('model', fullModel);
    expectValid('model', minimalModel);
    expectValid('model', { ...minimalModel, is_featured: true });
  });

  test('invalid: a field naming the backend (or any unlisted field) is rejected', () => {
    for (const f of ['provider', 'backend', 'upstream', 'owned_by']) {
      expectIssue('model', { ...fullModel, [f]: 'x' }, `/${f}`, 'property is not allowed');
    }
  });

  test('invalid: required fields missing', () => {
    for (const f of ['id', 'name', 'min_tier', 'supports_images', 'supports_caching', 'supports_reasoning', 'supports_global_endpoint', 'is_featured']) {
      expectIssue('model', deleteAt(minimalModel, `/${f}`), `/${f}`, 'required property is missing');
    }
  });

  test('invalid: featured_label / featured_tab with is_featured false', () => {
    expectIssue('model', { ...minimalModel, featured_label: 'New' }, '/featured_label', 'omitted when is_featured is false');
    expectIssue('model', { ...minimalModel, featured_tab: 'Popular' }, '/featured_tab', 'omitted when is_featured is false');
    expect(validate('model', { ...minimalModel, featured_label: 'New' }).errors).toHaveLength(1);
  });

  test('invalid: types (integers are integers, prices numbers, objects objects)', () => {
    for (const f of ['max_tokens', 'context_window', 'display_order']) {
      expectIssue('model', { ...minimalModel, [f]: 1.5 }, `/${f}`, 'must be an integer', '1.5');
    }
    for (const f of ['input_price', 'output_price', 'cache_write_price', 'cache_read_price', 'temperature']) {
      expectIssue('model', { ...minimalModel, [f]: '1' }, `/${f}`, 'must be a number');
    }
    for (const f of ['thinking_config', 'tiers']) expectIssue('model', { ...minimalModel, [f]: [] }, `/${f}`, 'must be an object');
    for (const f of ['supports_images', 'is_featured']) expectIssue('model', { ...minimalModel, [f]: 'true' }, `/${f}`, 'must be a boolean');
    for (const f of ['api_format', 'credit_tier', 'min_tier', 'featured_tab']) expectIssue('model', { ...fullModel, [f]: 1 }, `/${f}`, 'must be a string');
    expectIssue('model', { ...minimalModel, description: '' }, '/description', 'omitted when empty');
  });
});

test.describe('model-list', () => {
  test('valid: entries, empty list, extra top-level field', () => {
    expectValid('model-list', modelList);
    expectValid('model-list', { object: 'list', data: [] });
    expectValid('model-list', { object: 'list', data: [], has_more: false });
  });

  test('invalid: entry with a backend field reports its pointer', () => {
    const issue = expectIssue('model-list', setAt(modelList, '/data/0/provider', 'x'), '/data/0/provider', 'property is not allowed');
    expect(formatIssues([issue])).toBe('/data/0/provider: property is not allowed');
  });

  test('invalid: object not list, data missing or not an array, featured label on non-featured entry', () => {
    expectIssue('model-list', { ...modelList, object: 'models' }, '/object', 'must be "list"');
    expectIssue('model-list', { object: 'list' }, '/data', 'required property is missing');
    expectIssue('model-list', { data: [] }, '/object', 'required property is missing');
    expectIssue('model-list', { object: 'list', data: {} }, '/data', 'must be an array');
    expectIssue('model-list', setAt(modelList, '/data/1/featured_label', 'x'), '/data/1/featured_label', 'is_featured is false');
  });
});

// ---------------------------------------------------------------------------------------------------------------
// API details

test.describe('validator API', () => {
  test('assertValid passes silently or throws listing every issue', () => {
    expect(() => assertValid('model', minimalModel)).not.toThrow();
    let message = '';
    try {
      assertValid('model', { ...minimalModel, provider: 'x', max_tokens: 1.5 });
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toContain('invalid model');
    expect(message).toContain('/provider: property is not allowed');
    expect(message).toContain('/max_tokens: must be an integer');
  });

  test('formatIssues: one line per issue, (root) for the empty pointer', () => {
    expect(formatIssues([{ pointer: '', message: 'a' }, { pointer: '/x', message: 'b' }])).toBe('(root): a\n/x: b');
    expect(formatIssues([])).toBe('');
  });

  test('pointer tokens are escaped (~0, ~1)', () => {
    expectIssue('model', { ...minimalModel, 'a/b~c': 1 }, '/a~1b~0c', 'property is not allowed');
  });

  test('isIanaTimeZone: runtime names and aliases, never offsets or wrong case', () => {
    for (const z of ['UTC', 'Etc/UTC', 'Europe/Paris', 'America/Argentina/Buenos_Aires', 'Asia/Calcutta', 'Asia/Kolkata', 'America/Port-au-Prince', 'Etc/GMT-14']) {
      expect(isIanaTimeZone(z), z).toBe(true);
    }
    for (const z of ['Mars/Olympus', '+05:00', '05:00', '-08', 'UTC+5', 'GMT+5', 'utc', 'europe/paris', 'Europe/', '', ' Europe/Paris', 'Local']) {
      expect(isIanaTimeZone(z), z).toBe(false);
    }
    // Everything the runtime lists is accepted.
    for (const z of Intl.supportedValuesOf('timeZone')) expect(isIanaTimeZone(z), z).toBe(true);
  });

  test('oneOf/anyOf fan-out collapses to the deepest branch, or to one summary', () => {
    const ajv = new Ajv2020({ allErrors: true, verbose: true, strict: true });
    const fn = ajv.compile({
      type: 'object',
      properties: {
        v: {
          oneOf: [
            { type: 'string' },
            { type: 'object', required: ['kind', 'n'], properties: { kind: { const: 'a' }, n: { type: 'integer' } } },
          ],
        },
      },
    });
    fn({ v: { kind: 'a', n: 'x' } });
    expect(ajvErrorsToIssues(fn.errors ?? [])).toEqual([{ pointer: '/v/n', message: 'must be an integer (got string "x")' }]);
    fn({ v: 5 });
    expect(ajvErrorsToIssues(fn.errors ?? [])).toEqual([{ pointer: '/v', message: 'must be a string or an object (got integer 5)' }]);
  });
});

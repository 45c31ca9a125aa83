// Messages read as sentences: a certifier publishes them. Every message template the judge can produce is driven
// here and read: every `Checker.status(...)` call of the suite, the judge and the proxy (found in the sources with
// the TypeScript parser, with its expected status in the form it is given: numbers or a predicate, and each
// refusal's `statusText`), every registered check of judge/checks/ fed subjects that fail it, and the Checker's
// own "could not judge" forms. No message may double a word, say "undefined" or "[object Object]", say "status a
// different status", or break the sentence (empty parentheses, stray or dangling punctuation, double spaces).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { expect, test } from '@playwright/test';
import { Checker } from '../../judge/checker.ts';
import { TargetResponse, type Exchange } from '../../judge/exchange.ts';
import { readChatStream } from '../../judge/decoding/chat-stream.ts';
import type { Check } from '../../judge/checks/check.ts';
import { COMPLETION_CHECKS, type Completion } from '../../judge/checks/completion.ts';
import { STREAM_CHECKS, type StreamSubject } from '../../judge/checks/stream.ts';
import { ERROR_CHECKS, type Refusal } from '../../judge/checks/errors.ts';
import { MODEL_LIST_CHECKS, type ModelList } from '../../judge/checks/catalog.ts';
import type { SchemaSubject } from '../../judge/checks/schema.ts';
import {
  ALL_CHECKS,
  CHUNK_SCHEMA_CHECKS,
  COMPLETION_SCHEMA_CHECKS,
  ERROR_SCHEMA_CHECKS,
  MODEL_ENTRY_SCHEMA_CHECKS,
  MODEL_LIST_SCHEMA_CHECKS,
  completionIsJson,
} from '../../judge/checks/registry.ts';
import { repoRoot } from '../../run/config.ts';
import { isKnownRequirement } from '../../spec/requirements/index.ts';

type Json = Record<string, unknown>;

/** What breaks a sentence in `message`, line by line (an empty list: it reads). */
function sentenceProblems(message: string): string[] {
  const out: string[] = [];
  if (message.trim() === '') return ['is empty'];
  const lines = message.split('\n');
  lines.forEach((line, i) => {
    // Quoted values are the target's data, not the kit's wording.
    const words = line.replace(/"(?:[^"\\]|\\.)*"/g, '«q»');
    const say = (what: string) => out.push(`${what}: ${JSON.stringify(line)}`);
    if (/\bundefined\b/.test(line)) say('says "undefined"');
    if (line.includes('[object Object]')) say('says "[object Object]"');
    if (/\bNaN\b/.test(words)) say('says "NaN"');
    if (/status a different status/i.test(line)) say('says "status a different status"');
    const doubled = /\b([A-Za-z]+)\s+\1\b/i.exec(words);
    if (doubled) say(`doubles the word "${doubled[1]}"`);
    if (/\S {2,}\S/.test(words)) say('has a double space');
    if (/\(\s*\)/.test(words)) say('has empty parentheses');
    if (/ [,;.](?:\s|$)/.test(words)) say('has a space before punctuation');
    if (/[,;]\s*[,;.]/.test(words)) say('has punctuation doubled');
    if (/[,;]\s*$/.test(line)) say('ends on a comma or semicolon');
    if (/:\s*$/.test(line) && i === lines.length - 1) say('ends on a colon with nothing after it');
    if (line !== line.trimEnd()) say('ends with a space');
    if (!/^\s*[\p{L}\p{N}"'[(/«…]/u.test(line)) say('does not start like a sentence');
  });
  return out;
}

// ---- A scratch Checker and answers to judge (no network) ----

function exchangeOf(status: number, body: string, headers: Record<string, string>, extra: Partial<Exchange> = {}): Exchange {
  return {
    method: 'POST', path: '/v1/chat/completions', url: 'http://127.0.0.1:1/v1/chat/completions', requestHeaders: {}, requestBytes: 2,
    status, responseHeaders: headers, responseBody: body, responseBytes: Buffer.byteLength(body), durationMs: 1, curl: 'curl …', ...extra,
  };
}

function answer(status: number, body: string, contentType: string, extra: Partial<Exchange> = {}): TargetResponse {
  return new TargetResponse(exchangeOf(status, body, { 'content-type': contentType }, extra), Buffer.from(body, 'utf8'));
}

function checkerFor(id: string, res: TargetResponse): Checker {
  const log = { exchanges: [res.exchange], scrub: (s: string) => s };
  return new Checker(log, { declared: () => [id] });
}

// ---- 1. Every status(...) call: found in the sources ----

interface StatusSite {
  where: string;
  id: string;
  /** How the expected status is given: numbers, a predicate, or an expression that may be either. */
  form: 'number' | 'predicate' | 'either';
  numbers: number[];
  what?: string;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const file = path.join(dir, name);
    if (statSync(file).isDirectory()) return sourceFiles(file);
    return name.endsWith('.ts') ? [file] : [];
  });
}

/** A literal's text with every `${…}` replaced by a placeholder that is no word («x»). */
function textOf(node: ts.Node | undefined): string | undefined {
  if (!node) return undefined;
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
  if (ts.isTemplateExpression(node)) return node.head.text + node.templateSpans.map((s) => `«x»${s.literal.text}`).join('');
  if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.QuestionQuestionToken) return textOf(node.right);
  if (ts.isParenthesizedExpression(node)) return textOf(node.expression);
  return undefined;
}

function formOf(node: ts.Node | undefined): Pick<StatusSite, 'form' | 'numbers'> {
  if (!node) return { form: 'either', numbers: [200] };
  if (ts.isNumericLiteral(node)) return { form: 'number', numbers: [Number(node.text)] };
  if (ts.isArrayLiteralExpression(node) && node.elements.every(ts.isNumericLiteral)) return { form: 'number', numbers: node.elements.map((e) => Number((e as ts.NumericLiteral).text)) };
  if (ts.isArrowFunction(node) || ts.isFunctionExpression(node) || ts.isIdentifier(node)) return { form: 'predicate', numbers: [] };
  return { form: 'either', numbers: [200] };
}

function statusSites(): StatusSite[] {
  const sites: StatusSite[] = [];
  for (const file of ['suites', 'judge', 'proxy'].flatMap((d) => sourceFiles(path.join(repoRoot, d)))) {
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    const where = (n: ts.Node) => `${path.relative(repoRoot, file)}:${source.getLineAndCharacterOfPosition(n.getStart()).line + 1}`;
    const visit = (node: ts.Node): void => {
      // check.status('ID', res, expected, what?): the only `.status(...)` with three arguments or more.
      if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && node.expression.name.text === 'status' && node.arguments.length >= 3) {
        const [idArg, , expected, what] = node.arguments;
        const id = idArg && ts.isStringLiteral(idArg) ? idArg.text : 'REQ-001';
        const text = textOf(what);
        sites.push({ where: where(node), id, ...formOf(expected), ...(text !== undefined ? { what: text } : {}) });
      }
      // judgeRefusal(check, res, { id, status, statusText }): the statusText is the `what` of a status(...) call.
      if (ts.isObjectLiteralExpression(node)) {
        const prop = (name: string) => node.properties.find((p): p is ts.PropertyAssignment => ts.isPropertyAssignment(p) && ts.isIdentifier(p.name) && p.name.text === name);
        const statusText = prop('statusText');
        const text = textOf(statusText?.initializer);
        if (statusText && text !== undefined) {
          const idInit = prop('id')?.initializer;
          sites.push({ where: where(node), id: idInit && ts.isStringLiteral(idInit) ? idInit.text : 'REQ-001', ...formOf(prop('status')?.initializer), what: text });
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return sites;
}

test('every status(...) message of the suite, the judge and the proxy reads as a sentence, for numbers and for a predicate', () => {
  const sites = statusSites();
  // The parser found the calls (well over thirty today): an enumeration that finds nothing proves nothing.
  expect(sites.length).toBeGreaterThan(30);
  expect(sites.some((s) => s.form === 'predicate')).toBe(true);
  const refused = answer(500, '{"error":{"message":"the server broke","type":"server_error","code":"internal"}}', 'application/json');
  const problems: string[] = [];
  const messages: string[] = [];
  for (const site of sites) {
    const id = isKnownRequirement(site.id) ? site.id : 'REQ-001';
    const forms: ('number' | 'predicate')[] = site.form === 'either' ? ['number', 'predicate'] : [site.form];
    for (const form of forms) {
      const check = checkerFor(id, refused);
      const expected = form === 'number' ? (site.numbers.length > 0 ? site.numbers : [200]) : () => false;
      if (site.what === undefined) check.status(id, refused, expected);
      else check.status(id, refused, expected, site.what);
      const message = check.records.at(-1)?.message ?? '';
      messages.push(message);
      for (const p of sentenceProblems(message)) problems.push(`${site.where} (${form}): ${p}`);
      // One sentence: "[context, ]expected <status>; received <answer>".
      if (!/^(?:.+[,:] )?expected .+; received HTTP 500: /.test(message)) problems.push(`${site.where} (${form}): not "[context] expected …; received …": ${JSON.stringify(message)}`);
    }
  }
  console.log(`${sites.length} status(...) sites, ${messages.length} messages, e.g.\n  ${messages.filter((_, i) => i % 12 === 0).join('\n  ')}`);
  expect(problems).toEqual([]);
});

test('the status forms: a number, several, a described predicate, a bare predicate, context kept in front', () => {
  const refused = answer(500, '{}', 'application/json');
  const say = (expected: number | number[] | ((s: number) => boolean), what?: string) => {
    const check = checkerFor('REQ-001', refused);
    if (what === undefined) check.status('REQ-001', refused, expected);
    else check.status('REQ-001', refused, expected, what);
    return check.records.at(-1)!.message;
  };
  expect(say(200)).toBe('expected status 200; received HTTP 500: {}');
  expect(say([200, 201], 'for temperature 0.5, status')).toBe('for temperature 0.5, expected status 200 or 201; received HTTP 500: {}');
  expect(say(() => false, 'for a request with an unknown field, a client error (4xx) status')).toBe('for a request with an unknown field, expected a client error (4xx) status; received HTTP 500: {}');
  expect(say(() => false, 'with stream true: status')).toBe('with stream true: expected a status the requirement allows; received HTTP 500: {}');
  expect(say(() => false)).toBe('expected a status the requirement allows; received HTTP 500: {}');
  expect(say(() => false, 'under the /v1 prefix, a status that shows the route exists (not 404 or 405)')).toBe('under the /v1 prefix, expected a status that shows the route exists (not 404 or 405); received HTTP 500: {}');
});

// ---- 2. Every registered check, fed subjects that fail it ----

const NOW = () => Math.floor(Date.now() / 1000);

/** Completions that break every completion check at least once. */
const BAD_COMPLETIONS: Json[] = [
  {
    id: '', object: 'chat.completion', created: Date.now(), model: 'acme/other',
    choices: [
      {
        index: 5,
        finish_reason: 'stop',
        message: {
          role: 'assistant',
          content: 'Hello there.',
          tool_calls: [
            { id: 'call_1', type: 'function', function: { name: 'lookup', arguments: '{"city": ' } },
            { id: 'call_1', type: 'function', function: { name: 'lookup', arguments: '{}' } },
            { type: 'function', function: { name: 'lookup', arguments: 'city=Paris' } },
            { id: '', type: 'function', function: { name: 'lookup', arguments: '{}' } },
          ],
          annotations: [{ type: 'file_citation', file_id: 'f1' }, { type: 'url_citation', url_citation: { url: 'https://example.com', title: 'Example', start_index: 0, end_index: 999 } }],
          service_web_search: [{ type: 'search', query: 'weather' }],
        },
      },
    ],
    usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 7, prompt_tokens_details: { cached_tokens: 12 }, service_web_search_calls: 3 },
  },
  { id: 'chatcmpl-2', object: 'chat.completion', created: NOW(), model: 'm', choices: [], usage: { prompt_tokens: 4, completion_tokens: 1, total_tokens: 5, service_web_search_calls: 0 } },
  // A stale created (seconds, years ago); a search action listed with usage that does not count it.
  {
    id: 'chatcmpl-3', object: 'chat.completion', created: 1_700_000_000, model: 'm',
    choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: 'Paris.', service_web_search: [{ type: 'search', query: 'louvre' }] } }],
    usage: { prompt_tokens: 4, completion_tokens: 1, total_tokens: 5 },
  },
];

const chunk = (choices: unknown[], extra: Json = {}): Json => ({ id: 'chatcmpl-s', object: 'chat.completion.chunk', created: NOW(), model: 'm', choices, ...extra });
const sse = (payloads: (Json | string)[]) => payloads.map((p) => `data: ${typeof p === 'string' ? p : JSON.stringify(p)}\n\n`).join('');

/** Streams (body, content type, what the request asked) that break every stream check at least once. */
const BAD_STREAMS: { body: string; type?: string; includeUsage?: boolean; expectText?: boolean; error?: string }[] = [
  // A call whose later delta changes its id; a chunk stamped years ago.
  {
    body: sse([
      chunk([{ index: 0, delta: { role: 'assistant', tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'f', arguments: '' } }] } }]),
      chunk([{ index: 0, delta: { tool_calls: [{ index: 0, id: 'call_2', function: { arguments: '{}' } }] }, finish_reason: 'tool_calls' }], { created: 1_700_000_000 }),
      '[DONE]',
    ]),
  },
  // Named events, a line that is no SSE field, events run together, payloads that are not JSON or not objects; no [DONE].
  { body: `event: delta\ndata: ${JSON.stringify(chunk([{ index: 0, delta: { role: 'assistant', content: 'Hi' } }]))}\n\nretry-later: soon\ndata: {"a":1}\ndata: {"b":2}\n\ndata: not json\n\ndata: [1,2]\n\n`, type: 'application/json' },
  // [DONE] twice, another model, text outside the delta, ids that change, created in milliseconds, no role, no finish_reason, no choices,
  // malformed tool-call deltas, two usage chunks.
  {
    body: sse([
      chunk([{ index: 0, delta: {}, text: 'Hello' }], { model: 'acme/other' }),
      chunk([{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: '{}' } }] } }], { id: 'chatcmpl-t', created: Date.now() }),
      chunk([{ index: 0, delta: { tool_calls: [{ index: 0, id: '', type: '', function: { name: '' } }] } }]),
      chunk([{ index: 0, delta: { tool_calls: [{ index: 1, id: 'call_2', type: 'function' }] } }]),
      { id: 'chatcmpl-s', object: 'chat.completion.chunk', created: NOW(), model: 'm', usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } },
      chunk([], { usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } }),
      '[DONE]',
      '[DONE]',
    ]),
    includeUsage: true,
  },
  // No usage although asked; no text although text was expected.
  { body: sse([chunk([{ index: 0, delta: { role: 'assistant' }, finish_reason: 'stop' }]), '[DONE]']), includeUsage: true, expectText: true },
  // A usage chunk nobody asked for; a tool call ending on "stop".
  {
    body: sse([
      chunk([{ index: 0, delta: { role: 'assistant', tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'f', arguments: '{}' } }] } }]),
      chunk([{ index: 0, delta: {}, finish_reason: 'stop' }], { usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } }),
      '[DONE]',
    ]),
  },
  // No event at all; a stream cut by the connection.
  { body: 'Hello, this is not an event stream.' },
  { body: sse([chunk([{ index: 0, delta: { role: 'assistant', content: 'Hi' } }])]), error: 'the connection closed before the response body was complete' },
];

const BAD_MODEL_LISTS: { body: unknown; type: string; entries: Json[] }[] = [
  { body: 'not a list', type: 'text/html', entries: [] },
  {
    body: {},
    type: 'application/json',
    entries: [
      { id: 'acme/a', provider: 'acme-cloud', featured_label: 'New', featured_tab: 'chat', max_tokens: 9000, context_window: 4000, input_price: -1, output_price: -2, cache_write_price: -3, cache_read_price: -4 },
      { id: 'acme/a', is_featured: false, featured_label: 'Hot' },
      // An entry without an id: the messages name it by what it lacks.
      { upstream: 'x', featured_tab: 'chat', max_tokens: 10, context_window: 5, input_price: -1 },
    ],
  },
];

/** Values each schema rejects in many places (wrong types, nulls, missing fields). */
const BAD_SCHEMA_VALUES: Record<string, unknown[]> = {
  completion: [
    { id: 3, object: 'completion', created: 'now', model: null, choices: [{ index: '0', message: { role: 'robot', content: 5, tool_calls: [{ id: 1, type: 'tool', function: { name: 2, arguments: {} } }], annotations: [{ type: 'url_citation', url_citation: { url: 1, title: 2, start_index: 'a', end_index: 'b' } }], service_web_search: [{ type: 'search', query: 1, queries: 'q', url: 3, pattern: 4 }], reasoning_content: 7 }, finish_reason: 'done' }], usage: { prompt_tokens: '1', completion_tokens: -1, total_tokens: null, service_web_search_calls: 'x' } },
    'not an object',
  ],
  chunk: [{ id: 3, object: 'chunk', created: 'now', model: null, choices: [{ index: 'a', delta: { role: 1, content: 2, tool_calls: 'x' }, finish_reason: 9 }] }],
  error: [{ error: { type: 1, code: null, message: 3 } }, { message: 'no error object' }],
  modelList: [{ object: 'catalog', data: [{ id: 1, name: null, max_tokens: 'big', context_window: -1, input_price: 'cheap', supports_images: 'yes', is_featured: 'no', tiers: 3 }] }, []],
  model: [{ id: null, object: 'm', name: 1, max_tokens: 'big', provider: 'x' }],
};

/** Every check of the registry with the subjects that fail it, by kind. */
function failingRuns(): { check: Check<never>; problems: string[] }[] {
  const runs: { check: Check<never>; problems: string[] }[] = [];
  const drive = <S>(checks: readonly Check<S>[], subjects: S[]) => {
    for (const c of checks) {
      const problems = subjects.flatMap((s) => [...(c.run(s) ?? [])]);
      runs.push({ check: c as unknown as Check<never>, problems });
    }
  };
  const completions: Completion[] = BAD_COMPLETIONS.map((body) => ({ body, model: 'm', what: 'completion', cap: 64 }));
  drive(COMPLETION_CHECKS, completions);
  const streams: StreamSubject[] = BAD_STREAMS.map((s) => {
    const res = answer(200, s.body, s.type ?? 'text/event-stream', s.error ? { error: s.error, errorKind: 'reset' } : {});
    const subject: StreamSubject = { res, stream: readChatStream([new Uint8Array(Buffer.from(s.body))]), model: 'm' };
    if (s.includeUsage !== undefined) subject.includeUsage = s.includeUsage;
    if (s.expectText !== undefined) subject.expectText = s.expectText;
    return subject;
  });
  drive(STREAM_CHECKS, streams);
  const refusals: Refusal[] = [{ res: answer(502, '<html>Bad gateway</html>', 'text/html'), body: undefined }, { res: answer(400, '{"message":"bad"}', 'application/json'), body: { message: 'bad' } }];
  drive(ERROR_CHECKS, refusals);
  const lists: ModelList[] = BAD_MODEL_LISTS.map((l) => ({ res: answer(200, typeof l.body === 'string' ? l.body : JSON.stringify(l.body), l.type), body: l.body, entries: l.entries }));
  drive(MODEL_LIST_CHECKS, lists);
  drive([completionIsJson], [{ res: answer(200, 'Hello', 'text/plain'), body: undefined }]);
  const values = (kind: string, label: string): SchemaSubject[] => BAD_SCHEMA_VALUES[kind]!.map((data, i) => ({ values: [{ label: `${label} ${i}`, data }] }));
  drive(COMPLETION_SCHEMA_CHECKS, values('completion', 'chat completion'));
  drive(CHUNK_SCHEMA_CHECKS, values('chunk', 'chunk'));
  drive(ERROR_SCHEMA_CHECKS, values('error', 'error body'));
  drive(MODEL_LIST_SCHEMA_CHECKS, values('modelList', 'GET /v1/models'));
  drive(MODEL_ENTRY_SCHEMA_CHECKS, values('model', 'GET /v1/models/{id}'));
  return runs;
}

test('every check of judge/checks/ fails on a bad subject, and each of its messages reads as a sentence', () => {
  const runs = failingRuns();
  // The enumeration covers the registry: a check added to it without a subject here fails this test.
  const driven = new Set(runs.map((r) => r.check));
  expect(ALL_CHECKS.filter((c) => !driven.has(c)).map((c) => `${c.id} ${c.name}`)).toEqual([]);
  // Every check that is not a schema rule failed at least once, so its templates were read. (Schema rules share
  // one template, the validator's issues under a label: each schema's checks must fail somewhere.)
  const schemaChecks = new Set<Check<never>>([...COMPLETION_SCHEMA_CHECKS, ...CHUNK_SCHEMA_CHECKS, ...ERROR_SCHEMA_CHECKS, ...MODEL_LIST_SCHEMA_CHECKS, ...MODEL_ENTRY_SCHEMA_CHECKS] as unknown as Check<never>[]);
  expect(runs.filter((r) => !schemaChecks.has(r.check) && r.problems.length === 0).map((r) => `${r.check.id} ${r.check.name}`)).toEqual([]);
  for (const group of [COMPLETION_SCHEMA_CHECKS, CHUNK_SCHEMA_CHECKS, ERROR_SCHEMA_CHECKS, MODEL_LIST_SCHEMA_CHECKS, MODEL_ENTRY_SCHEMA_CHECKS]) {
    const members = new Set<unknown>(group);
    expect(runs.filter((r) => members.has(r.check)).some((r) => r.problems.length > 0)).toBe(true);
  }
  const problems = runs.flatMap((r) => r.problems.flatMap((m) => sentenceProblems(m).map((p) => `${r.check.id} ${r.check.name}: ${p}`)));
  const all = runs.flatMap((r) => r.problems);
  console.log(`${runs.length} checks, ${all.length} problem messages read`);
  // DUMP_MESSAGES=1 prints every message, for a reader's eye.
  if (process.env.DUMP_MESSAGES) console.log(all.join('\n---\n'));
  expect([...new Set(problems)]).toEqual([]);
});

// ---- 3. The Checker's own forms ----

test('the could-not-judge forms read as sentences: no response, an answer the kit stopped waiting for, a rate limit', () => {
  const forms = [
    answer(0, '', 'application/json', { error: 'connect ECONNREFUSED 127.0.0.1:1', errorKind: 'refused' }),
    answer(200, 'data: {}\n\n', 'text/event-stream', { error: 'request timed out after 15000 ms while reading the response body (the idle timeout: no byte in that time): HTTP 200 arrived at 0.1 s, then 10 body byte(s) (1 event(s)), the last at 0.1 s, 15000 ms before the kit stopped waiting', errorKind: 'timeout' }),
    answer(429, '{}', 'application/json', { error: 'rate limited: still HTTP 429 after 3 retries (the most the run allows); the request was not about it, so it is not judged', errorKind: 'rate-limited' }),
  ];
  const problems: string[] = [];
  for (const res of forms) {
    const check = checkerFor('REQ-001', res);
    check.status('REQ-001', res, 200);
    const record = check.records.at(-1)!;
    expect(record.status).toBe('error');
    for (const p of sentenceProblems(record.message ?? '')) problems.push(p);
  }
  expect(problems).toEqual([]);
});

// The kit's own rules (the catalog's `mock-only` records about the kit's code): the reference SSE consumer
// fed synthetic byte sequences (no target needed), the kit's use of the catalog, its search count, its
// conversation hygiene and retry policy, and what the mock exposes of routing (x-mock-route) where the target
// cooperates. What cannot be checked honestly is skipped with the reason.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { req, test } from '../lib/test-fixtures.ts';
import { readChatStream, streamedAnswer, StreamFailure, type ChatStream } from '../../judge/decoding/chat-stream.ts';
import { decodeSse, transcribeSse, type SseEvent } from '../../judge/decoding/sse.ts';
import { repoRoot, type RunConfig } from '../../run/config.ts';
import { pickModel, usableModels, type Discovery, type ModelEntry } from '../lib/discovery.ts';
import { searchReport } from '../../judge/search.ts';
import { assembledCompletion } from '../../judge/checks/stream.ts';
import { COMPLETION_CHECKS } from '../../judge/checks/completion.ts';
import { COMPLETION_SCHEMA_CHECKS } from '../../judge/checks/registry.ts';
import { Checker } from '../../judge/checker.ts';
import { streamUsage } from '../../judge/decoding/chat-stream.ts';
import { chatRetryingUnavailable, RESPONSE_ONLY_MESSAGE_FIELDS, toRequestMessage } from '../lib/clients/kit-policies.ts';
import type { TargetResponse } from '../../judge/exchange.ts';

/** What a finding on the kit's own code judged: synthetic input, no exchange of the run. */
const SYNTHETIC = null;

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const enc = new TextEncoder();
const show = (events: SseEvent[]) => JSON.stringify(events);

// ---------------------------------------------------------------------------------------------------------
// The reference consumer (judge/decoding/sse.ts, judge/decoding/chat-stream.ts), fed synthetic bodies.

const NOW = 1_700_000_000;
const chunk = (delta: Json, finish?: string): Json => ({ id: 'c', object: 'chat.completion.chunk', created: NOW, model: 'm', choices: [{ index: 0, delta, ...(finish ? { finish_reason: finish } : {}) }] });
/** A stream whose text has 2-, 3- and 4-byte UTF-8 characters. */
const TEXT_PIECES = ['Grüße ', 'aus ', '日本 ', '🙂!'];
const PAYLOADS: Json[] = [chunk({ role: 'assistant' }), ...TEXT_PIECES.map((t) => chunk({ content: t })), chunk({}, 'stop')];
const lfBody = (payloads: (Json | string)[] = [...PAYLOADS, '[DONE]']) => payloads.map((p) => `data: ${typeof p === 'string' ? p : JSON.stringify(p)}\n\n`).join('');

/** Every way of cutting `bytes` into two network chunks. */
function allTwoWaySplits(bytes: Uint8Array): Uint8Array[][] {
  return Array.from({ length: bytes.length + 1 }, (_, k) => [bytes.subarray(0, k), bytes.subarray(k)]);
}
const oneByteChunks = (bytes: Uint8Array) => Array.from({ length: bytes.length }, (_, i) => bytes.subarray(i, i + 1));

test.describe('the reference SSE consumer', () => {
  test('joins the data: lines of one event with a newline', req('STREAM-006'), async ({ check }) => {
    const two = decodeSse(['data: first\ndata: second\n\n']);
    check.that('STREAM-006', two.length === 1 && two[0]!.data === 'first\nsecond', () => `"data: first\\ndata: second" gave ${show(two)}; expected one event "first\\nsecond"`, SYNTHETIC);
    const withEmpty = decodeSse(['data: a\ndata:\ndata: b\n\n']);
    check.that('STREAM-006', withEmpty.length === 1 && withEmpty[0]!.data === 'a\n\nb', () => `an empty data: line inside an event gave ${show(withEmpty)}; expected "a\\n\\nb"`, SYNTHETIC);
    // A chunk pretty-printed over several data: lines is one chunk.
    const pretty = JSON.stringify(PAYLOADS[1], null, 1).split('\n').map((l) => `data: ${l}\n`).join('') + '\n' + 'data: [DONE]\n\n';
    const s = readChatStream([pretty]);
    check.that('STREAM-006', s.chunks.length === 1 && JSON.stringify(s.chunks[0]) === JSON.stringify(PAYLOADS[1]) && s.outcome === 'complete', () => `a chunk spread over ${pretty.split('\n').length} lines decoded to ${JSON.stringify(s.chunks)} (${s.outcome})`, SYNTHETIC);
  });

  test('frames CRLF and LF (and CR) streams identically, also when a CRLF is cut between chunks', req('STREAM-008'), async ({ check }) => {
    const lf = lfBody();
    const reference = decodeSse([lf]);
    const variants: [string, (string | Uint8Array)[]][] = [
      ['CRLF', [lf.replace(/\n/g, '\r\n')]],
      ['CR', [lf.replace(/\n/g, '\r')]],
      ['mixed CRLF and LF', [lf.replace(/\n\n/g, '\r\n\n')]],
    ];
    const crlf = lf.replace(/\n/g, '\r\n');
    // Every cut of the CRLF body, including between the CR and the LF of a line ending.
    for (const [i, split] of allTwoWaySplits(enc.encode(crlf)).entries()) variants.push([`CRLF cut at byte ${i}`, split]);
    const differing = variants.filter(([, chunks]) => show(decodeSse(chunks)) !== show(reference)).map(([name]) => name);
    check.that('STREAM-008', reference.length === PAYLOADS.length + 1 && differing.length === 0, () => `decoded differently from the LF body (${reference.length} events): ${differing.slice(0, 8).join(', ')}${differing.length > 8 ? ` and ${differing.length - 8} more` : ''}`, SYNTHETIC);
  });

  test('consumes a final event that lacks its blank line at end of body', req('STREAM-011'), async ({ check }) => {
    const body = lfBody();
    const cases: [string, string][] = [
      ['[DONE] and no line ending', body.replace(/\n\n$/, '')],
      ['[DONE] and one LF', body.replace(/\n\n$/, '\n')],
      ['[DONE] and one CRLF', body.replace(/\n/g, '\r\n').replace(/\r\n\r\n$/, '\r\n')],
      ['[DONE] and a lone CR', body.replace(/\n/g, '\r').replace(/\r\r$/, '\r')],
    ];
    for (const [what, text] of cases) {
      const s = readChatStream([text]);
      check.that('STREAM-011', s.outcome === 'complete' && s.donePositions.length === 1 && s.chunks.length === PAYLOADS.length, () => `${what}: the final [DONE] was not consumed (outcome ${s.outcome}, ${s.chunks.length} chunks)`, SYNTHETIC);
    }
    const lastChunk = readChatStream([lfBody(PAYLOADS).replace(/\n\n$/, '')]);
    check.that('STREAM-011', lastChunk.chunks.length === PAYLOADS.length, () => `a final JSON chunk without its blank line was dropped: ${lastChunk.chunks.length} of ${PAYLOADS.length} chunks`, SYNTHETIC);
  });

  test('decodes a multi-byte character split across network chunks', req('STREAM-014'), async ({ check, config }) => {
    const bytes = enc.encode(lfBody());
    const expected = TEXT_PIECES.join('');
    const bad: string[] = [];
    for (const [k, split] of allTwoWaySplits(bytes).entries()) {
      const s = readChatStream(split);
      const text = s.choices.get(0)?.content;
      if (text !== expected || s.transcript.decodeError) bad.push(`cut at byte ${k}: ${JSON.stringify(text)}${s.transcript.decodeError ? ` (${s.transcript.decodeError})` : ''}`);
    }
    const bytewise = readChatStream(oneByteChunks(bytes)).choices.get(0)?.content;
    if (bytewise !== expected) bad.push(`one byte per chunk: ${JSON.stringify(bytewise)}`);
    check.that('STREAM-014', bad.length === 0, () => `expected the text ${JSON.stringify(expected)}; ${bad.slice(0, 5).join('; ')}`, SYNTHETIC);
    // Any chunking of a body mixing CRLF, multi-line events and multi-byte text decodes like the whole body.
    const mixed = enc.encode(lfBody().replace(/\n/g, '\r\n') + ': keep-alive\r\n');
    const whole = show(transcribeSse([mixed]).events);
    const cuts = fc.uniqueArray(fc.integer({ min: 1, max: mixed.length - 1 }), { maxLength: 40 }).map((a) => [...a].sort((x, y) => x - y));
    const run = fc.check(
      fc.property(cuts, (points) => {
        const bounds = [0, ...points, mixed.length];
        const pieces = bounds.slice(1).map((end, i) => mixed.subarray(bounds[i]!, end));
        return show(transcribeSse(pieces).events) === whole;
      }),
      { seed: config.seed, numRuns: Math.max(config.fuzzRuns, 50) },
    );
    check.that('STREAM-014', !run.failed, () => `a chunking decoded differently from the whole body (seed ${config.seed}, counterexample cut points ${JSON.stringify(run.counterexample)})`, SYNTHETIC);
    // A body that ends inside a character is reported, not silently patched.
    const cut = bytes.subarray(0, bytes.indexOf(0xf0) + 2);
    const t = transcribeSse([cut]);
    check.that('STREAM-014', t.decodeError !== undefined, 'a body that ends inside a 4-byte character must be reported as undecodable, not decoded with a replacement character', SYNTHETIC);
  });

  test('treats an in-stream error event as a failure, never as a shorter answer', req('STREAM-018'), async ({ check }) => {
    const err = { error: { type: 'api_error', code: 'upstream_error', message: 'boom' } };
    const cases: [string, string][] = [
      ['error event after two text chunks, then end of body', lfBody([...PAYLOADS.slice(0, 3), err])],
      ['error event, then [DONE]', lfBody([...PAYLOADS.slice(0, 3), err, '[DONE]'])],
      ['error event as the first event', lfBody([err])],
      ['error event without its blank line', lfBody([...PAYLOADS.slice(0, 3), err]).replace(/\n\n$/, '')],
      ['error event in CRLF framing', lfBody([...PAYLOADS.slice(0, 3), err]).replace(/\n/g, '\r\n')],
      ['a chunk with choices and a truthy error object', lfBody([...PAYLOADS.slice(0, 3), { ...chunk({ content: 'x' }), error: { message: 'boom' } }, '[DONE]'])],
      ['body ended without [DONE] and without an error', lfBody(PAYLOADS.slice(0, 3))],
    ];
    for (const [what, body] of cases) {
      const s = readChatStream([body]);
      const r = answerOrFailure(s);
      check.that('STREAM-018', r.failed, () => `${what}: the consumer returned the answer ${JSON.stringify(r.text)} instead of a failure`, SYNTHETIC);
    }
    const ok = answerOrFailure(readChatStream([lfBody()]));
    check.that('STREAM-018', !ok.failed && ok.text === TEXT_PIECES.join(''), () => `a complete stream must give its whole answer; received ${JSON.stringify(ok)}`, SYNTHETIC);
    // A falsy error key on a normal chunk is not an error event.
    const falsy = answerOrFailure(readChatStream([lfBody([{ ...PAYLOADS[0]!, error: null }, ...PAYLOADS.slice(1), '[DONE]'])]));
    check.that('STREAM-018', !falsy.failed, () => `a chunk with "error": null is not an error event; the consumer failed: ${JSON.stringify(falsy)}`, SYNTHETIC);
  });

  test('reads every answer the contract allows: optional fields omitted, fields it does not list, data: without the space', req('RESP-032'), async ({ check }) => {
    const extra = { system_fingerprint: 'fp', x_vendor: { any: 1 } };
    // No finish_reason, extra fields on chunks and deltas, a usage-only chunk without choices, no space after data:.
    const payloads: (Json | string)[] = [
      { ...chunk({ role: 'assistant', ...extra }), ...extra },
      ...TEXT_PIECES.map((t) => chunk({ content: t })),
      { id: 'c', object: 'chat.completion.chunk', created: NOW, model: 'm', usage: { prompt_tokens: 1, completion_tokens: 4, total_tokens: 5 } },
      '[DONE]',
    ];
    const body = payloads.map((p) => `data:${typeof p === 'string' ? p : JSON.stringify(p)}\n\n`).join('');
    const read = answerOrFailure(readChatStream([body]));
    check.that('RESP-032', !read.failed && read.text === TEXT_PIECES.join(''), () => `a legal stream (no finish_reason, extra fields, a bare usage chunk, data: without the space) gave ${JSON.stringify(read)}`, SYNTHETIC);
    // A search answer with a citation without title and an action without url, no usage: read, nothing made up.
    const message = { role: 'assistant', content: 'Paris.', annotations: [{ type: 'url_citation', url_citation: { url: 'https://example.org/1', start_index: 0, end_index: 5 } }], service_web_search: [{ type: 'open_page' }] };
    const report = searchReport({ id: 'x', object: 'chat.completion', created: NOW, model: 'm', choices: [{ index: 0, message }], ...extra });
    check.that('RESP-032', report.annotations === 1 && report.actions === 1 && report.calls === undefined, () => `a search answer with its optional fields omitted read as ${JSON.stringify(report)}`, SYNTHETIC);
  });
});

function answerOrFailure(s: ChatStream): { failed: boolean; text?: string; error?: string } {
  try {
    return { failed: false, text: streamedAnswer(s).content };
  } catch (err) {
    return err instanceof StreamFailure ? { failed: true, error: err.message } : { failed: false, error: `unexpected ${String(err)}` };
  }
}

// ---------------------------------------------------------------------------------------------------------
// The kit's own code and its use of the catalog.

/** The suite's TypeScript sources, whole-line comments removed. */
function suiteSources(): { file: string; text: string }[] {
  const dir = path.join(repoRoot, 'suites');
  return (readdirSync(dir, { recursive: true }) as string[])
    .filter((f) => f.endsWith('.ts'))
    .map((f) => ({ file: `suites/${f}`, text: readFileSync(path.join(dir, f), 'utf8').split('\n').filter((l) => !/^\s*(\/\/|\*|\/\*)/.test(l)).join('\n') }));
}

const MODEL_SCHEMA = path.join(repoRoot, 'spec/schemas/model.schema.json');
const MOCK_CATALOG = path.join(repoRoot, 'fixtures/mock/catalog.json');

test.describe("the kit's own code", () => {
  test('never reads or expects a backend-naming catalog field', req('CAT-003'), async ({ check }) => {
    const listed = new Set(Object.keys((JSON.parse(readFileSync(MODEL_SCHEMA, 'utf8')) as { properties: Json }).properties));
    const discoverySource = readFileSync(path.join(repoRoot, 'suites/lib/discovery.ts'), 'utf8');
    const block = /export interface ModelEntry \{([\s\S]*?)\n\}/.exec(discoverySource)?.[1];
    if (!block) return check.skip('suites/lib/discovery.ts declares no ModelEntry interface to inspect');
    const declared = [...block.matchAll(/^\s*(\w+)\??:/gm)].map((m) => m[1]!);
    const unlisted = declared.filter((f) => !listed.has(f));
    check.that('CAT-003', unlisted.length === 0, () => `the kit's catalog entry type declares fields 2.10 does not list: ${unlisted.join(', ')}`, SYNTHETIC);
    // Reads of a backend-naming field off a catalog entry anywhere in the suite's code.
    const read = /\.\s*(backend|upstream|serving_provider|provider_name|backend_provider)\b|\[\s*['"](provider|backend|upstream|serving_provider|provider_name)['"]\s*\]|\b(m|entry|model|listed|one|anon)\??\.provider\b/;
    const hits = suiteSources().flatMap(({ file, text }) => text.split('\n').map((l, i) => [file, i + 1, l] as const).filter(([, , l]) => read.test(l)).map(([f, n, l]) => `${f}:${n}: ${l.trim().slice(0, 120)}`));
    check.that('CAT-003', hits.length === 0, () => `the suite reads a backend-naming field:\n${hits.slice(0, 10).join('\n')}`, SYNTHETIC);
  });

  test('takes model ids from the live catalog and hard-codes none', req('CAT-040'), async ({ check, discovery, target }) => {
    if (!existsSync(MOCK_CATALOG)) return check.skip('fixtures/mock/catalog.json is missing: no list of ids to look for');
    const ids = ((JSON.parse(readFileSync(MOCK_CATALOG, 'utf8')) as { entries?: { id?: unknown }[] }).entries ?? []).map((e) => e.id).filter((id): id is string => typeof id === 'string');
    const hits: string[] = [];
    for (const { file, text } of suiteSources()) {
      for (const id of ids) {
        const esc = id.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
        if (new RegExp(`(['"\`])${esc}\\1`).test(text)) hits.push(`${file}: "${id}"`);
      }
    }
    check.that('CAT-040', ids.length > 0 && hits.length === 0, () => (ids.length === 0 ? 'the mock fixture lists no ids' : `model ids hard-coded in the suite: ${hits.join(', ')}`), SYNTHETIC);
    // What discovery picks from was read from the live catalog at run time.
    if (discovery.catalogError) return check.skip(`discovery could not read the catalog: ${discovery.catalogError}`);
    const live = await target.get('/v1/models');
    const body = live.json();
    const liveIds = new Set(isObject(body) && Array.isArray(body.data) ? body.data.filter(isObject).map((m) => m.id) : []);
    const notLive = discovery.models.map((m) => m.id).filter((id) => !liveIds.has(id));
    check.that('CAT-040', liveIds.size > 0 && notLive.length === 0, () => (liveIds.size === 0 ? `the live catalog could not be read: ${live.describe()}` : `discovery offers ids the live catalog does not list: ${notLive.join(', ')}`), null /* the live catalog, read by discovery */);
  });

  test('tests optional catalog fields for presence, never relying on a placeholder', req('CAT-042'), async ({ check }) => {
    // Synthetic entries: one with every optional field omitted, one with null placeholders.
    const bare: ModelEntry = { id: 'x-bare', name: 'Bare', min_tier: 't', supports_images: false, supports_caching: false, supports_reasoning: false };
    const nulls = { id: 'x-nulls', name: 'Nulls', min_tier: 't', max_tokens: null, output_price: null, supports_images: null, supports_reasoning: null } as unknown as ModelEntry;
    const full: ModelEntry = { id: 'x-full', name: 'Full', min_tier: 't', supports_images: true, supports_caching: true, supports_reasoning: true, max_tokens: 100, input_price: 2, output_price: 2 };
    const cheap: ModelEntry = { id: 'x-cheap', name: 'Cheap', min_tier: 't', supports_images: false, supports_caching: false, supports_reasoning: false, input_price: 0.1, output_price: 0.1 };
    const d: Discovery = { models: [nulls, bare, full, cheap], searchProbes: [] };
    const order = usableModels(d, {}).map((m) => m.id);
    check.that('CAT-042', order.indexOf('x-cheap') < order.indexOf('x-full') && order.indexOf('x-full') < Math.min(order.indexOf('x-bare'), order.indexOf('x-nulls')), () => `entries without published prices must rank after priced ones, not as free; order ${order.join(', ')}`, SYNTHETIC);
    const picks = {
      publishedMaxTokens: pickModel(d, {}, { publishedMaxTokens: true })?.id,
      images: pickModel(d, {}, { images: true })?.id,
      reasoning: pickModel(d, {}, { reasoning: true })?.id,
    };
    check.that('CAT-042', picks.publishedMaxTokens === 'x-full' && picks.images === 'x-full' && picks.reasoning === 'x-full', () => `a capability or limit is taken only from a present value (never from an omitted field or a null placeholder); picked ${JSON.stringify(picks)}`, SYNTHETIC);
    const noImages = pickModel({ models: [nulls, bare], searchProbes: [] }, {}, { images: true });
    check.that('CAT-042', noImages === undefined, () => `picked ${noImages?.id} for images though no entry has supports_images true`, SYNTHETIC);
  });

  test('counts searches from usage.service_web_search_calls, never from annotations', req('SEARCH-040'), async ({ check }) => {
    const citation = (i: number) => ({ type: 'url_citation', url_citation: { url: `https://example.org/${i}`, start_index: 0, end_index: 1 } });
    const message = { role: 'assistant', content: 'Paris.', annotations: [citation(1), citation(2), citation(3)] };
    const counted = searchReport({ choices: [{ index: 0, message }], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2, service_web_search_calls: 1 } });
    check.that('SEARCH-040', counted.calls === 1 && counted.annotations === 3, () => `3 citations and service_web_search_calls 1: the kit read ${JSON.stringify(counted.calls)} searches`, SYNTHETIC);
    const absent = searchReport({ choices: [{ index: 0, message }], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } });
    check.that('SEARCH-040', absent.calls === undefined, () => `without service_web_search_calls the kit derived ${absent.calls} searches (from annotations?)`, SYNTHETIC);
    // The streamed path: provenance in a delta, no usage block: no count is made up.
    const s = readChatStream([lfBody([chunk({ role: 'assistant', content: 'Paris.', annotations: message.annotations }), chunk({}, 'stop'), '[DONE]'])]);
    const assembled = assembledCompletion(s);
    check.that('SEARCH-040', streamUsage(s) === undefined && assembled !== undefined && !('usage' in assembled), () => `a stream with citations and no usage block was given a usage: ${JSON.stringify(assembled?.usage)}`, SYNTHETIC);
    const derive = /service_web_search_calls[^;\n]*annotations[^;\n]*\.length|annotations[^;\n]*\.length[^;\n]*service_web_search_calls/;
    const hits = suiteSources().filter(({ text }) => derive.test(text)).map(({ file }) => file);
    check.that('SEARCH-040', hits.length === 0, () => `code deriving service_web_search_calls from annotations: ${hits.join(', ')}`, SYNTHETIC);
  });

  test('strips response-only fields before sending an assistant message back', req('SEARCH-030'), async ({ check, target, discovery, config }) => {
    const returned: Json = {
      role: 'assistant',
      content: 'The Louvre is in Paris.',
      annotations: [{ type: 'url_citation', url_citation: { url: 'https://example.org/louvre', start_index: 17, end_index: 22 } }],
      service_web_search: [{ type: 'search', query: 'Louvre city' }],
      refusal: 'not a request field either',
    };
    const back = toRequestMessage(returned);
    const kept = RESPONSE_ONLY_MESSAGE_FIELDS.filter((f) => f in back);
    check.that('SEARCH-030', kept.length === 0 && back.content === returned.content && back.role === 'assistant', () => `the message sent back is ${JSON.stringify(back)}; it must keep role and content and drop ${kept.join(', ')}`, SYNTHETIC);
    // On the wire: the next turn's request carries neither field.
    const model = pickModel(discovery, config.profile, { reasoning: false }) ?? pickModel(discovery, config.profile);
    if (!model) return check.skip(discovery.catalogError ?? 'no usable model to send the next turn to');
    const res = await target.chat({ model: model.id, messages: [{ role: 'user', content: 'Where is the Louvre?' }, back, { role: 'user', content: 'Thanks. Say bye.' }], max_completion_tokens: 8 });
    const sent = JSON.parse(res.exchange.requestBody ?? '{}') as { messages?: Json[] };
    const leaked = (sent.messages ?? []).flatMap((m, i) => RESPONSE_ONLY_MESSAGE_FIELDS.filter((f) => f in m).map((f) => `messages[${i}].${f}`));
    check.that('SEARCH-030', leaked.length === 0 && Array.isArray(sent.messages), () => `the request sent carries response-only fields: ${leaked.join(', ')}`, SYNTHETIC);
  });

  test('picks image models from the catalog: never one with supports_images false', req('IMG-007'), async ({ check, discovery, config }) => {
    const entry = (id: string, images: unknown, price: number) => ({ id, name: id, min_tier: 't', supports_images: images, supports_caching: false, supports_reasoning: false, input_price: price, output_price: price }) as unknown as ModelEntry;
    // The cheapest entries are the ones that must not be picked.
    const d: Discovery = { models: [entry('x-no', false, 0), entry('x-absent', undefined, 0), entry('x-null', null, 0), entry('x-yes', true, 5)], searchProbes: [] };
    const picked = pickModel(d, {}, { images: true })?.id;
    check.that('IMG-007', picked === 'x-yes', () => `for image parts the kit picked ${picked}; only an entry whose catalog says supports_images true may be picked`, SYNTHETIC);
    const live = pickModel(discovery, config.profile, { images: true });
    if (live) check.that('IMG-007', live.supports_images === true, () => `for image parts the kit picked ${live.id}, whose entry has supports_images ${String(live.supports_images)}`, null /* the live catalog, read by discovery */);
  });

  test('retries model_unavailable for the same model and never substitutes another', req('ERR-009'), async ({ check, target, config }) => {
    const unavailable = config.profile.unavailableModel;
    if (!unavailable) return check.skip('the profile names no unavailable model (unavailableModel)');
    const first = target.exchanges.length;
    const { res, attempts } = await chatRetryingUnavailable(target, { model: unavailable, messages: [{ role: 'user', content: 'Say hello.' }], max_completion_tokens: 4 }, { attempts: 2 });
    const code = errorCodeOf(res);
    const models = target.exchanges.slice(first).map((e) => (JSON.parse(e.requestBody ?? '{}') as { model?: unknown }).model);
    check.that('ERR-009', models.every((m) => m === unavailable), () => `the retries asked for other models: ${JSON.stringify(models)}`, null /* every attempt */);
    if (res.status === 200) {
      const model = (res.json() as { model?: unknown } | undefined)?.model;
      check.that('ERR-009', model === unavailable, () => `the answer the caller got names ${JSON.stringify(model)}, not the requested ${unavailable}`, res);
      return;
    }
    if (code !== 'model_unavailable') return check.skip(`the unavailable model was refused with ${res.describe()}, not model_unavailable: the retry path was not exercised`);
    check.that('ERR-009', attempts === 2, () => `model_unavailable was not retried (${attempts} attempt(s))`, null /* the count of attempts */);
    check.that('ERR-009', res.status === 503 && code === 'model_unavailable', () => `after the retries the caller must get the refusal as it is; received ${res.describe()}`, res);
  });
});

function errorCodeOf(res: TargetResponse): unknown {
  const b = res.json();
  return isObject(b) && isObject(b.error) ? b.error.code : undefined;
}

// ---------------------------------------------------------------------------------------------------------
// Routing as the mock exposes it: the serving route in the x-mock-route response header, and the routes of
// an entry (hidden from the catalog) in the mock's fixture. Only where the target is that mock.

interface FixtureRoute {
  name: string;
  available: boolean;
  web_search: boolean;
  [rank: string]: unknown;
}

/** The mock's hidden routes per listed entry, or the reason they cannot be used for this target. */
function mockRoutes(config: RunConfig, discovery: Discovery): Map<string, FixtureRoute[]> | string {
  if (!config.profile.scenarioHeaders) return 'the profile does not say the target is the mock (scenarioHeaders false): its routes are not observable';
  if (discovery.catalogError) return discovery.catalogError;
  if (!existsSync(MOCK_CATALOG)) return 'fixtures/mock/catalog.json is missing';
  const entries = (JSON.parse(readFileSync(MOCK_CATALOG, 'utf8')) as { entries?: unknown[] }).entries ?? [];
  const routes = new Map<string, FixtureRoute[]>();
  for (const e of entries) {
    if (!isObject(e) || typeof e.id !== 'string' || !isObject(e.mock) || !Array.isArray(e.mock.routes)) continue;
    routes.set(e.id, e.mock.routes.filter((r): r is FixtureRoute => isObject(r) && typeof r.name === 'string'));
  }
  const foreign = discovery.models.map((m) => m.id).filter((id) => !routes.has(id));
  if (foreign.length > 0) return `the target's catalog is not the mock fixture's (unknown ids: ${foreign.slice(0, 3).join(', ')})`;
  return routes;
}

const servedRoute = (res: TargetResponse) => res.headers['x-mock-route'];
const HELLO = [{ role: 'user', content: 'Say hello.' }];

test.describe('routing on the mock', () => {
  test('every provider field is forwarded to the serving route, none is a guarantee', req('ROUTE-006', 'ROUTE-009'), async ({ check, target, discovery, config }) => {
    const routes = mockRoutes(config, discovery);
    if (typeof routes === 'string') return check.skip(routes);
    const model = usableModels(discovery, config.profile).find((m) => (routes.get(m.id) ?? []).filter((r) => r.available).length >= 2);
    if (!model) return check.skip('no usable entry has two available routes');
    const rs = routes.get(model.id)!;
    const up = rs.filter((r) => r.available);
    const send = (provider?: Json) => target.chat({ model: model.id, messages: HELLO, max_completion_tokens: 4, ...(provider ? { provider } : {}) });
    const plain = await send();
    if (plain.status !== 200 || servedRoute(plain) === undefined) return check.skip(`the target does not name the serving route (x-mock-route): ${plain.describe()}`);
    // sort: the route that ranks best on the key serves.
    for (const key of ['price', 'latency', 'throughput']) {
      const rank = `${key}_rank`;
      if (!up.every((r) => typeof r[rank] === 'number')) continue;
      const best = [...up].sort((a, b) => (a[rank] as number) - (b[rank] as number))[0]!.name;
      const res = await send({ sort: key });
      check.that('ROUTE-006', servedRoute(res) === best, () => `provider.sort "${key}": expected the best-ranked route ${best} to serve; served by ${servedRoute(res) ?? res.describe()}`, res);
    }
    // order: the named route serves.
    for (const r of up) {
      const res = await send({ order: [r.name] });
      check.that('ROUTE-006', servedRoute(res) === r.name, () => `provider.order ["${r.name}"]: served by ${servedRoute(res) ?? res.describe()}`, res);
    }
    // allow_fallbacks: with only an unusable route ranked, false refuses and true is served by another route.
    const down = rs.find((r) => !r.available)?.name ?? `chatconform-no-such-route-${config.seed}`;
    const refused = await send({ order: [down], allow_fallbacks: false });
    check.that('ROUTE-006', refused.status !== 200 && servedRoute(refused) === undefined, () => `provider {order: ["${down}"], allow_fallbacks: false}: expected a refusal; received ${refused.describe()} (route ${servedRoute(refused)})`, refused);
    const fallback = await send({ order: [down], allow_fallbacks: true });
    check.that('ROUTE-009', fallback.status === 200 && up.some((r) => r.name === servedRoute(fallback)), () => `provider {order: ["${down}"], allow_fallbacks: true}: an order that cannot be followed is not a guarantee, the request is served; received ${fallback.describe()}`, fallback);
    // A preference no route implements is not a guarantee either: served, same model.
    const unknownSort = await send({ sort: `chatconform-sort-${config.seed}` });
    const m = (unknownSort.json() as { model?: unknown } | undefined)?.model;
    check.that('ROUTE-009', unknownSort.status === 200 && m === model.id, () => `an unimplemented provider.sort must not refuse or change the model; received ${unknownSort.describe()}`, unknownSort);
  });

  test('the search signal reaches only routes and entries that support search', req('SEARCH-020'), async ({ check, target, discovery, config }) => {
    const routes = mockRoutes(config, discovery);
    if (typeof routes === 'string') return check.skip(routes);
    const usable = usableModels(discovery, config.profile);
    const mixed = usable.find((m) => {
      const up = (routes.get(m.id) ?? []).filter((r) => r.available);
      return up.some((r) => r.web_search) && up.some((r) => !r.web_search);
    });
    const none = usable.find((m) => (routes.get(m.id) ?? []).every((r) => !r.web_search));
    if (!mixed && !none) return check.skip('no usable entry has a route without search support');
    const search = (model: string, provider?: Json) => target.chat({ model, messages: [{ role: 'user', content: 'Which city hosts the Louvre?' }], web_search_options: {}, ...(provider ? { provider } : {}) });
    const judge = (res: TargetResponse, rs: FixtureRoute[], what: string) => {
      const served = servedRoute(res);
      const route = rs.find((r) => r.name === served);
      check.that('SEARCH-020', res.status !== 200 || (route !== undefined && route.web_search), () => `${what}: a search request was served by route ${served ?? '(unnamed)'}, which does not support search`, res);
    };
    if (mixed) {
      const rs = routes.get(mixed.id)!;
      const noSearch = rs.find((r) => r.available && !r.web_search)!.name;
      judge(await search(mixed.id), rs, `${mixed.id}, no preference`);
      judge(await search(mixed.id, { order: [noSearch] }), rs, `${mixed.id}, provider.order ["${noSearch}"]`);
      const strict = await search(mixed.id, { order: [noSearch], allow_fallbacks: false });
      judge(strict, rs, `${mixed.id}, provider.order ["${noSearch}"], allow_fallbacks false`);
      check.that('SEARCH-020', strict.status !== 200, () => `${mixed.id}: with only a route without search ranked and no fallback, the search request must be refused upfront; received ${strict.describe()}`, strict);
    }
    if (none) {
      const res = await search(none.id);
      check.that('SEARCH-020', res.status !== 200 && servedRoute(res) === undefined, () => `${none.id} has no route that supports search: the request must be refused upfront, never served; received ${res.describe()}`, res);
    }
  });
});


test.describe('search actions without url', () => {
  test('an open_page or find_in_page action without url is accepted, never judged as truncation', req('SEARCH-036'), async ({ check, target }) => {
    const body = {
      id: 'chatcmpl-1',
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: 'm',
      choices: [
        {
          index: 0,
          finish_reason: 'stop',
          message: {
            role: 'assistant',
            content: 'Paris.',
            service_web_search: [{ type: 'search', query: 'louvre city' }, { type: 'open_page' }, { type: 'find_in_page', pattern: 'Louvre' }],
          },
        },
      ],
      usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7, service_web_search_calls: 1 },
    };
    // The checks a target's completion goes through, run on a scratch checker: none may fail or warn.
    const scratch = new Checker(target);
    scratch.apply(COMPLETION_SCHEMA_CHECKS, { values: [{ label: 'completion', data: body }] }, SYNTHETIC);
    scratch.apply(COMPLETION_CHECKS, { body, model: 'm', what: 'completion' }, SYNTHETIC);
    const complaints = scratch.records.filter((r) => r.status === 'fail' || r.status === 'warn' || r.status === 'error');
    check.that('SEARCH-036', complaints.length === 0, () => `the kit's checks complain about actions without url: ${JSON.stringify(complaints)}`, SYNTHETIC);
  });
});

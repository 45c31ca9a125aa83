// Unit tests of the mock's core: plain functions, no transport.
import { expect, test } from '@playwright/test';
import fc from 'fast-check';
// Fixes fast-check's seed for the properties below (random, printed, under npm run test:explore).
import '../support/seed.ts';
import Ajv2020 from 'ajv/dist/2020.js';
import { decodeSse } from '../../judge/decoding/sse.ts';
import { countTokens, fnv1a, stableHash, stableStringify, tokenize } from '../../mock/engine/tokens.ts';
import { answerTokens } from '../../mock/core/text.ts';
import { capOf, complete, requestSeed, toChunks, toEvents, toResponseBody, usageOf } from '../../mock/core/chat.ts';
import { Catalog } from '../../mock/core/catalog.ts';
import { defaultCatalog } from '../../mock/core/fixture-data.ts';
import { PromptCache } from '../../mock/core/usage.ts';
import { buildToolCalls } from '../../mock/core/tools.ts';
import { generateArguments } from '../../mock/engine/tool-arguments.ts';
import { prng } from '../../mock/engine/tokens.ts';
import { encodeStream, toWrites } from '../../mock/core/sse-encoder.ts';
import { FRAMINGS, type Framing } from '../../mock/core/sse-encoder.ts';
import { readScenario } from '../../mock/scenario.ts';
import { createMockService } from '../../mock/service.ts';
import { bodyFromBytes, bodyFromStream, type CoreRequest } from '../../mock/core/http.ts';
import { pickRoute } from '../../mock/core/routing.ts';
import { readBodyLimited, checkContentLength } from '../../mock/core/limits.ts';
import { parseChatRequest, fieldName } from '../../mock/core/request.ts';
import { MockHttpError } from '../../mock/core/errors.ts';
import type { ChatRequest } from '../../mock/core/request.ts';
import type { FixtureEntry } from '../../mock/core/types.ts';

const catalog = new Catalog(defaultCatalog());
const entry = (id: string): FixtureEntry => catalog.byId.get(id)!;
const route = (id: string) => entry(id).mock.routes[0]!;
const req = (over: Partial<ChatRequest> = {}): ChatRequest => ({ model: 'acme/chat-small', messages: [{ role: 'user', content: 'hello world' }], ...over });
const run = (r: ChatRequest, search = false) => {
  const e = entry(r.model);
  const c = complete(r, e, pickRoute(r, e, search), search, capOf(r, e), new PromptCache());
  c.usage = usageOf(c, e);
  return c;
};

test.describe('tokens', () => {
  test('tokenize splits and joins back; CJK characters and emoji are one token each', () => {
    expect(countTokens('hello world')).toBe(2);
    expect(countTokens('你好世界')).toBe(4);
    expect(countTokens('ok 🚀✨ done')).toBe(4);
    expect(countTokens('  ')).toBe(0);
    fc.assert(fc.property(fc.string({ unit: 'grapheme' }), (s) => tokenize(s).join('') === s));
  });

  // Any UTF-16 text: every code unit, lone surrogates and ASCII controls included.
  const anyText = fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)), maxLength: 40 });
  const mixedText = fc.string({ unit: fc.constantFrom('a', 'Z', '~', ' ', '\t', '\n', '\u00a0', '\u3000', '\u2028', '\x01', '\x7f', '你', '🚀', '\ud800', '\udc00', 'é') });

  test('countTokens counts the non-whitespace pieces of tokenize, in one pass', () => {
    const byDefinition = (s: string): number => tokenize(s).filter((t) => !/^\s+$/u.test(t)).length;
    expect(countTokens('ab\x01cd 你好\u00a0🚀')).toBe(byDefinition('ab\x01cd 你好\u00a0🚀'));
    fc.assert(fc.property(fc.oneof(anyText, mixedText, fc.string({ unit: 'binary' })), (s) => countTokens(s) === byDefinition(s)), { numRuns: 2000 });
  });

  test('stableHash is fnv1a of stableStringify, without the text', () => {
    const text = fc.oneof(anyText, mixedText, fc.string());
    const value = fc.letrec((tie) => ({
      v: fc.oneof(
        { depthSize: 'small' },
        text,
        fc.double(),
        fc.integer(),
        fc.boolean(),
        fc.constant(null),
        fc.constant(undefined),
        fc.array(tie('v'), { maxLength: 4 }),
        fc.dictionary(text, tie('v'), { maxKeys: 4 }),
      ),
    })).v;
    fc.assert(fc.property(value, (v) => stableHash(v) === fnv1a(stableStringify(v))), { numRuns: 2000 });
  });

  test('answerTokens(seed, n) has exactly n tokens and carries CJK and emoji', () => {
    fc.assert(
      fc.property(fc.nat(), fc.integer({ min: 7, max: 120 }), (seed, n) => {
        const text = answerTokens(seed, n).join('');
        return countTokens(text) === n && /[\u4e00-\u9fff]/u.test(text) && /\p{Extended_Pictographic}/u.test(text);
      }),
    );
  });
});

test.describe('completion', () => {
  test('deterministic: same request, same completion; stream and caps do not change the seed', () => {
    const a = run(req());
    const b = run(req());
    expect(a).toEqual(b);
    expect(requestSeed(req({ stream: true, max_tokens: 3, provider: { sort: 'price' } }))).toBe(requestSeed(req()));
  });

  test('caps: max_completion_tokens wins, completion_tokens never exceeds the cap, finish length when capped', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 200 }), fc.option(fc.integer({ min: 0, max: 200 }), { nil: undefined }), fc.string(), (mct, mt, text) => {
        const c = run(req({ max_completion_tokens: mct, max_tokens: mt, messages: [{ role: 'user', content: text }] }));
        expect(c.usage.completion_tokens).toBeLessThanOrEqual(mct);
        expect(countTokens(c.content!)).toBe(c.usage.completion_tokens);
        const full = run(req({ messages: [{ role: 'user', content: text }] }));
        expect(full.content!.startsWith(c.content!.trimEnd())).toBe(true);
        expect(c.finishReason).toBe(countTokens(full.content!) > mct ? 'length' : 'stop');
      }),
      { numRuns: 60 },
    );
  });

  test('the response body and chunks never contain null or undefined', () => {
    const c = run(req({ web_search_options: {} }), true);
    const env = { id: 'chatcmpl-x', created: 1, model: c.model };
    const body = JSON.stringify(toResponseBody(c, env));
    expect(body).not.toContain('null');
    const chunks = toChunks(c, env, true);
    expect(JSON.stringify(chunks)).not.toContain('null');
    expect(chunks.map((ch) => (ch.choices as any[])[0]?.delta?.content ?? '').join('')).toBe(c.content);
  });
});

test.describe('tools: arguments satisfy the declared schema', () => {
  const ajv = new Ajv2020({ strict: false });
  const leaf: fc.Arbitrary<Record<string, unknown>> = fc.oneof(
    fc.record({ type: fc.constant('string'), minLength: fc.integer({ min: 0, max: 5 }), maxLength: fc.integer({ min: 5, max: 20 }) }),
    fc.record({ type: fc.constant('integer'), minimum: fc.integer({ min: -50, max: 0 }), maximum: fc.integer({ min: 0, max: 50 }) }),
    fc.record({ type: fc.constant('integer'), exclusiveMinimum: fc.integer({ min: 0, max: 10 }), multipleOf: fc.constantFrom(1, 2, 5) }),
    fc.record({ type: fc.constant('number'), minimum: fc.double({ min: -10, max: 0, noNaN: true }), maximum: fc.double({ min: 0, max: 10, noNaN: true }) }),
    fc.constant({ type: 'boolean' }),
    fc.record({ enum: fc.uniqueArray(fc.oneof(fc.string(), fc.integer()), { minLength: 1, maxLength: 4 }) }),
    fc.record({ type: fc.constant(['string', 'null']) }),
    fc.record({ const: fc.string() }),
  );
  const schema = fc.letrec((tie) => ({
    node: fc.oneof({ depthSize: 'small', withCrossShrink: true }, leaf, tie('obj'), tie('arr')),
    obj: fc
      .dictionary(fc.stringMatching(/^[a-z_]{1,8}$/), tie('node') as fc.Arbitrary<Record<string, unknown>>, { maxKeys: 4 })
      .chain((props) =>
        fc.record({
          type: fc.constant('object'),
          properties: fc.constant(props),
          required: fc.subarray(Object.keys(props)),
          additionalProperties: fc.constant(false),
        }),
      ),
    arr: fc.record({ type: fc.constant('array'), items: tie('node') as fc.Arbitrary<Record<string, unknown>>, minItems: fc.integer({ min: 0, max: 2 }), maxItems: fc.integer({ min: 2, max: 4 }) }),
  })).obj;

  test('generated values validate (property)', () => {
    fc.assert(
      fc.property(schema, fc.nat(), (s, seed) => {
        const v = generateArguments(s, prng(seed));
        const ok = ajv.validate(s, v);
        if (!ok) throw new Error(`${JSON.stringify(v)} fails ${JSON.stringify(s)}: ${ajv.errorsText()}`);
      }),
      { numRuns: 200 },
    );
  });

  test('$ref and allOf; no parameters gives "{}"; ids are deterministic', () => {
    const s = { type: 'object', $defs: { unit: { enum: ['c', 'f'] } }, properties: { u: { $ref: '#/$defs/unit' } }, allOf: [{ properties: { n: { type: 'integer', minimum: 3, maximum: 3 } }, required: ['n'] }], required: ['u'] };
    const v = generateArguments(s, prng(1)) as Record<string, unknown>;
    expect(ajv.validate(s, v)).toBe(true);
    const calls = buildToolCalls([{ type: 'function', function: { name: 'noargs' } }], 'seed');
    expect(calls[0]!.function.arguments).toBe('{}');
    expect(buildToolCalls([{ type: 'function', function: { name: 'noargs' } }], 'seed')).toEqual(calls);
  });
});

test.describe('web search provenance', () => {
  test('citation indices lie inside the final text for every cap and context size', () => {
    fc.assert(
      fc.property(fc.option(fc.integer({ min: 0, max: 100 }), { nil: undefined }), fc.constantFrom('low', 'medium', 'high') as fc.Arbitrary<'low' | 'medium' | 'high'>, fc.string(), (cap, size, text) => {
        const c = run(req({ max_completion_tokens: cap, web_search_options: { search_context_size: size }, messages: [{ role: 'user', content: text }] }), true);
        for (const a of c.citations) {
          expect(a.url_citation.start_index).toBeLessThanOrEqual(a.url_citation.end_index);
          expect(a.url_citation.end_index).toBeLessThanOrEqual(c.content!.length);
          expect(a.url_citation.end_index).toBeLessThanOrEqual(Array.from(c.content!).length);
        }
        expect(c.usage.service_web_search_calls).toBe(c.actions.length);
        expect(c.actions.filter((x) => x.type === 'search').every((x) => x.url === undefined)).toBe(true);
      }),
      { numRuns: 80 },
    );
  });
});

test.describe('SSE encoder', () => {
  const chunks = toChunks(run(req({ messages: [{ role: 'user', content: '你好 🚀 encoder' }] })), { id: 'chatcmpl-1', created: 1, model: 'acme/chat-small' }, true);
  const framingSet = fc.subarray([...FRAMINGS] as Framing[]).map((a) => new Set(a));

  test('every framing, cut into arbitrary network chunks, round-trips through judge/decoding/sse.ts', () => {
    fc.assert(
      fc.property(framingSet, fc.array(fc.integer({ min: 1, max: 40 }), { minLength: 1, maxLength: 20 }), (framing, cuts) => {
        const pieces = encodeStream(toEvents(chunks), { framing });
        const bytes = Buffer.concat(pieces.flatMap((p) => toWrites(p, { framing })));
        const parts: Uint8Array[] = [];
        let off = 0;
        let i = 0;
        while (off < bytes.length) {
          const n = cuts[i++ % cuts.length]!;
          parts.push(bytes.subarray(off, off + n));
          off += n;
        }
        const events = decodeSse(parts);
        const expected = chunks.map((c) => (framing.has('multiline') ? JSON.stringify(c, null, 1) : JSON.stringify(c)));
        expect(events.map((e) => e.data)).toEqual([...expected, '[DONE]']);
        expect(events.slice(0, -1).map((e) => JSON.parse(e.data))).toEqual(chunks);
      }),
      { numRuns: 150 },
    );
  });

  test('bytewise writes are one byte each; no-final-blank drops only the last blank line', () => {
    const f = new Set<Framing>(['bytewise']);
    expect(toWrites('data: é\n\n', { framing: f }).every((w) => w.byteLength === 1)).toBe(true);
    const text = encodeStream([{ a: 1 }, '[DONE]'], { framing: new Set<Framing>(['no-final-blank']) }).join('');
    expect(text).toBe('data: {"a":1}\n\ndata: [DONE]\n');
  });

  test('fail-after: N chunks then one error event, no [DONE]', async () => {
    const headers = new Headers({ authorization: 'Bearer sk-mock-full-0123456789abcdef', 'x-mock-fail-after': '2' });
    const request: CoreRequest = {
      method: 'POST',
      path: '/v1/chat/completions',
      header: (n) => headers.get(n) ?? undefined,
      body: bodyFromBytes(new TextEncoder().encode(JSON.stringify({ ...req(), stream: true }))),
    };
    const result = await createMockService().handle(request);
    expect(result.kind).toBe('sse');
    const events = decodeSse(result.kind === 'sse' ? result.pieces : []);
    expect(events).toHaveLength(3);
    expect(JSON.parse(events[2]!.data).error.code).toBe('upstream_error');
  });

  test('scenario headers parse and reject bad values', () => {
    const h = new Headers({ 'x-mock-framing': 'CRLF, bytewise', 'x-mock-fail-after': '4' });
    const s = readScenario((n) => h.get(n));
    expect([...s.framing]).toEqual(['crlf', 'bytewise']);
    expect(s.failAfter).toBe(4);
    expect(() => readScenario((n) => new Headers({ 'x-mock-status': '200' }).get(n))).toThrow(MockHttpError);
  });
});

test.describe('routing, limits, validation', () => {
  test('pickRoute honours sort, order and allow_fallbacks', () => {
    const e = entry('route-multi');
    expect(pickRoute(req({ provider: { sort: 'price' } }), e, false).name).toBe('route-b');
    expect(pickRoute(req({ provider: { order: ['route-c'] } }), e, false).name).toBe('route-c');
    expect(pickRoute(req({ provider: { order: ['nope'] } }), e, false).name).toBe('route-a');
    expect(pickRoute(req(), e, true).name).toBe('route-b');
    expect(() => pickRoute(req({ provider: { order: ['route-down'], allow_fallbacks: false } }), e, false)).toThrow(/allow_fallbacks/);
  });

  test('readBodyLimited counts bytes and stops past the limit', async () => {
    let pulled = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(c) {
        pulled += 1000;
        c.enqueue(new Uint8Array(1000));
      },
    }, { highWaterMark: 0 });
    await expect(readBodyLimited(bodyFromStream(body), 10_500)).rejects.toMatchObject({ status: 413, code: 'request_too_large' });
    expect(pulled).toBeLessThanOrEqual(12_000);
    expect(() => checkContentLength('101', 100)).toThrow(MockHttpError);
    expect(() => checkContentLength('100', 100)).not.toThrow();
  });

  test('parse errors name the field', () => {
    const enc = (v: unknown): Uint8Array => new TextEncoder().encode(JSON.stringify(v));
    expect(fieldName('/messages/0/content/1/image_url')).toBe('messages[0].content[1].image_url');
    expect(() => parseChatRequest(enc({ model: 'm', messages: [{ role: 'user' }] }))).toThrow(/messages\[0\]\.content/);
    expect(() => parseChatRequest(new TextEncoder().encode('nope'))).toThrow(expect.objectContaining({ code: 'invalid_json' }));
  });
});

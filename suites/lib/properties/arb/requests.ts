// Arbitraries of chat requests (2.1, 2.2): streamed requests with generated unicode prompts, and request fuzzing:
// malformed requests and well-formed-but-odd ones, each labelled with its one fault. Which requirement a fault
// tests, and what answer the contract asks for, is the spec's business (suites/properties/request-fuzzing.spec.ts).
import fc from 'fast-check';

type Json = Record<string, unknown>;

// ---------------------------------------------------------------------------------------------------------
// Prompts and streamed requests

const PROMPT_EXTRAS = ['é', 'ß', '€', '東京', '😀', '👩‍💻', 'e\u0301', '\u2028', '\n', '"', '\\', '</s>', '{"a":1}', 'data: [DONE]'];

/** A prompt of any unicode: printable graphemes of every plane, multi-byte characters, newlines, quotes, SSE-looking text. */
export const unicodePrompt: fc.Arbitrary<string> = fc
  .string({
    unit: fc.oneof(
      { weight: 4, arbitrary: fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 1 }) },
      { weight: 3, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }) },
      { weight: 2, arbitrary: fc.constantFrom(...PROMPT_EXTRAS) },
    ),
    minLength: 1,
    maxLength: 40,
  })
  .filter((s) => s.trim() !== '');

export interface StreamedRequest {
  messages: Json[];
  /** stream_options.include_usage, or undefined for no stream_options at all. */
  includeUsage?: boolean;
}

/** A user prompt (string or text parts), optionally after a system message; include_usage true, false or absent. */
export const streamedRequest = (): fc.Arbitrary<StreamedRequest> =>
  fc
    .record({
      prompt: unicodePrompt,
      asParts: fc.boolean(),
      system: fc.option(unicodePrompt, { nil: undefined }),
      includeUsage: fc.option(fc.boolean(), { nil: undefined }),
    })
    .map(({ prompt, asParts, system, includeUsage }) => {
      const messages: Json[] = [];
      if (system !== undefined) messages.push({ role: 'system', content: system });
      messages.push({ role: 'user', content: asParts ? [{ type: 'text', text: prompt }] : prompt });
      return includeUsage === undefined ? { messages } : { messages, includeUsage };
    });

// ---------------------------------------------------------------------------------------------------------
// Request fuzzing

export type RequestFault =
  // a required part missing
  | 'missing-model'
  | 'missing-messages'
  | 'message-without-role'
  | 'user-message-without-content'
  | 'function-tool-without-function'
  | 'tool-calls-without-tools'
  // a field of the wrong JSON type
  | 'model-wrong-type'
  | 'messages-wrong-type'
  | 'role-wrong-type'
  | 'content-wrong-type'
  | 'option-wrong-type'
  // not JSON, or not an object
  | 'invalid-json'
  | 'non-object-json'
  // odd but well-formed
  | 'odd-role'
  | 'huge-messages'
  | 'deep-nesting'
  | 'unknown-fields'
  | 'unknown-nested-fields';

export interface FuzzCase {
  fault: RequestFault;
  /** What is wrong (or odd), in words. */
  label: string;
  /** The body as an object (sent by the target client, which keeps its caps), or as raw text. */
  body?: Json;
  raw?: string;
  /**
   * For unread fields: the same body without them, sent when the case is refused, so that a refusal of what the
   * request is anyway (a tool, routing preferences, content parts) is never charged to the unread field.
   */
  control?: Json;
}

export interface FuzzBase {
  /** A model the run may use. */
  model: string;
  /** The cap every generated request carries. */
  cap: number;
}

/** Any JSON value that is not a string (null included). */
const notAString = fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean(), fc.constant(null), fc.constant([]), fc.constant({}), fc.array(fc.string({ maxLength: 4 }), { minLength: 1, maxLength: 2 }));

/** A name no service reads: never one a real server could give a meaning to. */
export const unreadFieldName: fc.Arbitrary<string> = fc.oneof(
  { weight: 1, arbitrary: fc.stringMatching(/^x_chatconform_[a-z]{1,8}$/) },
  { weight: 2, arbitrary: fc.constantFrom('__proto__', 'constructor', 'prototype') },
);

const identifier = fc.stringMatching(/^[a-z][a-z0-9_]{0,15}$/);

/** Set a key as an own, enumerable property (so `__proto__` is a field, not the prototype). */
function withField<T extends Json>(o: T, key: string, value: unknown): T {
  Object.defineProperty(o, key, { value, enumerable: true, writable: true, configurable: true });
  return o;
}

const describeValue = (v: unknown): string => {
  const s = JSON.stringify(v) ?? String(v);
  return s.length > 60 ? `${s.slice(0, 60)}…` : s;
};

/** A nested JSON value `depth` levels deep (objects or arrays), as text: no recursion on either side of the wire. */
export function nestedJson(depth: number, kind: 'array' | 'object'): string {
  return kind === 'array' ? `${'['.repeat(depth)}1${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
}

/** Malformed and well-formed-but-odd requests, one labelled fault each, built on a valid request for `base`. */
export function malformedRequest(base: FuzzBase): fc.Arbitrary<FuzzCase> {
  const prompt = fc.constantFrom('Say hello.', 'Reply with one word.', 'Count to three.');
  const valid = prompt.map((p): Json => ({ model: base.model, messages: [{ role: 'user', content: p }], max_completion_tokens: base.cap }));
  const without = (o: Json, key: string): Json => Object.fromEntries(Object.entries(o).filter(([k]) => k !== key));
  const c = (fault: RequestFault, label: string, body: Json): FuzzCase => ({ fault, label, body });

  const missing: fc.Arbitrary<FuzzCase>[] = [
    valid.map((b) => c('missing-model', 'no model', without(b, 'model'))),
    valid.map((b) => c('missing-messages', 'no messages', without(b, 'messages'))),
    fc.tuple(valid, prompt, fc.boolean()).map(([b, p, second]) =>
      c('message-without-role', second ? 'the second message has no role' : 'the message has no role', { ...b, messages: second ? [...(b.messages as Json[]), { content: p }] : [{ content: p }] }),
    ),
    fc.tuple(valid, fc.option(identifier, { nil: undefined })).map(([b, name]) => c('user-message-without-content', 'a user message without content', { ...b, messages: [name === undefined ? { role: 'user' } : { role: 'user', name }] })),
    fc.tuple(valid, identifier, fc.boolean()).map(([b, name, flat]) =>
      c('function-tool-without-function', flat ? 'a function tool with name and parameters beside type, no function object' : 'a function tool without its function object', {
        ...b,
        tools: [flat ? { type: 'function', name, parameters: { type: 'object', properties: {} } } : { type: 'function' }],
      }),
    ),
    fc
      .record({ b: valid, id: fc.stringMatching(/^call_[A-Za-z0-9]{1,12}$/), name: identifier, args: fc.dictionary(identifier, fc.oneof(fc.string({ maxLength: 8 }), fc.integer()), { maxKeys: 3 }), withResult: fc.boolean() })
      .map(({ b, id, name, args, withResult }) => {
        const messages: Json[] = [
          ...(b.messages as Json[]),
          { role: 'assistant', content: '', tool_calls: [{ id, type: 'function', function: { name, arguments: JSON.stringify(args) } }] },
        ];
        if (withResult) messages.push({ role: 'tool', tool_call_id: id, content: '42' });
        return c('tool-calls-without-tools', `an assistant message with a tool call${withResult ? ' and its result' : ''}, no tools declared`, { ...b, messages });
      }),
  ];

  const wrongType: fc.Arbitrary<FuzzCase>[] = [
    fc.tuple(valid, notAString).map(([b, v]) => c('model-wrong-type', `model ${describeValue(v)}`, { ...b, model: v })),
    fc.tuple(valid, fc.oneof(fc.string({ maxLength: 12 }), fc.integer(), fc.boolean(), fc.constant(null)), fc.boolean()).map(([b, v, single]) => {
      const value = single ? (b.messages as Json[])[0] : v;
      return c('messages-wrong-type', `messages ${single ? 'as a single message object' : describeValue(value)}`, { ...b, messages: value });
    }),
    fc.tuple(valid, fc.oneof(fc.integer(), fc.boolean(), fc.constant(null), fc.constant([]), fc.constant({ name: 'user' }))).map(([b, role]) =>
      c('role-wrong-type', `role ${describeValue(role)}`, { ...b, messages: [{ ...(b.messages as Json[])[0], role }] }),
    ),
    fc
      .tuple(valid, fc.oneof(fc.integer(), fc.boolean(), fc.constant({ text: 'hello' }), fc.constant([42]), fc.constant([{ text: 'no type' }]), fc.constant([{ type: 'audio', text: 'hello' }])))
      .map(([b, content]) => c('content-wrong-type', `content ${describeValue(content)}`, { ...b, messages: [{ role: 'user', content }] })),
    fc
      .tuple(
        valid,
        fc.constantFrom(
          ['stream', 'yes'],
          ['stream', 1],
          ['temperature', 'hot'],
          ['temperature', [0.5]],
          ['top_p', 'most'],
          ['max_tokens', 'ten'],
          ['max_tokens', 2.5],
          ['max_completion_tokens', '8'],
          ['max_completion_tokens', 2.5],
          ['tools', 'get_weather'],
          ['tools', { type: 'function' }],
          ['tool_choice', 42],
          ['include_reasoning', 'yes'],
          ['stream_options', 'usage'],
          ['provider', 'fastest'],
          ['provider', ['a', 'b']],
          ['reasoning', 'high'],
        ) as fc.Arbitrary<[string, unknown]>,
      )
      .map(([b, [field, value]]) => {
        const body: Json = { ...b, [field]: value };
        // Keep a numeric cap in the body, so the target client does not add one over the wrong-typed field.
        if (field === 'max_completion_tokens') body.max_tokens = base.cap;
        return c('option-wrong-type', `${field} ${describeValue(value)}`, body);
      }),
  ];

  const notAnObject: fc.Arbitrary<FuzzCase>[] = [
    fc
      .tuple(valid, fc.constantFrom('truncated', 'trailing comma', 'single quotes', 'NaN', 'unquoted key', 'comment', 'trailing garbage', 'empty body', 'lone brace'), fc.nat())
      .map(([b, how, at]): FuzzCase => {
        const text = JSON.stringify(b);
        const raw =
          how === 'truncated'
            ? text.slice(0, 1 + (at % (text.length - 1)))
            : how === 'trailing comma'
              ? `${text.slice(0, -1)},}`
              : how === 'single quotes'
                ? text.replace(/"/g, "'")
                : how === 'NaN'
                  ? `${text.slice(0, -1)},"temperature":NaN}`
                  : how === 'unquoted key'
                    ? text.replace('"model"', 'model')
                    : how === 'comment'
                      ? `/* a comment */${text}`
                      : how === 'trailing garbage'
                        ? `${text}}`
                        : how === 'empty body'
                          ? ''
                          : '{';
        return { fault: 'invalid-json', label: `not JSON: ${how}`, raw };
      }),
    fc.tuple(valid, fc.constantFrom('[]', 'null', '42', '"chat"', 'true', 'array')).map(([b, v]): FuzzCase => ({ fault: 'non-object-json', label: `a JSON ${v === 'array' ? 'array holding the request' : v} instead of an object`, raw: v === 'array' ? JSON.stringify([b]) : v })),
  ];

  const odd: fc.Arbitrary<FuzzCase>[] = [
    fc
      .tuple(valid, fc.oneof(fc.constantFrom('wizard', '', 'ASSISTANT', 'User', 'bot', 'function', 'developer', 'tool', 'model'), fc.string({ unit: 'grapheme-ascii', maxLength: 10 })))
      .map(([b, role]) => c('odd-role', `role ${JSON.stringify(role)}`, { ...b, messages: [{ ...(b.messages as Json[])[0], role }] })),
    fc.tuple(valid, fc.integer({ min: 200, max: 3000 })).map(([b, n]) => {
      const messages = Array.from({ length: n }, (_, i) => ({ role: i % 2 === 0 ? 'user' : 'assistant', content: `message ${i}` }));
      if (n % 2 === 0) messages.push({ role: 'user', content: 'Say hello.' });
      return c('huge-messages', `${messages.length} messages`, { ...b, messages });
    }),
    fc.tuple(valid, fc.integer({ min: 100, max: 5000 }), fc.constantFrom<'array' | 'object'>('array', 'object')).map(([b, depth, kind]): FuzzCase => {
      const text = JSON.stringify(b);
      return { fault: 'deep-nesting', label: `an unread field nested ${depth} ${kind}s deep`, raw: `${text.slice(0, -1)},"x_chatconform_deep":${nestedJson(depth, kind)}}` };
    }),
  ];

  /** A value for an unread field: any JSON, a huge array, moderate nesting, or a prototype-pollution attempt. */
  const unreadValue = fc.oneof(
    fc.jsonValue({ maxDepth: 3 }).map((v) => ({ v, label: describeValue(v) })),
    fc.integer({ min: 1_000, max: 50_000 }).map((n) => ({ v: Array.from({ length: n }, (_, i) => i), label: `an array of ${n} numbers` })),
    fc.integer({ min: 2, max: 32 }).map((d) => ({ v: JSON.parse(nestedJson(d, 'object')) as unknown, label: `an object nested ${d} deep` })),
    fc.constantFrom({ stream: true }, { model: 'another-model' }, { messages: [] }, { max_completion_tokens: 100_000 }).map((v) => ({ v, label: describeValue(v) })),
  );

  const unread: fc.Arbitrary<FuzzCase>[] = [
    fc.tuple(valid, fc.uniqueArray(fc.tuple(unreadFieldName, unreadValue), { minLength: 1, maxLength: 3, selector: ([k]) => k })).map(([b, fields]) => {
      const body = { ...b };
      for (const [k, { v }] of fields) withField(body, k, v);
      return { ...c('unknown-fields', `unread top-level field(s) ${fields.map(([k, { label }]) => `${k}: ${label}`).join('; ')}`, body), control: b };
    }),
    fc.tuple(valid, unreadFieldName, fc.jsonValue({ maxDepth: 2 }), fc.constantFrom('message', 'content part', 'provider', 'function tool')).map(([b, k, v, where]) => {
      const p = ((b.messages as Json[])[0] as Json).content as string;
      // The same body built twice: with the unread field, and without it (the control).
      const build = (add: <T extends Json>(o: T) => T): Json => {
        const body: Json = { ...b };
        if (where === 'message') body.messages = [add({ role: 'user', content: p })];
        else if (where === 'content part') body.messages = [{ role: 'user', content: [add({ type: 'text', text: p })] }];
        else if (where === 'provider') body.provider = add({ allow_fallbacks: true });
        else body.tools = [add({ type: 'function', function: add({ name: 'ping_service' }) })];
        return body;
      };
      return { ...c('unknown-nested-fields', `unread field ${k}: ${describeValue(v)} in a ${where}`, build((o) => withField(o, k, v))), control: build((o) => o) };
    }),
  ];

  // The faults the contract judges as MUST (tool calls without tools, unread fields) come up more often.
  const weighted = (arbs: fc.Arbitrary<FuzzCase>[], weight: number) => arbs.map((arbitrary) => ({ arbitrary, weight }));
  return fc.oneof(...weighted(missing.slice(0, 5), 1), ...weighted(missing.slice(5), 3), ...weighted(wrongType, 1), ...weighted(notAnObject, 1), ...weighted(odd, 1), ...weighted(unread, 3));
}

/** A readable rendering of a fuzz case: its fault, and the body it sends (clipped). */
export function describeFuzzCase(f: FuzzCase): string {
  const text = f.raw ?? JSON.stringify(f.body) ?? '';
  return `${f.fault}: ${f.label}; body ${JSON.stringify(text.length > 600 ? `${text.slice(0, 600)}…` : text)} (${Buffer.byteLength(text)} bytes)`;
}

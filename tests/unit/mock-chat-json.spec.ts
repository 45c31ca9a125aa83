// chatJson (mock/engine/chat-json.ts) writes a chat completion's or a stream chunk's JSON from its parts instead of
// JSON.stringify: its text must be JSON.stringify's for any value, shaped like one or not, edited after a first
// encoding or not, and for every body and chunk the mock answers in any mode.
import fc from 'fast-check';
import { testSeed } from '../support/seed.ts';
import { expect, test } from '@playwright/test';
import { chatJson } from '../../mock/engine/chat-json.ts';
import { bodyFromBytes } from '../../mock/core/http.ts';
import { DEFECTS } from '../../mock/defects.ts';
import { MOCK_KEYS, MOCK_MODELS } from '../../mock/keys-and-models.ts';
import { createMockService } from '../../mock/service.ts';
import { ALL_VARIANTS } from '../../mock/variants.ts';

const SEED = testSeed(1212, 'mock-chat-json');
const same = (x: unknown): void => expect(chatJson(x)).toBe(JSON.stringify(x));

test('any value: the text of JSON.stringify', () => {
  fc.assert(
    fc.property(fc.anything({ withNullPrototype: true, withBoxedValues: true, withSparseArray: true }), (x) => {
      let expected: string;
      try {
        expected = JSON.stringify(x);
      } catch {
        return; // BigInt: both throw
      }
      expect(chatJson(x)).toBe(expected);
    }),
    { seed: SEED, numRuns: 2000 },
  );
});

test('chunk- and completion-shaped values, near misses, and a chunk edited after it was encoded', () => {
  const text = fc.oneof(fc.string(), fc.string({ unit: 'binary' }));
  const value = fc.oneof(text, fc.integer(), fc.double(), fc.constant(undefined), fc.constant(null), fc.boolean(), fc.object({ maxDepth: 1, maxKeys: 3 }));
  // Mostly the shapes the mock builds, each field sometimes anything else.
  const usually = <T>(usual: fc.Arbitrary<T>): fc.Arbitrary<unknown> => fc.oneof({ arbitrary: usual, weight: 5 }, { arbitrary: value, weight: 1 });
  const delta = fc.oneof(
    fc.record({ content: usually(text) }),
    fc.record({ role: usually(fc.constant('assistant')) }),
    fc.record({ role: fc.constant('assistant'), content: text, reasoning_content: usually(text) }),
    fc.constant({}),
    fc.dictionary(text, value, { maxKeys: 3 }),
  );
  const index = usually(fc.constant(0));
  const finish = usually(fc.constantFrom('stop', 'length', 'tool_calls'));
  const choice = fc.oneof(
    fc.record({ index, delta }),
    fc.record({ index, delta, finish_reason: finish }),
    fc.record({ index, message: delta, finish_reason: finish }),
    fc.record({ index, message: delta }),
    fc.record({ index, delta, finish_reason: finish, extra: value }),
    fc.record({ message: delta, index }),
  );
  const usage = fc.record({ prompt_tokens: fc.integer(), total_tokens: usually(fc.integer()) });
  const envelope = {
    id: usually(fc.constantFrom('chatcmpl-1', 'chatcmpl-2')),
    object: usually(fc.constantFrom('chat.completion.chunk', 'chat.completion')),
    created: usually(fc.constantFrom(1, 2)),
    model: usually(fc.constant('acme/chat-small')),
  };
  const choices = fc.oneof({ arbitrary: fc.array(choice, { minLength: 1, maxLength: 1 }), weight: 5 }, fc.constant([]), fc.array(choice, { maxLength: 2 }), value);
  const shaped = fc.oneof(
    fc.record({ ...envelope, choices }),
    fc.record({ ...envelope, choices, usage: usually(usage) }),
    fc.record({ ...envelope, choices, usage, x_extra: value }),
    fc.record({ ...envelope, choices }, { requiredKeys: ['id', 'choices'] }),
  );
  fc.assert(
    fc.property(shaped, shaped, (a, b) => {
      same(a);
      same(b);
      same(a);
    }),
    { seed: SEED, numRuns: 800 },
  );
  const c = { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { content: 'hi' } }] };
  same(c);
  (c.choices[0] as Record<string, unknown>).finish_reason = null;
  same(c);
  c.id = 'chatcmpl-2';
  same(c);
});

test('every body and chunk the mock answers, in every mode, with text, reasoning and tool calls', async () => {
  const bodies: Record<string, unknown>[] = [
    { model: MOCK_MODELS.small, messages: [{ role: 'user', content: 'hello 你好 🚀' }], stream: true, stream_options: { include_usage: true } },
    { model: MOCK_MODELS.reasoner, messages: [{ role: 'user', content: 'think' }], stream: true, reasoning: { effort: 'low' } },
    {
      model: MOCK_MODELS.small,
      messages: [{ role: 'user', content: 'weather?' }],
      stream: true,
      tools: [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }],
      tool_choice: 'required',
    },
  ];
  const options = [{}, ...ALL_VARIANTS.map((v) => ({ variant: v.name })), ...DEFECTS.map((d) => ({ defect: d.name }))];
  let checked = 0;
  for (const o of options) {
    const service = createMockService({ ...o, slow: { headersMs: 0, eventMs: 0 } });
    for (const body of bodies) {
      for (const stream of [false, true]) {
        const headers: Record<string, string> = { authorization: `Bearer ${MOCK_KEYS.full}` };
        const bytes = Buffer.from(JSON.stringify({ ...body, stream }));
        const result = await service.handle({ method: 'POST', path: '/v1/chat/completions', header: (n) => headers[n], body: bodyFromBytes(bytes) });
        if (result.kind === 'json') {
          same(result.body);
          checked++;
        }
        if (result.kind !== 'sse') continue;
        for (const line of result.pieces.join('').split(/\r?\n/)) {
          const data = /^data: ?(.*)$/.exec(line)?.[1];
          if (data === undefined || data === '[DONE]' || !data.startsWith('{')) continue;
          let parsed: unknown;
          try {
            parsed = JSON.parse(data);
          } catch {
            continue; // a multi-line event or a defect's broken JSON
          }
          same(parsed);
          checked++;
        }
      }
    }
  }
  expect(checked).toBeGreaterThan(500);
});

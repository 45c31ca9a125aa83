// chunkJson (mock/core/chunk-json.ts) writes a stream chunk's JSON from its parts instead of JSON.stringify: its
// text must be JSON.stringify's for any value, chunk-shaped or not, edited after a first encoding or not, and for
// every chunk the mock streams in any mode.
import fc from 'fast-check';
import { expect, test } from '@playwright/test';
import { chunkJson } from '../../mock/core/chunk-json.ts';
import { bodyFromBytes } from '../../mock/core/http.ts';
import { DEFECTS } from '../../mock/defects.ts';
import { MOCK_KEYS, MOCK_MODELS } from '../../mock/keys-and-models.ts';
import { createMockService } from '../../mock/service.ts';
import { ALL_VARIANTS } from '../../mock/variants.ts';

const SEED = 1212;
const same = (x: unknown): void => expect(chunkJson(x)).toBe(JSON.stringify(x));

test('any value: the text of JSON.stringify', () => {
  fc.assert(
    fc.property(fc.anything({ withNullPrototype: true, withBoxedValues: true, withSparseArray: true }), (x) => {
      let expected: string;
      try {
        expected = JSON.stringify(x);
      } catch {
        return; // BigInt: both throw
      }
      expect(chunkJson(x)).toBe(expected);
    }),
    { seed: SEED, numRuns: 2000 },
  );
});

test('chunk-shaped values, near misses, and a chunk edited after it was encoded', () => {
  const text = fc.oneof(fc.string(), fc.string({ unit: 'binary' }));
  const value = fc.oneof(text, fc.integer(), fc.double(), fc.constant(undefined), fc.constant(null), fc.boolean(), fc.object({ maxDepth: 1, maxKeys: 3 }));
  const delta = fc.oneof(fc.record({ content: value }), fc.record({ role: value }), fc.constant({}), fc.dictionary(text, value, { maxKeys: 2 }));
  const choice = fc.oneof(
    fc.record({ index: value, delta }),
    fc.record({ index: value, delta, finish_reason: value }),
    fc.record({ index: fc.constant(0), delta, finish_reason: value, extra: value }),
  );
  const envelope = fc.oneof(fc.constant('chatcmpl-1'), value);
  const chunk = fc.record(
    {
      id: envelope,
      object: fc.oneof(fc.constant('chat.completion.chunk'), value),
      created: fc.oneof(fc.constant(1), value),
      model: envelope,
      choices: fc.oneof(fc.array(choice, { maxLength: 2 }), value),
      usage: fc.oneof(value, fc.record({ prompt_tokens: value })),
    },
    { requiredKeys: ['id', 'object', 'created', 'model', 'choices'] },
  );
  fc.assert(
    fc.property(chunk, chunk, (a, b) => {
      same(a);
      same(b);
      same(a);
    }),
    { seed: SEED, numRuns: 1000 },
  );
  const c = { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { content: 'hi' } }] };
  same(c);
  (c.choices[0] as Record<string, unknown>).finish_reason = null;
  same(c);
  c.id = 'chatcmpl-2';
  same(c);
});

test('every chunk the mock streams, in every mode, with text and with tool calls', async () => {
  const bodies = [
    { model: MOCK_MODELS.small, messages: [{ role: 'user', content: 'hello 你好 🚀' }], stream: true, stream_options: { include_usage: true } },
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
      const headers: Record<string, string> = { authorization: `Bearer ${MOCK_KEYS.full}` };
      const result = await service.handle({ method: 'POST', path: '/v1/chat/completions', header: (n) => headers[n], body: bodyFromBytes(Buffer.from(JSON.stringify(body))) });
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
  expect(checked).toBeGreaterThan(500);
});

// Issue 31, item 2: a large chat body is parsed and validated off the serving thread (mock/engine/checked-bodies.ts,
// mock/transport/parse-thread.ts). The answer is the one the contract's parse gives, whichever thread judged the
// body; and while a large body is being checked, the serving thread answers other requests.
import { expect, test } from '@playwright/test';
import { createMockService, fromRequest, toResponse, type MockService } from '../../mock/index.ts';
import { CHECK_ELSEWHERE_FROM_BYTES, DECODE_SLICE_CHARS, type BodyChecker, type BodyVerdict } from '../../mock/engine/checked-bodies.ts';
import { MOCK_KEYS } from '../../mock/keys-and-models.ts';
import { ParseThread } from '../../mock/transport/parse-thread.ts';
import { requestSeedHash } from '../../mock/core/chat.ts';
import { parseChatRequest } from '../../mock/core/request.ts';
import { arrayItemRuns } from '../../mock/engine/json-spans.ts';
import { countTurns } from '../support/event-loop-turns.ts';

const repeat = (item: string, bytes: number): string => Array.from({ length: Math.max(1, Math.floor(bytes / (item.length + 1))) }, () => item).join(',');
const chat = (inner: string): string => `{"model":"mini-chat",${inner}}`;
const SIZE = 400_000;

/** Bodies over the threshold: refused at each stage of the contract's parse, and accepted ones. */
const BODIES: Record<string, string> = {
  'integers in messages': chat(`"messages":[${repeat('12345', SIZE)}]`),
  'every field wrong': chat(`"messages":[${repeat('{"role":1,"content":1}', SIZE)}]`),
  'many keys, no role': chat(`"messages":[{${Array.from({ length: SIZE / 12 }, (_, i) => `"k${i}":1`).join(',')}}]`),
  'not JSON': `{"model":"mini-chat","messages":[${repeat('"x"', SIZE)}`,
  'not UTF-8': `{"model":"mini-chat","messages":[],"x":"${'\u00e9'.repeat(SIZE / 2)}"}`,
  'too deep': chat(`"messages":[{"role":"user","content":"x"}],"x":${'['.repeat(SIZE / 2)}${']'.repeat(SIZE / 2)}`),
  'model missing': `{"messages":[${repeat('{"role":"user","content":"hi"}', SIZE)}]}`,
  'valid, many messages': chat(`"messages":[${repeat('{"role":"user","content":"hello there"}', SIZE)}]`),
  'valid, tool turns without content': chat(
    `"tools":[{"type":"function","function":{"name":"f"}}],"messages":[${repeat('{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c1","content":"r"}', SIZE)},{"role":"user","content":"x"}]`,
  ),
};

/** The bytes of a body: text, except the one that must not be UTF-8. */
const bytesOf = (name: string, text: string): Uint8Array => {
  const bytes = Buffer.from(text, 'utf8');
  if (name === 'not UTF-8') bytes[bytes.length - 5] = 0xff;
  return bytes;
};

async function post(service: MockService, body: Uint8Array): Promise<{ status: number; body: Record<string, unknown> }> {
  const request = new Request('http://mock.in-process.test/v1/chat/completions', {
    method: 'POST',
    headers: { authorization: `Bearer ${MOCK_KEYS.full}`, 'content-type': 'application/json' },
    body: new Uint8Array(body),
  });
  const response = toResponse(await service.handle(fromRequest(request)));
  const parsed = (await response.json()) as Record<string, unknown>;
  // What differs between two instances by design: the completion id and the clock.
  delete parsed.id;
  delete parsed.created;
  return { status: response.status, body: parsed };
}

test.describe('large bodies checked off the serving thread', () => {
  const thread = new ParseThread();
  test.afterAll(() => thread.close());

  test('every answer is the one the contract parse gives, and the worker judged every large body', async () => {
    test.setTimeout(120_000);
    const verdicts: (BodyVerdict | undefined)[] = [];
    const recording: BodyChecker = async (bytes) => {
      const v = await thread.check(bytes);
      verdicts.push(v);
      return v;
    };
    const elsewhere = createMockService({ seed: 7 }, { checkBody: recording });
    const here = createMockService({ seed: 7 });
    for (const [name, text] of Object.entries(BODIES)) {
      const bytes = bytesOf(name, text);
      expect(bytes.byteLength, name).toBeGreaterThanOrEqual(CHECK_ELSEWHERE_FROM_BYTES);
      const [a, b] = [await post(elsewhere, bytes), await post(here, bytes)];
      expect(a, name).toEqual(b);
      expect(verdicts.at(-1), `${name}: judged by the worker`).toBeDefined();
      expect(verdicts.at(-1)!.accepted, name).toBe(b.status === 200);
    }
    expect(verdicts).toHaveLength(Object.keys(BODIES).length);
  });

  test('while a large body is being checked, the serving thread answers GET /v1/models', async () => {
    test.setTimeout(60_000);
    const order: string[] = [];
    let checking!: () => void;
    const started = new Promise<void>((resolve) => (checking = resolve));
    const service = createMockService({}, {
      checkBody: async (bytes) => {
        checking();
        const v = await thread.check(bytes);
        order.push('checked');
        return v;
      },
    });
    // About 10 MB of integers: the contract's parse of it takes a few hundred ms on the thread that runs it.
    const big = Buffer.from(chat(`"messages":[${repeat('12345', 9_500_000)}]`));
    const answered = post(service, big).then((r) => order.push(`chat ${r.status}`));
    await started;
    const list = await service.handle(fromRequest(new Request('http://mock.in-process.test/v1/models')));
    order.push(`models ${list.status}`);
    await answered;
    expect(order).toEqual(['models 200', 'checked', 'chat 400']);
  });

  test('the serving thread takes the seed of a large valid body from the verdict, without hashing the request again', async () => {
    const bytes = bytesOf('valid, many messages', BODIES['valid, many messages']!);
    const hash = requestSeedHash(parseChatRequest(bytes));
    const given = (seed: number): MockService => createMockService({ seed: 7 }, { checkBody: async () => ({ accepted: true, seeds: { hash: seed } }) });
    const here = await post(createMockService({ seed: 7 }), bytes);
    // The verdict's seed is the request's own: the same answer as the contract's parse on the serving thread.
    expect(await post(given(hash), bytes)).toEqual(here);
    // Another seed in the verdict gives another text: the answer was built from the verdict's seed, not from a
    // second walk over the 400 KB request.
    const other = await post(given(hash ^ 1), bytes);
    expect(other.status).toBe(200);
    expect(other.body).not.toEqual(here.body);
  });

  test('the runs of the largest array, parsed one by one, give the value JSON.parse gives of the whole text', () => {
    const texts = [
      ' { "model" : "m" ,\n "messages" : [ {"role":"user","content":"a ] } \\" [ {"} , 1 ,\t"x\\\\" , [ [ ] ] , {} , null , -1.5e3 , true ] , "tools":[1,2] } ',
      '{"tools":[' + repeat('{"type":"function","function":{"name":"f\\"]","parameters":{"a":[1,{"b":"}"}]}}}', 3000) + '],"messages":[{"role":"user","content":"x"}]}',
      '{"messages":[' + repeat('"caf\u00e9 \ud83d\ude00 \\" ,]"', 5000) + ']}',
    ];
    for (const text of texts) {
      const whole = JSON.parse(text) as Record<string, unknown>;
      const runs = arrayItemRuns(text, 64);
      expect(runs, text.slice(0, 60)).toBeDefined();
      const body = JSON.parse(`${text.slice(0, runs!.start)}[]${text.slice(runs!.end)}`) as Record<string, unknown[]>;
      for (let r = 0; r < runs!.runs.length; r += 2) body[runs!.key]!.push(...(JSON.parse(`[${text.slice(runs!.runs[r], runs!.runs[r + 1])}]`) as unknown[]));
      expect(body).toEqual(whole);
      expect(Object.keys(body)).toEqual(Object.keys(whole));
      expect(runs!.runs.length).toBeGreaterThan(2);
    }
    // A key named twice: JSON.parse keeps the last one, so no runs are given (the body is decoded whole).
    expect(arrayItemRuns(`{"messages":[${repeat('1', 1000)}],"messages":[2]}`, 64)).toBeUndefined();
    // No array as large as a slice: decoded whole.
    expect(arrayItemRuns('{"messages":[1,2,3]}', 64)).toBeUndefined();
  });

  test('an accepted large body is decoded a slice per turn of the event loop, not in one pass', async () => {
    test.setTimeout(60_000);
    const turns = countTurns();
    let verdictTurn = -1;
    const service = createMockService({}, {
      checkBody: async (bytes) => {
        const v = await thread.check(bytes);
        verdictTurn = turns.now();
        return v;
      },
    });
    // About 3 MB of small messages: a dozen slices of DECODE_SLICE_CHARS.
    const big = Buffer.from(chat(`"messages":[${repeat('{"role":"user","content":"hello there"}', 3_000_000)}]`));
    const answered = await post(service, big);
    turns.stop();
    expect(answered.status).toBe(200);
    expect(turns.now() - verdictTurn).toBeGreaterThanOrEqual(Math.floor(big.byteLength / DECODE_SLICE_CHARS));
  });
});

// The faults client authors ask for, in process: a malformed JSON body on a 200, a connection reset mid-stream, a
// stall with no bytes. Each is a scenario header and a runtime fault (the same answer either way); the transport's
// side (the reset on the wire, the stall ending when the client goes away) is tests/integration/mock-faults.spec.ts.
import { expect, test } from '@playwright/test';
import { parseFault, FaultSpecError } from '../../mock/harness/faults.ts';
import { outcomeOf } from '../../mock/harness/journal.ts';
import { readScenario } from '../../mock/scenario.ts';
import { createMockService } from '../../mock/service.ts';
import { MockHttpError } from '../../mock/core/errors.ts';
import { chat, coreRequest, send } from '../support/harness-calls.ts';

const fixed = { now: () => 1_767_225_600_000, newId: () => 'chatcmpl-fixed' };

test.describe('the grammar and the headers', () => {
  test('malformed-json, reset-after=N and stall[=DURATION] parse to the fields their headers set', () => {
    expect(parseFault('malformed-json')).toMatchObject({ scenario: { malformedJson: true }, target: 'any' });
    expect(parseFault('reset-after=3')).toMatchObject({ scenario: { resetAfter: 3 }, target: 'chat' });
    expect(parseFault('stall=2s')).toMatchObject({ scenario: { stallMs: 2000 }, target: 'any' });
    expect(parseFault('stall')).toMatchObject({ scenario: { stallMs: 300_000 }, target: 'any' });
    expect(parseFault('stall=50ms@1/3').when).toEqual({ kind: 'ratio', n: 1, m: 3 });
    const h = new Headers({ 'x-mock-malformed-json': 'TRUE', 'x-mock-reset-after': '4', 'x-mock-stall-ms': '250' });
    expect(readScenario((n) => h.get(n))).toMatchObject({ malformedJson: true, resetAfter: 4, stallMs: 250 });
  });

  test('bad values are refused: a FaultSpecError, or a 400 naming the header', () => {
    for (const [spec, message] of [
      ['malformed-json=1', /malformed-json takes no value/],
      ['reset-after=x', /reset-after must be an integer from 0 to 1000000/],
      ['reset-after', /reset-after needs a value/],
      ['stall=301s', /stall must be at most 300000 ms/],
      ['stall=0', /stall must be at least 1 ms/],
      ['stall=1s:retry-after=1', /stall takes no parameters/],
    ] as const) {
      expect(() => parseFault(spec), spec).toThrow(FaultSpecError);
      expect(() => parseFault(spec), spec).toThrow(message);
    }
    for (const [name, value] of [['x-mock-malformed-json', 'yes'], ['x-mock-reset-after', '-1'], ['x-mock-stall-ms', '0'], ['x-mock-stall-ms', '300001']] as const) {
      const h = new Headers({ [name]: value });
      expect(() => readScenario((n) => h.get(n)), `${name}: ${value}`).toThrow(MockHttpError);
      expect(() => readScenario((n) => h.get(n)), `${name}: ${value}`).toThrow(new RegExp(name));
    }
  });
});

test.describe('malformed JSON on a 200', () => {
  test('the answer is the JSON text cut in the middle, still 200 and application/json; by header or by fault alike', async () => {
    const plain = await chat(createMockService(fixed));
    const byHeader = await chat(createMockService(fixed), {}, { 'x-mock-malformed-json': '1' });
    const byFault = await chat(createMockService({ ...fixed, fault: 'malformed-json' }));
    for (const answer of [byHeader, byFault]) {
      expect(answer.status).toBe(200);
      expect(answer.headers['content-type']).toBe('application/json');
      expect(answer.result.kind).toBe('text');
      const text = answer.result.kind === 'text' ? answer.result.body : '';
      expect(() => JSON.parse(text)).toThrow(SyntaxError);
      expect(JSON.stringify(plain.json).startsWith(text)).toBe(true);
      expect(text.length).toBeGreaterThan(20);
    }
    expect(byFault.result).toEqual(byHeader.result);
  });

  test('it reaches the catalog too, and leaves errors and streams as they are', async () => {
    const list = await send(createMockService({ fault: 'malformed-json' }), 'GET', '/v1/models');
    expect(list.status).toBe(200);
    expect(list.result.kind).toBe('text');
    const refused = await chat(createMockService(), { model: 'no-such-model' }, { 'x-mock-malformed-json': '1' });
    expect(refused.status).toBe(404);
    expect(refused.json.error.code).toBe('unknown_model');
    const stream = await chat(createMockService(), { stream: true }, { 'x-mock-malformed-json': '1' });
    expect(stream.result.kind).toBe('sse');
    expect(stream.pieces!.at(-1)).toContain('[DONE]');
  });
});

test.describe('a connection reset mid-stream', () => {
  test('the stream carries resetAfter for the transport; the journal records the outcome reset; a plain answer ignores it', async () => {
    const service = createMockService({ ...fixed, fault: 'reset-after=2' });
    const stream = await chat(service, { stream: true });
    expect(stream.status).toBe(200);
    expect(stream.result.kind === 'sse' && stream.result.writes.resetAfter).toBe(2);
    const byHeader = await chat(createMockService(fixed), { stream: true }, { 'x-mock-reset-after': '2' });
    expect(byHeader.result).toEqual(stream.result);
    expect(outcomeOf(stream.result)).toEqual({ outcome: 'reset' });
    expect(service.harness.journal.entries().at(-1)).toMatchObject({ status: 200, outcome: 'reset', faults: ['reset-after=2'] });
    // Past the stream's end: no reset, the stream ends as usual.
    expect(outcomeOf((await chat(createMockService(), { stream: true }, { 'x-mock-reset-after': '1000' })).result)).toEqual({ outcome: 'stream' });
    const plain = await chat(service);
    expect(plain.status).toBe(200);
    expect(plain.json.choices[0].message.content).toMatch(/^Mock answer:/);
  });
});

test.describe('a stall with no bytes', () => {
  test('ends when the client goes away, before its bound, with nothing to send; the journal says reset', async () => {
    const service = createMockService({ fault: 'stall=300s' });
    let leave!: () => void;
    const gone = new Promise<void>((resolve) => (leave = resolve));
    const request = { ...coreRequest('GET', '/v1/models'), closed: () => gone };
    const answer = service.handle(request);
    let settled = false;
    void answer.then(() => (settled = true));
    // Other requests are answered while it stalls (the fault is server-wide: a header-free service answers them).
    const other = await send(createMockService(), 'GET', '/v1/models');
    expect(other.status).toBe(200);
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false);
    leave();
    const result = await answer;
    expect(result.kind === 'sse' && result.writes.resetAfter).toBe(0);
    expect(service.harness.journal.entries().at(-1)).toMatchObject({ path: '/v1/models', status: 0, outcome: 'reset', faults: ['stall=300s'] });
  });

  test('a bounded stall ends on its own, and a chat is read whole before it (the journal keeps the body)', async () => {
    const service = createMockService();
    const result = await service.handle(
      coreRequest('POST', '/v1/chat/completions', {
        headers: { authorization: 'Bearer sk-mock-full-0123456789abcdef', 'x-mock-stall-ms': '20' },
        body: { model: 'acme/chat-small', messages: [{ role: 'user', content: 'hello' }] },
      }),
    );
    expect(result.kind === 'sse' && result.writes.resetAfter).toBe(0);
    const entry = service.harness.journal.entries().at(-1)!;
    expect(entry.outcome).toBe('reset');
    expect(entry.body).toContain('"hello"');
  });
});

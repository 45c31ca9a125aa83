// Runtime faults (mock/harness/faults.ts): the grammar, good and bad; a fault that fires is the same scenario the
// x-mock-* headers give (the same bytes); when faults fire (every request, N of every M, a seeded probability);
// and the precedence of headers over test-scoped faults over server-wide ones.
import { expect, test } from '@playwright/test';
import { FaultSet, FaultSpecError, parseFault } from '../../mock/harness/faults.ts';
import { createMockService } from '../../mock/service.ts';
import { TEST_ID_HEADER } from '../../mock/harness/names.ts';
import { chat, events, send } from '../support/harness-calls.ts';

test.describe('the fault grammar', () => {
  test('every kind of fault parses to the scenario fields its header would set', () => {
    const cases: [string, Record<string, unknown>, string][] = [
      ['429', { status: 429 }, 'any'],
      ['429:retry-after=0', { status: 429, retryAfter: 0 }, 'any'],
      ['status=503', { status: 503 }, 'any'],
      ['status=503:retry-after=7', { status: 503, retryAfter: 7 }, 'any'],
      ['fail-after=3', { failAfter: 3 }, 'chat'],
      ['framing=crlf,bytewise', { framing: new Set(['crlf', 'bytewise']) }, 'chat'],
      ['framing=lf', { framing: new Set() }, 'chat'],
      ['delay=50ms', { chunkDelayMs: 50 }, 'chat'],
      ['delay=2s', { chunkDelayMs: 2000 }, 'chat'],
      ['delay=40', { chunkDelayMs: 40 }, 'chat'],
      ['write-delay=5ms', { writeDelayMs: 5 }, 'chat'],
    ];
    for (const [spec, scenario, target] of cases) {
      const f = parseFault(spec);
      expect(f.scenario, spec).toMatchObject(scenario);
      expect(f.target, spec).toBe(target);
      expect(f.when, spec).toEqual({ kind: 'always' });
    }
    expect(parseFault('429:retry-after=1@0.2').when).toEqual({ kind: 'probability', p: 0.2 });
    expect(parseFault('fail-after=3@1/5').when).toEqual({ kind: 'ratio', n: 1, m: 5 });
    expect(parseFault('429@1').when).toEqual({ kind: 'always' });
    expect(parseFault('429@3/3').when).toEqual({ kind: 'always' });
    expect(parseFault('  429@.5 ').spec).toBe('429@.5');
  });

  test('a bad spec is refused with a message naming the spec and the problem', () => {
    const bad: [string, RegExp][] = [
      ['', /empty/],
      ['explode', /unknown fault "explode"; known: STATUS/],
      ['200', /the status must be an integer from 400 to 599 \(got "200"\)/],
      ['status', /status needs a value: status=503/],
      ['429=1', /a status takes no "=" value/],
      ['429:retry=1', /unknown parameter "retry"; a status takes retry-after=SECONDS/],
      ['429:retry-after=-1', /retry-after must be an integer from 0 to 3600/],
      ['429:retry-after', /a parameter must be NAME=VALUE/],
      ['fail-after=x', /fail-after must be an integer from 0 to 1000000 \(got "x"\)/],
      ['fail-after=2:retry-after=1', /fail-after takes no parameters/],
      ['framing=wavy', /unknown framing "wavy"; known: lf, crlf/],
      ['delay=20s', /delay must be at most 10000 ms/],
      ['delay=5m', /delay must be a duration such as 50ms or 2s/],
      ['429@0', /@P must be a probability above 0 and at most 1/],
      ['429@1.5', /@P must be a probability above 0 and at most 1/],
      ['429@3/2', /@N\/M needs 1 <= N <= M <= 1000000/],
      ['429@0/2', /@N\/M needs 1 <= N <= M/],
      ['429@often', /@WHEN must be a probability \(0.2\) or a ratio N\/M \(1\/5\)/],
    ];
    for (const [spec, message] of bad) {
      expect(() => parseFault(spec), spec).toThrow(FaultSpecError);
      expect(() => parseFault(spec), spec).toThrow(message);
    }
    expect(() => parseFault('429@0.5', { when: false })).toThrow(/@WHEN is not allowed here/);
  });
});

test.describe('when a fault fires', () => {
  test('N/M: the first N of every M requests it may fire on', () => {
    const set = new FaultSet(0);
    set.add([parseFault('429@2/5')]);
    const fired = Array.from({ length: 12 }, () => set.decide('chat', undefined).length);
    expect(fired).toEqual([1, 1, 0, 0, 0, 1, 1, 0, 0, 0, 1, 1]);
    expect(set.list()[0]!.toJSON()).toEqual({ id: 'f1', spec: '429@2/5', seen: 12, fired: 6 });
  });

  test('a probability: the same seed fires on the same requests; another seed on others; the rate is near P', () => {
    const run = (seed: number): string => {
      const set = new FaultSet(seed);
      set.add([parseFault('503@0.2')]);
      return Array.from({ length: 400 }, () => (set.decide('any', undefined).length > 0 ? '1' : '0')).join('');
    };
    expect(run(7)).toBe(run(7));
    expect(run(7)).not.toBe(run(8));
    const rate = [...run(7)].filter((c) => c === '1').length / 400;
    expect(rate).toBeGreaterThan(0.12);
    expect(rate).toBeLessThan(0.28);
  });

  test('stream faults count and fire on chat completions only; statuses on every endpoint', () => {
    const set = new FaultSet(0);
    set.add([parseFault('fail-after=1'), parseFault('503')]);
    expect(set.decide('any', undefined).map((f) => f.fault.spec)).toEqual(['503']);
    expect(set.decide('chat', undefined).map((f) => f.fault.spec)).toEqual(['fail-after=1', '503']);
    expect(set.list().map((f) => f.seen)).toEqual([1, 2]);
  });

  test("test-scoped faults fire only on that test's requests and keep their own count", () => {
    const set = new FaultSet(0);
    set.add([parseFault('429@1/2')], 't1');
    expect(set.decide('chat', undefined)).toEqual([]);
    expect(set.decide('chat', 't2')).toEqual([]);
    expect(set.decide('chat', 't1')).toHaveLength(1);
    expect(set.decide('chat', 't1')).toHaveLength(0);
    expect(set.clear('t2')).toBe(0);
    expect(set.clear('t1')).toBe(1);
  });
});

test.describe('a fault is the scenario its headers would give', () => {
  const fixed = { now: () => 1_767_225_600_000, newId: () => 'chatcmpl-fixed' };

  test('fail-after and framing: the same stream, byte for byte, as x-mock-fail-after and x-mock-framing (only the error names the fault)', async () => {
    const byHeader = await chat(createMockService(fixed), { stream: true }, { 'x-mock-fail-after': '3', 'x-mock-framing': 'crlf,comments' });
    const byFault = await chat(createMockService({ ...fixed, fault: ['fail-after=3', 'framing=crlf,comments'] }), { stream: true });
    expect(byFault.status).toBe(200);
    expect(byFault.pieces).toEqual(byHeader.pieces!.map((p) => p.replace('(x-mock-fail-after)', '(fault fail-after=3)')));
    expect(byFault.pieces!.at(-1)).toContain('the stream failed after 3 chunks (fault fail-after=3)');
    expect(byFault.result.kind === 'sse' && byFault.result.writes).toEqual(byHeader.result.kind === 'sse' && byHeader.result.writes);
    const evs = events(byFault.pieces!);
    expect(evs).toHaveLength(4);
    expect(evs.at(-1)).toMatchObject({ error: { code: 'upstream_error' } });
  });

  test('a status: the same error as x-mock-status (with x-mock-retry-after), only the message names the fault', async () => {
    const byHeader = await send(createMockService(), 'GET', '/v1/models', { headers: { 'x-mock-status': '429', 'x-mock-retry-after': '0' } });
    const byFault = await send(createMockService({ fault: '429:retry-after=0' }), 'GET', '/v1/models');
    expect(byFault.status).toBe(429);
    expect(byFault.headers).toEqual(byHeader.headers);
    expect(byFault.headers['retry-after']).toBe('0');
    expect(byFault.json.error).toEqual({ ...byHeader.json.error, message: 'scenario error requested by fault 429:retry-after=0' });
  });

  test('delays: the writes of the stream carry the delay of x-mock-chunk-delay-ms and x-mock-write-delay-ms', async () => {
    const byFault = await chat(createMockService({ fault: ['delay=20ms', 'write-delay=3'] }), { stream: true });
    expect(byFault.result.kind === 'sse' && byFault.result.writes).toMatchObject({ chunkDelayMs: 20, writeDelayMs: 3 });
  });
});

test.describe('precedence: headers, then test-scoped faults, then server-wide faults', () => {
  test('field by field: a header wins over a fault, a test fault over a server-wide one; framings add up', async () => {
    const service = createMockService({ fault: ['503', 'framing=crlf', 'fail-after=5'] });
    service.harness.faults.add([parseFault('429'), parseFault('fail-after=2')], 't1');

    expect((await chat(service)).status).toBe(503);
    expect((await chat(service, {}, { [TEST_ID_HEADER]: 't1' })).status).toBe(429);
    const header = await chat(service, {}, { [TEST_ID_HEADER]: 't1', 'x-mock-status': '502' });
    expect(header.status).toBe(502);
    expect(header.json.error.message).toBe('scenario error requested by x-mock-status: 502');

    service.harness.faults.clear();
    service.harness.faults.add([parseFault('framing=crlf'), parseFault('fail-after=5')]);
    service.harness.faults.add([parseFault('fail-after=2')], 't1');
    const scoped = await chat(service, { stream: true }, { [TEST_ID_HEADER]: 't1', 'x-mock-framing': 'comments' });
    expect(events(scoped.pieces!)).toHaveLength(3);
    expect(scoped.result.kind === 'sse' && [...scoped.result.writes.framing].sort()).toEqual(['comments', 'crlf']);
    const headerWins = await chat(service, { stream: true }, { [TEST_ID_HEADER]: 't1', 'x-mock-fail-after': '4' });
    expect(events(headerWins.pieces!)).toHaveLength(5);
  });

  test('a bad spec in the options throws before the instance exists', () => {
    expect(() => createMockService({ fault: ['429', 'nope'] })).toThrow(/fault "nope": unknown fault/);
  });
});

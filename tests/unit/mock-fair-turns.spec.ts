// Issue 51, item 9 (brief point 7): bodies just under the large-body threshold (256 KiB) skip the parse thread and
// were parsed on the serving thread back to back, all in one turn of the event loop: 300 of them held GET /v1/models
// for seconds. Each body now takes a turn of its own for its parse (mock/engine/fair-turns.ts), so what arrives
// meanwhile is served between two of them. Asserted here: correctness (every answer the one a lone request gets) and
// the turns (one parse per turn), never a time; the latency figure is bench/hostile-latency.ts's.
import { expect, test } from '@playwright/test';
import { createMockService, fromRequest, toResponse, type MockService } from '../../mock/index.ts';
import { CHECK_ELSEWHERE_FROM_BYTES } from '../../mock/engine/checked-bodies.ts';
import { OWN_TURN_FROM_BYTES } from '../../mock/engine/fair-turns.ts';
import { MOCK_KEYS } from '../../mock/keys-and-models.ts';
import { countTurns } from '../support/event-loop-turns.ts';

const repeat = (item: string, bytes: number): string => Array.from({ length: Math.max(1, Math.floor(bytes / (item.length + 1))) }, () => item).join(',');
/** A valid chat body of `bytes` bytes or a little less, its last message telling it apart. */
const bodyOf = (bytes: number, i: number): Uint8Array =>
  Buffer.from(`{"model":"mini-chat","messages":[${repeat('{"role":"user","content":"hello there"}', bytes - 100)},{"role":"user","content":"body ${i}"}]}`);

async function send(service: MockService, path: string, body?: Uint8Array): Promise<{ status: number; body: Record<string, unknown> }> {
  const request = new Request(`http://mock.in-process.test${path}`, {
    method: body ? 'POST' : 'GET',
    headers: { authorization: `Bearer ${MOCK_KEYS.full}`, 'content-type': 'application/json' },
    ...(body ? { body: new Uint8Array(body) } : {}),
  });
  const response = toResponse(await service.handle(fromRequest(request)));
  const parsed = (await response.json()) as Record<string, unknown>;
  delete parsed.id;
  delete parsed.created;
  return { status: response.status, body: parsed };
}

test('bodies just under the large-body threshold are parsed one per turn of the event loop, each answered as alone', async () => {
  test.setTimeout(120_000);
  const N = 30;
  const bodies = Array.from({ length: N }, (_, i) => bodyOf(CHECK_ELSEWHERE_FROM_BYTES - 1024, i));
  for (const b of bodies) expect(b.byteLength).toBeLessThan(CHECK_ELSEWHERE_FROM_BYTES);
  const alone = createMockService({ seed: 7 });
  const expected = [];
  for (const b of bodies) expected.push(await send(alone, '/v1/chat/completions', b));
  expect(expected.every((e) => e.status === 200)).toBe(true);

  const busy = createMockService({ seed: 7 });
  const turns = countTurns();
  const answeredIn: number[] = [];
  const all = bodies.map((b, i) => send(busy, '/v1/chat/completions', b).then((r) => ((answeredIn[i] = turns.now()), r)));
  // Asked after every body: answered between two of their parses, long before the last of them.
  const models = send(busy, '/v1/models').then((r) => ({ ...r, turn: turns.now() }));
  const answers = await Promise.all(all);
  const list = await models;
  turns.stop();
  expect(answers).toEqual(expected);
  expect(list.status).toBe(200);
  // One parse per turn: the answers came in N different turns, the catalog before the last of them.
  expect(new Set(answeredIn).size).toBe(N);
  expect(list.turn).toBeLessThan(Math.max(...answeredIn));
});

test('a small body takes no turn of its own', async () => {
  const service = createMockService({ seed: 7 });
  const small = bodyOf(OWN_TURN_FROM_BYTES / 4, 0);
  const turns = countTurns();
  const answers = await Promise.all([0, 1, 2].map(() => send(service, '/v1/chat/completions', small)));
  const turn = turns.now();
  turns.stop();
  expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
  expect(turn).toBeLessThanOrEqual(1);
});

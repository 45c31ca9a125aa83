// A replayed answer is built once, when the recordings are loaded, and served as built: a recording of a million
// events was rebuilt for every request (1.2 s of the serving thread each). Its stream is encoded once by the fast
// writer too, and shared by every answer that sends it.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { bodyFromBytes, type CoreResult } from '../../mock/core/http.ts';
import { createReplayService } from '../../mock/replay/service.ts';
import { streamWrites, WRITE_BATCH_CHARS } from '../../mock/transport/fast-writer.ts';

const EVENTS = 5000;
const request = { model: 'mini-chat', messages: [{ role: 'user', content: 'a long stream' }], stream: true };
let dir: string;

test.beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'replay-built-once-'));
  const events = Array.from({ length: EVENTS }, (_, i) => ({ data: i === EVENTS - 1 ? '[DONE]' : `{"i":${i}}` }));
  const recording = {
    format: 'chatconform-recording/1',
    recordedAt: new Date(0).toISOString(),
    request: { method: 'POST', path: '/v1/chat/completions', headers: {}, body: request },
    response: { status: 200, headers: { 'content-type': 'text/event-stream' }, events, complete: true },
  };
  writeFileSync(path.join(dir, '000001-post-v1-chat-completions.json'), JSON.stringify(recording));
});
test.afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ask = (service: ReturnType<typeof createReplayService>): Promise<CoreResult> =>
  service.handle({
    method: 'POST',
    path: '/v1/chat/completions',
    header: (name) => ({ authorization: 'Bearer sk-any', 'content-type': 'application/json' })[name],
    body: bodyFromBytes(Buffer.from(JSON.stringify(request))),
  });

const textOf = (r: CoreResult): string => (r.kind === 'sse' ? r.pieces.join('') : '');

for (const pace of ['fast', 'recorded'] as const) {
  test(`pace ${pace}: every request gets the answer built at load, and its bytes are the recorded events`, async () => {
    const service = createReplayService({ dir, pace });
    const [first, second] = [await ask(service), await ask(service)];
    expect(first.kind).toBe('sse');
    if (first.kind !== 'sse' || second.kind !== 'sse') return;
    // The very same pieces: built once, not per request, and frozen so that nothing changes them on the way out.
    expect(second.pieces).toBe(first.pieces);
    expect(Object.isFrozen(first.pieces)).toBe(true);
    expect(first.pieces.at(-1)).toBe('data: [DONE]\n\n');
    const expected = Array.from({ length: EVENTS }, (_, i) => `data: ${i === EVENTS - 1 ? '[DONE]' : `{"i":${i}}`}\n\n`).join('');
    expect(textOf(first)).toBe(expected);
    if (pace === 'recorded') expect(first.pieces).toHaveLength(EVENTS);
    else expect(first.pieces.length).toBeLessThan(EVENTS / 10);
  });
}

test('the fast writer encodes a frozen stream once, in the writes it would make of it, shared by every answer', () => {
  const pieces = Object.freeze(Array.from({ length: 20_000 }, (_, i) => `data: {"i":${i},"text":"caf\u00e9 \u{1f600}"}\n\n`));
  const first = [...streamWrites(pieces)];
  const second = [...streamWrites(pieces)];
  expect(second).toHaveLength(first.length);
  second.forEach((w, i) => expect(w).toBe(first[i]));
  expect(Buffer.concat(first).toString()).toBe(pieces.join(''));
  for (const w of first) expect(w.toString().length).toBeLessThanOrEqual(WRITE_BATCH_CHARS);
  // A stream that is not frozen (a generated answer) is encoded for each answer, as before.
  const open = pieces.slice();
  expect([...streamWrites(open)][0]).not.toBe([...streamWrites(open)][0]);
});

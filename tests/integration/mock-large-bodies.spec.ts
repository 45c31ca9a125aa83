// Large valid bodies must not starve the mock: a few large bodies are taken at a time, a few more wait with their
// bytes unread, and past that one is refused at once with 503 large_bodies_busy and retry-after (mock/README.md,
// "Limits on hostile input"; mock/engine/large-body-gate.ts). Conditions are awaited on the gate's own counts, never
// on a clock.
import net from 'node:net';
import { expect, test } from '@playwright/test';
import { LARGE_BODY_BUSY_CODE, LargeBodyGate } from '../../mock/engine/large-body-gate.ts';
import { CHECK_ELSEWHERE_FROM_BYTES } from '../../mock/engine/checked-bodies.ts';
import { MOCK_KEYS } from '../../mock/keys-and-models.ts';
import { createMockService } from '../../mock/service.ts';
import { startMockServer, type RunningMockServer } from '../../mock/server.ts';
import { ParseThread } from '../../mock/transport/parse-thread.ts';
import { HANG_BOUND_MS } from '../support/hang-bound.ts';

const repeat = (item: string, bytes: number): string => Array.from({ length: Math.max(1, Math.floor(bytes / (item.length + 1))) }, () => item).join(',');
/** A valid chat body of about 400 KB: large. */
const BODY = Buffer.from(`{"model":"mini-chat","messages":[${repeat('{"role":"user","content":"hello there"}', 400_000)}]}`);

/** A raw HTTP/1.1 exchange: the head sent at once, the body when the test says; the answer as text. */
function rawPost(mock: RunningMockServer): { sendBody(bytes: Buffer): void; answer: Promise<string>; socket: net.Socket } {
  const socket = net.connect(mock.port, '127.0.0.1');
  socket.write(
    `POST /v1/chat/completions HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer ${MOCK_KEYS.full}\r\ncontent-type: application/json\r\ncontent-length: ${BODY.byteLength}\r\nconnection: close\r\n\r\n`,
  );
  let text = '';
  socket.on('data', (d: Buffer) => (text += d.toString('latin1')));
  const answer = new Promise<string>((resolve) => {
    socket.on('close', () => resolve(text));
    socket.on('error', () => resolve(text));
  });
  return { sendBody: (bytes) => socket.write(bytes), answer, socket };
}

/** Waits (by polling, no time asserted) until `cond` holds; a hang past HANG_BOUND_MS fails. */
async function until(cond: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + HANG_BOUND_MS;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`hang: ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

test.describe('large bodies in flight are bounded', () => {
  const thread = new ParseThread();
  let mock: RunningMockServer;
  const gate = new LargeBodyGate({ concurrency: 1, queue: 1, retryAfterS: 2 });
  test.beforeAll(async () => {
    // A short idle clock, so that a stalled body is cut within the test (the other bodies are sent at once).
    mock = await startMockServer({ port: 0, bodyIdleTimeoutMs: 4000, service: createMockService({}, { checkBody: thread.check, largeBodies: gate }) });
  });
  test.afterAll(async () => {
    await mock.close();
    await thread.close();
  });

  test('past the concurrency and the queue, a large body is refused at once with 503 and retry-after; the others are answered in turn', async () => {
    test.setTimeout(HANG_BOUND_MS * 3);
    expect(BODY.byteLength).toBeGreaterThanOrEqual(CHECK_ELSEWHERE_FROM_BYTES);
    // The first is taken and read, but its client sends only half of it: it keeps its place.
    const first = rawPost(mock);
    first.sendBody(BODY.subarray(0, BODY.byteLength / 2));
    await until(() => gate.load.active === 1, 'the first large body is taken');
    // The second waits for its turn, its body not read (none is sent yet).
    const second = rawPost(mock);
    await until(() => gate.load.waiting === 1, 'the second large body waits');
    // The third finds the queue full: refused at once, without its body being sent.
    const third = rawPost(mock);
    const refused = await third.answer;
    expect(refused).toMatch(/^HTTP\/1\.1 503 /);
    expect(refused.toLowerCase()).toContain('\r\nretry-after: 2\r\n');
    const error = (JSON.parse(refused.slice(refused.indexOf('\r\n\r\n') + 4)) as { error: Record<string, string> }).error;
    expect(error).toMatchObject({ type: 'api_error', code: LARGE_BODY_BUSY_CODE });
    expect(error.message).toContain('retry after 2 s');
    // The first finishes and is answered; the second then takes its place and is answered too.
    first.sendBody(BODY.subarray(BODY.byteLength / 2));
    expect(await first.answer).toMatch(/^HTTP\/1\.1 200 /);
    second.sendBody(BODY);
    expect(await second.answer).toMatch(/^HTTP\/1\.1 200 /);
    await until(() => gate.load.active === 0 && gate.load.waiting === 0, 'every place is given back');
  });

  test('a large body that is refused or cut gives its place back', async () => {
    test.setTimeout(HANG_BOUND_MS * 2);
    // Refused by the contract's parse (on the worker): 400, and the place is free again.
    const invalid = Buffer.from(`{"model":"mini-chat","messages":[${repeat('12345', BODY.byteLength - 40)}]}`.padEnd(BODY.byteLength, ' '));
    const refused = rawPost(mock);
    refused.sendBody(invalid);
    expect(await refused.answer).toMatch(/^HTTP\/1\.1 400 /);
    await until(() => gate.load.active === 0, 'the refused body gives its place back');
    // A client that stops sending halfway: its body is cut by the idle clock (408), and its place is free again.
    const stalled = rawPost(mock);
    stalled.sendBody(BODY.subarray(0, 1000));
    await until(() => gate.load.active === 1, 'the stalled body is taken');
    expect(await stalled.answer).toMatch(/^HTTP\/1\.1 408 /);
    await until(() => gate.load.active === 0, 'the stalled body gives its place back');
    // And a large body is still answered afterwards.
    const after = rawPost(mock);
    after.sendBody(BODY);
    expect(await after.answer).toMatch(/^HTTP\/1\.1 200 /);
  });

  test('a large body of unknown length (chunked) waits for its place once it has shown itself large', async () => {
    test.setTimeout(HANG_BOUND_MS * 2);
    const held = rawPost(mock);
    held.sendBody(BODY.subarray(0, 1000));
    await until(() => gate.load.active === 1, 'a body holds the only place');
    const socket = net.connect(mock.port, '127.0.0.1');
    let text = '';
    socket.on('data', (d: Buffer) => (text += d.toString('latin1')));
    const answer = new Promise<string>((resolve) => socket.on('close', () => resolve(text)));
    socket.write(`POST /v1/chat/completions HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer ${MOCK_KEYS.full}\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\nconnection: close\r\n\r\n`);
    socket.write(`${BODY.byteLength.toString(16)}\r\n`);
    socket.write(BODY);
    socket.write('\r\n0\r\n\r\n');
    await until(() => gate.load.waiting === 1, 'the chunked body waits once past the threshold');
    held.sendBody(BODY.subarray(1000));
    expect(await held.answer).toMatch(/^HTTP\/1\.1 200 /);
    expect(await answer).toMatch(/^HTTP\/1\.1 200 /);
    await until(() => gate.load.active === 0 && gate.load.waiting === 0, 'every place is given back');
  });
});

// Issue 32, item 5: the proxy records when each event of a stream arrived, and `mock --replay DIR --replay-pace
// recorded` sends the events again with the gaps they were recorded with (fast, the default, as the client reads).
// Only lower bounds on time: a stream paced by sleeps can never arrive sooner than its sleeps add up to.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { MOCK_KEYS, startMockServer } from '../../mock/index.ts';
import { fromRequest } from '../../mock/handlers.ts';
import { createReplayService, recordedDelays } from '../../mock/replay/service.ts';
import type { Recording } from '../../mock/replay/recording.ts';
import { startTrafficProxy } from '../../proxy/index.ts';
import { CliProcesses } from './support/cli-process.ts';

const EVENT_MS = 120;
const cli = new CliProcesses();
const dir = mkdtempSync(path.join(os.tmpdir(), 'chatconform-pace-'));
test.afterAll(() => {
  cli.stopAll();
  rmSync(dir, { recursive: true, force: true });
});

const BODY = JSON.stringify({ model: 'mini-chat', messages: [{ role: 'user', content: 'Count slowly.' }], stream: true, max_tokens: 12 });
const post = (base: string): Promise<Response> =>
  fetch(`${base}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${MOCK_KEYS.full}`, 'content-type': 'application/json' }, body: BODY });

test('a stream recorded through the proxy keeps its pace; --replay-pace recorded sends it again at that pace', async () => {
  test.setTimeout(120_000);
  const recordings = path.join(dir, 'recorded');
  const slow = await startMockServer({ port: 0, variant: 'slow', slow: { headersMs: 0, eventMs: EVENT_MS } });
  const proxy = await startTrafficProxy({ upstream: slow.url, port: 0, reportDir: path.join(dir, 'reports'), recordDir: recordings, log: () => {}, onViolation: () => {} });
  try {
    const res = await post(proxy.url);
    expect(res.status).toBe(200);
    await res.text();
  } finally {
    await proxy.stop();
    await slow.close();
  }
  const file = readdirSync(recordings).find((f) => f.includes('chat-completions'))!;
  const rec = JSON.parse(readFileSync(path.join(recordings, file), 'utf8')) as Recording;
  const events = rec.response.events!;
  expect(events.length).toBeGreaterThan(3);
  const times = events.map((e) => e.atMs!);
  expect(times.every((t) => typeof t === 'number')).toBe(true);
  expect([...times].sort((a, b) => a - b)).toEqual(times);
  // The mock slept EVENT_MS before every event: the last one cannot have arrived sooner.
  expect(times.at(-1)!).toBeGreaterThanOrEqual(events.length * EVENT_MS * 0.95);

  // In process: the replay's stream carries the recorded gaps, only when asked.
  const request = () => fromRequest(new Request('http://replay.test/v1/chat/completions', { method: 'POST', headers: { authorization: `Bearer ${MOCK_KEYS.full}`, 'content-type': 'application/json' }, body: BODY }));
  const paced = await createReplayService({ dir: recordings, pace: 'recorded' }).handle(request());
  expect(paced.kind).toBe('sse');
  if (paced.kind === 'sse') expect(paced.writes.delaysMs).toEqual(recordedDelays(events));
  const fast = await createReplayService({ dir: recordings }).handle(request());
  if (fast.kind === 'sse') expect(fast.writes.delaysMs).toBeUndefined();

  // Over HTTP, through the CLI: the replayed stream takes at least the recorded gaps.
  const replay = await cli.start(['mock', '--port', '0', '--replay', recordings, '--replay-pace', 'recorded']);
  const started = performance.now();
  const again = await post(replay.url);
  const text = await again.text();
  const elapsed = performance.now() - started;
  expect(again.status).toBe(200);
  expect(text.split('\n\n').filter((e) => e.startsWith('data:')).length).toBe(events.length);
  expect(elapsed).toBeGreaterThanOrEqual(recordedDelays(events).reduce((a, b) => a + b, 0) - 5);
  replay.stop();

  const bad = await cli.run(['mock', '--port', '0', '--replay-pace', 'recorded']);
  expect(bad.code).toBe(2);
  expect(bad.stderr.trim()).toBe('error: --replay-pace paces a replay: give --replay DIR too');
});

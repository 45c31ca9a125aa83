// The bench's ladder (bench/ladder-server.ts) compares servers by CPU per answer, so each rung must answer the
// bench's two chat requests with what the contract asks for: a figure for a rung that answered less would flatter
// it. Every rung is started as `npm run bench:ladder` starts it (its own process, stopped by its process group),
// and its answers are checked with the kit's one validator and one SSE decoder.
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { MOCK_KEYS, MOCK_MODELS } from '../../mock/keys-and-models.ts';
import { repoRoot } from '../../run/config.ts';
import { decodeSse } from '../../judge/decoding/sse.ts';
import { validate } from '../../spec/validator.ts';
import { CliProcesses, stop } from './support/cli-process.ts';

const RUNGS = [0, 1, 2, 3, 4, 5, 6];
const messages = [{ role: 'user', content: 'Benchmark the mock with a short question about rivers and mountains.' }];

const rungs = new CliProcesses(path.join(repoRoot, 'bench/ladder-server.ts'));
test.afterAll(() => rungs.stopAll());
/** `ladder-N listening on URL`. */
const rungUrl = (out: string): string | undefined => /listening on (http:\/\/\S+)/.exec(out)?.[1];

const chat = (url: string, body: Record<string, unknown>): Promise<Response> =>
  fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${MOCK_KEYS.full}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: MOCK_MODELS.small, messages, ...body }),
  });

for (const rung of RUNGS) {
  test(`ladder rung ${rung} answers the bench's chat and streamed chat as the contract asks`, async () => {
    const { url, child } = await rungs.start([String(rung)], rungUrl);
    try {
      const plain = await chat(url, {});
      expect(plain.status).toBe(200);
      expect(plain.headers.get('content-type')).toMatch(/^application\/json/);
      const body = (await plain.json()) as { choices: { message: { content: string } }[] };
      expect(validate('chat-response', body).errors).toEqual([]);
      expect(body.choices[0]!.message.content.length).toBeGreaterThan(0);

      const streamed = await chat(url, { stream: true, stream_options: { include_usage: true } });
      expect(streamed.status).toBe(200);
      expect(streamed.headers.get('content-type')).toMatch(/^text\/event-stream/);
      const events = decodeSse([new Uint8Array(await streamed.arrayBuffer())]);
      expect(events.at(-1)?.data).toBe('[DONE]');
      const chunks = events.slice(0, -1).map((e) => JSON.parse(e.data) as { choices: { delta?: { content?: string }; finish_reason?: string }[]; usage?: unknown });
      for (const c of chunks) expect(validate('chat-chunk', c).errors).toEqual([]);
      // Text in deltas, one finish reason, then the usage chunk that include_usage asks for (6, 2.9).
      expect(chunks.filter((c) => c.choices[0]?.delta?.content).length).toBeGreaterThan(5);
      expect(chunks.filter((c) => c.choices[0]?.finish_reason !== undefined && c.choices[0]?.finish_reason !== null)).toHaveLength(1);
      expect(chunks.at(-1)!.choices).toEqual([]);
      expect(chunks.at(-1)!.usage).toBeDefined();
    } finally {
      stop(child, 'SIGKILL');
    }
  });
}

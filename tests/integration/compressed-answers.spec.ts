// Compressed answers (issue 29, item 6): the suite asks for one (accept-encoding: gzip, deflate, br), a
// non-streamed completion and a stream, and judges the decoded answer as any other. Against the mock's legal
// variant `compressed` the answers really come gzipped, and the test passes on them.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test } from '@playwright/test';
import { startMockServer } from '../../mock/server.ts';
import { cleanup, crashes, runSuite } from './support/suite-runner.ts';

const BOUND_MS = 240_000;

interface Seen {
  accept?: string;
  encoding?: string;
  type?: string;
}

/** A forwarder in front of `origin` that passes the bytes as they are and notes each answer's coding. */
async function recordingForwarder(origin: string, seen: Seen[]): Promise<{ url: string; close: () => Promise<void> }> {
  const server = http.createServer((req, res) => {
    const up = http.request(`${origin}${req.url}`, { method: req.method, headers: req.headers }, (answer) => {
      seen.push({ accept: req.headers['accept-encoding'], encoding: answer.headers['content-encoding'], type: answer.headers['content-type'] });
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

test('the suite sends a request that accepts compression and judges the gzipped answers of the compressed variant, which pass', async () => {
  test.setTimeout(BOUND_MS + 30_000);
  const mock = await startMockServer({ port: 0, variant: ['compressed'] });
  const seen: Seen[] = [];
  const forwarder = await recordingForwarder(mock.url, seen);
  try {
    const run = await runSuite({ baseUrl: forwarder.url, fuzzRuns: 1, boundMs: BOUND_MS, label: 'compressed-answers', extraArgs: ['suites/chat.spec.ts', '--grep', 'compressed as the client allowed'] });
    const r = run.report!;
    expect(crashes(r)).toEqual([]);
    expect(r.verdict.mustFailed).toEqual([]);
    expect(r.failedTests).toEqual([]);
    for (const id of ['CHAT-004', 'CHAT-005']) expect(r.requirements.find((q) => q.id === id)?.status, id).toBe('pass');
    // What was judged came gzipped: a completion and a stream, to requests that accepted every coding.
    const gzipped = seen.filter((x) => x.accept === 'gzip, deflate, br' && x.encoding === 'gzip');
    expect(gzipped.map((x) => x.type?.split(';')[0]).sort()).toEqual(['application/json', 'text/event-stream']);
    cleanup(run);
  } finally {
    await forwarder.close();
    await mock.close();
  }
});

// The bench's baseline: a bare node:http server that replays recorded answers byte for byte (status, headers,
// and the body as the same writes), chosen by method, path and Content-Length (the bench's two chat bodies differ
// in length), once the request body has arrived (as any server must read it), without parsing it: the ceiling of
// node:http for these answers. A JSON answer goes out as the mock sends it, with its Content-Length in one
// `end`; a stream as the mock sends an unpaced one (mock/server.ts `send`): chunked, each recorded write one
// `write` (waiting for drain when the socket is full), then `end`.
// `node bench/.out/bench/bare-server.js recorded.json` prints `bare listening on http://127.0.0.1:N`.
// `… recorded.json 25` first spends 25 µs of CPU on each request (a busy wait, allocating nothing), then answers the
// same: a server doing that much more work than the bare one. It prints `bare+25us listening on …`. The bench runs
// it to show what ratio to the bare server a given amount of work per request allows on the machine at hand.
import http from 'node:http';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';

export interface RecordedAnswer {
  /** `${method} ${path} ${content-length or 0}` */
  key: string;
  status: number;
  headers: Record<string, string>;
  /** the body as the writes the mock made, base64 */
  writes: string[];
  /** sent chunked (a stream), not with a Content-Length */
  chunked: boolean;
}

const answers = new Map<string, { status: number; headers: Record<string, string>; writes: Buffer[]; chunked: boolean }>();
for (const a of JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as RecordedAnswer[]) {
  answers.set(a.key, { status: a.status, headers: a.headers, writes: a.writes.map((w) => Buffer.from(w, 'base64')), chunked: a.chunked });
}

/** µs of CPU spent on each request before answering (0: the bare server itself). */
const WORK_US = Number(process.argv[3] ?? 0);
if (!Number.isFinite(WORK_US) || WORK_US < 0) throw new Error(`work per request must be a number of µs >= 0 (got ${process.argv[3]})`);
const NAME = WORK_US > 0 ? `bare+${WORK_US}us` : 'bare';

/** Busy-waits `us` µs (performance.now allocates nothing, unlike hrtime.bigint). */
function work(us: number): void {
  const end = performance.now() + us / 1000;
  while (performance.now() < end);
}

const server = http.createServer((req, res) => {
  req.on('data', () => {});
  req.on('end', () => {
    if (WORK_US > 0) work(WORK_US);
    answer(req, res);
  });
});

function answer(req: http.IncomingMessage, res: http.ServerResponse): void {
  const a = answers.get(`${req.method} ${req.url} ${req.headers['content-length'] ?? 0}`);
  if (!a) {
    res.writeHead(404).end();
    return;
  }
  if (!a.chunked) {
    res.writeHead(a.status, { ...a.headers, 'content-length': String(a.writes[0]!.byteLength) });
    res.end(a.writes[0]);
    return;
  }
  res.writeHead(a.status, a.headers);
  let i = 0;
  const next = (): void => {
    while (i < a.writes.length) {
      if (!res.write(a.writes[i++]!)) {
        res.once('drain', next);
        return;
      }
    }
    res.end();
  };
  next();
}
server.listen(0, '127.0.0.1', () => console.log(`${NAME} listening on http://127.0.0.1:${(server.address() as AddressInfo).port}`));

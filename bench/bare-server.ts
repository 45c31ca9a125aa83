// The bench's baseline: a bare node:http server that replays recorded answers byte for byte (status, headers,
// and the body as the same writes), chosen by method, path and whether the request body asks for a stream.
// `node bench/.out/bench/bare-server.js recorded.json` prints `bare listening on http://127.0.0.1:N`.
import http from 'node:http';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';

export interface RecordedAnswer {
  /** `${method} ${path}` plus ` stream` for a body with "stream":true */
  key: string;
  status: number;
  headers: Record<string, string>;
  /** the body as the writes the mock made, base64 */
  writes: string[];
}

const answers = new Map<string, { status: number; headers: Record<string, string>; writes: Buffer[] }>();
for (const a of JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as RecordedAnswer[]) {
  answers.set(a.key, { status: a.status, headers: a.headers, writes: a.writes.map((w) => Buffer.from(w, 'base64')) });
}

const server = http.createServer((req, res) => {
  let body = '';
  req.setEncoding('utf8');
  req.on('data', (d: string) => (body += d));
  req.on('end', () => {
    const a = answers.get(`${req.method} ${req.url}${body.includes('"stream":true') ? ' stream' : ''}`);
    if (!a) {
      res.writeHead(404).end();
      return;
    }
    if (a.writes.length === 1) {
      res.writeHead(a.status, { ...a.headers, 'content-length': String(a.writes[0]!.byteLength) });
      res.end(a.writes[0]);
      return;
    }
    res.writeHead(a.status, a.headers);
    res.cork();
    for (const w of a.writes) res.write(w);
    res.uncork();
    res.end();
  });
});
server.listen(0, '127.0.0.1', () => console.log(`bare listening on http://127.0.0.1:${(server.address() as AddressInfo).port}`));

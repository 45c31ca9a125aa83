// One rung of the bench's ladder (bench/ladder.ts): a chat server that does the mock's work up to a point, so the
// served cost of each part of the mock can be read off as the difference between two rungs. Every rung answers the
// bench's chat request with a chat completion; only how much of the mock it runs changes.
//   0  a lean server: JSON.parse, the chat-request schema, the key, an FNV hash of the body, the prompt's words
//      counted, a 40-80 word answer, the body written with a template. The least a contract-honest answer needs.
//   1  + the mock's request parsing (parseChatRequest: UTF-8, depth bound, JSON, schema, the field rules)
//   2  + the mock's completion and usage (complete, usageOf: the seed, prompt tokens, the answer, caps, cost)
//   3  + the mock's response body (toResponseBody, chatJson)
//   4  the mock's service instead (createMockService().handle with the journal off): every stage, the modes' and
//      the scenario layer's wrappers, the harness
//   5  + the journal (the default 1,000 entries)
//   6  the mock's own node:http adapter instead of the minimal handler (startMockServer, mock/server.ts)
// Rungs 0-5 are served by the same minimal node:http handler (the body read whole, then one `end` at the end of
// the turn, as the adapter writes). The ladder's last rung is the mock as `chatconform mock` runs it; every rung
// gets the command's V8 settings.
// `node bench/.out/bench/ladder-server.js N` prints `ladder-N listening on http://127.0.0.1:PORT`.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { complete, toResponseBody, usageOf } from '../mock/core/chat.ts';
import { chatJson } from '../mock/core/chat-json.ts';
import { defaultCatalog, defaultKeys } from '../mock/core/fixture-data.ts';
import { bodyFromBytes, jsonText } from '../mock/core/http.ts';
import { parseChatRequest, type ChatRequest } from '../mock/core/request.ts';
import { fnv1a } from '../mock/core/tokens.ts';
import { PromptCache } from '../mock/core/usage.ts';
import { startMockServer, TurnEnd } from '../mock/server.ts';
import { createMockService } from '../mock/service.ts';
import { validate } from '../spec/validator.ts';

const RUNG = Number(process.argv[2] ?? 0);
if (!Number.isInteger(RUNG) || RUNG < 0 || RUNG > 6) throw new Error(`the rung must be 0 to 6 (got ${process.argv[2]})`);

const keys = new Set(defaultKeys().keys.map((k) => k.key));
const entry = defaultCatalog().entries.find((e) => e.id === 'acme/chat-small')!;
const route = entry.mock.routes[0]!;
const cache = new PromptCache();
/** Rungs 4-6 answer with the mock's service; the others never build one. */
const service = RUNG >= 4 ? createMockService(RUNG >= 5 ? {} : { journalSize: 0 }) : undefined;
const WORDS = ['the', 'mock', 'answers', 'every', 'request', 'with', 'a', 'deterministic', 'reply', 'river', 'mountain', '你', '好', '🚀'];
let served = 0;
const newId = (): string => `chatcmpl-${(served++).toString(16).padStart(32, '0')}`;
const created = (): number => Math.floor(Date.now() / 1000);

/** A chat completion's JSON written by template (rungs 0 and 2, which do not use the mock's serialiser). */
const templateBody = (model: string, content: string, finishReason: string, usage: string): string =>
  `{"id":"${newId()}","object":"chat.completion","created":${created()},"model":${JSON.stringify(model)},"choices":[{"index":0,"message":{"role":"assistant","content":${JSON.stringify(content)}},"finish_reason":${JSON.stringify(finishReason)}}],"usage":${usage}}`;

/** Rung 0's answer: the least work a contract-honest chat completion needs. */
function leanAnswer(text: string, req: ChatRequest): string {
  const h = fnv1a(text);
  let prompt = 0;
  for (const m of req.messages) {
    prompt++;
    const s = typeof m.content === 'string' ? m.content : '';
    let inWord = false;
    for (let i = 0; i < s.length; i++) {
      const word = s.charCodeAt(i) > 32;
      if (word && !inWord) prompt++;
      inWord = word;
    }
  }
  const length = 40 + (h % 41);
  let content = '';
  for (let i = 0, s = h; i < length; i++) {
    s = Math.imul(s ^ (s >>> 15), 0x2c1b3c6d) >>> 0;
    content += (i === 0 ? '' : ' ') + WORDS[s % WORDS.length]!;
  }
  return templateBody(req.model, content, 'stop', `{"prompt_tokens":${prompt},"completion_tokens":${length},"total_tokens":${prompt + length}}`);
}

/** Rungs 0-3: the answer's JSON text, or undefined for a request they refuse. */
function answer(bytes: Buffer, authorization: string | undefined): string | undefined {
  if (!keys.has(authorization?.slice('Bearer '.length) ?? '')) return undefined;
  let req: ChatRequest;
  const text = bytes.toString('utf8');
  if (RUNG >= 1) req = parseChatRequest(bytes);
  else {
    req = JSON.parse(text) as ChatRequest;
    if (!validate('chat-request', req).valid) return undefined;
  }
  if (RUNG < 2) return leanAnswer(text, req);
  const c = complete(req, entry, route, false, entry.max_tokens, cache);
  c.usage = usageOf(c, entry);
  if (RUNG >= 3) return chatJson(toResponseBody(c, { id: newId(), created: created(), model: entry.id }));
  return templateBody(entry.id, c.content ?? '', c.finishReason, JSON.stringify(c.usage));
}

const JSON_HEADERS = { 'content-type': 'application/json', 'x-mock-route': route.name };
const turn = new TurnEnd();

const server = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const bytes = Buffer.concat(chunks);
    const reply = async (): Promise<{ status: number; headers: Record<string, string>; text: string | undefined }> => {
      if (RUNG < 4) return { status: 200, headers: JSON_HEADERS, text: answer(bytes, req.headers.authorization) };
      const headers = req.headers;
      const result = await service!.handle({
        method: req.method ?? 'GET',
        path: req.url ?? '/',
        header: (name) => {
          const v = headers[name];
          return Array.isArray(v) ? v.join(', ') : v;
        },
        body: bodyFromBytes(bytes),
      });
      return { status: result.status, headers: result.headers, text: result.kind === 'json' ? jsonText(result.body) : undefined };
    };
    // As the mock's adapter does: an answer, once made, waits for the end of the turn, so the answers of one turn
    // are written together.
    reply().then(
      async ({ status, headers, text }) => {
        await turn.wait();
        if (text === undefined) {
          res.writeHead(400).end();
          return;
        }
        const out = Buffer.from(text);
        res.writeHead(status, { ...headers, 'content-length': String(out.byteLength) });
        res.end(out);
      },
      () => res.writeHead(500).end(),
    );
  });
});
if (RUNG === 6) {
  const mock = await startMockServer({ service });
  console.log(`ladder-${RUNG} listening on ${mock.url}`);
} else {
  server.listen(0, '127.0.0.1', () => console.log(`ladder-${RUNG} listening on http://127.0.0.1:${(server.address() as AddressInfo).port}`));
}

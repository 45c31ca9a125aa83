// One rung of the bench's ladder (bench/ladder.ts): a chat server that does the mock's work up to a point, so the
// served cost of each part of the mock can be read off as the difference between two rungs. Every rung answers the
// bench's chat request with a chat completion, and its streamed request with the stream of chunks; only how much
// of the mock it runs changes.
//   0  a lean server: JSON.parse, the chat-request schema, the key, an FNV hash of the body, the prompt's words
//      counted, a 40-80 word answer, the body (or each chunk) written with a template. The least a
//      contract-honest answer needs.
//   1  + the mock's request parsing (parseChatRequest: UTF-8, depth bound, JSON, schema, the field rules)
//   2  + the mock's completion and usage (complete, usageOf: the seed, prompt tokens, the answer, caps, cost)
//   3  + the mock's response body (toResponseBody, chatJson) or stream (toChunks, toEvents, encodeStream)
//   4  the mock's service instead (createMockService().handle with the journal off): every stage, the modes' and
//      the scenario layer's wrappers, the harness
//   5  + the journal (the default 1,000 entries)
//   6  the mock's own node:http adapter instead of the minimal handler (startMockServer, mock/server.ts)
// Rungs 0-5 are served by the same minimal node:http handler (the body read whole; at the end of the turn, a JSON
// body in one `end`, a stream as the adapter writes an unpaced one). The ladder's last rung is the mock as
// `chatconform mock` runs it; every rung gets the command's V8 settings.
// `node bench/.out/bench/ladder-server.js N` prints `ladder-N listening on http://127.0.0.1:PORT`.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { complete, toChunks, toEvents, toResponseBody, usageOf } from '../mock/core/chat.ts';
import { chatJson, jsonText } from '../mock/engine/chat-json.ts';
import { defaultCatalog, defaultKeys } from '../mock/core/fixture-data.ts';
import { bodyFromBytes } from '../mock/core/http.ts';
import { JSON_HEADERS, SSE_HEADERS } from '../mock/core/pipeline.ts';
import { parseChatRequest, type ChatRequest } from '../mock/core/request.ts';
import { encodeStream } from '../mock/core/sse-encoder.ts';
import { fnv1a } from '../mock/engine/tokens.ts';
import { PromptCache } from '../mock/core/usage.ts';
import { startMockServer } from '../mock/server.ts';
import { toCoreRequest } from '../mock/transport/core-request.ts';
import { fastWriter, TurnEnd, WriteSlabs } from '../mock/transport/fast-writer.ts';
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

/** What a rung answers: a JSON body's text, or a stream's events as text pieces (undefined: refused, 400). */
type Answer = { kind: 'json'; text: string } | { kind: 'sse'; pieces: string[] };

/** A chat completion's JSON written by template (rungs 0-2, which do not use the mock's serialiser). */
const templateBody = (model: string, content: string, finishReason: string, usage: string): string =>
  `{"id":"${newId()}","object":"chat.completion","created":${created()},"model":${JSON.stringify(model)},"choices":[{"index":0,"message":{"role":"assistant","content":${JSON.stringify(content)}},"finish_reason":${JSON.stringify(finishReason)}}],"usage":${usage}}`;

/** A stream's events written by template (rungs 0-2): a role chunk, a chunk per 3 tokens, the finish, the usage when asked, [DONE]. */
function templateStream(model: string, tokens: readonly string[], finishReason: string, usage: string | undefined): string[] {
  // The envelope is the same in every chunk: written once.
  const head = `data: {"id":"${newId()}","object":"chat.completion.chunk","created":${created()},"model":${JSON.stringify(model)},"choices":[`;
  const out = [`${head}{"index":0,"delta":{"role":"assistant"}}]}\n\n`];
  for (let i = 0; i < tokens.length; i += 3) out.push(`${head}{"index":0,"delta":{"content":${JSON.stringify(tokens.slice(i, i + 3).join(''))}}}]}\n\n`);
  out.push(`${head}{"index":0,"delta":{},"finish_reason":${JSON.stringify(finishReason)}}]}\n\n`);
  if (usage !== undefined) out.push(`${head}],"usage":${usage}}\n\n`);
  out.push('data: [DONE]\n\n');
  return out;
}

/** Rung 0's answer: the least work a contract-honest chat completion (or stream) needs. */
function leanAnswer(text: string, req: ChatRequest): Answer {
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
  const tokens: string[] = [];
  for (let i = 0, s = h; i < length; i++) {
    s = Math.imul(s ^ (s >>> 15), 0x2c1b3c6d) >>> 0;
    tokens.push(WORDS[s % WORDS.length]! + (i === length - 1 ? '' : ' '));
  }
  const usage = `{"prompt_tokens":${prompt},"completion_tokens":${length},"total_tokens":${prompt + length}}`;
  if (req.stream === true) return { kind: 'sse', pieces: templateStream(req.model, tokens, 'stop', req.stream_options?.include_usage === true ? usage : undefined) };
  return { kind: 'json', text: templateBody(req.model, tokens.join(''), 'stop', usage) };
}

/** Rungs 0-3: the answer, or undefined for a request they refuse. */
function answer(bytes: Buffer, authorization: string | undefined): Answer | undefined {
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
  const includeUsage = req.stream_options?.include_usage === true;
  if (RUNG >= 3) {
    const env = { id: newId(), created: created(), model: entry.id };
    if (req.stream === true) return { kind: 'sse', pieces: encodeStream(toEvents(toChunks(c, env, includeUsage))) };
    return { kind: 'json', text: chatJson(toResponseBody(c, env)) };
  }
  if (req.stream === true) return { kind: 'sse', pieces: templateStream(entry.id, c.contentTokens, c.finishReason, includeUsage ? JSON.stringify(c.usage) : undefined) };
  return { kind: 'json', text: templateBody(entry.id, c.content ?? '', c.finishReason, JSON.stringify(c.usage)) };
}

const HEADERS = { json: { ...JSON_HEADERS, 'x-mock-route': route.name }, sse: { ...SSE_HEADERS, 'x-mock-route': route.name } };
const turn = new TurnEnd();
const slabs = new WriteSlabs();

const server = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const bytes = Buffer.concat(chunks);
    const reply = async (): Promise<{ status: number; headers: Record<string, string>; answer: Answer | undefined }> => {
      if (RUNG < 4) {
        const a = answer(bytes, req.headers.authorization);
        return { status: 200, headers: a === undefined ? {} : HEADERS[a.kind], answer: a };
      }
      // The request as the adapter gives it to the core (its headers are what the journal records in rung 5).
      const result = await service!.handle(toCoreRequest(req, req.url ?? '/', bodyFromBytes(bytes)));
      const a: Answer | undefined =
        result.kind === 'json' ? { kind: 'json', text: jsonText(result.body) } : result.kind === 'sse' ? { kind: 'sse', pieces: result.pieces } : undefined;
      return { status: result.status, headers: result.headers, answer: a };
    };
    // As the mock's adapter does: an answer, once made, waits for the end of the turn, so the answers of one turn
    // are written together; a stream goes out in the adapter's batches, encoded into its slabs.
    reply().then(
      async ({ status, headers, answer: a }) => {
        await turn.wait();
        if (a === undefined) {
          res.writeHead(400).end();
          return;
        }
        if (a.kind === 'sse') {
          res.writeHead(status, headers);
          for (const w of slabs.writes(a.pieces)) res.write(w);
          res.end();
          return;
        }
        const out = Buffer.from(a.text);
        res.writeHead(status, { ...headers, 'content-length': String(out.byteLength) });
        res.end(out);
      },
      () => res.writeHead(500).end(),
    );
  });
});
if (RUNG === 6) {
  const mock = await startMockServer({ service, writer: fastWriter() });
  console.log(`ladder-${RUNG} listening on ${mock.url}`);
} else {
  server.listen(0, '127.0.0.1', () => console.log(`ladder-${RUNG} listening on http://127.0.0.1:${(server.address() as AddressInfo).port}`));
}

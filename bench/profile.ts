// `npm run bench:profile` (or `npx tsx bench/profile.ts`): the mock's own cost per request, in process, without
// HTTP. For each of the bench's three requests (GET /v1/models, a chat, a streamed chat with include_usage) it
// calls `createMockService().handle()` in a loop and turns the result into the bytes the node:http adapter would
// write (the JSON body as one Buffer, the stream's events joined into its writes), then prints the CPU time per request (µs):
// the median of ROUNDS rounds of ITERATIONS requests after a warm-up. `npm run bench:profile` runs the compiled
// JavaScript (bench/.out/, as the bench does); add `-- --cpu-prof` style flags by running
// `node --cpu-prof --cpu-prof-dir=.tmp/prof bench/.out/bench/profile.js [scenario]` after `npm run bench:build`.
// Optional argument: one scenario name (models, chat, stream) to profile alone.
import { bodyFromBytes, type CoreRequest, type CoreResult } from '../mock/core/http.ts';
import { jsonText } from '../mock/engine/chat-json.ts';
import { MOCK_KEYS, MOCK_MODELS } from '../mock/keys-and-models.ts';
import { batches } from '../mock/transport/fast-writer.ts';
import { createMockService } from '../mock/service.ts';

const ITERATIONS = Number(process.env.PROFILE_ITERATIONS ?? 20_000);
const ROUNDS = Number(process.env.PROFILE_ROUNDS ?? 7);

// The bench's requests (bench/mock.ts), byte for byte.
const messages = [{ role: 'user', content: 'Benchmark the mock with a short question about rivers and mountains.' }];
const scenarios = {
  models: { method: 'GET', path: '/v1/models', body: undefined },
  chat: { method: 'POST', path: '/v1/chat/completions', body: JSON.stringify({ model: MOCK_MODELS.small, messages }) },
  stream: {
    method: 'POST',
    path: '/v1/chat/completions',
    body: JSON.stringify({ model: MOCK_MODELS.small, messages, stream: true, stream_options: { include_usage: true } }),
  },
} as const;
type Name = keyof typeof scenarios;

const service = createMockService();

function request(name: Name): CoreRequest {
  const s = scenarios[name];
  const bytes = s.body === undefined ? undefined : Buffer.from(s.body);
  const headers: Record<string, string> = {
    host: '127.0.0.1',
    authorization: `Bearer ${MOCK_KEYS.full}`,
    'content-type': 'application/json',
    ...(bytes ? { 'content-length': String(bytes.byteLength) } : {}),
  };
  return { method: s.method, path: s.path, header: (n) => headers[n], body: bytes ? bodyFromBytes(bytes) : bodyFromBytes(new Uint8Array()) };
}

/** The bytes the adapter writes for a result (mock/transport/send.ts with the fast writer, unpaced). */
function bytesOf(result: CoreResult): number {
  if (result.kind === 'json') return Buffer.byteLength(jsonText(result.body));
  if (result.kind === 'text') return Buffer.byteLength(result.body);
  let n = 0;
  for (const b of batches(result.pieces)) n += Buffer.byteLength(b);
  return n;
}

/** CPU time (user + system) of this process per request, µs: unlike wall time, not counting what other processes of a shared machine take. */
async function run(name: Name, n: number): Promise<number> {
  let sink = 0;
  const t0 = process.cpuUsage();
  for (let k = 0; k < n; k++) {
    const result = await service.handle(request(name));
    if (result.status !== 200) throw new Error(`${name}: status ${result.status}`);
    sink += bytesOf(result);
  }
  const t = process.cpuUsage(t0);
  const us = (t.user + t.system) / n;
  if (sink === 0) throw new Error('no bytes');
  return us;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const only = process.argv[2] as Name | undefined;
const names = only ? [only] : (Object.keys(scenarios) as Name[]);
for (const name of names) {
  if (!(name in scenarios)) throw new Error(`unknown scenario ${name}; known: ${Object.keys(scenarios).join(', ')}`);
  await run(name, ITERATIONS / 4);
  const rounds: number[] = [];
  for (let r = 0; r < ROUNDS; r++) rounds.push(await run(name, ITERATIONS));
  console.log(`${name.padEnd(7)} ${median(rounds).toFixed(1).padStart(6)} µs of CPU per request (median of ${ROUNDS} x ${ITERATIONS}; min ${Math.min(...rounds).toFixed(1)}, max ${Math.max(...rounds).toFixed(1)})`);
}

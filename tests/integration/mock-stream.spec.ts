// Issue 3, points 12 and 13: streamed completions (section 6) and the scenario headers, over real HTTP.
// Streams are decoded with the kit's reference consumer (judge/decoding/sse.ts); every chunk is schema-valid.
import { expect, test } from '@playwright/test';
import http from 'node:http';
import { assertValid } from '../../spec/validator.ts';
import { decodeSse, transcribeSse, type SseEvent } from '../../judge/decoding/sse.ts';
import { startMockServer } from '../../mock/server.ts';
import { MOCK_KEYS, MOCK_MODELS } from '../../mock/keys-and-models.ts';
import { useMock } from './support/use-mock.ts';

const server = useMock(test);

interface Streamed {
  status: number;
  headers: Headers;
  raw: Uint8Array[];
  text: string;
  events: SseEvent[];
  chunks: any[];
  error?: any;
  done: boolean;
}

async function stream(body: Record<string, unknown>, headers: Record<string, string> = {}): Promise<Streamed> {
  const res = await fetch(`${server.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${MOCK_KEYS.full}`, ...headers },
    body: JSON.stringify({ stream: true, ...body }),
  });
  const raw: Uint8Array[] = [];
  const reader = res.body!.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    raw.push(value);
  }
  const text = Buffer.concat(raw).toString('utf8');
  if (res.status !== 200) {
    const parsed = JSON.parse(text);
    assertValid('error', parsed);
    return { status: res.status, headers: res.headers, raw, text, events: [], chunks: [], error: parsed, done: false };
  }
  const events = decodeSse(raw);
  const out: Streamed = { status: res.status, headers: res.headers, raw, text, events, chunks: [], done: false };
  events.forEach((e, i) => {
    if (e.data === '[DONE]') {
      expect(i, '[DONE] is last').toBe(events.length - 1);
      out.done = true;
      return;
    }
    expect(e.event, 'unnamed events only').toBeUndefined();
    const payload = JSON.parse(e.data);
    if ('error' in payload) {
      assertValid('stream-error-event', payload);
      out.error = payload;
    } else {
      assertValid('chat-chunk', payload);
      out.chunks.push(payload);
    }
  });
  expect(text).not.toContain('null');
  return out;
}

const user = (content: string): Record<string, unknown> => ({ role: 'user', content });
const contentOf = (s: Streamed): string => s.chunks.map((c) => c.choices[0]?.delta?.content ?? '').join('');
const finishes = (s: Streamed): string[] => s.chunks.flatMap((c) => c.choices.filter((x: any) => x.finish_reason).map((x: any) => x.finish_reason));

async function nonStreamed(body: Record<string, unknown>): Promise<any> {
  const res = await fetch(`${server.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${MOCK_KEYS.full}` },
    body: JSON.stringify(body),
  });
  return res.json();
}

test.describe('point 12: streaming', () => {
  test('conventional chunk shape: same id/created/model, role first, several content deltas, finish, [DONE] once', async () => {
    const s = await stream({ model: MOCK_MODELS.small, messages: [user('stream please')] });
    expect(s.status).toBe(200);
    expect(s.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(s.done).toBe(true);
    expect(s.events.filter((e) => e.data === '[DONE]')).toHaveLength(1);
    const first = s.chunks[0];
    for (const c of s.chunks) {
      expect(c.id).toBe(first.id);
      expect(c.created).toBe(first.created);
      expect(c.model).toBe(MOCK_MODELS.small);
      expect(c.object).toBe('chat.completion.chunk');
      expect(Array.isArray(c.choices)).toBe(true);
      expect(c.error).toBeUndefined();
    }
    expect(first.choices[0].delta.role).toBe('assistant');
    expect(s.chunks.filter((c) => c.choices[0]?.delta?.content !== undefined).length).toBeGreaterThan(3);
    expect(finishes(s)).toEqual(['stop']);
    expect(s.chunks.at(-1).choices[0].finish_reason).toBe('stop');
    expect(s.chunks.some((c) => c.usage)).toBe(false);
  });

  test('the streamed text equals the non-streamed text of the same request', async () => {
    const req = { model: MOCK_MODELS.small, messages: [user('same text')], max_tokens: 20 };
    const s = await stream(req);
    const n = await nonStreamed(req);
    expect(contentOf(s)).toBe(n.choices[0].message.content);
    expect(finishes(s)).toEqual(['length']);
  });

  test('include_usage: exactly one usage chunk with choices [] before [DONE]', async () => {
    const s = await stream({ model: MOCK_MODELS.small, messages: [user('usage')], stream_options: { include_usage: true } });
    const withUsage = s.chunks.filter((c) => c.usage);
    expect(withUsage).toHaveLength(1);
    expect(withUsage[0].choices).toEqual([]);
    expect(s.chunks.at(-1)).toBe(withUsage[0]);
    const u = withUsage[0].usage;
    expect(u.total_tokens).toBe(u.prompt_tokens + u.completion_tokens);
    const off = await stream({ model: MOCK_MODELS.small, messages: [user('usage')], stream_options: { include_usage: false } });
    expect(off.chunks.filter((c) => c.usage)).toHaveLength(0);
  });

  test('tool-call deltas: integer index, id/type/name on the first delta only, arguments over several deltas', async () => {
    const tools = [
      { type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' }, days: { type: 'integer' } }, required: ['city'] } } },
      { type: 'function', function: { name: 'get_time' } },
    ];
    const s = await stream({ model: MOCK_MODELS.small, messages: [user('get_weather and get_time')], tools });
    const deltas = s.chunks.flatMap((c) => c.choices[0]?.delta?.tool_calls ?? []);
    const byIndex = new Map<number, any[]>();
    for (const d of deltas) {
      expect(Number.isInteger(d.index)).toBe(true);
      expect(typeof d.function).toBe('object');
      byIndex.set(d.index, [...(byIndex.get(d.index) ?? []), d]);
    }
    expect([...byIndex.keys()]).toEqual([0, 1]);
    for (const [, list] of byIndex) {
      expect(list[0].id).toMatch(/^call_/);
      expect(list[0].type).toBe('function');
      expect(typeof list[0].function.name).toBe('string');
      for (const later of list.slice(1)) {
        expect(later.id).toBeUndefined();
        expect(later.type).toBeUndefined();
        expect(later.function.name).toBeUndefined();
      }
      expect(list.filter((d) => d.function.arguments).length).toBeGreaterThanOrEqual(2);
      JSON.parse(list.map((d) => d.function.arguments ?? '').join(''));
    }
    expect(finishes(s)).toEqual(['tool_calls']);
    const n = await nonStreamed({ model: MOCK_MODELS.small, messages: [user('get_weather and get_time')], tools });
    expect(byIndex.get(0)![0].id).toBe(n.choices[0].message.tool_calls[0].id);
  });

  test('reasoning arrives as reasoning_content deltas before the content', async () => {
    const s = await stream({ model: MOCK_MODELS.reasoner, messages: [user('think')], reasoning: { effort: 'low' } });
    const firstReasoning = s.chunks.findIndex((c) => c.choices[0]?.delta?.reasoning_content);
    const firstContent = s.chunks.findIndex((c) => c.choices[0]?.delta?.content);
    expect(firstReasoning).toBeGreaterThan(0);
    expect(firstReasoning).toBeLessThan(firstContent);
  });

  test('a refusal happens before the stream opens: a JSON error, not an event', async () => {
    const s = await stream({ model: MOCK_MODELS.unavailable, messages: [user('x')] });
    expect(s.status).toBe(503);
    expect(s.error.error.code).toBe('model_unavailable');
  });
});

test.describe('point 13: scenario headers', () => {
  const req = { model: MOCK_MODELS.small, messages: [user('scenario 你好 🚀')], stream_options: { include_usage: true } };

  test('x-mock-fail-after N: N chunks, then an error event, then the end without [DONE]', async () => {
    const s = await stream(req, { 'x-mock-fail-after': '3' });
    expect(s.status).toBe(200);
    expect(s.chunks).toHaveLength(3);
    expect(s.error.error.code).toBe('upstream_error');
    expect(typeof s.error.error.message).toBe('string');
    expect(s.done).toBe(false);
    expect(s.events.at(-1)!.data).toContain('"error"');
  });

  test('x-mock-status answers that error upfront', async () => {
    for (const status of [429, 500, 503]) {
      const s = await stream(req, { 'x-mock-status': String(status) });
      expect(s.status).toBe(status);
      expect(s.error.error.code).toBeTruthy();
    }
    const r = await fetch(`${server.url}/v1/models`, { headers: { 'x-mock-status': '503' } });
    expect(r.status).toBe(503);
    expect(r.headers.get('retry-after')).toBe('1');
  });

  test('x-mock-chunk-delay-ms delays every event', async () => {
    const t0 = Date.now();
    const s = await stream({ ...req, max_tokens: 6 }, { 'x-mock-chunk-delay-ms': '20' });
    expect(s.events.length).toBeGreaterThanOrEqual(5);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(20 * s.events.length - 10);
  });

  test('framings decode to the same events as the default framing', async () => {
    const plain = await stream(req);
    const strip = (s: Streamed): unknown[] => s.events.map((e) => (e.data === '[DONE]' ? e.data : { ...JSON.parse(e.data), id: '', created: 0 }));
    for (const framing of ['crlf', 'multiline', 'comments', 'bytewise', 'no-final-blank', 'no-space', 'crlf,multiline,comments,bytewise,no-final-blank']) {
      const s = await stream(req, { 'x-mock-framing': framing });
      expect(strip(s), framing).toEqual(strip(plain));
    }
  });

  test('each framing really changes the bytes', async () => {
    const crlf = await stream(req, { 'x-mock-framing': 'crlf' });
    expect(crlf.text).toContain('\r\n\r\n');
    expect(crlf.text.replace(/\r\n/g, '')).not.toContain('\n');
    const multi = await stream(req, { 'x-mock-framing': 'multiline' });
    expect(multi.text).toMatch(/data: \{\ndata: /);
    const comments = await stream(req, { 'x-mock-framing': 'comments' });
    const t = transcribeSse(comments.raw);
    expect(t.comments.length).toBeGreaterThan(3);
    const nofinal = await stream(req, { 'x-mock-framing': 'no-final-blank' });
    expect(nofinal.text.endsWith('data: [DONE]\n')).toBe(true);
    const nospace = await stream(req, { 'x-mock-framing': 'no-space' });
    expect(nospace.text.startsWith('data:{')).toBe(true);
  });

  test('bytewise: one byte per network write, so UTF-8 characters arrive split', async () => {
    // A raw node:http client sees each TCP read; with a 1 ms delay per write the reads stay separate.
    const body = JSON.stringify({ ...req, stream: true, max_tokens: 8 });
    const reads = await new Promise<Buffer[]>((resolve, reject) => {
      const r = http.request(`${server.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${MOCK_KEYS.full}`, 'content-type': 'application/json', 'x-mock-framing': 'bytewise', 'x-mock-write-delay-ms': '1' },
      }, (res) => {
        const got: Buffer[] = [];
        res.on('data', (b: Buffer) => got.push(b));
        res.on('end', () => resolve(got));
        res.on('error', reject);
      });
      r.on('error', reject);
      r.end(body);
    });
    const total = reads.reduce((n, b) => n + b.length, 0);
    expect(reads.length).toBeGreaterThan(total / 2);
    // some read ends inside a multi-byte character
    const splitInside = reads.some((b) => {
      const last = b[b.length - 1]!;
      return last >= 0xc0 || (last >= 0x80 && last < 0xc0 && b.length === 1);
    });
    expect(splitInside).toBe(true);
    const events = decodeSse(reads);
    expect(events.at(-1)!.data).toBe('[DONE]');
    const text = events.filter((e) => e.data !== '[DONE]').map((e) => JSON.parse(e.data).choices[0]?.delta?.content ?? '').join('');
    expect(text).toMatch(/[\u4e00-\u9fff]/u);
  });

  test('an unknown framing or a malformed scenario header is a 400 naming it', async () => {
    const s = await stream(req, { 'x-mock-framing': 'zigzag' });
    expect([s.status, s.error.error.code]).toEqual([400, 'invalid_scenario_header']);
    expect(s.error.error.message).toContain('zigzag');
    const d = await stream(req, { 'x-mock-fail-after': '-1' });
    expect(d.status).toBe(400);
    expect(d.error.error.message).toContain('x-mock-fail-after');
  });

  test('a client that aborts mid-stream does not disturb the server', async () => {
    const ac = new AbortController();
    const res = await fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      signal: ac.signal,
      headers: { authorization: `Bearer ${MOCK_KEYS.full}`, 'content-type': 'application/json', 'x-mock-chunk-delay-ms': '50' },
      body: JSON.stringify({ ...req, stream: true }),
    });
    const reader = res.body!.getReader();
    await reader.read();
    ac.abort();
    await reader.read().catch(() => undefined);
    const after = await stream({ ...req, max_tokens: 3 });
    expect(after.done).toBe(true);
  });
});

test.describe('legal variants on the wire: sse-fields, usage-chunk-bare, long-tool-arguments, slow', () => {
  const post = (url: string, body: Record<string, unknown>): Promise<Response> =>
    fetch(`${url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${MOCK_KEYS.full}` }, body: JSON.stringify(body) });
  const ask = { model: MOCK_MODELS.small, messages: [user('Tell me about rivers.')], stream: true, stream_options: { include_usage: true } };
  const withVariant = async <T>(options: Parameters<typeof startMockServer>[0], run: (url: string) => Promise<T>): Promise<T> => {
    const s = await startMockServer({ port: 0, ...options });
    try {
      return await run(s.url);
    } finally {
      await s.close();
    }
  };

  test('sse-fields: every event carries event: message, id: <n> and retry: 3000; the data is the clean stream\'s', async () => {
    const clean = await (await post(server.url, ask)).text();
    const text = await withVariant({ variant: ['sse-fields'] }, async (url) => (await post(url, ask)).text());
    const blocks = text.split('\n\n').filter(Boolean);
    expect(blocks.length).toBeGreaterThan(3);
    blocks.forEach((block, i) => {
      expect(block.split('\n').slice(0, 3)).toEqual(['event: message', `id: ${i + 1}`, 'retry: 3000']);
      expect(block.split('\n')[3]).toMatch(/^data: /);
    });
    expect(blocks.at(-1)).toContain('data: [DONE]');
    // A standard consumer sees the same payloads (ids and created aside).
    const payloads = (t: string): string[] => decodeSse([new TextEncoder().encode(t)]).map((e) => e.data.replace(/"id":"[^"]+"|"created":\d+/g, ''));
    expect(payloads(text)).toEqual(payloads(clean));
    expect(decodeSse([new TextEncoder().encode(text)]).every((e) => e.event === undefined || e.event === 'message')).toBe(true);
  });

  test('usage-chunk-bare: with include_usage the usage-only chunk has no choices key', async () => {
    const text = await withVariant({ variant: ['usage-chunk-bare'] }, async (url) => (await post(url, ask)).text());
    const data = text.split('\n').filter((l) => l.startsWith('data: {')).map((l) => JSON.parse(l.slice(6)));
    const usage = data.filter((c) => 'usage' in c);
    expect(usage).toHaveLength(1);
    expect(usage[0]).not.toHaveProperty('choices');
    expect(data.at(-1)).toBe(usage[0]);
    expect(data.slice(0, -1).every((c) => Array.isArray(c.choices) && c.choices.length === 1)).toBe(true);
    expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true);
  });

  test('long-tool-arguments: one call needs more than 64 tokens and still meets its schema; a cap below cuts it (finish_reason length)', async () => {
    const { countTokens } = await import('../../mock/engine/tokens.ts');
    const closed = { type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false } } };
    const open = { type: 'function', function: { name: 'get_time', parameters: { type: 'object', properties: { tz: { type: 'string', enum: ['UTC'] } }, required: ['tz'] } } };
    await withVariant({ variant: ['long-tool-arguments'] }, async (url) => {
      for (const tool of [closed, open]) {
        const full = await (await post(url, { model: MOCK_MODELS.mini, messages: [user('weather?')], tools: [tool] })).json();
        const call = full.choices[0].message.tool_calls[0];
        expect(full.choices[0].finish_reason).toBe('tool_calls');
        const tokens = countTokens(call.function.name) + countTokens(call.function.arguments);
        expect(tokens).toBeGreaterThan(64);
        expect(full.usage.completion_tokens).toBe(tokens);
        const args = JSON.parse(call.function.arguments);
        if (tool === closed) expect(Object.keys(args)).toEqual(['city']); // padded inside the free string
        else expect(args).toMatchObject({ tz: 'UTC', mock_padding: expect.any(String) }); // an extra property where allowed

        // A cap below the call: cut like text, counted, finish_reason length; streamed the same.
        const capped = await (await post(url, { model: MOCK_MODELS.mini, messages: [user('weather?')], tools: [tool], max_tokens: 40 })).json();
        expect(capped.choices[0].finish_reason).toBe('length');
        const cut = capped.choices[0].message.tool_calls[0].function.arguments as string;
        expect(call.function.arguments.startsWith(cut)).toBe(true);
        expect(cut.length).toBeLessThan(call.function.arguments.length);
        expect(capped.usage.completion_tokens).toBeLessThanOrEqual(40);
        const streamed = await (await post(url, { model: MOCK_MODELS.mini, messages: [user('weather?')], tools: [tool], max_tokens: 40, stream: true })).text();
        const chunks = decodeSse([new TextEncoder().encode(streamed)]).filter((e) => e.data !== '[DONE]').map((e) => JSON.parse(e.data));
        const joined = chunks.flatMap((c) => c.choices[0]?.delta?.tool_calls ?? []).map((d: any) => d.function.arguments).join('');
        expect(joined).toBe(cut);
        expect(chunks.flatMap((c) => c.choices.map((x: any) => x.finish_reason)).filter(Boolean)).toEqual(['length']);
      }
    });
  });

  test('slow: every answer waits before its headers and every stream event waits; the defaults are 3000 ms and 100 ms', async () => {
    const { SLOW_DEFAULTS } = await import('../../mock/modes/variants/slow.ts');
    expect(SLOW_DEFAULTS).toEqual({ headersMs: 3000, eventMs: 100 });
    await withVariant({ variant: ['slow'], slow: { headersMs: 400, eventMs: 60 } }, async (url) => {
      let t0 = performance.now();
      const list = await fetch(`${url}/v1/models`);
      const headersAfter = performance.now() - t0;
      expect(list.status).toBe(200);
      await list.arrayBuffer();
      t0 = performance.now();
      const res = await post(url, ask);
      const streamHeadersAfter = performance.now() - t0;
      const arrivals: number[] = [];
      const reader = res.body!.getReader();
      for (;;) {
        const { done } = await reader.read();
        if (done) break;
        arrivals.push(performance.now());
      }
      const gaps = arrivals.slice(1).map((a, i) => a - arrivals[i]!);
      console.log(`  slow: catalog headers after ${headersAfter.toFixed(0)} ms, stream headers after ${streamHeadersAfter.toFixed(0)} ms, ${arrivals.length} events, smallest gap ${Math.min(...gaps).toFixed(0)} ms`);
      expect(headersAfter).toBeGreaterThanOrEqual(390);
      expect(streamHeadersAfter).toBeGreaterThanOrEqual(390);
      expect(arrivals.length).toBeGreaterThan(5);
      expect(Math.min(...gaps)).toBeGreaterThanOrEqual(50);
    });
    // The default: 3 s before the headers.
    await withVariant({ variant: ['slow'] }, async (url) => {
      const t0 = performance.now();
      expect((await fetch(`${url}/v1/models`)).status).toBe(200);
      expect(performance.now() - t0).toBeGreaterThanOrEqual(2990);
    });
  });
});

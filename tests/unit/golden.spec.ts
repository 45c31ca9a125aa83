// The golden exchanges as data (mock/golden/): the format, the coverage issue 12 asks of them, the comparator's
// power to fail, and the curl examples of mock/README.md generated from them. The exchanges themselves run
// against both adapters in tests/integration/golden.spec.ts.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { FRAMINGS } from '../../mock/index.ts';
import { PENDING_VARIANTS, VARIANTS } from '../../mock/variants.ts';
import { MOCK_README_PATH, renderedReadme } from '../../scripts/golden-curls.ts';
import { compareExchange } from '../../scripts/golden/compare.ts';
import { eventPayloads, type Observed } from '../../scripts/golden/exchange.ts';
import { isStreamRequest, loadGoldenFiles, REPO_ROOT, schemaProblems, type GoldenExchange, type GoldenExpect, type GoldenFile, type Json } from '../../scripts/golden/format.ts';

const files = loadGoldenFiles();
const byName = new Map(files.map((f) => [f.name, f]));
const file = (name: string): GoldenFile => {
  const f = byName.get(name);
  if (!f) throw new Error(`no golden file ${name}`);
  return f;
};

type Obj = Record<string, Json>;
const obj = (v: Json | undefined): Obj => (v !== null && typeof v === 'object' && !Array.isArray(v) ? v : {});
const errorOf = (f: GoldenFile): Obj => obj(obj(f.exchange.expect.body)['error']);
const chunks = (f: GoldenFile): Obj[] => (f.exchange.expect.events ?? []).filter((e): e is Obj => typeof e === 'object' && e !== null && !Array.isArray(e));
const deltas = (f: GoldenFile): Obj[] => chunks(f).flatMap((c) => (Array.isArray(c['choices']) ? c['choices'] : []).map((ch) => obj(obj(ch)['delta'])));
const clean = (f: GoldenFile): boolean => f.exchange.options === undefined;

test.describe('golden files: format', () => {
  test('every file validates against mock/golden/golden.schema.json and there are enough of them', () => {
    // loadGoldenFiles throws on the first file that breaks the schema
    expect(files.length).toBeGreaterThanOrEqual(100);
  });

  test('the schema rejects what the format forbids', () => {
    const good = file('errors/unknown-path').exchange;
    expect(schemaProblems(good)).toEqual([]);
    const broken: Array<[string, unknown]> = [
      ['no narrative', { ...good, narrative: undefined }],
      ['body and events both', { ...good, expect: { ...good.expect, events: [] } }],
      ['neither body nor events', { ...good, expect: { status: 404, headers: {} } }],
      ['a path outside /v1/', { ...good, request: { ...good.request, path: '/nope' } }],
      ['body and rawBody both', { ...good, request: { ...good.request, body: {}, rawBody: '{' } }],
      ['padTo without body', { ...good, request: { ...good.request, padTo: 10 } }],
      ['readme position 0', { ...good, readme: 0 }],
      ['an unknown field', { ...good, note: 'x' }],
      ['an upper-case header name', { ...good, expect: { ...good.expect, headers: { 'Content-Type': 'application/json' } } }],
    ];
    for (const [why, data] of broken) expect(schemaProblems(JSON.parse(JSON.stringify(data))), why).not.toEqual([]);
  });

  test('the README positions are unique and run 1, 2, ... n', () => {
    const positions = files.map((f) => f.exchange.readme).filter((p): p is number => p !== undefined).sort((a, b) => a - b);
    expect(positions.length).toBeGreaterThanOrEqual(15);
    expect(positions).toEqual(positions.map((_, i) => i + 1));
  });
});

test.describe('golden files: coverage (issue 12, item 4)', () => {
  test('every endpoint, with and without a key, an encoded id, a mount prefix, streamed and not, 404 and 405', () => {
    const get = (p: (f: GoldenFile) => boolean): string[] => files.filter(p).map((f) => f.name);
    const req = (f: GoldenFile): GoldenExchange['request'] => f.exchange.request;
    const ok = (f: GoldenFile): boolean => f.exchange.expect.status === 200;
    expect(get((f) => req(f).method === 'GET' && req(f).path === '/v1/models' && !req(f).headers?.['authorization'] && ok(f))).not.toEqual([]);
    expect(get((f) => req(f).method === 'GET' && req(f).path === '/v1/models' && !!req(f).headers?.['authorization'] && ok(f))).not.toEqual([]);
    expect(get((f) => req(f).method === 'GET' && req(f).path.startsWith('/v1/models/') && req(f).path.includes('%2F') && ok(f))).not.toEqual([]);
    expect(get((f) => req(f).mountPrefix !== undefined && ok(f))).not.toEqual([]);
    expect(get((f) => req(f).path === '/v1/chat/completions' && !isStreamRequest(req(f)) && ok(f) && clean(f))).not.toEqual([]);
    expect(get((f) => req(f).path === '/v1/chat/completions' && isStreamRequest(req(f)) && ok(f) && clean(f))).not.toEqual([]);
    expect(get((f) => errorOf(f)['code'] === 'not_found' && f.exchange.expect.status === 404)).not.toEqual([]);
    expect(get((f) => errorOf(f)['code'] === 'method_not_allowed' && typeof f.exchange.expect.headers['allow'] === 'string')).not.toEqual([]);
  });

  test('every row of section 7, with its fixed message where the contract fixes one', () => {
    const spec = readFileSync(path.resolve(REPO_ROOT, '../shared/spec/chat-completion-service.md'), 'utf8');
    const section = spec.slice(spec.indexOf('## 7. Errors'), spec.indexOf('## 8.'));
    const rows = section.split('\n').filter((l) => /^\| [a-z_]+ \|/.test(l) && !l.startsWith('| code |')).map((l) => l.split('|').map((c) => c.trim()));
    expect(rows.length).toBe(9);
    const cleanErrors = files.filter(clean).map(errorOf);
    for (const [, code, status, , message] of rows) {
      const hits = cleanErrors.filter((e) => e['code'] === code);
      expect(hits.length, `a golden file answers ${code}`).toBeGreaterThan(0);
      if (/^\d+$/.test(status!)) expect(files.some((f) => clean(f) && errorOf(f)['code'] === code && f.exchange.expect.status === Number(status)), `${code} with ${status}`).toBe(true);
      if (message === 'not fixed in the contract') continue;
      // "... at least N tokens; M was requested (N minimum, M requested, both integers)": N and M are numbers
      const fixed = message!.replace(/ \(N minimum.*\)$/, '');
      const pattern = new RegExp(`^${fixed.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/\bN\b/, '\\d+').replace(/\bM\b/, '\\d+')}$`);
      expect(hits.some((e) => pattern.test(String(e['message']))), `${code}: "${fixed}"`).toBe(true);
    }
  });

  test("the mock's documented gap choices", () => {
    const codes = new Set(files.filter(clean).map((f) => errorOf(f)['code']));
    for (const code of ['missing_api_key', 'invalid_api_key', 'insufficient_tier', 'unknown_model', 'request_too_large', 'tools_not_declared', 'unknown_tool_call_id', 'invalid_reasoning_effort', 'images_not_supported', 'no_route_available', 'invalid_json', 'invalid_request']) {
      expect(codes.has(code), code).toBe(true);
    }
  });

  test('every stream shape', () => {
    const streams = files.filter((f) => clean(f) && f.exchange.expect.events !== undefined);
    const some = (why: string, p: (f: GoldenFile) => boolean): void => expect(streams.some(p), why).toBe(true);
    const last = (f: GoldenFile): Json | undefined => f.exchange.expect.events!.at(-1);
    some('plain text ending in [DONE]', (f) => deltas(f).some((d) => typeof d['content'] === 'string') && last(f) === '[DONE]');
    some('reasoning deltas', (f) => deltas(f).some((d) => typeof d['reasoning_content'] === 'string'));
    some('tool-call deltas', (f) => deltas(f).some((d) => Array.isArray(d['tool_calls'])));
    some('search provenance in a delta', (f) => deltas(f).some((d) => Array.isArray(d['annotations']) && Array.isArray(d['service_web_search'])));
    some('a usage chunk with choices []', (f) => chunks(f).some((c) => Array.isArray(c['choices']) && c['choices'].length === 0 && c['usage'] !== undefined));
    some('an in-stream error without [DONE]', (f) => obj(last(f))['error'] !== undefined && !f.exchange.expect.events!.includes('[DONE]'));
  });

  test('every scenario header of mock/README.md, with a good value and a bad one', () => {
    const readme = readFileSync(MOCK_README_PATH, 'utf8');
    const names = [...readme.matchAll(/^\| `(x-mock-[a-z-]+):/gm)].map((m) => m[1]!);
    expect(names.length).toBeGreaterThanOrEqual(5);
    for (const name of names) {
      const using = files.filter((f) => f.exchange.request.headers?.[name] !== undefined);
      expect(using.some((f) => f.exchange.expect.status !== 400), `${name} accepted`).toBe(true);
      expect(using.some((f) => f.exchange.expect.status === 400 && errorOf(f)['code'] === 'invalid_scenario_header'), `${name} refused`).toBe(true);
    }
    const framings = new Set(files.flatMap((f) => (f.exchange.request.headers?.['x-mock-framing'] ?? '').split(',')));
    for (const framing of ['lf', ...FRAMINGS]) expect(framings.has(framing), `x-mock-framing: ${framing}`).toBe(true);
  });

  test('every legal variant, VARIANTS and PENDING_VARIANTS', () => {
    const used = new Set(files.flatMap((f) => f.exchange.options?.variant ?? []));
    for (const v of [...VARIANTS, ...PENDING_VARIANTS]) expect(used.has(v.name), v.name).toBe(true);
  });
});

test.describe('golden files: the laws the recordings must obey', () => {
  test('every framing gives the events of the default framing (section 6 rules 1 to 3, 5)', () => {
    const hello = file('scenarios/framing-lf').exchange.expect.events;
    for (const name of ['crlf', 'multiline', 'comments', 'no-final-blank', 'no-space', 'combined']) {
      expect(file(`scenarios/framing-${name}`).exchange.expect.events, name).toEqual(hello);
    }
    expect(file('variants/sse-fields-stream').exchange.expect.events).toEqual(hello);
    expect(file('variants/crlf-with-framing-header').exchange.expect.events).toEqual(hello);
    const bonjour = file('scenarios/framing-bytewise').exchange.expect.events;
    for (const v of ['crlf', 'multiline', 'bytewise', 'no-final-blank', 'comments', 'no-space']) expect(file(`variants/${v}-stream`).exchange.expect.events, v).toEqual(bonjour);
    // the raw bodies really differ: each file asserts a framing, not the same bytes under another name
    const raws = files.map((f) => f.exchange.expect.raw).filter((r) => r !== undefined);
    expect(new Set(raws).size).toBeGreaterThanOrEqual(12);
  });

  test('the event reader: CRLF, several data lines, comments, no space, other fields, a final event without its blank line', () => {
    expect(eventPayloads('data: {"a":1}\r\n\r\n: note\r\nid: 2\r\ndata: [1,\r\ndata:2]\r\n\r\nevent: message\ndata:[DONE]')).toEqual([{ a: 1 }, [1, 2], '[DONE]']);
    expect(eventPayloads('data: x\n\n')).toEqual(['x']);
    expect(eventPayloads(': only a comment\n\n')).toEqual([]);
  });
});

/** What the mock would have answered if it matched `expect` exactly. */
function observedFrom(e: GoldenExpect): Observed {
  const headers = new Headers();
  for (const [n, v] of Object.entries(e.headers)) if (v !== null) headers.set(n, v);
  let text = e.raw;
  if (text === undefined && e.body !== undefined) text = JSON.stringify(e.body);
  if (text === undefined) text = (e.events ?? []).map((p) => `data: ${typeof p === 'string' ? p : JSON.stringify(p)}\n\n`).join('');
  return { status: e.status, headers, text };
}

const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

test.describe('golden runner: it can fail', () => {
  test('an answer equal to the expectation passes; every altered expectation is reported where it differs', () => {
    const body = clone(file('chat/text').exchange.expect);
    const seen = observedFrom(body);
    expect(compareExchange(body, seen)).toEqual([]);
    const altered = (change: (e: GoldenExpect) => void): string[] => {
      const e = clone(body);
      change(e);
      return compareExchange(e, seen);
    };
    expect(altered((e) => (e.status = 201))).toEqual(['status: expected 201, got 200']);
    expect(altered((e) => (e.headers['content-type'] = 'text/plain')).join()).toContain('header content-type');
    expect(altered((e) => (e.headers['retry-after'] = null))).toEqual([]);
    expect(altered((e) => (e.headers['x-mock-route'] = null)).join()).toContain('header x-mock-route: expected absent');
    expect(altered((e) => (obj(obj(e.body)['usage'])['completion_tokens'] = 1)).join()).toContain('body /usage/completion_tokens: expected 1, got 76');
    expect(altered((e) => delete obj(obj(e.body)['usage'])['cost']).join()).toContain('body /usage/cost: expected absent');
    expect(altered((e) => (obj(e.body)['system_fingerprint'] = 'fp')).join()).toContain('body /system_fingerprint: expected "fp", got absent');
  });

  test('events: a dropped, added or altered event is reported', () => {
    const stream = clone(file('stream/include-usage').exchange.expect);
    const seen = observedFrom(stream);
    expect(compareExchange(stream, seen)).toEqual([]);
    const e1 = clone(stream);
    e1.events!.pop();
    expect(compareExchange(e1, seen).join()).toContain(`events: expected ${stream.events!.length - 1} events, got ${stream.events!.length}`);
    const e2 = clone(stream);
    obj(obj((obj(e2.events![1]!)['choices'] as Json[])[0])['delta'])['content'] = 'other';
    expect(compareExchange(e2, seen).join()).toContain('event 1 /choices/0/delta/content: expected "other"');
    const e3 = clone(stream);
    e3.body = {};
    delete e3.events;
    expect(compareExchange(e3, seen).join()).toContain('body: expected JSON');
  });

  test('raw: a framing the events cannot show is still compared byte for byte', () => {
    const crlf = clone(file('scenarios/framing-crlf').exchange.expect);
    const seen = observedFrom(crlf);
    expect(compareExchange(crlf, seen)).toEqual([]);
    const lf = { ...seen, text: seen.text.replace(/\r\n/g, '\n') };
    const problems = compareExchange(crlf, lf);
    expect(problems).toHaveLength(1); // same events, different bytes
    expect(problems[0]).toContain('raw body differs at character');
  });

  test('key order is ignored, unless the file asks for it (variant key-order)', () => {
    const ordered = clone(file('variants/key-order-chat').exchange.expect);
    expect(ordered.keyOrder).toBe(true);
    const seen = observedFrom(ordered);
    expect(compareExchange(ordered, seen)).toEqual([]);
    const sorted = { ...seen, text: JSON.stringify(ordered.body, Object.keys(obj(ordered.body)).sort().concat(['index', 'message', 'role', 'content', 'finish_reason', 'prompt_tokens', 'completion_tokens', 'total_tokens', 'cost'])) };
    expect(compareExchange(ordered, sorted).join()).toContain('expected keys in the order');
    expect(compareExchange({ ...ordered, keyOrder: false }, sorted)).toEqual([]);
  });
});

test('mock/README.md: the golden examples are the ones npm run golden:readme renders', () => {
  const onDisk = readFileSync(MOCK_README_PATH, 'utf8');
  expect(onDisk === renderedReadme(onDisk), 'the golden examples in mock/README.md are stale: run npm run golden:readme').toBe(true);
});

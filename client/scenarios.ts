// The scenarios of a client run: each is the mock in one state (a framing, a fault, a script, a catalog), an
// instruction, and the judgement of what the client reported and of what it sent (the mock's journal). Each
// names the catalog records it judges; a record judged here stays one record of the catalog (most are the
// contract's consumer rules, `check: mock-only`, which the kit's own consumer passes in its own tests).
import type { CheckRecord } from '../judge/checker.ts';
import { countTokens, defaultCatalog, type CatalogFixture, type JournalEntry, type MockOptions, type ScriptDocument } from '../mock/index.ts';
import type { ClientReport, Instruction } from './protocol.ts';

/** What a scenario's judgement reads. */
export interface JudgeInput {
  report: ClientReport;
  /** The client's requests, oldest first (the kit's own requests left out). */
  journal: readonly JournalEntry[];
  /** The catalog as the scenario's mock lists it (GET /v1/models `data`). */
  listed: readonly Record<string, unknown>[];
}

export interface Scenario {
  id: string;
  title: string;
  /** The catalog records the judgement speaks for. */
  requirements: readonly string[];
  /** The mock's state: options of its own instance (faults, script, variants, catalog). */
  mock: MockOptions;
  instruction: Instruction;
  /** What a conformant client reports, in words (reports and docs). */
  expected: string;
  /**
   * The scenario this one builds on (the plain stream under each framing): when the client failed that one, a
   * failure here is the same deviation and is reported there once, this one's records turned into skips.
   */
  after?: string;
  judge(input: JudgeInput): CheckRecord[];
}

/** Multi-byte text on purpose (2- to 4-byte UTF-8 characters), long enough to cross many chunks. */
export const ANSWER_TEXT = 'Grüße aus Köln: the café serves crème brûlée, 東京の天気は晴れ, and the forecast says ☀️ then 🌧️ by evening, 42 km/h winds.';
/** Short, and mostly 2- to 4-byte characters: the bytewise stream stays short. */
export const SPLIT_TEXT = 'Köln → 東京: ☀️ 🌧️ ñandú';
export const TOOL_ANSWER_TEXT = 'It is 18 °C and sunny in Paris for the next two days.';
export const FOLLOW_UP_TEXT = 'Noted: the summary stands as it is.';
export const TOOL_CALL_ID = 'call_weather_7';
export const TOOL_ARGUMENTS = { city: 'Paris', days: 2, units: 'metric' };

const say = (content: string): ScriptDocument => ({ rules: [{ name: 'answer', answer: { content } }] });

const pass = (id: string, message?: string): CheckRecord => ({ id, status: 'pass', ...(message ? { message } : {}) });
const fail = (id: string, message: string): CheckRecord => ({ id, status: 'fail', message });

const posts = (journal: readonly JournalEntry[]): JournalEntry[] => journal.filter((e) => e.method === 'POST' && /\/v1\/chat\/completions$/.test(e.path));
const catalogReads = (journal: readonly JournalEntry[]): JournalEntry[] => journal.filter((e) => e.method === 'GET' && /\/v1\/models(\/|$)/.test(e.path));

/** A request body as JSON, or undefined (cut by the journal's bound, or not JSON). */
export function bodyOf(entry: JournalEntry): Record<string, unknown> | undefined {
  if (entry.body === undefined || entry.body_truncated) return undefined;
  try {
    const v: unknown = JSON.parse(entry.body);
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

const messagesOf = (entry: JournalEntry): Record<string, unknown>[] => {
  const m = bodyOf(entry)?.messages;
  return Array.isArray(m) ? (m as Record<string, unknown>[]) : [];
};

const errorText = (r: ClientReport): string => (r.error ? `the client reported an error: ${oneLine(r.error.message ?? JSON.stringify(r.error))}` : '');
const oneLine = (s: string): string => (s.length > 200 ? `${s.slice(0, 200)}...` : s).replace(/\s+/g, ' ');
const shown = (v: unknown): string => oneLine(JSON.stringify(v) ?? 'undefined');

/** The reported text is exactly `want`, with no error. */
function exactText(id: string, r: ClientReport, want: string, what: string): CheckRecord {
  if (r.error) return fail(id, `${what}: ${errorText(r)}`);
  if (r.text === want) return pass(id);
  if (typeof r.text !== 'string') return fail(id, `${what}: the client reported no text (text ${shown(r.text)})`);
  return fail(id, `${what}: the client reported ${shown(r.text)}, not the answer's text ${shown(want)}`);
}

function streamScenario(id: string, requirement: string, title: string, faults: string[], what: string, text = ANSWER_TEXT): Scenario {
  return {
    id,
    title,
    requirements: [requirement],
    mock: { script: say(text), ...(faults.length > 0 ? { fault: faults } : {}) },
    instruction: { kind: 'stream', model: 'acme/chat-small', messages: [{ role: 'user', content: 'Say the weather report.' }] },
    expected: `text ${JSON.stringify(text)}, no error`,
    ...(id === 'stream-plain' ? {} : { after: 'stream-plain' }),
    judge: ({ report }) => [exactText(requirement, report, text, what)],
  };
}

/**
 * A stream with include_usage: the text and the usage block read (6 rule 9). `bare`: the usage-only chunk has no
 * `choices` key, a shape the contract leaves open (CLIENT-NOTES asks servers for `choices: []`), so a client that
 * breaks on it is fragile rather than wrong: a warning.
 */
function usageScenario(bare: boolean): Scenario {
  const tokens = countTokens(ANSWER_TEXT);
  return {
    id: bare ? 'stream-usage-bare' : 'stream-usage',
    title: bare ? 'include_usage: the usage-only chunk has no choices key' : 'include_usage: one usage chunk (choices: []) before [DONE]',
    requirements: ['STREAM-016'],
    mock: { script: say(ANSWER_TEXT), ...(bare ? { variant: 'usage-chunk-bare' } : {}) },
    instruction: { kind: 'stream', model: 'acme/chat-small', messages: [{ role: 'user', content: 'Say the weather report.' }], stream_options: { include_usage: true } },
    expected: `text ${JSON.stringify(ANSWER_TEXT)} and usage.completion_tokens ${tokens}${bare ? ' (a warning otherwise)' : ''}`,
    after: 'stream-plain',
    judge: ({ report }) => {
      const text = exactText('STREAM-016', report, ANSWER_TEXT, bare ? 'a stream whose usage chunk has no choices key' : 'a stream with include_usage');
      const got = report.usage?.completion_tokens;
      const record = text.status !== 'pass' ? text : got === tokens ? pass('STREAM-016') : fail('STREAM-016', `the client reported usage ${shown(report.usage)}; the stream's usage block says completion_tokens ${tokens}`);
      return [bare && record.status === 'fail' ? { ...record, status: 'warn', message: `${record.message} (legal: the contract leaves the usage chunk's shape open; servers are asked for choices: [])` } : record];
    },
  };
}

/** The default catalog with every id renamed: a client that hardcodes ids asks for a model this catalog lacks. */
export function renamedCatalog(): CatalogFixture {
  const base = defaultCatalog();
  return { ...base, entries: base.entries.map((e) => ({ ...e, id: `live/${e.id.replace(/\//g, '-')}-2027` })) };
}

const imagePart = (p: unknown): boolean => p !== null && typeof p === 'object' && ((p as { type?: unknown }).type === 'image_url' || 'image_url' in (p as object));

function toolLoop(id: string, title: string, mock: MockOptions, stream: boolean): Scenario {
  return {
    id,
    title,
    requirements: ['RESP-020', 'TOOL-011'],
    // Streamed, it builds on the plain stream: a client that cannot read a stream fails there.
    ...(stream ? { after: 'stream-plain' } : {}),
    mock: {
      ...mock,
      script: {
        rules: [
          { name: 'call the tool', match: { tool_result: false }, answer: { tool_calls: [{ name: 'get_weather', id: TOOL_CALL_ID, arguments: TOOL_ARGUMENTS }] } },
          { name: 'answer', match: { tool_result: 'get_weather' }, answer: { content: TOOL_ANSWER_TEXT } },
        ],
      },
    },
    instruction: {
      kind: 'tool-loop',
      ...(stream ? { stream: true } : {}),
      model: 'acme/chat-small',
      messages: [{ role: 'user', content: 'What is the weather in Paris for two days?' }],
      tools: [
        {
          type: 'function',
          function: {
            name: 'get_weather',
            description: 'The weather forecast of a city.',
            parameters: {
              type: 'object',
              properties: { city: { type: 'string' }, days: { type: 'integer' }, units: { type: 'string', enum: ['metric', 'imperial'] } },
              required: ['city', 'days', 'units'],
            },
          },
        },
      ],
      tool_result: '{"temperature_c":18,"sky":"sunny"}',
    },
    expected: `${stream ? 'streamed: ' : ''}tool_calls [{id ${TOOL_CALL_ID}, name get_weather, arguments ${JSON.stringify(TOOL_ARGUMENTS)} (decoded)}], the result sent back with tool_call_id ${TOOL_CALL_ID}, then text ${JSON.stringify(TOOL_ANSWER_TEXT)}`,
    judge: ({ report, journal }) => {
      const call = report.tool_calls?.[0];
      const args =
        call === undefined
          ? fail('RESP-020', `the client reported no tool call (tool_calls ${shown(report.tool_calls)}${report.error ? `; ${errorText(report)}` : ''})`)
          : JSON.stringify(call.arguments) === JSON.stringify(TOOL_ARGUMENTS) || deepEqual(call.arguments, TOOL_ARGUMENTS)
            ? pass('RESP-020')
            : fail('RESP-020', `the call's arguments were reported as ${shown(call.arguments)} (${typeof call.arguments}), not decoded from the JSON string to ${shown(TOOL_ARGUMENTS)}`);
      const second = posts(journal)[1];
      const tools = second ? messagesOf(second).filter((m) => m.role === 'tool') : [];
      const answered = tools.some((m) => m.tool_call_id === TOOL_CALL_ID);
      const loop = !second
        ? fail('TOOL-011', `the client never sent the tool result back (${posts(journal).length} chat request(s))${report.error ? `; ${errorText(report)}` : ''}`)
        : !answered
          ? fail('TOOL-011', `the tool result does not answer the call by its id: tool messages ${shown(tools.map((m) => ({ tool_call_id: m.tool_call_id })))}, the call's id is ${TOOL_CALL_ID}`)
          : exactText('TOOL-011', report, TOOL_ANSWER_TEXT, 'the answer after the tool result');
      return [args, loop];
    },
  };
}

export const SCENARIOS: readonly Scenario[] = [
  streamScenario('stream-plain', 'STREAM-004', 'A plain stream: chunks without delta.content, then the [DONE] sentinel, which is not JSON', [], 'a plain LF stream ending with [DONE]'),
  streamScenario('stream-multiline', 'STREAM-006', 'Each event spreads its JSON over several data: lines, joined with a newline', ['framing=multiline'], 'events over several data: lines'),
  streamScenario('stream-crlf', 'STREAM-008', 'Every line of the stream ends with CRLF', ['framing=crlf'], 'a CRLF-framed stream'),
  streamScenario('stream-no-final-blank', 'STREAM-011', 'The final event ([DONE]) lacks its terminating blank line', ['framing=no-final-blank'], 'a stream whose last event has no blank line'),
  // A millisecond before each byte: the client reads the bytes apart (without it they pile up in the socket and
  // arrive in a few large chunks), and a short text keeps the stream to about two seconds.
  streamScenario('stream-bytewise', 'STREAM-014', 'One byte per network write, a millisecond apart: UTF-8 characters split across chunks', ['framing=bytewise', 'write-delay=1ms'], 'a stream written one byte at a time', SPLIT_TEXT),
  usageScenario(false),
  usageScenario(true),
  {
    id: 'stream-error',
    title: 'The stream opens with 200, sends three chunks, then an error event and ends without [DONE]',
    requirements: ['STREAM-018'],
    mock: { script: say(ANSWER_TEXT), fault: 'fail-after=3' },
    instruction: { kind: 'stream', model: 'acme/chat-small', messages: [{ role: 'user', content: 'Say the weather report.' }] },
    expected: 'an error (the stream failed), never the truncated text as the answer',
    after: 'stream-plain',
    judge: ({ report }) => [
      report.error
        ? pass('STREAM-018')
        : fail('STREAM-018', `an error event ended the stream after 3 chunks, and the client returned ${shown(report.text)} as the answer instead of failing`),
    ],
  },
  toolLoop('tool-loop', 'A tool call (arguments a JSON-encoded string), the tool result sent back, then the final answer', {}, false),
  // Streamed tool calls, each later delta repeating the call's id (2.4 allows it, servers that write each delta
  // whole do it): the call is assembled by index, its id taken once, never concatenated.
  toolLoop('tool-loop-stream', 'Streamed: tool-call deltas assembled by index (each repeating the call id), the result sent back, the answer streamed', { variant: 'tool-call-id-repeated' }, true),
  {
    id: 'search',
    title: 'A search answer (annotations, service_web_search with an action without url, usage.service_web_search_calls), sent back in a follow-up',
    requirements: ['SEARCH-030', 'SEARCH-036', 'SEARCH-040'],
    mock: { variant: 'search-calls-partial', script: { rules: [{ name: 'follow-up', match: { turn: 1 }, answer: { content: FOLLOW_UP_TEXT } }] } },
    instruction: {
      kind: 'search',
      model: 'acme/chat-small',
      messages: [{ role: 'user', content: 'Search the web: how does the mock stream?' }],
      web_search_options: { search_context_size: 'high' },
      follow_up: 'Thanks. Keep that summary.',
    },
    expected: `searches 1 (usage.service_web_search_calls; the answer has 2 annotations and 5 actions, one without url), the first answer's text, then the follow-up answered ${JSON.stringify(FOLLOW_UP_TEXT)} with no annotations or service_web_search in the assistant message sent back`,
    judge: ({ report, journal }) => {
      const out: CheckRecord[] = [];
      const first = posts(journal)[0];
      const firstText = typeof report.text === 'string' && report.text.length > 0;
      out.push(
        first === undefined
          ? fail('SEARCH-036', `the client sent no search request${report.error ? `; ${errorText(report)}` : ''}`)
          : firstText
            ? pass('SEARCH-036')
            : fail('SEARCH-036', `the search answer (one of its actions without url, which is normal) gave no text${report.error ? `: ${errorText(report)}` : ` (text ${shown(report.text)})`}`),
      );
      out.push(
        report.searches === 1
          ? pass('SEARCH-040')
          : fail('SEARCH-040', `the client reported ${shown(report.searches)} searches; usage.service_web_search_calls says 1 (the answer has 2 annotations and 5 search actions)`),
      );
      const second = posts(journal)[1];
      if (second === undefined) out.push(fail('SEARCH-030', `the client never sent the follow-up${report.error ? `; ${errorText(report)}` : ''}`));
      else {
        const sentBack = messagesOf(second).filter((m) => m.role === 'assistant');
        const leaked = sentBack.flatMap((m) => ['annotations', 'service_web_search'].filter((k) => k in m));
        out.push(
          sentBack.length === 0
            ? fail('SEARCH-030', 'the follow-up does not hold the assistant answer it follows')
            : leaked.length > 0
              ? fail('SEARCH-030', `the assistant message sent back holds the response-only field(s) ${[...new Set(leaked)].join(', ')}`)
              : report.follow_up_text === FOLLOW_UP_TEXT
                ? pass('SEARCH-030')
                : fail('SEARCH-030', `the follow-up gave ${shown(report.follow_up_text)}, not ${shown(FOLLOW_UP_TEXT)}${report.error ? `; ${errorText(report)}` : ''}`),
        );
      }
      return out;
    },
  },
  {
    id: 'catalog-optional',
    title: 'Read the catalog, every optional field omitted and no backend-naming field',
    requirements: ['CAT-003', 'CAT-042'],
    mock: { variant: 'optional-omitted' },
    instruction: { kind: 'catalog' },
    expected: 'models: the listed entries as listed, no placeholder for an omitted field, no error',
    judge: ({ report, listed }) => {
      if (report.error || !Array.isArray(report.models)) {
        const why = report.error ? errorText(report) : `the client reported no models (models ${shown(report.models)})`;
        return [fail('CAT-003', `reading a catalog without a backend-naming field: ${why}`), fail('CAT-042', `reading a catalog with its optional fields omitted: ${why}`)];
      }
      const ids = report.models.map((m) => m.id);
      const want = listed.map((m) => m.id);
      const cat003 = JSON.stringify([...ids].sort()) === JSON.stringify([...want].sort()) ? pass('CAT-003') : fail('CAT-003', `the client reported the ids ${shown(ids)}, the catalog lists ${shown(want)}`);
      const placeholders: string[] = [];
      for (const m of report.models) {
        const entry = listed.find((e) => e.id === m.id);
        if (!entry) continue;
        for (const [k, v] of Object.entries(m)) if (!(k in entry) && (v === null || v === '' || v === 0 || v === false)) placeholders.push(`${String(m.id)}.${k}: ${JSON.stringify(v)}`);
      }
      const cat042 = placeholders.length === 0 ? pass('CAT-042') : fail('CAT-042', `the client holds placeholder values for fields the catalog omits: ${placeholders.slice(0, 5).join(', ')}`);
      return [cat003, cat042];
    },
  },
  {
    id: 'catalog-choose',
    title: 'Choose a model with images from the live catalog (ids renamed from the fixture), then chat',
    requirements: ['CAT-040'],
    mock: { catalog: renamedCatalog(), script: say(ANSWER_TEXT) },
    instruction: { kind: 'chat', needs: ['supports_images'], messages: [{ role: 'user', content: 'Say the weather report.' }] },
    expected: `a catalog read, then a chat with an id the catalog lists with supports_images true; text ${JSON.stringify(ANSWER_TEXT)}`,
    judge: ({ report, journal, listed }) => {
      const first = posts(journal)[0];
      if (!first) return [fail('CAT-040', `the client sent no chat request${report.error ? `; ${errorText(report)}` : ''}`)];
      const model = bodyOf(first)?.model;
      const entry = listed.find((e) => e.id === model);
      const readFirst = catalogReads(journal).some((g) => g.seq < first.seq);
      if (!entry) return [fail('CAT-040', `the client asked for the model ${shown(model)}, which the live catalog does not list (its ids are read at run time, never hardcoded)`)];
      if (!readFirst) return [fail('CAT-040', 'the client chose a model without reading the catalog first')];
      if (entry.supports_images !== true) return [fail('CAT-040', `the client chose ${shown(model)}, whose entry does not have supports_images true`)];
      return [exactText('CAT-040', report, ANSWER_TEXT, 'the chat with the chosen model')];
    },
  },
  {
    id: 'image-gate',
    title: 'A conversation with an image part, for a model whose entry has supports_images false',
    requirements: ['IMG-007'],
    mock: { script: say(ANSWER_TEXT) },
    instruction: {
      kind: 'chat',
      model: 'acme/chat-small',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Say the weather report.' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==' } },
          ],
        },
      ],
    },
    expected: 'the catalog read first; no image part sent to acme/chat-small (the text alone sent, or an error reported)',
    judge: ({ journal, listed }) => {
      const sent = posts(journal);
      const noImages = new Set(listed.filter((e) => e.supports_images !== true).map((e) => e.id));
      const offending = sent.filter((p) => noImages.has(bodyOf(p)?.model) && messagesOf(p).some((m) => Array.isArray(m.content) && (m.content as unknown[]).some(imagePart)));
      if (offending.length > 0) return [fail('IMG-007', `the client sent an image part to ${shown(bodyOf(offending[0]!)?.model)}, whose entry has supports_images false`)];
      if (sent.length > 0 && !catalogReads(journal).some((g) => g.seq < sent[0]!.seq)) return [fail('IMG-007', 'the client sent the conversation without reading the catalog entry first')];
      return [pass('IMG-007')];
    },
  },
  {
    id: 'model-unavailable',
    title: 'The model answers 503 model_unavailable (retry-after 1)',
    requirements: ['ERR-009'],
    mock: {},
    instruction: { kind: 'chat', model: 'busy-chat', messages: [{ role: 'user', content: 'Say the weather report.' }] },
    expected: 'retries of busy-chat only (at least two requests), then an error reported; never another model',
    judge: ({ report, journal }) => {
      const sent = posts(journal);
      const models = sent.map((p) => bodyOf(p)?.model);
      const other = models.find((m) => m !== 'busy-chat');
      if (other !== undefined) return [fail('ERR-009', `after 503 model_unavailable the client asked for another model, ${shown(other)}`)];
      if (sent.length < 2) return [fail('ERR-009', `the client did not retry after 503 model_unavailable (${sent.length} request(s))`)];
      if (!report.error) return [fail('ERR-009', `the model never answered, yet the client reported no error (text ${shown(report.text)})`)];
      return [pass('ERR-009', `retried ${sent.length - 1} time(s)`)];
    },
  },
];

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null || Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a as object);
  const kb = Object.keys(b as object);
  return ka.length === kb.length && ka.every((k) => deepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

/** Every requirement some scenario judges, in scenario order. */
export const CLIENT_REQUIREMENTS: readonly string[] = [...new Set(SCENARIOS.flatMap((s) => s.requirements))];

// The scenarios of a client run: each is the mock in one state (a framing, a fault, a script, a catalog), an
// instruction, and the steps of its judgement: the consumer checks of judge/checks/consumer.ts, in the order the
// client meets what they judge, behind the gates it must pass first. A record judged here stays one record of the
// catalog (most are the contract's consumer rules, `check: mock-only`, which the kit's own consumer passes in its
// own tests). Nothing here judges: the checks do.
import {
  answerText,
  argumentsDecoded,
  consumerIds,
  entriesAsListed,
  fragile,
  imageSentWhereAccepted,
  imageWithheld,
  judged,
  modelFromCatalog,
  noBackendExpected,
  actedAtAll,
  readCatalog,
  reading,
  responseOnlyStripped,
  resultsAnswerCalls,
  retriedSameModel,
  searchAnswerRead,
  searchCount,
  sentChat,
  sentSearch,
  sentSecond,
  sentStreamed,
  streamErrorIsFailure,
  toolCallsRead,
  unterminatedErrorConsumed,
  usageRead,
  type ConsumerStep,
  type ExpectedCall,
} from '../judge/checks/consumer.ts';
import { countTokens, defaultCatalog, type CatalogFixture, type MockOptions, type ScriptDocument } from '../mock/index.ts';
import type { Instruction } from './protocol.ts';

export interface Scenario {
  id: string;
  title: string;
  /** The catalog records its steps can record. */
  requirements: readonly string[];
  /** The mock's state: options of its own instance (faults, script, variants, catalog). */
  mock: MockOptions;
  instruction: Instruction;
  /** What a conformant client reports, in words (reports and docs). */
  expected: string;
  /**
   * The scenarios this one builds on (the plain stream under each framing): when the client did not pass one of them,
   * this one's records are skips naming that one's finding (one deviation, reported once; no pass resting on it).
   */
  after?: readonly string[];
  /** The judgement: gates and checks, in the order the client meets them. */
  steps: readonly ConsumerStep[];
  /** Takes seconds whatever the client (a paced stream, a retry-after): started first when scenarios run at once. */
  slow?: true;
}

type ScenarioSpec = Omit<Scenario, 'requirements'>;
const scenario = (s: ScenarioSpec): Scenario => ({ ...s, requirements: consumerIds(s.steps) });

/** Multi-byte text on purpose (2- to 4-byte UTF-8 characters), long enough to cross many chunks. */
export const ANSWER_TEXT = 'Grüße aus Köln: the café serves crème brûlée, 東京の天気は晴れ, and the forecast says ☀️ then 🌧️ by evening, 42 km/h winds.';
/** Short, and mostly 2- to 4-byte characters: the bytewise stream stays short. */
export const SPLIT_TEXT = 'Köln → 東京: ☀️ 🌧️ ñandú';
export const TOOL_ANSWER_TEXT = 'It is 18 °C and sunny in Paris, 21 °C in Rome, for the next two days.';
export const FOLLOW_UP_TEXT = 'Noted: the summary stands as it is.';
/** Two parallel calls: a client that reads only the first answers one of them. */
export const TOOL_CALLS: readonly ExpectedCall[] = [
  { id: 'call_weather_7', name: 'get_weather', arguments: { city: 'Paris', days: 2, units: 'metric' } },
  { id: 'call_weather_8', name: 'get_weather', arguments: { city: 'Rome', days: 1, units: 'metric' } },
];
/** ASCII, so the citations' offsets are the same in every unit. */
export const SEARCH_TEXT = 'The mock streams server-sent events, and every stream ends with a DONE sentinel after its last chunk.';
/** The search answer's counts: no naive count (citations, actions, search actions, queries, requests) gives SEARCHES. */
export const SEARCHES = 3;
const SOURCES = [
  { url: 'https://example.com/mock/overview', title: 'Mock overview', cited: 'The mock streams server-sent events' },
  { url: 'https://example.org/guide/streaming', title: 'Streaming guide', cited: 'every stream ends with a DONE sentinel' },
];
const ACTIONS = [
  { type: 'search' as const, query: 'how does the mock stream' },
  { type: 'open_page' as const, url: SOURCES[0]!.url },
  { type: 'find_in_page' as const, url: SOURCES[0]!.url, pattern: 'server-sent' },
  { type: 'search' as const, query: 'mock stream DONE sentinel' },
  { type: 'open_page' as const, url: SOURCES[1]!.url },
];
/** The fields 2.10 lets an entry omit. */
export const OPTIONAL_CATALOG_FIELDS = [
  'max_tokens', 'context_window', 'input_price', 'output_price', 'cache_write_price', 'cache_read_price', 'description', 'temperature',
  'api_format', 'thinking_config', 'tiers', 'featured_label', 'featured_tab', 'display_order', 'credit_tier',
];
const TINY_PNG = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

const say = (content: string): ScriptDocument => ({ rules: [{ name: 'answer', answer: { content } }] });
const WEATHER = [{ role: 'user', content: 'Say the weather report.' }];

/** The default catalog with every id renamed: a client that hardcodes ids asks for a model this catalog lacks. */
export function renamedCatalog(): CatalogFixture {
  const base = defaultCatalog();
  return { ...base, entries: base.entries.map((e) => ({ ...e, id: `live/${e.id.replace(/\//g, '-')}-2027` })) };
}

/** A catalog whose entries carry every field 2.10 lists (copies of the one fixture entry that has them all). */
export function fullCatalog(): CatalogFixture {
  const base = defaultCatalog();
  const full = base.entries.reduce((a, b) => (Object.keys(b).length > Object.keys(a).length ? b : a));
  return { ...base, entries: ['', '-eu', '-us'].map((suffix, i) => ({ ...full, id: `${full.id}${suffix}`, supports_images: i !== 2, display_order: i + 1 })) };
}

/** The default catalog where one model's image flag is turned: the gate is read from the live catalog, not known. */
export function imagesTurnedOn(model: string): CatalogFixture {
  const base = defaultCatalog();
  return { ...base, entries: base.entries.map((e) => (e.id === model ? { ...e, supports_images: true } : e)) };
}

function streamScenario(id: string, requirement: string, title: string, mock: MockOptions, what: string, text = ANSWER_TEXT): Scenario {
  return scenario({
    id,
    title,
    mock: { script: say(text), ...mock },
    instruction: { kind: 'stream', model: 'acme/chat-small', messages: WEATHER },
    expected: `text ${JSON.stringify(text)}, no error`,
    ...(id === 'stream-plain' ? {} : { after: ['stream-plain'] }),
    steps: [sentStreamed, judged(answerText(requirement, text, what))],
  });
}

/**
 * A stream with include_usage: the text and the usage block read (6 rule 9). `bare`: the usage-only chunk has no
 * `choices` key, a shape the contract leaves open (CLIENT-NOTES asks servers for `choices: []`), so a client that
 * breaks on it is fragile rather than wrong: a warning.
 */
function usageScenario(bare: boolean): Scenario {
  const tokens = countTokens(ANSWER_TEXT);
  const read = usageRead(ANSWER_TEXT, tokens, bare ? 'a stream whose usage chunk has no choices key' : 'a stream with include_usage');
  return scenario({
    id: bare ? 'stream-usage-bare' : 'stream-usage',
    title: bare ? 'include_usage: the usage-only chunk has no choices key' : 'include_usage: one usage chunk (choices: []) before [DONE]',
    mock: { script: say(ANSWER_TEXT), ...(bare ? { variant: 'usage-chunk-bare' } : {}) },
    instruction: { kind: 'stream', model: 'acme/chat-small', messages: WEATHER, stream_options: { include_usage: true } },
    expected: `text ${JSON.stringify(ANSWER_TEXT)} and usage.completion_tokens ${tokens}${bare ? ' (a warning otherwise)' : ''}`,
    after: ['stream-plain'],
    steps: [sentStreamed, bare ? fragile(read, "legal: the contract leaves the usage chunk's shape open; servers are asked for choices: []") : judged(read)],
  });
}

/** A chat answer the contract allows, with `what` naming its oddity (the field a card names when the client rejects it). */
function legalChat(id: string, title: string, mock: MockOptions, what: string, after: readonly string[] = ['chat-plain']): Scenario {
  return scenario({
    id,
    title,
    mock: { script: say(ANSWER_TEXT), ...mock },
    instruction: { kind: 'chat', model: 'acme/chat-small', messages: WEATHER },
    expected: `text ${JSON.stringify(ANSWER_TEXT)}, no error`,
    ...(id === 'chat-plain' ? {} : { after }),
    steps: [sentChat('chat request'), judged(answerText('RESP-032', ANSWER_TEXT, what))],
  });
}

const TOOLS = [
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
];

function toolLoop(id: string, title: string, mock: MockOptions, stream: boolean): Scenario {
  return scenario({
    id,
    title,
    // Streamed, it builds on the plain stream and on the unstreamed loop: a client that cannot do either fails there.
    after: stream ? ['stream-plain', 'tool-loop'] : ['chat-plain'],
    mock: {
      ...mock,
      script: {
        rules: [
          { name: 'call the tool twice', match: { tool_result: false }, answer: { tool_calls: TOOL_CALLS.map((c) => ({ name: c.name, id: c.id, arguments: c.arguments })) } },
          { name: 'answer', match: { tool_result: 'get_weather' }, answer: { content: TOOL_ANSWER_TEXT } },
        ],
      },
    },
    instruction: {
      kind: 'tool-loop',
      ...(stream ? { stream: true } : {}),
      model: 'acme/chat-small',
      messages: [{ role: 'user', content: 'What is the weather in Paris for two days, and in Rome tomorrow?' }],
      tools: TOOLS,
      tool_result: '{"temperature_c":18,"sky":"sunny"}',
    },
    expected: `${stream ? 'streamed: ' : ''}tool_calls ${TOOL_CALLS.map((c) => `{id ${c.id}, name ${c.name}, arguments ${JSON.stringify(c.arguments)} (decoded)}`).join(', ')}, each answered by a tool message with its tool_call_id, then text ${JSON.stringify(TOOL_ANSWER_TEXT)}`,
    steps: [
      stream ? sentStreamed : sentChat('chat request with tools', (r) => Array.isArray(r.body?.tools)),
      reading(toolCallsRead(TOOL_CALLS, stream ? 'reading a streamed tool-call answer (2.4: the calls assembled from their deltas by index)' : 'reading a tool-call answer, legal under 2.4 and 2.9')),
      judged(argumentsDecoded(TOOL_CALLS)),
      sentSecond('tool results back'),
      judged(resultsAnswerCalls(TOOL_CALLS, TOOL_ANSWER_TEXT)),
    ],
  });
}

interface SearchServed {
  citations: { url: string; title?: string; cited: string }[];
  actions: { type: 'search' | 'open_page' | 'find_in_page'; query?: string; url?: string; pattern?: string }[];
}

function searchScenario(id: string, title: string, served: SearchServed, steps: readonly ConsumerStep[], expected: string, after: readonly string[]): Scenario {
  return scenario({
    id,
    title,
    after,
    mock: {
      script: {
        rules: [
          { name: 'search answer', match: { turn: 0 }, answer: { content: SEARCH_TEXT, search: { ...served, completed: SEARCHES } } },
          { name: 'follow-up', match: { turn: 1 }, answer: { content: FOLLOW_UP_TEXT } },
        ],
      },
    },
    instruction: {
      kind: 'search',
      model: 'acme/chat-small',
      messages: [{ role: 'user', content: 'Search the web: how does the mock stream?' }],
      web_search_options: { search_context_size: 'high' },
      follow_up: 'Thanks. Keep that summary.',
    },
    expected,
    steps: [sentSearch, ...steps],
  });
}

const SERVED = { citations: SOURCES, actions: ACTIONS };

export const SCENARIOS: readonly Scenario[] = [
  streamScenario('stream-plain', 'STREAM-004', 'A plain stream: chunks without delta.content, then the [DONE] sentinel, which is not JSON', {}, 'a plain LF stream ending with [DONE]'),
  streamScenario('stream-multiline', 'STREAM-006', 'Each event spreads its JSON over several data: lines, joined with a newline', { fault: 'framing=multiline' }, 'events over several data: lines'),
  streamScenario('stream-crlf', 'STREAM-008', 'Every line of the stream ends with CRLF', { fault: 'framing=crlf' }, 'a CRLF-framed stream'),
  streamScenario('stream-no-final-blank', 'STREAM-011', 'The final event ([DONE]) lacks its terminating blank line', { fault: 'framing=no-final-blank' }, 'a stream whose last event has no blank line'),
  // A millisecond before each byte: the client reads the bytes apart (without it they pile up in the socket and
  // arrive in a few large chunks), and a short text keeps the stream to about two seconds.
  { ...streamScenario('stream-bytewise', 'STREAM-014', 'One byte per network write, a millisecond apart: UTF-8 characters split across chunks', { fault: ['framing=bytewise', 'write-delay=1ms'] }, 'a stream written one byte at a time', SPLIT_TEXT), slow: true },
  streamScenario('stream-no-space', 'RESP-032', 'Every data: line without the optional space after the colon', { fault: 'framing=no-space' }, 'a legal stream whose data: lines have no space after the colon (6 rule 1: "a line starting with data:")'),
  streamScenario('stream-extra', 'RESP-032', 'Chunks, deltas and choices carry fields the contract does not list (system_fingerprint, vendor extras)', { variant: 'extra-fields' }, 'a legal stream whose chunks carry fields the contract does not list (system_fingerprint, x_vendor_extra: 1, the widely used shape)'),
  // The catalog of this instance omits its optional fields too (the variant's): this builds on catalog-optional.
  scenario({
    ...streamScenario('stream-omitted', 'RESP-032', 'A stream whose chunks never report finish_reason (omitted when not reported)', { variant: 'optional-omitted' }, 'a legal stream whose chunks omit choices[].finish_reason (2.9: "Omitted when not reported")'),
    after: ['stream-plain', 'catalog-optional'],
  }),
  usageScenario(false),
  usageScenario(true),
  scenario({
    id: 'stream-error',
    title: 'The stream opens with 200, sends three chunks, then an error event and ends without [DONE]',
    mock: { script: say(ANSWER_TEXT), fault: 'fail-after=3' },
    instruction: { kind: 'stream', model: 'acme/chat-small', messages: WEATHER },
    expected: 'an error (the stream failed), never the truncated text as the answer',
    after: ['stream-plain'],
    steps: [sentStreamed, judged(streamErrorIsFailure)],
  }),
  // The error event is the final event and lacks its blank line: a decoder that treats end of body as the end
  // without flushing its last event loses the error and returns the truncated text.
  scenario({
    id: 'stream-error-unterminated',
    title: 'The in-stream error event is the final event and lacks its terminating blank line',
    mock: { script: say(ANSWER_TEXT), fault: ['fail-after=3', 'framing=no-final-blank'] },
    instruction: { kind: 'stream', model: 'acme/chat-small', messages: WEATHER },
    expected: 'an error (the final event, unterminated, is the error), never the truncated text as the answer',
    after: ['stream-no-final-blank', 'stream-error'],
    steps: [sentStreamed, judged(unterminatedErrorConsumed)],
  }),
  legalChat('chat-plain', 'A plain answer', {}, 'a plain answer'),
  // The catalog of this instance omits its optional fields too (the variant's): a client that cannot read that fails
  // catalog-optional, which this one builds on.
  legalChat('legal-omitted', 'An answer without usage and without finish_reason (both omitted when unavailable)', { variant: 'optional-omitted' }, 'a legal answer that omits usage and choices[0].finish_reason (2.9: "Omitted when unavailable", "Omitted when not reported")', ['chat-plain', 'catalog-optional']),
  legalChat('legal-extra', 'An answer whose objects carry fields the contract does not list', { variant: 'extra-fields' }, 'a legal answer carrying fields the contract does not list (system_fingerprint, service_tier, x_vendor_extra, choices[0].message.refusal_reason: the widely used shape)'),
  toolLoop('tool-loop', 'Two parallel tool calls (arguments JSON-encoded strings), each answered by its id, then the final answer', {}, false),
  // Streamed tool calls, each later delta repeating the call's id (2.4 allows it, servers that write each delta
  // whole do it): the calls are assembled by index, each id taken once, never concatenated.
  toolLoop('tool-loop-stream', 'Streamed: two tool calls assembled by index (each delta repeating its id), answered by id, the answer streamed', { variant: 'tool-call-id-repeated' }, true),
  searchScenario(
    'search',
    'A search answer (2 citations, 5 actions, 3 completed searches in usage), sent back in a follow-up',
    SERVED,
    [reading(searchAnswerRead('RESP-032', 'reading a search answer (annotations, service_web_search, usage.service_web_search_calls)')), judged(searchCount(SEARCHES, { citations: 2, actions: 5, requests: 1 })), sentSecond('follow-up'), judged(responseOnlyStripped)],
    `searches ${SEARCHES} (usage.service_web_search_calls; the answer has 2 citations, 5 actions, 2 of them searches), the first answer's text, then the follow-up with no annotations or service_web_search in the assistant message sent back`,
    ['chat-plain'],
  ),
  searchScenario(
    'search-url-absent',
    'A search answer whose last open_page action has no url (its source page could not be attested)',
    { citations: SOURCES, actions: ACTIONS.map((a, i) => (i === 4 ? { type: a.type } : a)) },
    [judged(searchAnswerRead('SEARCH-036', 'reading a search answer whose choices[0].message.service_web_search[4] (open_page) has no url (2.9: "Absence is normal, not truncation")'))],
    "the first answer's text, no error",
    ['search'],
  ),
  searchScenario(
    'search-title-absent',
    'A search answer whose first citation has no title (omitted when unavailable)',
    { citations: SOURCES.map((c, i) => (i === 0 ? { url: c.url, cited: c.cited } : c)), actions: ACTIONS },
    [judged(searchAnswerRead('RESP-032', 'a legal search answer whose choices[0].message.annotations[0].url_citation.title is omitted (2.9: "Omitted when unavailable")'))],
    "the first answer's text, no error",
    ['search'],
  ),
  scenario({
    id: 'catalog-plain',
    title: 'Read the catalog: every field 2.10 lists present, none that names a backend',
    mock: { catalog: fullCatalog() },
    instruction: { kind: 'catalog' },
    expected: 'models: the listed entries, no backend-naming field (owned_by, provider, ...), no error',
    steps: [readCatalog, judged(noBackendExpected)],
  }),
  scenario({
    id: 'catalog-optional',
    title: 'Read the catalog, every optional field omitted',
    mock: { variant: 'optional-omitted' },
    instruction: { kind: 'catalog' },
    expected: 'models: each entry as listed, field by field; no value (null, "", 0, false, -1, "unknown", {}) for a field the entry omits',
    after: ['catalog-plain'],
    steps: [readCatalog, judged(entriesAsListed(OPTIONAL_CATALOG_FIELDS))],
  }),
  scenario({
    id: 'catalog-choose',
    title: 'Choose a model with images from the live catalog (ids renamed from the fixture), then chat',
    mock: { catalog: renamedCatalog(), script: say(ANSWER_TEXT) },
    instruction: { kind: 'chat', needs: ['supports_images'], messages: WEATHER },
    expected: `a catalog read, then a chat with an id the catalog lists with supports_images true; text ${JSON.stringify(ANSWER_TEXT)}`,
    after: ['chat-plain'],
    steps: [actedAtAll, judged(modelFromCatalog('supports_images', ANSWER_TEXT, 'the chat with the chosen model'))],
  }),
  scenario({
    id: 'image-gate',
    title: 'A conversation with an image part, for a model whose entry has supports_images false',
    mock: { script: say(ANSWER_TEXT) },
    instruction: { kind: 'chat', model: 'acme/chat-small', messages: [{ role: 'user', content: [{ type: 'text', text: 'Say the weather report.' }, { type: 'image_url', image_url: { url: TINY_PNG } }] }] },
    expected: 'the catalog read first; no image part sent to acme/chat-small (the text alone sent, or an error reported)',
    after: ['chat-plain'],
    steps: [actedAtAll, judged(imageWithheld)],
  }),
  // The same model and conversation, in a catalog where its entry takes images: only a client that reads the flag
  // at run time passes both (a client that refuses every image, or knows the model, fails here).
  scenario({
    id: 'image-allowed',
    title: 'The same conversation, in a catalog where that model takes images (supports_images true)',
    mock: { script: say(ANSWER_TEXT), catalog: imagesTurnedOn('acme/chat-small') },
    instruction: { kind: 'chat', model: 'acme/chat-small', messages: [{ role: 'user', content: [{ type: 'text', text: 'Say the weather report.' }, { type: 'image_url', image_url: { url: TINY_PNG } }] }] },
    expected: 'the catalog read first; the image part sent to acme/chat-small, whose entry here has supports_images true',
    after: ['chat-plain'],
    steps: [judged(imageSentWhereAccepted('acme/chat-small'))],
  }),
  scenario({
    id: 'model-unavailable',
    title: 'The model answers 503 model_unavailable (retry-after 1)',
    mock: {},
    instruction: { kind: 'chat', model: 'busy-chat', messages: WEATHER },
    expected: 'retries of busy-chat only (at least two requests), then an error reported; never another model',
    after: ['chat-plain'],
    slow: true,
    steps: [actedAtAll, judged(retriedSameModel('busy-chat'))],
  }),
];

/** Every requirement some scenario judges, in scenario order. */
export const CLIENT_REQUIREMENTS: readonly string[] = [...new Set(SCENARIOS.flatMap((s) => s.requirements))];

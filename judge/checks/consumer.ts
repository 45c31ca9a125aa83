// The consumer's rules (the catalog's client-side records: sections 1, 2.4, 2.9, 4.3, 6, 7, 9): each a check over
// what a client did under one scenario of `chatconform client` (its report, the requests it sent, the catalog as
// listed), declared with the requirement ID it records. A scenario's judgement is a list of steps run in order
// (`judgeConsumer`): a rule is judged only where the client got as far as what it judges. A gate that does not hold
// (the client sent nothing, the mock refused its request) skips every rule after it, charging none; a check that
// gates (reading the answer) and fails is the one finding, and the rules after it are skips naming it as their cause.
import { getRequirement, primaryOf } from '../../spec/requirements/index.ts';
import type { CheckRecord, RootCause } from '../checker.ts';
import { check, isObject, quote, type Check, type Json } from './check.ts';

/** What the client prints (docs/client-conformance.md, "The protocol"): one JSON object; every field optional. */
export interface ConsumerReport {
  /** The answer's text (`search`: the first answer's). */
  text?: string | null;
  /** The first answer's tool calls, arguments decoded (section 2.4). */
  tool_calls?: { id?: string; name?: string; arguments?: unknown }[];
  /** `search`: the number of searches, as the client read it. */
  searches?: number | null;
  /** `search`: the follow-up answer's text. */
  follow_up_text?: string | null;
  /** `catalog`: the entries as the client holds them. */
  models?: Record<string, unknown>[];
  /** The model the client used. */
  model?: string;
  /** The usage the answer gave (`prompt_tokens`, `completion_tokens`); a `stream` with include_usage reports it. */
  usage?: Record<string, unknown>;
  error?: { message?: string; code?: string | null; status?: number | null } | null;
}

/** One request the client sent, as the scenario's mock saw it. */
export interface ConsumerRequest {
  seq: number;
  method: string;
  path: string;
  /** The status the mock answered. */
  status: number;
  /** The error code of a refusal. */
  errorCode?: string;
  /** The body as a JSON object; absent without one, cut by the journal's bound, or not JSON. */
  body?: Json;
}

/** What a consumer check reads. */
export interface ConsumerEvidence {
  report: ConsumerReport;
  /** The client's requests, oldest first. */
  requests: readonly ConsumerRequest[];
  /** The catalog as the scenario's mock lists it (GET /v1/models `data`). */
  listed: readonly Json[];
}

export type ConsumerCheck = Check<ConsumerEvidence>;

/** A point the client must have reached before the rules after it can be judged; no rule of its own. */
export interface Gate {
  /** Why the point was not reached, or undefined when it was. */
  readonly unmet: (e: ConsumerEvidence) => string | undefined;
}

/**
 * A step of a scenario's judgement: a gate, or a check. A check that `gates` is what the rules after it rest on (the
 * answer read): when it does not pass, they are skipped with it as their cause.
 */
export type ConsumerStep = { gate: Gate } | { check: ConsumerCheck; gates?: boolean; soft?: string };

export const gate = (unmet: Gate['unmet']): ConsumerStep => ({ gate: { unmet } });
/** A check the steps after it rest on. */
export const reading = (c: ConsumerCheck): ConsumerStep => ({ check: c, gates: true });
export const judged = (c: ConsumerCheck): ConsumerStep => ({ check: c });
/** A check whose failure is a warning whatever the rule's level, with the reason appended (a shape the contract leaves open). */
export const fragile = (c: ConsumerCheck, reason: string): ConsumerStep => ({ check: c, soft: reason });

/** The requirement IDs a scenario's steps can record, in order. */
export function consumerIds(steps: readonly ConsumerStep[]): string[] {
  return [...new Set(steps.flatMap((s) => ('check' in s ? [primaryOf(s.check.id)] : [])))];
}

/** Runs a scenario's steps on what the client did: one record per check, each judged or skipped with its cause. */
export function judgeConsumer(steps: readonly ConsumerStep[], e: ConsumerEvidence): CheckRecord[] {
  const out: CheckRecord[] = [];
  let blocked: RootCause | undefined;
  for (const step of steps) {
    if ('gate' in step) {
      if (blocked) continue;
      const why = step.gate.unmet(e);
      if (why !== undefined) blocked = { message: `not judged: ${why}` };
      continue;
    }
    const id = primaryOf(step.check.id);
    if (blocked) {
      out.push({ id, status: 'skip', message: blocked.message, cause: blocked });
      continue;
    }
    const record = assess(step.check, e);
    if (step.soft !== undefined && record.status === 'fail') Object.assign(record, { status: 'warn', message: `${record.message} (${step.soft})` });
    out.push(record);
    if (step.gates && record.status !== 'pass') {
      const how = record.status === 'error' ? 'could not be judged' : record.status === 'skip' ? 'was not judged' : 'failed';
      blocked = { ...(record.status === 'fail' || record.status === 'warn' ? { id } : record.cause?.id ? { id: record.cause.id } : {}), message: `not judged: the client did not get that far (${id} ${how}: ${oneLine(record.message ?? '')})` };
    }
  }
  return out;
}

function assess(c: ConsumerCheck, e: ConsumerEvidence): CheckRecord {
  const id = primaryOf(c.id);
  let verdict;
  try {
    verdict = c.assess(e);
  } catch (err) {
    return { id, status: 'error', message: `the check ${c.name} threw: ${err instanceof Error ? err.message : String(err)}` };
  }
  if (verdict === undefined) return { id, status: 'pass' };
  if (!Array.isArray(verdict)) {
    const message = (verdict as { notApplicable: string }).notApplicable;
    return { id, status: 'skip', message, cause: { message } };
  }
  if (verdict.length === 0) return { id, status: 'pass' };
  const r = getRequirement(id);
  return { id, status: r.level === 'MUST' && r.kind === 'requirement' ? 'fail' : 'warn', message: verdict.join('\n') };
}

/**
 * When the scenario a scenario builds on did not pass (failed, errored, or was itself skipped), none of this one's
 * records stands, a pass included: each becomes a skip whose cause is the base's root cause (one deviation, one
 * finding; no pass resting on a client that could not do the base). Undefined when the client passed the base.
 */
export function restOnBase(records: readonly CheckRecord[], base: { id: string; records: readonly CheckRecord[] }): CheckRecord[] | undefined {
  const bad = base.records.find((x) => x.status === 'fail' || x.status === 'error') ?? base.records.find((x) => x.status === 'skip');
  if (bad === undefined) return undefined;
  const root = bad.status === 'fail' ? bad.id : bad.status === 'skip' ? bad.cause?.id : undefined;
  const what = bad.status === 'fail' ? `${bad.id} failed` : bad.status === 'error' ? `${bad.id} could not be judged` : `${bad.id} was not judged`;
  const cause: RootCause = { ...(root ? { id: root } : {}), message: `not judged: the client did not pass the scenario ${base.id} this one builds on (${what}: ${oneLine(bad.status === 'skip' ? (bad.cause?.message ?? bad.message ?? '') : (bad.message ?? ''))})` };
  return records.map((x) => ({ id: x.id, status: 'skip', message: cause.message, cause }));
}

// ---------------------------------------------------------------------------------------------------------------
// What the evidence says.

const CHAT_PATH = /\/v1\/chat\/completions$/;
const CATALOG_PATH = /\/v1\/models(\/|$)/;

export const posts = (e: ConsumerEvidence): ConsumerRequest[] => e.requests.filter((r) => r.method === 'POST' && CHAT_PATH.test(r.path));
export const catalogReads = (e: ConsumerEvidence): ConsumerRequest[] => e.requests.filter((r) => r.method === 'GET' && CATALOG_PATH.test(r.path));
const messagesOf = (r: ConsumerRequest | undefined): Json[] => (Array.isArray(r?.body?.messages) ? (r.body.messages as unknown[]).filter(isObject) : []);

function oneLine(s: string, max = 200): string {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max)}...` : t;
}
const shown = (v: unknown): string => oneLine(JSON.stringify(v) ?? 'undefined');
/** "the client reported an error: ..." when it did. */
export function reportedError(r: ConsumerReport): string | undefined {
  return r.error ? `the client reported an error: ${oneLine(r.error.message ?? JSON.stringify(r.error))}` : undefined;
}
const andError = (r: ConsumerReport): string => (r.error ? `; ${reportedError(r)}` : '');

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null || Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a as object);
  const kb = Object.keys(b as object);
  return ka.length === kb.length && ka.every((k) => deepEqual((a as Json)[k], (b as Json)[k]));
}

// ---------------------------------------------------------------------------------------------------------------
// Gates: how far the client got, charged to no rule.

/** The client sent a chat completion request matching `which` (and the mock answered it, unless `refusalExpected`). */
export function sentChat(what: string, which: (r: ConsumerRequest) => boolean = () => true): ConsumerStep {
  return gate((e) => {
    const first = posts(e).find(which);
    if (first === undefined) return `the client sent no ${what}${andError(e.report)}`;
    if (first.status !== 200) return `the mock refused the client's ${what} (HTTP ${first.status}${first.errorCode ? ` ${first.errorCode}` : ''}): a request the scenario cannot judge the answer of${andError(e.report)}`;
    return undefined;
  });
}
export const sentStreamed = sentChat('streamed request (stream: true)', (r) => r.body?.stream === true);
export const sentSearch = sentChat('search request (web_search_options)', (r) => r.body?.web_search_options !== undefined);
/** The client sent a second chat request (the follow-up, the tool results). */
export const sentSecond = (what: string): ConsumerStep => gate((e) => (posts(e).length >= 2 ? undefined : `the client sent no ${what} (${posts(e).length} chat request(s))${andError(e.report)}`));
/** The client read the catalog. */
export const readCatalog = gate((e) => (catalogReads(e).length > 0 ? undefined : `the client never read the catalog (GET /v1/models)${andError(e.report)}`));
/** The client did something: read the catalog or sent a request. */
export const actedAtAll = gate((e) => (e.requests.length > 0 ? undefined : `the client sent nothing${andError(e.report)}`));

// ---------------------------------------------------------------------------------------------------------------
// The checks.

/**
 * The reported text is exactly the answer's (streams: STREAM-004, -006, -008, -011, -014; legal answers: RESP-032).
 * `what` says what was served, in the words a card shows (for RESP-032: the field the contract allows).
 */
export function answerText(id: string, want: string, what: string): ConsumerCheck {
  return check(id, function answerRead(e: ConsumerEvidence) {
    const r = e.report;
    if (r.error) return [`${what}: ${reportedError(r)}`];
    if (r.text === want) return [];
    if (typeof r.text !== 'string') return [`${what}: the client reported no text (text ${shown(r.text)})`];
    return [`${what}: the client reported ${shown(r.text)}, not the answer's text ${shown(want)}`];
  });
}

/** The usage block of a stream with include_usage read (6 rule 9), beside the exact text. */
export function usageRead(want: string, completionTokens: number, what: string): ConsumerCheck {
  const text = answerText('STREAM-016', want, what);
  return check('STREAM-016', function usageRead(e: ConsumerEvidence) {
    const t = text.run(e);
    if (t !== undefined && t.length > 0) return t;
    const got = e.report.usage?.completion_tokens;
    return got === completionTokens ? [] : [`the client reported usage ${shown(e.report.usage)}; the stream's usage block says completion_tokens ${completionTokens}`];
  });
}

/** An in-stream error event fails the answer (6 rule 10). */
export const streamErrorIsFailure = check('STREAM-018', function streamErrorIsFailure(e: ConsumerEvidence) {
  return e.report.error ? [] : [`an error event ended the stream after 3 chunks, and the client returned ${shown(e.report.text)} as the answer instead of failing`];
});

/** The final event, an error event without its blank line, is consumed at end of body (6 rule 5). */
export const unterminatedErrorConsumed = check('STREAM-011', function unterminatedFinalEventConsumed(e: ConsumerEvidence) {
  return e.report.error
    ? []
    : [`the stream's final event, an error event without its terminating blank line, was not consumed at end of body: the client returned ${shown(e.report.text)} as the answer (a decoder that never flushes its last event)`];
});

export interface ExpectedCall {
  id: string;
  name: string;
  arguments: Json;
}

/** The tool-call answer read (it omits content, 2.9; its calls are 2.4's): the client reported calls, or answered them. */
export function toolCallsRead(calls: readonly ExpectedCall[], what: string): ConsumerCheck {
  return check('RESP-032', function toolCallAnswerRead(e: ConsumerEvidence) {
    const reported = Array.isArray(e.report.tool_calls) ? e.report.tool_calls.length : 0;
    if (reported > 0 || posts(e).length >= 2) return [];
    return [`${what} (${calls.length} tool calls, no content): ${reportedError(e.report) ?? 'the client reported no tool call and sent no tool result'}`];
  });
}

/** Each reported call's arguments are decoded from the JSON string (2.4). */
export function argumentsDecoded(calls: readonly ExpectedCall[]): ConsumerCheck {
  return check('RESP-020', function argumentsDecoded(e: ConsumerEvidence) {
    const reported = Array.isArray(e.report.tool_calls) ? e.report.tool_calls : [];
    if (reported.length === 0) return [`the client reported no tool call (tool_calls ${shown(e.report.tool_calls)})`];
    const problems: string[] = [];
    reported.forEach((c, i) => {
      const want = calls.find((x) => isObject(c) && x.id === c.id) ?? calls[i];
      if (want === undefined) return;
      const got = isObject(c) ? c.arguments : undefined;
      if (!deepEqual(got, want.arguments)) problems.push(`the call ${want.id}'s arguments were reported as ${shown(got)} (${typeof got}), not decoded from the JSON string to ${shown(want.arguments)}`);
    });
    return problems;
  });
}

/** Every call is answered by a tool message carrying its id, then the final answer read (2.4, TOOL-011). */
export function resultsAnswerCalls(calls: readonly ExpectedCall[], finalText: string): ConsumerCheck {
  return check('TOOL-011', function resultsAnswerCalls(e: ConsumerEvidence) {
    const second = posts(e)[1];
    const tools = messagesOf(second).filter((m) => m.role === 'tool');
    const answered = new Set(tools.map((m) => m.tool_call_id));
    const missing = calls.filter((c) => !answered.has(c.id));
    if (missing.length > 0) {
      return [
        `the tool results do not answer every call by its id: tool messages ${shown(tools.map((m) => ({ tool_call_id: m.tool_call_id })))}; unanswered ${missing.map((c) => `${c.id} (${c.name} ${JSON.stringify(c.arguments)})`).join(', ')}`,
      ];
    }
    const r = e.report;
    if (r.error) return [`the answer after the tool results: ${reportedError(r)}`];
    return r.text === finalText ? [] : [`the answer after the tool results: the client reported ${shown(r.text)}, not ${shown(finalText)}`];
  });
}

/** The search answer read: its text reported (a search whose follow-up failed still reports its first answer). */
export function searchAnswerRead(id: string, what: string): ConsumerCheck {
  return check(id, function searchAnswerRead(e: ConsumerEvidence) {
    const r = e.report;
    if (typeof r.text === 'string' && r.text.length > 0) return [];
    return [`${what}: ${reportedError(r) ?? `the client reported no text (text ${shown(r.text)})`}`];
  });
}

/** The number of searches is usage.service_web_search_calls (2.9), never a count of something else. */
export function searchCount(calls: number, served: { citations: number; actions: number; requests: number }): ConsumerCheck {
  return check('SEARCH-040', function searchesFromUsage(e: ConsumerEvidence) {
    const got = e.report.searches;
    if (got === calls) return [];
    const naive = got === served.citations ? ' (the number of citations)' : got === served.actions ? ' (the number of search actions)' : got === served.requests ? ' (one per search request)' : '';
    return [`the client reported ${shown(got)} searches${naive}; usage.service_web_search_calls says ${calls} (the answer has ${served.citations} citations and ${served.actions} search actions)`];
  });
}

/** The assistant message sent back holds neither response-only field (2.9). */
export const responseOnlyStripped = check('SEARCH-030', function responseOnlyStripped(e: ConsumerEvidence) {
  const sentBack = messagesOf(posts(e)[1]).filter((m) => m.role === 'assistant');
  if (sentBack.length === 0) return ['the follow-up does not hold the assistant answer it follows'];
  const leaked = [...new Set(sentBack.flatMap((m) => ['annotations', 'service_web_search'].filter((k) => k in m)))];
  return leaked.length === 0 ? [] : [`the assistant message sent back holds the response-only field(s) ${leaked.join(', ')}`];
});

/** Words that name a backend: a field a catalog entry never carries (2.10). */
const BACKEND_FIELD = /^(owned_by|provider|providers|backend|upstream|vendor|served_by|serving_provider)$/i;

/** A catalog whose entries name no backend, read: the listed ids, and no backend-naming field held (2.10). */
export const noBackendExpected = check('CAT-003', function noBackendFieldExpected(e: ConsumerEvidence) {
  const r = e.report;
  const what = 'reading a catalog whose entries carry every field 2.10 lists and none that names a backend';
  if (r.error) return [`${what}: ${reportedError(r)}`];
  if (!Array.isArray(r.models)) return [`${what}: the client reported no models (models ${shown(r.models)})`];
  const ids = r.models.map((m) => (isObject(m) ? m.id : undefined));
  const want = e.listed.map((m) => m.id);
  if (JSON.stringify([...ids].map(String).sort()) !== JSON.stringify([...want].map(String).sort())) return [`the client reported the ids ${shown(ids)}; the catalog lists ${shown(want)}`];
  const held = r.models.flatMap((m) => (isObject(m) ? Object.keys(m).filter((k) => BACKEND_FIELD.test(k)).map((k) => `${String(m.id)}.${k}: ${quote(m[k], 40)}`) : []));
  return held.length === 0 ? [] : [`the client holds a backend-naming field the catalog never sends: ${held.slice(0, 5).join(', ')}`];
});

/**
 * Each entry the client holds compared field by field with the listed one (section 9): a field the entry omits holds
 * no value at all (any value is a placeholder: null, "", 0, false, -1, "unknown", {}), a listed field its listed value.
 */
export function entriesAsListed(omitted: readonly string[]): ConsumerCheck {
  return check('CAT-042', function entriesAsListed(e: ConsumerEvidence) {
    const r = e.report;
    const what = `reading a catalog whose entries omit their optional fields (${omitted.join(', ')})`;
    if (r.error) return [`${what}: ${reportedError(r)}`];
    if (!Array.isArray(r.models)) return [`${what}: the client reported no models (models ${shown(r.models)})`];
    const problems: string[] = [];
    for (const m of r.models) {
      if (!isObject(m)) continue;
      const entry = e.listed.find((x) => x.id === m.id);
      if (!entry) continue;
      for (const [k, v] of Object.entries(m)) {
        if (!(k in entry)) problems.push(`${String(m.id)}.${k}: ${quote(v, 40)} for a field the entry omits (a placeholder)`);
        else if (!deepEqual(v, entry[k])) problems.push(`${String(m.id)}.${k}: ${quote(v, 40)} where the catalog lists ${quote(entry[k], 40)}`);
      }
    }
    return problems.length === 0 ? [] : [`the client holds values the catalog does not list: ${problems.slice(0, 5).join('; ')}${problems.length > 5 ? ` (and ${problems.length - 5} more)` : ''}`];
  });
}

/** The model chosen from the live catalog, after reading it, with the capability asked for (section 9). */
export function modelFromCatalog(need: string, want: string, what: string): ConsumerCheck {
  return check('CAT-040', function modelFromLiveCatalog(e: ConsumerEvidence) {
    const first = posts(e)[0];
    if (!first) return [`the client read the catalog but sent no chat request${andError(e.report)}`];
    const model = first.body?.model;
    const entry = e.listed.find((x) => x.id === model);
    if (!entry) return [`the client asked for the model ${shown(model)}, which the live catalog does not list (its ids are read at run time, never hardcoded)`];
    if (!catalogReads(e).some((g) => g.seq < first.seq)) return ['the client chose a model without reading the catalog first'];
    if (entry[need] !== true) return [`the client chose ${shown(model)}, whose entry does not have ${need} true`];
    return answerText('CAT-040', want, what).run(e) ?? [];
  });
}

const imagePart = (p: unknown): boolean => isObject(p) && (p.type === 'image_url' || 'image_url' in p);
const sendsImage = (r: ConsumerRequest): boolean => messagesOf(r).some((m) => Array.isArray(m.content) && (m.content as unknown[]).some(imagePart));

/** No image part to a model whose entry has supports_images false, the catalog read first (4.3 rule 7). */
export const imageWithheld = check('IMG-007', function imageWithheld(e: ConsumerEvidence) {
  const sent = posts(e);
  const refused = new Set(e.listed.filter((x) => x.supports_images !== true).map((x) => x.id));
  const offending = sent.find((p) => refused.has(p.body?.model) && sendsImage(p));
  if (offending) return [`the client sent an image part to ${shown(offending.body?.model)}, whose entry has supports_images false`];
  if (sent.length > 0 && !catalogReads(e).some((g) => g.seq < sent[0]!.seq)) return ['the client sent the conversation without reading the catalog entry first'];
  return [];
});

/** The gate is the catalog's: to a model whose entry has supports_images true, the image goes, once the entry was read. */
export function imageSentWhereAccepted(model: string): ConsumerCheck {
  return check('IMG-007', function imageGateReadFromCatalog(e: ConsumerEvidence) {
    const sent = posts(e).filter((p) => p.body?.model === model);
    const read = catalogReads(e);
    if (read.length === 0 || (sent.length > 0 && read[0]!.seq > sent[0]!.seq))
      return [`the client decided about the image without reading the catalog entry (${model} has supports_images true in this catalog): ${sent.length === 0 ? (reportedError(e.report) ?? 'nothing was sent') : 'the conversation was sent first'}`];
    if (!sent.some(sendsImage)) return [`the catalog entry of ${model} has supports_images true, yet the client ${sent.length === 0 ? `sent nothing${andError(e.report)}` : 'dropped the image part'}: the gate is the entry's flag, read at run time`];
    return [];
  });
}

/** After 503 model_unavailable: the same model retried, then an error; never a substitute (section 7). */
export function retriedSameModel(model: string): ConsumerCheck {
  return check('ERR-009', function retriedSameModel(e: ConsumerEvidence) {
    const sent = posts(e);
    const other = sent.map((p) => p.body?.model).find((m) => m !== model);
    if (other !== undefined) return [`after 503 model_unavailable the client asked for another model, ${shown(other)}`];
    if (sent.length < 2) return [`the client did not retry after 503 model_unavailable (${sent.length} request(s))`];
    if (!e.report.error) return [`the model never answered, yet the client reported no error (text ${shown(e.report.text)})`];
    return [];
  });
}

/** Every requirement ID a consumer check can record. */
export const CONSUMER_IDS: readonly string[] = [
  'STREAM-004', 'STREAM-006', 'STREAM-008', 'STREAM-011', 'STREAM-014', 'STREAM-016', 'STREAM-018',
  'RESP-020', 'RESP-032', 'TOOL-011', 'SEARCH-030', 'SEARCH-036', 'SEARCH-040', 'CAT-003', 'CAT-040', 'CAT-042', 'IMG-007', 'ERR-009',
];

// Judging one exchange: every check that applies to what came back runs on it (judge/checks/*), each under its
// own requirement, and none stops another. When the exchange cannot give a check its subject (the request was
// refused, the stream ended on an error event), the checks' requirements are recorded as skipped with that root
// cause, once, never as failures. The status of the request is judged by the test, under the requirement of the
// feature it sent: a refusal is charged to what was refused, not to every rule of a completion.
import { COMPLETION_CHECKS, type Completion } from './checks/completion.ts';
import { STREAM_CHECKS, assembledCompletion, type StreamSubject } from './checks/stream.ts';
import { ERROR_CHECKS, type Refusal } from './checks/errors.ts';
import { isObject, type Json } from './checks/check.ts';
import { MODEL_LIST_CHECKS, type ModelList } from './checks/catalog.ts';
import {
  CATALOG_IDS,
  CHUNK_SCHEMA_CHECKS,
  MODEL_ENTRY_SCHEMA_CHECKS,
  MODEL_LIST_SCHEMA_CHECKS,
  COMPLETION_IDS,
  COMPLETION_SCHEMA_CHECKS,
  ERROR_SCHEMA_CHECKS,
  MEANING_IDS,
  REFUSAL_IDS,
  STREAM_IDS,
  completionIsJson,
} from './checks/registry.ts';
import { noResponse, type Checker } from './checker.ts';
import { entryPoint } from './entry.ts';
import { askedOf } from './asked.ts';
import type { ChatStream } from './decoding/chat-stream.ts';
import type { TargetResponse } from './exchange.ts';

/** The completion subject with the token cap its request carried (read back from the exchange's request body). */
function withCap(c: Completion, res: TargetResponse): Completion {
  const caps = askedOf(res)?.caps;
  const cap = caps?.max_completion_tokens ?? caps?.max_tokens;
  return cap !== undefined ? { ...c, cap } : c;
}

/** What `Checker.cannotJudge` is told: why, the requirement that failed, and the exchange it was on. */
type Cause = Parameters<Checker['cannotJudge']>[1];

export interface JudgeOptions {
  /**
   * The requirement a 200 answer to this request is judged under when the test has not judged the exchange's
   * status itself (default CHAT-004 for a completion, CHAT-005 for a stream). A test that sent a feature judges
   * the status under the feature's requirement first; then a refusal is charged to the feature alone.
   */
  statusId?: string;
}

/**
 * Judges the status under `statusId` unless the test already judged this exchange; then says why the exchange
 * gives no completion to judge (no response, or not 200), naming the requirement that failed on it.
 */
function notAnswered(check: Checker, res: TargetResponse, statusId: string, exchange: number | undefined, what: string): Cause | undefined {
  if (!check.judgedExchange(exchange)) check.status(statusId, res, 200, `for a ${what} request, status`);
  if (noResponse(res)) return { message: `no HTTP response to the ${what} request (${res.exchange.error ?? 'transport'})`, on: res };
  if (res.status !== 200) {
    const failed = check.firstFailureOn(exchange);
    return { message: `the ${what} request was not answered with 200: ${res.describe()}`, ...(failed ? { id: failed } : {}), on: res };
  }
  return undefined;
}

/**
 * A non-streamed completion for `model`: every completion check runs on it. Returns the body, or undefined when
 * there is no completion (then the completion checks are recorded as skipped, with the cause).
 */
export const judgeCompletion = entryPoint(['CHAT-004', COMPLETION_IDS], function judgeCompletion(check: Checker, res: TargetResponse, model: string, opts: JudgeOptions = {}): Json | undefined {
  const exchange = check.exchangeIndex(res);
  const cause = notAnswered(check, res, opts.statusId ?? 'CHAT-004', exchange, 'non-streamed completion');
  if (cause) {
    check.cannotJudge(COMPLETION_IDS, cause);
    return undefined;
  }
  const body = res.json();
  check.apply([completionIsJson], { res, body }, res);
  if (!isObject(body)) {
    check.cannotJudge(COMPLETION_IDS.filter((id) => id !== 'CHAT-004'), { id: 'CHAT-004', message: `the 200 answer is not a JSON object: ${res.describe()}`, on: res });
    return undefined;
  }
  check.apply(COMPLETION_SCHEMA_CHECKS, { values: [{ label: 'chat completion', data: body }] }, res);
  check.apply(COMPLETION_CHECKS, withCap({ body, model, what: 'completion' }, res), res);
  return body;
});

export interface StreamJudgeOptions extends JudgeOptions {
  includeUsage?: boolean;
  expectText?: boolean;
  /** The request provoked an error inside the stream: an error outcome is what is being judged, not a cause. */
  expectError?: boolean;
}

/**
 * A streamed completion for `model`: the stream checks run on the stream and its chunks, the completion checks on
 * what it assembles into. Returns the decoded stream, or undefined when there is none.
 */
export const judgeStream = entryPoint(['CHAT-005', STREAM_IDS], function judgeStream(check: Checker, res: TargetResponse, model: string, opts: StreamJudgeOptions = {}): ChatStream | undefined {
  const exchange = check.exchangeIndex(res);
  const cause = notAnswered(check, res, opts.statusId ?? 'CHAT-005', exchange, 'streamed completion');
  if (cause) {
    check.cannotJudge(STREAM_IDS, cause);
    return undefined;
  }
  const stream = res.stream();
  const subject: StreamSubject = { res, stream, model };
  // What the request asked (stream_options.include_usage), read back from it unless the caller says otherwise.
  const includeUsage = opts.includeUsage ?? askedOf(res)?.includeUsage;
  if (includeUsage !== undefined) subject.includeUsage = includeUsage;
  if (opts.expectText !== undefined) subject.expectText = opts.expectText;
  check.apply(STREAM_CHECKS, subject, res);
  check.apply(CHUNK_SCHEMA_CHECKS, { values: stream.chunks.map((data, i) => ({ label: `chunk ${i}`, data })) }, res);
  const assembled = stream.outcome === 'complete' ? assembledCompletion(stream) : undefined;
  if (assembled) {
    check.apply(COMPLETION_CHECKS, withCap({ body: assembled, model, what: 'streamed completion' }, res), res);
  } else if (!opts.expectError) {
    const why =
      stream.outcome === 'error'
        ? `the stream ended on an in-stream error event (allowed by section 6 rule 10), so no completion could be assembled: ${JSON.stringify(stream.errorEvent).slice(0, 300)}`
        : stream.outcome === 'truncated'
          ? 'the stream ended without [DONE], so no completion could be assembled'
          : 'the stream carried no chunk';
    check.cannotJudge(MEANING_IDS, { message: why, ...(stream.outcome === 'truncated' ? { id: 'STREAM-004' } : {}), on: res });
  }
  return stream;
});

export interface ExpectedError {
  /** The requirement that names this refusal (its status and code). */
  id: string;
  /** Expected status(es), or a predicate (e.g. any 4xx). Omit when the status is a gap of the spec. */
  status?: number | readonly number[] | ((s: number) => boolean);
  statusText?: string;
  /** Expected error.code, when the contract fixes it. */
  code?: string;
  /** Expected error.message: exact text, or a pattern. */
  message?: string | RegExp;
}

/**
 * A refusal: a non-200 status (under the named requirement), then its status, code and message as that
 * requirement fixes them, and the section 7 body checks. Returns the error object when there is one.
 */
export const judgeRefusal = entryPoint(REFUSAL_IDS, function judgeRefusal(check: Checker, res: TargetResponse, expected: ExpectedError): Json | undefined {
  if (noResponse(res)) {
    check.couldNotJudge(expected.id, res);
    check.cannotJudge(REFUSAL_IDS, { message: `no HTTP response (${res.exchange.error ?? 'transport'})`, on: res });
    return undefined;
  }
  const refused = res.status !== 200;
  check.that(expected.id, refused, () => `expected a refusal; received ${res.describe()}`, res);
  if (!refused) {
    check.cannotJudge(REFUSAL_IDS, { id: expected.id, message: `the target did not refuse, so there is no error body to judge: ${res.describe()}`, on: res });
    return undefined;
  }
  if (expected.status !== undefined) check.status(expected.id, res, expected.status, expected.statusText ?? 'status');
  const body = res.json();
  check.apply(ERROR_CHECKS, { res, body } satisfies Refusal, res);
  check.apply(ERROR_SCHEMA_CHECKS, { values: [{ label: `error body of HTTP ${res.status}`, data: body }] }, res);
  const error = isObject(body) && isObject(body.error) ? body.error : undefined;
  if (expected.code !== undefined) check.that(expected.id, error?.code === expected.code, () => `expected error.code ${JSON.stringify(expected.code)}; received ${JSON.stringify(error?.code)} (${res.describe()})`, res);
  if (expected.message !== undefined) {
    const m = error?.message;
    const ok = typeof m === 'string' && (typeof expected.message === 'string' ? m === expected.message : expected.message.test(m));
    check.that(expected.id, ok, () => `expected error.message ${String(expected.message)}; received ${JSON.stringify(m)}`, res);
  }
  return error;
});

/**
 * A model list read (GET /v1/models): its status under `statusId`, then every catalog check. Returns the entries
 * (empty when there is no list; then the catalog checks are skipped with that cause).
 */
export const judgeModelList = entryPoint(CATALOG_IDS, function judgeModelList(check: Checker, res: TargetResponse, statusId: string): Json[] {
  if (!check.status(statusId, res, 200)) {
    check.cannotJudge(CATALOG_IDS, { message: `GET /v1/models gave no model list: ${res.describe()}`, ...(noResponse(res) ? {} : { id: statusId }), on: res });
    return [];
  }
  const body = res.json();
  const entries = isObject(body) && Array.isArray(body.data) ? body.data.filter(isObject) : [];
  check.apply(MODEL_LIST_CHECKS, { res, body, entries } satisfies ModelList, res);
  check.apply(MODEL_LIST_SCHEMA_CHECKS, { values: [{ label: 'GET /v1/models', data: body }] }, res);
  return entries;
});

/**
 * One catalog entry read (GET /v1/models/{id}) for a listed `id`: 200 with one entry whose id is `id` (CAT-036),
 * then the entry's field checks. An answer that is not one entry (the whole list, say) fails CAT-036 alone.
 */
export const judgeModelEntry = entryPoint(['CAT-036', MODEL_ENTRY_SCHEMA_CHECKS.map((c) => c.id)], function judgeModelEntry(check: Checker, res: TargetResponse, id: string, what: string): Json | undefined {
  if (!check.status('CAT-036', res, 200, `${what}, status`)) return undefined;
  const body = res.json();
  const isEntry = isObject(body) && !Array.isArray(body.data) && body.id === id;
  check.that('CAT-036', isEntry, () => `${what} returns the entry with id ${JSON.stringify(id)}; received ${res.describe()}`, res);
  if (!isEntry) {
    check.cannotJudge(MODEL_ENTRY_SCHEMA_CHECKS.map((c) => c.id).filter((c) => c !== 'CAT-036'), { id: 'CAT-036', message: `${what} did not return one catalog entry`, on: res });
    return undefined;
  }
  check.apply(MODEL_ENTRY_SCHEMA_CHECKS, { values: [{ label: what, data: body }] }, res);
  return body as Json;
});

// Judgements that compare: an answer with another answer (an entry read two ways, two oversized uploads) or with
// what the request named (the model, the declared tools, the deactivated id). Each takes the decoded answers it
// compares and records under its requirement on the answer that deviates: that exchange is the evidence.
import { isDeepStrictEqual } from 'node:util';
import { isObject, quote } from './checks/check.ts';
import { formatIssues, validateDeclared } from '../spec/validator.ts';
import type { Checker } from './checker.ts';
import { noResponse, type TargetResponse } from './exchange.ts';
import type { ChatStream } from './decoding/chat-stream.ts';
import { entryPoint } from './entry.ts';
import type { DeclaredFunction } from './asked.ts';

export type { DeclaredFunction } from './asked.ts';

const q = (v: unknown): string => JSON.stringify(v) ?? String(v);

/**
 * CAT-037: the entry GET /v1/models/{id} gave (`entry`, on `res`) equals the one the list gave (`listed`). The
 * caller has already re-read both on a mismatch (the catalog is live, section 9): these are the last reads.
 */
export const judgeEntryReadBack = entryPoint('CAT-037', function judgeEntryReadBack(check: Checker, res: TargetResponse, entry: unknown, listed: unknown, what: string): boolean {
  return check.that('CAT-037', isDeepStrictEqual(entry, listed), () => `${what} differs from the list's entry, also when both are read again:\n  list: ${q(listed)}\n  one:  ${q(entry)}`, res);
});

/** CAT-039: the model list (`res`, its entries' ids `ids`) does not list the deactivated model; an empty list is no list. */
export const judgeDeactivatedUnlisted = entryPoint('CAT-039', function judgeDeactivatedUnlisted(check: Checker, res: TargetResponse, ids: readonly unknown[], deactivated: string): boolean {
  return check.that('CAT-039', ids.length > 0 && !ids.includes(deactivated), () => (ids.length === 0 ? 'the catalog could not be read' : `the deactivated model ${deactivated} is listed`), res);
});

/**
 * CAT-045: the model list (`list`, listing `ids`) is the whole catalog (2.11: one entry per available model): it does
 * not say it is a first page (`has_more: true`), and every model in `readBack` that GET /v1/models/{id} served
 * (200) with the same credential is in it. Recorded on the list, the answer that left them out; an unreadable list
 * (its status 200, its body no list) leaves CAT-045 unjudged, with the list's own failure as the cause.
 */
export const judgeListWhole = entryPoint('CAT-045', function judgeListWhole(check: Checker, list: TargetResponse, ids: readonly unknown[], readBack: readonly { id: string; res: Pick<TargetResponse, 'status'> }[]): boolean {
  const body = list.json();
  // Only a readable list can lack a model: an unreadable one (not JSON, no data array) is the list's own rules'
  // failure (CAT-032, CAT-029), and nothing here is known to be missing from it.
  if (list.exchange.status !== 0 && (!isObject(body) || !Array.isArray(body.data))) {
    const cause = list.exchange.status !== 200 ? 'CAT-031' : isObject(body) ? 'CAT-029' : 'CAT-032';
    check.cannotJudge(['CAT-045'], { id: cause, message: `the model list is unreadable (${isObject(body) ? 'its data is not an array' : 'its body is not a JSON object'}), so whether it lacks a model cannot be told`, on: list });
    return false;
  }
  const paged = isObject(body) && body.has_more === true;
  const missing = readBack.filter((r) => r.res.status === 200 && !ids.includes(r.id)).map((r) => r.id);
  const problems = [
    ...(paged ? [`the list says "has_more": true with ${ids.length} entr${ids.length === 1 ? 'y' : 'ies'}: a first page, where 2.11 lists every available model in one answer`] : []),
    ...(missing.length > 0 ? [`GET /v1/models/{id} serves ${missing.map(q).join(', ')} to the same credential, but the list does not hold ${missing.length === 1 ? 'it' : 'them'}`] : []),
  ];
  return check.that('CAT-045', problems.length === 0, () => problems.join('; '), list);
});

/**
 * How an upload ended: an HTTP status (with the error code); a connection closed under it, either after the server's
 * 100 (Continue) or where the kit cannot tell (`closed`: the upload race, a server answering early and closing while
 * the body still arrives can lose its own answer to the reset), or with no 100 and no status after `Expect:
 * 100-continue` (`silent`: the server said nothing, though the head alone let it refuse); no answer in time
 * (`timeout`) or no connection at all (`unreachable`): the kit's, never judged.
 */
export type UploadOutcome = { kind: 'status'; status: number; code: unknown } | { kind: 'closed' | 'silent' | 'timeout' | 'unreachable'; error: string };

export function uploadOutcome(res: TargetResponse): UploadOutcome {
  const x = res.exchange;
  const error = x.error;
  if (error !== undefined && (x.status === 0 || x.errorKind === 'timeout')) {
    if (x.errorKind === 'timeout' || /timeout|timed out/i.test(error)) return { kind: 'timeout', error };
    if (x.errorKind === 'refused' || x.errorKind === 'tls' || x.errorKind === 'rate-limited') return { kind: 'unreachable', error };
    return { kind: x.continued === false ? 'silent' : 'closed', error };
  }
  const body = res.json();
  return { kind: 'status', status: res.status, code: isObject(body) && isObject(body.error) ? body.error.code : undefined };
}

/** A connection closed under the upload, with or without the server's 100 first. */
export const closedUpload = (o: UploadOutcome): boolean => o.kind === 'closed' || o.kind === 'silent';

/** An upload the kit could not judge: no answer in time, no connection. */
const notJudgeable = (o: UploadOutcome): boolean => o.kind === 'timeout' || o.kind === 'unreachable';

function describeUpload(o: UploadOutcome): string {
  if (o.kind === 'status') return `status ${o.status} code ${q(o.code)}`;
  if (o.kind === 'silent') return `the connection was reset with no 100 (Continue) and no status (${o.error})`;
  return o.kind === 'closed' ? `the connection closed without a response (${o.error})` : `no answer (${o.error})`;
}

/** Why a silent reset is a failure of the limit: the server could refuse from the head, and did not answer at all. */
export const SILENT_RESET = 'sent with Expect: 100-continue, the server neither let the upload go on (100) nor answered: it could refuse from the head alone (Content-Length) with a section 7 error, and reset the connection instead';

/**
 * LIMIT-002: an oversized body is refused before it is parsed, so whether its bytes are JSON cannot change the
 * refusal: the same non-200 status and error.code for the valid JSON upload and the one that is not JSON (or a
 * closed connection for both). Recorded on the upload that is not JSON, the one a parser answers differently.
 * A reset with no 100 and no status is no refusal the server gave (SILENT_RESET): it fails.
 */
export const judgeRefusedBeforeParsing = entryPoint('LIMIT-002', function judgeRefusedBeforeParsing(check: Checker, valid: TargetResponse, notJson: TargetResponse, bytes: number): boolean {
  const v = uploadOutcome(valid);
  const g = uploadOutcome(notJson);
  if (notJudgeable(v) || notJudgeable(g)) {
    check.couldNotJudge('LIMIT-002', notJudgeable(g) ? notJson : valid);
    return true;
  }
  if (v.kind === 'silent' || g.kind === 'silent') {
    const silent = g.kind === 'silent' ? notJson : valid;
    return check.outcome('LIMIT-002', false, () => `the oversized ${silent === notJson ? 'body that is not JSON' : 'valid JSON body'} (${bytes} bytes), ${SILENT_RESET} (${describeUpload(silent === notJson ? g : v)})`, silent);
  }
  // A refusal with a status for one upload and a bare close for the other, also when sent again: a server that
  // answers early and closes while the upload still arrives can lose its own answer to the reset, so the close says
  // nothing of parsing. Not judged, never charged (a parser answers with another status, as the defect mode does).
  const refused = (o: UploadOutcome) => o.kind === 'status' && o.status !== 200;
  if ((v.kind === 'closed' && refused(g)) || (g.kind === 'closed' && refused(v))) {
    check.cannotJudge(['LIMIT-002'], { message: `the oversized valid JSON body (${bytes} bytes) got ${describeUpload(v)}; the one that is not JSON got ${describeUpload(g)}: a close beside a refusal is the connection's race, not the refusal's, so whether it depends on parsing is not told`, on: notJson });
    return true;
  }
  const sameStatusAndCode = v.kind === 'status' && g.kind === 'status' && v.status !== 200 && v.status === g.status && v.code === g.code;
  const differ = () => `the oversized valid JSON body (${bytes} bytes) got ${describeUpload(v)}; the oversized body that is not JSON got ${describeUpload(g)}: the refusal depends on parsing`;
  return check.outcome('LIMIT-002', sameStatusAndCode || (v.kind === 'closed' && g.kind === 'closed'), differ, notJson);
});

/**
 * LIMIT-007 (SHOULD): the oversized uploads were refused with an answer, not a closed connection (4.3: a failure
 * before a stream is a non-200 with a JSON error body). Both closed in the upload race, also when sent again: no
 * status, no body. A close on one upload and a status on the other is the connection's race, not the refusal's. A
 * reset with no 100 and no status is LIMIT-001's and LIMIT-002's failure, not this warning. Recorded on the valid
 * JSON upload.
 */
export const judgeRefusalAnswered = entryPoint('LIMIT-007', function judgeRefusalAnswered(check: Checker, valid: TargetResponse, notJson: TargetResponse, bytes: number): boolean {
  const v = uploadOutcome(valid);
  const g = uploadOutcome(notJson);
  if (notJudgeable(v) || notJudgeable(g)) {
    check.couldNotJudge('LIMIT-007', notJudgeable(v) ? valid : notJson);
    return true;
  }
  if (v.kind === 'silent' || g.kind === 'silent') {
    check.cannotJudge(['LIMIT-007'], { id: 'LIMIT-001', message: `an oversized upload (${bytes} bytes) got no answer at all: ${SILENT_RESET}; that is the limit's failure, not the manner of a refusal`, on: v.kind === 'silent' ? valid : notJson });
    return true;
  }
  const closed = v.kind === 'closed' && g.kind === 'closed';
  return check.outcome('LIMIT-007', !closed, () => `both oversized uploads (${bytes} bytes, valid JSON and not, sent with Expect: 100-continue) ended on a closed connection with no status and no body (${describeUpload(v)}); a refusal is a non-200 answer with a JSON error body, which the server could send before the upload`, valid);
});

/** A returned tool call as the judgement reads it: its position in the answer and the function it names. */
export interface NamedCall {
  position: number;
  name: unknown;
}

/** TOOL-006: every call the answer `res` returned names a function the request declared. */
export const judgeCallsNameDeclared = entryPoint('TOOL-006', function judgeCallsNameDeclared(check: Checker, res: TargetResponse, calls: readonly NamedCall[], declared: readonly string[], where: string): void {
  for (const c of calls) {
    check.that('TOOL-006', typeof c.name === 'string' && declared.includes(c.name), () => `${where}: tool call ${c.position} names ${q(c.name)}; the request declared only ${declared.map(q).join(', ')}`, res);
  }
});

/** A returned call with its arguments as sent (a string that should decode to the arguments). */
export interface ArgumentedCall extends NamedCall {
  arguments: unknown;
}

/**
 * TOOL-015: the arguments of each returned call decode to what the called function's `parameters` describes (2.3):
 * an object valid against the schema, never a string holding JSON again. A call whose arguments do not decode is
 * RESP-020's finding, one naming no declared function TOOL-006's: neither is judged here.
 */
export const judgeCallArguments = entryPoint('TOOL-015', function judgeCallArguments(check: Checker, res: TargetResponse, calls: readonly ArgumentedCall[], tools: readonly DeclaredFunction[], where: string): void {
  for (const c of calls) {
    const tool = tools.find((t) => t.name === c.name);
    if (!tool || typeof c.arguments !== 'string') continue;
    let decoded: unknown;
    try {
      decoded = JSON.parse(c.arguments);
    } catch {
      continue;
    }
    const problem = (): string | undefined => {
      if (!isObject(decoded)) return `decode to ${typeof decoded === 'string' ? 'a string (JSON encoded twice?)' : Array.isArray(decoded) ? 'an array' : String(decoded === null ? 'null' : typeof decoded)} ${quote(decoded, 160)}, not an object of arguments`;
      if (tool.parameters === undefined) return undefined;
      const result = validateDeclared(tool.parameters, decoded);
      return result === undefined || result.valid ? undefined : `do not match the declared parameters: ${formatIssues(result.errors.slice(0, 3)).replace(/\n/g, '; ')}`;
    };
    const p = problem();
    check.that('TOOL-015', p === undefined, () => `${where}: the arguments of tool call ${c.position} (${q(c.name)}) ${p}; received ${quote(c.arguments, 200)}`, res);
  }
});

/**
 * TOOL-016: a tool_choice object naming `forced` is honoured: every call returned calls it, and an answer the cap
 * did not cut (`cut`) returns one. An answer answered "as auto" calls another function or none.
 */
export const judgeForcedFunction = entryPoint('TOOL-016', function judgeForcedFunction(check: Checker, res: TargetResponse, calls: readonly NamedCall[], forced: string, cut: boolean, where: string): void {
  const others = calls.filter((c) => c.name !== forced);
  if (calls.length === 0) {
    if (cut) return check.notApplicable(['TOOL-016'], `${where}: the token cap cut the answer before a call came back`, res);
    check.that('TOOL-016', false, () => `${where}: tool_choice names ${q(forced)}, but the answer returned no tool call`, res);
    return;
  }
  check.that('TOOL-016', others.length === 0, () => `${where}: tool_choice names ${q(forced)}, but the answer calls ${others.map((c) => q(c.name)).join(', ')}`, res);
});

/**
 * CHAT-001 (section 1: the widely used chat-completions shape, in which tool_choice "required" makes the model call
 * one or more tools; 2.1 lists the value only, so a SHOULD): a whole 200 answer to "required" that returns no call
 * is that finding, and the rules of a returned call (`dependents`) skip with it as their cause, never silently. An
 * answer that may not be whole (`cut`: the token cap ended it, the stream did not complete) leaves them not
 * applicable. True when a call came back.
 */
export const judgeForcedCallMade = entryPoint('CHAT-001', function judgeForcedCallMade(check: Checker, res: TargetResponse, calls: readonly unknown[], cut: boolean, dependents: readonly string[], where: string): boolean {
  if (calls.length > 0) return true;
  // No answer (none came, or the kit stopped waiting for it): nothing was answered without a call.
  if (noResponse(res)) {
    if (res.exchange.status === 200) check.couldNotJudge('CHAT-001', res);
    return false;
  }
  if (res.exchange.status !== 200) return false;
  if (cut) {
    check.notApplicable(dependents, `${where}: the answer was not whole (cut by the token cap or the stream), and no tool call came back`, res);
    return false;
  }
  const finding = `${where}: tool_choice "required" was answered without a tool call; in the widely used chat-completions shape (section 1) "required" makes the model call a tool`;
  check.that('CHAT-001', false, () => finding, res);
  check.cannotJudge(dependents, { id: 'CHAT-001', message: `not judged: ${finding}`, on: res });
  return false;
});

/**
 * ROUTE-008: whatever the routing preferences, the answer names the requested model: `named` holds the model
 * values the answer gave (a body's model; every chunk's that names one).
 */
export const judgeModelKept = entryPoint('ROUTE-008', function judgeModelKept(check: Checker, res: TargetResponse, requested: string, named: readonly unknown[], what: string): boolean {
  const others = [...new Set(named.filter((m) => m !== requested))];
  return check.that('ROUTE-008', others.length === 0, () => `with ${what}, requested model ${q(requested)}, the response names ${others.map(q).join(', ')}`, res);
});

/**
 * Chunks a stream cut where the kit asked may still hold beyond the `after` it asked for: the finish chunk and one
 * carrying the error's text. A longer stream ran to a whole answer: the target did not act on the request.
 */
const CUT_SLACK = 2;

/**
 * STREAM-020 (with STREAM-017): a stream the kit asked to fail after `after` chunks (a scenario header the profile
 * says the target honours) ends on an error event; one that ends with [DONE] right there is the truncated answer
 * passed off as complete (section 6 rule 10), whether or not it appended the error's text. A stream that ran to a
 * whole answer did not act on the request: it cannot be judged, and the error event it did not send is only the
 * MAY's warning. A stream cut without [DONE] is STREAM-004's.
 */
export const judgeProvokedFailure = entryPoint(['STREAM-017', 'STREAM-020'], function judgeProvokedFailure(check: Checker, res: TargetResponse, s: ChatStream, after: number, at: string): void {
  if (s.outcome === 'error') {
    check.that('STREAM-017', true, '', res);
    check.that('STREAM-020', true, '', res);
    return;
  }
  if (s.outcome === 'truncated') {
    check.that('STREAM-017', false, () => `${at}: expected an error event after status 200; the stream ended without [DONE] and without an error event`, res);
    return;
  }
  const text = [...s.choices.values()].map((c) => c.content).join('');
  const finish = [...s.choices.values()].flatMap((c) => c.finishReasons).at(-1);
  if (s.chunks.length > after + CUT_SLACK) {
    check.that('STREAM-017', false, () => `${at}: expected an error event after status 200; the stream completed with [DONE] after ${s.chunks.length} chunk(s), a whole answer`, res);
    check.cannotJudge(['STREAM-020'], { message: `${at}: the stream ran to a whole answer (${s.chunks.length} chunks), so the target did not act on the header: no failure to judge`, on: res });
    return;
  }
  check.that('STREAM-020', false, () => `${at}: the failure the kit provoked after ${after} chunk(s) ended as a complete answer: [DONE] after ${s.chunks.length} chunk(s), finish_reason ${q(finish ?? null)}, text ${quote(text, 160)}; a failure after the stream opened is an error event, never a truncated answer passed off as complete`, res);
});


/**
 * The calls an answer returned, judged against the tools the request declared: each names one of them (TOOL-006)
 * and its arguments are what that function's parameters describe (TOOL-015).
 */
export const judgeCallsAgainstTools = entryPoint([judgeCallsNameDeclared, judgeCallArguments], function judgeCallsAgainstTools(check: Checker, res: TargetResponse, calls: readonly ArgumentedCall[], tools: readonly DeclaredFunction[], where: string): void {
  judgeCallsNameDeclared(check, res, calls, tools.map((t) => t.name), where);
  judgeCallArguments(check, res, calls, tools, where);
});

/**
 * CAT-036 where only the answer's status can be read against the list: GET /v1/models/{id} for an id the list gave
 * the same credential is answered 200 (the entry itself is judgeModelEntry's).
 */
export const judgeListedIdServed = entryPoint('CAT-036', function judgeListedIdServed(check: Checker, res: TargetResponse, id: string): boolean {
  return check.status('CAT-036', res, 200, `GET /v1/models/${encodeURIComponent(id)}, an id the list gave the same credential, status`);
});

// Helpers for tests that send an optional request feature (routing preferences, content parts, reasoning) and
// judge whether the target accepted it: acceptance is charged to the feature's requirement, the completion
// itself to the shared chat checks, so a refusal is reported once, against the feature that was refused.
import type { Checker } from '../../../judge/checker.ts';
import { judgeCompletion } from '../../../judge/judge-response.ts';
import type { ChatStream } from '../../../judge/decoding/chat-stream.ts';
import type { Discovery } from '../discovery.ts';
import { noResponse, type TargetResponse } from '../../../judge/exchange.ts';

type Json = Record<string, unknown>;
export const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A 1x1 PNG as an inline data URL: an image part that needs no fetch and costs the least. */
export const TINY_PNG_DATA_URL =
  'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

/**
 * A refusal that says the model cannot currently be served (503 model_unavailable) is a state the contract
 * allows (retry), not a verdict on the feature sent: the test skips with that reason instead of judging.
 */
export function skipIfUnavailable(check: Checker, res: TargetResponse, model: string): void {
  const body = res.json();
  const code = isObject(body) && isObject(body.error) ? body.error.code : undefined;
  if (res.status === 503 && code === 'model_unavailable') {
    check.skip(`${model} is listed but cannot currently be served (HTTP 503 model_unavailable, a state section 7 allows): retry the run to judge this test`);
  }
}

/** Refusal codes about the caller's access, not the request: the key's tier or model list, a deactivated model. */
const ACCESS_CODES = /^(insufficient_tier|model_not_allowed|model_not_found)$/;

/**
 * A refusal that is about the caller's access to the model (401/403 with an access code: the key's tier, its model
 * list) says nothing about the feature sent: the feature's requirement is recorded as not judgeable, with the
 * refusal as its cause, and the test goes on.
 */
export function refusedForAccess(check: Checker, id: string, res: TargetResponse, model: string): boolean {
  const code = accessRefusalCode(res);
  if (code === undefined) return false;
  check.cannotJudge([id], { message: `the run's key may not use ${model} (HTTP ${res.status} ${code}), so the feature could not be tried on it`, on: res });
  return true;
}

/** The error code of a refusal of the caller's access to the model (its tier, its model list), not of the request. */
function accessRefusalCode(res: TargetResponse): string | undefined {
  const body = res.json();
  const code = isObject(body) && isObject(body.error) ? body.error.code : undefined;
  return (res.status === 401 || res.status === 403) && typeof code === 'string' && ACCESS_CODES.test(code) ? code : undefined;
}

/** The response refuses the caller's access to the model, not the request. */
export function isAccessRefusal(res: TargetResponse): boolean {
  return accessRefusalCode(res) !== undefined;
}

/** The smallest useful cap for a probe whose answer is not read: at most 8 tokens, never above the budget's. */
export function probeCap(maxTokensPerRequest: number): number {
  return Math.max(1, Math.min(8, maxTokensPerRequest));
}

/**
 * The request carrying `what` was accepted: status 200, then the completion judged by the shared checks
 * (the test declares CHAT_COMPLETION_IDS). Returns the completion, or undefined when it was refused.
 */
export function checkAccepted(check: Checker, id: string, res: TargetResponse, model: string, what: string): Json | undefined {
  skipIfUnavailable(check, res, model);
  if (refusedForAccess(check, id, res, model)) return undefined;
  // No answer to judge (none came, or the kit stopped waiting for it): the kit's, never the target's failure.
  if (noResponse(res)) return void check.couldNotJudge(id, res);
  const ok = res.status === 200;
  if (!check.that(id, ok, () => `a request with ${what} must be accepted (status 200 and a chat completion); received ${res.describe()}`, res)) return undefined;
  return judgeCompletion(check, res, model);
}

/**
 * The streamed request carrying `what` was accepted: status 200 and a stream that completed (an error event
 * or a missing [DONE] is a failure, never a shorter answer). Returns the decoded stream.
 */
export function checkStreamAccepted(check: Checker, id: string, res: TargetResponse, model: string, what: string): ChatStream | undefined {
  skipIfUnavailable(check, res, model);
  if (refusedForAccess(check, id, res, model)) return undefined;
  // A stream still arriving when the kit stopped waiting says nothing about whether it would have completed.
  if (noResponse(res)) return void check.couldNotJudge(id, res);
  const opened = res.status === 200;
  if (!check.that(id, opened, () => `a streamed request with ${what} must be accepted (status 200 and an event stream); received ${res.describe()}`, res)) return undefined;
  const stream = res.stream();
  // A stream may end on an error event (section 6 rule 10): the request was accepted, and what the stream would have
  // carried cannot be judged; that is no failure of the feature.
  if (stream.outcome === 'error') {
    check.note(`the stream for a request with ${what} ended on an error event, which section 6 allows; its content is not judged: ${JSON.stringify(stream.errorEvent).slice(0, 300)}`);
    return undefined;
  }
  const complete = stream.outcome === 'complete';
  check.that(id, complete, () => `the stream for a request with ${what} ended without [DONE] (${stream.transcript.events.length} events): ${res.describe()}`, res);
  return complete ? stream : undefined;
}

/** What a response was, in the terms an observation records: status, and the error code and type when refused. */
export function outcomeOf(res: TargetResponse): { status: number; code?: unknown; type?: unknown; error?: string } {
  if (res.exchange.error) return { status: 0, error: res.exchange.error };
  if (res.status === 200) return { status: 200 };
  const body = res.json();
  const error = isObject(body) && isObject(body.error) ? body.error : undefined;
  return { status: res.status, ...(error && 'code' in error ? { code: error.code } : {}), ...(error && 'type' in error ? { type: error.type } : {}) };
}

/** The assistant message of a completion's first choice, guarded against any shape. */
export function firstMessage(body: Json | undefined): Json | undefined {
  const choices = body && Array.isArray(body.choices) ? body.choices : [];
  const first = choices.find(isObject);
  return first && isObject(first.message) ? first.message : undefined;
}

// Whether the target accepted a request that sent an optional feature (routing preferences, content parts,
// reasoning, a tool shape): acceptance is charged to the feature's requirement (the ID the calling test passes and
// declares), the completion itself to the shared chat checks, so a refusal is reported once, against the feature
// that was refused. A refusal about the caller's access or a model that cannot be served now judges nothing.
import type { Checker } from './checker.ts';
import { judgeCompletion } from './judge-response.ts';
import type { ChatStream } from './decoding/chat-stream.ts';
import { noResponse, type TargetResponse } from './exchange.ts';
import { isObject, type Json } from './checks/check.ts';
import { entryPoint } from './entry.ts';

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

/**
 * A refusal for the body's size (413) of a request that carried a field the service does not read says nothing about
 * reading it: the field's requirements (`ids`) are recorded as not judgeable, with the size rule (LIMIT-003: a body
 * under 10 MB is not refused for its size) as the cause. The one rule for every test that sends unread fields, so a
 * property test never judges what limits.spec.ts leaves unjudged.
 */
export function refusedForSize(check: Checker, ids: readonly string[], res: TargetResponse, what: string): boolean {
  if (res.exchange.status !== 413) return false;
  check.cannotJudge(ids, { id: 'LIMIT-003', message: `${what} was refused for its size (413), so whether the unread field is read cannot be told`, on: res });
  return true;
}

/** The response refuses the caller's access to the model, not the request. */
export function isAccessRefusal(res: TargetResponse): boolean {
  return accessRefusalCode(res) !== undefined;
}

/**
 * The request carrying `what` was accepted: status 200, then the completion judged by the shared checks
 * (judgeCompletion). Returns the completion, or undefined when it was refused.
 */
export const judgeAccepted = entryPoint([judgeCompletion], function judgeAccepted(check: Checker, id: string, res: TargetResponse, model: string, what: string): Json | undefined {
  skipIfUnavailable(check, res, model);
  if (refusedForAccess(check, id, res, model)) return undefined;
  // No answer to judge (none came, or the kit stopped waiting for it): the kit's, never the target's failure.
  if (noResponse(res)) return void check.couldNotJudge(id, res);
  if (!check.status(id, res, 200, `for a request with ${what}, status`)) return undefined;
  return judgeCompletion(check, res, model);
});

/**
 * The streamed request carrying `what` was accepted: status 200 and a stream that completed (an error event
 * or a missing [DONE] is a failure, never a shorter answer). Returns the decoded stream.
 */
export const judgeStreamAccepted = entryPoint([], function judgeStreamAccepted(check: Checker, id: string, res: TargetResponse, model: string, what: string): ChatStream | undefined {
  skipIfUnavailable(check, res, model);
  if (refusedForAccess(check, id, res, model)) return undefined;
  // A stream still arriving when the kit stopped waiting says nothing about whether it would have completed.
  if (noResponse(res)) return void check.couldNotJudge(id, res);
  if (!check.status(id, res, 200, `for a streamed request with ${what}, status`)) return undefined;
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
});


/**
 * The request carrying `what` was accepted: status 200, recorded under `id` (the shape of request the rule says is
 * accepted). A status judgement (statusOnly): a refusal is carded by its status, whatever body came with it; no
 * answer at all is the kit's `error`.
 */
export const judgeAcceptedStatus = entryPoint([], function judgeAcceptedStatus(check: Checker, id: string, res: TargetResponse, what: string): boolean {
  return check.status(id, res, 200, `${what} must be accepted: status`);
});

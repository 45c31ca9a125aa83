// How request-fuzzing.spec.ts judges one generated case: what each fault may be judged against is what the catalog
// says about it (the spec file's header lists the rules). Kept out of the spec file so unit tests judge hand-made
// answers with the same function.
import type { Checker } from '../../../judge/checker.ts';
import { judgeRefusal } from '../../../judge/judge-response.ts';
import { refusedForSize } from '../../../judge/acceptance.ts';
import { errorOf } from '../../../judge/search.ts';
import type { TargetResponse } from '../../../judge/exchange.ts';
import { blamesUpstream } from '../requests/tools.ts';
import type { FuzzCase, RequestFault } from './arb/requests.ts';
import { CaseSkipped } from './runner.ts';

type Expectation = { kind: 'refuse'; id: string } | { kind: 'accept'; id: string } | { kind: 'no-5xx' };

export const EXPECTED: Record<RequestFault, Expectation> = {
  'missing-model': { kind: 'refuse', id: 'REQ-002' },
  'missing-messages': { kind: 'refuse', id: 'REQ-004' },
  'message-without-role': { kind: 'refuse', id: 'REQ-016' },
  'user-message-without-content': { kind: 'refuse', id: 'REQ-019' },
  'function-tool-without-function': { kind: 'refuse', id: 'TOOL-005' },
  'tool-calls-without-tools': { kind: 'refuse', id: 'TOOL-012' },
  'model-wrong-type': { kind: 'refuse', id: 'CHAT-001' },
  'messages-wrong-type': { kind: 'refuse', id: 'CHAT-001' },
  'role-wrong-type': { kind: 'refuse', id: 'CHAT-001' },
  'content-wrong-type': { kind: 'refuse', id: 'CHAT-001' },
  'invalid-json': { kind: 'refuse', id: 'CHAT-001' },
  'non-object-json': { kind: 'refuse', id: 'CHAT-001' },
  'option-wrong-type': { kind: 'no-5xx' },
  'odd-role': { kind: 'no-5xx' },
  'huge-messages': { kind: 'no-5xx' },
  'deep-nesting': { kind: 'no-5xx' },
  'unknown-fields': { kind: 'accept', id: 'REQ-013' },
  'unknown-nested-fields': { kind: 'accept', id: 'REQ-014' },
};

const isClientError = (res: TargetResponse) => res.exchange.status >= 400 && res.exchange.status < 500;

/** Whether a case's answer asks for its control (the same request without its unread fields): an answer, not a 200. */
export const needsControl = (f: FuzzCase, res: TargetResponse): boolean => f.control !== undefined && res.exchange.status !== 0 && res.status !== 200;

/**
 * One fuzz case's answer, judged under what the catalog says about its fault (the law of request-fuzzing.spec.ts).
 * `control` is the answer to the case's control when needsControl asked for it.
 */
export function judgeFuzzCase(cc: Checker, f: FuzzCase, res: TargetResponse, control?: TargetResponse): void {
  const expected = EXPECTED[f.fault];
  const error = errorOf(res);
  // A target that throttles or cannot serve the model right now says nothing about the request.
  if (res.status === 429 || (res.status === 503 && error?.code === 'model_unavailable')) throw new CaseSkipped(`the target answered ${res.describe()}`);
  if (res.exchange.status !== 0 && res.status !== 200) judgeRefusal(cc, res, { id: 'ERR-001' });

  if (f.fault === 'tool-calls-without-tools') {
    // TOOL-012 (and TOOL-014, the same rule stated again) asks for a 4xx: the body of the refusal is section 7's rule,
    // judged above under ERR-001, and never charged here a second time.
    cc.that('TOOL-012', isClientError(res), () => `${f.label}: a client error (4xx) is required; received ${res.describe()}`, res);
    const blame = blamesUpstream(error);
    cc.that('TOOL-013', res.exchange.status !== 0 && res.status < 500 && blame === undefined, () => `${f.label}: the rejection must not be reported as an upstream failure; received ${blame ?? res.describe()}`, res);
    return;
  }
  if (expected.kind === 'refuse') {
    cc.that(expected.id, isClientError(res), () => `${f.label}: a client fault is answered with a 4xx; received ${res.describe()}`, res);
    return;
  }
  if (expected.kind === 'accept') {
    // A refusal for the body's size says nothing about reading the field (limits.spec.ts leaves it unjudged too).
    if (refusedForSize(cc, [expected.id], res, f.label)) return;
    // Nor does one that the same request without the field meets too (chat.spec.ts sends its control first).
    if (control !== undefined && control.status !== 200) {
      cc.cannotJudge([expected.id], { message: `${f.label}: the same request without the unread field is refused too (${control.describe()}), so the refusal is not about the field`, on: control });
      return;
    }
    // A refusal is judged by its status alone; an answer, by being the JSON completion the request asks for.
    if (!cc.status(expected.id, res, 200, `${f.label}: a field the service does not read must not cause a rejection: status`)) return;
    const json = /json/i.test(res.headers['content-type'] ?? '') && res.isJson;
    cc.that(expected.id, json, () => `${f.label}: a field the service does not read must not change the result (a JSON completion); received ${res.describe()}`, res);
    return;
  }
  cc.that('CHAT-001', res.exchange.status !== 0 && res.status < 500, () => `${f.label}: a client's odd or malformed request is not a server failure; received ${res.describe()} (standard clients retry a 5xx)`, res);
  if (f.fault === 'odd-role') cc.observe('OBS-011', { role: f.label, status: res.status, code: error?.code }, 'status of a message with a generated role', res);
}

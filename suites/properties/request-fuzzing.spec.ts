// Property: request fuzzing against the live target. Malformed requests and well-formed-but-odd ones, each with
// one labelled fault: never a 5xx for a client fault, the section 7 error body on every refusal, a 4xx where
// the contract names the refusal, and acceptance where the contract says a field is not read.
//
// What each fault may be judged against is what the catalog says about it, most specific first:
// - a missing model, messages, role or content, a function tool without its function object: REQ-002, REQ-004,
//   REQ-016, REQ-019, TOOL-005 (SHOULD: a 4xx; a failure is a warning);
// - tool calls without declared tools: TOOL-012 (4xx; TOOL-014 states it again), TOOL-013 (no 5xx, no upstream
//   blame), all MUST; the refusal's body is ERR-001's, as for every refusal;
// - unread fields, `__proto__` and `constructor` keys included: REQ-013 (top level), REQ-014 (nested objects):
//   accepted as if absent (MUST);
// - every other client fault (a field of the wrong JSON type, a body that is not JSON or not an object): no
//   contract sentence names its status, so it is charged to CHAT-001 (SHOULD: standard clients map a 4xx to a
//   request error and retry a 5xx, so a 5xx for a client fault is retried in vain);
// - odd but legal-looking requests (unknown roles, a few thousand messages, deep nesting in an unread field):
//   no 5xx (CHAT-001); roles are a gap of the spec (OBS-011), so the answer is recorded.
// Every non-200 answer is judged for the section 7 error body (ERR-001..004).
import { judges, req, test } from '../lib/test-fixtures.ts';
import { describeFuzzCase, malformedRequest, type FuzzCase, type RequestFault } from '../lib/properties/arb/requests.ts';
import { judgeRefusal } from '../../judge/judge-response.ts';
import { chatModel, noModelReason } from '../lib/requests/chat.ts';
import { CaseSkipped, checkProperty, type CaseChecker } from '../lib/properties/runner.ts';
import { errorOf } from '../../judge/search.ts';
import type { TargetResponse } from '../../judge/exchange.ts';
import { blamesUpstream } from '../lib/requests/tools.ts';
import { slotsOf } from '../lib/slots.ts';

/** The cap of every generated request: small, within the budget. */
const FUZZ_CAP = 8;

type Expectation = { kind: 'refuse'; id: string } | { kind: 'accept'; id: string } | { kind: 'no-5xx' };

const EXPECTED: Record<RequestFault, Expectation> = {
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

function judge(cc: CaseChecker, f: FuzzCase, res: TargetResponse): void {
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
    const json = /json/i.test(res.headers['content-type'] ?? '') && res.isJson;
    cc.that(expected.id, res.status === 200 && json, () => `${f.label}: a field the service does not read must neither cause a rejection nor change the result (a JSON completion); received ${res.describe()}`, res);
    return;
  }
  cc.that('CHAT-001', res.exchange.status !== 0 && res.status < 500, () => `${f.label}: a client's odd or malformed request is not a server failure; received ${res.describe()} (standard clients retry a 5xx)`, res);
  if (f.fault === 'odd-role') cc.observe('OBS-011', { role: f.label, status: res.status, code: error?.code }, 'status of a message with a generated role', res);
}

for (const slot of slotsOf(import.meta.url)) test.describe(slot.title, slot.details, () => {
  test.use({ slot });

  test.describe('property: request fuzzing', () => {
    test(
      'malformed and odd requests: never a 5xx for a client fault, a section 7 error body on every refusal, a 4xx where the contract names one, unread fields accepted',
      req('REQ-002', 'REQ-004', 'REQ-013', 'REQ-014', 'REQ-016', 'REQ-019', 'TOOL-005', 'TOOL-012', 'TOOL-013', 'TOOL-014', 'CHAT-001', 'OBS-011', judges(judgeRefusal)),
      async ({ target, check, discovery, config }) => {
        const model = chatModel(discovery, config.profile);
        if (!model) return check.skip(noModelReason(discovery));
        await checkProperty(
          { check, target, config },
          {
            law: 'a malformed or odd request gets the answer the contract gives its fault, and never a server failure',
            arbitrary: malformedRequest({ model: model.id, cap: Math.min(FUZZ_CAP, target.maxTokens) }),
            describe: describeFuzzCase,
            run: async (f, cc) => {
              // Raw bodies go as a Buffer: Playwright sends a string that is not JSON, under a JSON content type, as a
              // JSON string literal, so the target would never see the malformed bytes.
              const res = f.raw !== undefined ? await target.postRaw('/v1/chat/completions', Buffer.from(f.raw, 'utf8')) : await target.chat(f.body!);
              judge(cc, f, res);
            },
          },
        );
      },
    );
  });
});

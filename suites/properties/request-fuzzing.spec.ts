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
import { describeFuzzCase, malformedRequest } from '../lib/properties/arb/requests.ts';
import { judgeRefusal } from '../../judge/judge-response.ts';
import { chatModel, noModelReason } from '../lib/requests/chat.ts';
import { checkProperty } from '../lib/properties/runner.ts';
import { judgeFuzzCase, needsControl } from '../lib/properties/fuzz-judge.ts';
import { slotsOf } from '../lib/slots.ts';

/** The cap of every generated request: small, within the budget. */
const FUZZ_CAP = 8;

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
              judgeFuzzCase(cc, f, res, needsControl(f, res) ? await target.chat(f.control!) : undefined);
            },
          },
        );
      },
    );
  });
});

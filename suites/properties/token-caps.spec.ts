// Property: token-cap precedence (2.1, 4.3 rule 2) against the live target. Generated presence, absence and
// values of max_tokens and max_completion_tokens (within the profile's budget), streamed or not: the cap in
// force is max_completion_tokens whenever present, and usage.completion_tokens never exceeds it.
// finish_reason values are a gap of the spec (OBS-001): recorded against whether the answer hit the cap, never
// judged.
import fc from 'fast-check';
import { judges, req, test } from '../lib/test-fixtures.ts';
import { capPair, describeCaps, winningCap, type CapPair } from '../lib/properties/arb/caps.ts';
import { judgeCapInForce } from '../../judge/token-caps.ts';
import { chatModel, completionTokensOf, finishReasonsOf, isObject, LONG_ANSWER_PROMPT, noModelReason } from '../lib/requests/chat.ts';
import { CaseSkipped, checkProperty } from '../lib/properties/runner.ts';
import { streamUsage } from '../../judge/decoding/chat-stream.ts';
import { noResponse, type TargetResponse } from '../../judge/exchange.ts';
import { slotsOf } from '../lib/slots.ts';

interface CapCase {
  caps: CapPair;
  stream: boolean;
}

/** completion_tokens and finish_reason(s) of a completion, streamed or not; a case that has none is not judged. */
function outcome(res: TargetResponse, stream: boolean): { used: number; finish: unknown[] } {
  if (!stream) {
    const body = res.json();
    const used = completionTokensOf(isObject(body) ? body : undefined);
    if (used === undefined) throw new CaseSkipped(`the completion reports no usage.completion_tokens (usage is omitted when unavailable): ${res.describe()}`);
    return { used, finish: finishReasonsOf(isObject(body) ? body : undefined) };
  }
  const s = res.stream();
  if (s.outcome !== 'complete') throw new CaseSkipped(`the stream did not complete (${s.outcome}), so its usage cannot be read: ${res.describe()}`);
  const used = streamUsage(s)?.completion_tokens;
  if (typeof used !== 'number') throw new CaseSkipped('the stream carries no usage.completion_tokens although include_usage was true');
  return { used, finish: [...s.choices.values()].map((c) => c.finishReasons[c.finishReasons.length - 1]) };
}

for (const slot of slotsOf(import.meta.url)) test.describe(slot.title, slot.details, () => {
  test.use({ slot });

  test.describe('property: token-cap precedence', () => {
    test(
      'max_completion_tokens is the cap whenever present, max_tokens otherwise; completion_tokens never exceeds the cap in force',
      req('REQ-008', 'REQ-010', 'REQ-011', 'CHAT-008', 'OBS-001', 'OBS-016', judges(judgeCapInForce), { modelDependent: true }),
      async ({ target, check, discovery, config }) => {
        const model = chatModel(discovery, config.profile);
        if (!model) return check.skip(noModelReason(discovery));
        await checkProperty(
          { check, target, config },
          {
            law: 'usage.completion_tokens <= max_completion_tokens when it is present, else <= max_tokens',
            arbitrary: fc.record({ caps: capPair(target.maxTokens), stream: fc.boolean() }),
            describe: (c: CapCase) => `${describeCaps(c.caps)}${c.stream ? ', streamed with include_usage' : ''}`,
            run: async (c, cc) => {
              const body: Record<string, unknown> = { model: model.id, messages: [{ role: 'user', content: LONG_ANSWER_PROMPT }], ...c.caps };
              if (c.stream) Object.assign(body, { stream: true, stream_options: { include_usage: true } });
              const res = await target.chat(body);
              // No answer (the kit stopped waiting, or the connection failed) says nothing about the caps: never an
              // observation of a refusal.
              if (noResponse(res)) throw new CaseSkipped(`no answer to ${describeCaps(c.caps)}: ${res.describe()}`);
              if (res.status !== 200) {
                // Accepted ranges of the caps are a gap of the spec: a refusal is recorded, not judged.
                cc.observe('OBS-016', { caps: c.caps, status: res.status, code: (res.json() as { error?: { code?: unknown } } | undefined)?.error?.code }, 'status of a request with generated caps', res);
                throw new CaseSkipped(`the target refused ${describeCaps(c.caps)}: ${res.describe()}`);
              }
              const { used, finish } = outcome(res, c.stream);
              judgeCapInForce(cc, res, used);
              const cap = winningCap(c.caps)!; // capPair sends at least one cap
              cc.observe('OBS-001', { capped: used >= cap, finish_reason: finish }, 'finish_reason by whether the answer reached the cap in force', res);
            },
          },
        );
      },
    );
  });
});

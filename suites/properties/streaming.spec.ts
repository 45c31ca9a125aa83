// Property: streamed completions with generated prompts (any unicode) and options (include_usage true, false or
// absent; either cap) against the live target: every stream decodes through the reference consumer, every chunk
// validates, and the stream invariants judgeStream judges hold. Which roles a target accepts is a gap (4.3): a case
// whose system message is refused while the same request without it is served is not judged, as chat.spec.ts
// leaves it (OBS-011 records the roles).
import fc from 'fast-check';
import { judges, req, test } from '../lib/test-fixtures.ts';
import { capPair, describeCaps } from '../lib/properties/arb/caps.ts';
import { streamedRequest } from '../lib/properties/arb/requests.ts';
import { chatModel, noModelReason } from '../lib/requests/chat.ts';
import { CaseSkipped, checkProperty } from '../lib/properties/runner.ts';
import { judgeStream } from '../../judge/judge-response.ts';
import { slotsOf } from '../lib/slots.ts';

for (const slot of slotsOf(import.meta.url)) test.describe(slot.title, slot.details, () => {
  test.use({ slot });

  test.describe('property: streamed completions', () => {
    test(
      'generated prompts and stream options: every stream decodes, every chunk validates, the stream invariants hold',
      req('REQ-021', judges(judgeStream)),
      async ({ target, check, discovery, config }) => {
        const model = chatModel(discovery, config.profile);
        if (!model) return check.skip(noModelReason(discovery));
        await checkProperty(
          { check, target, config },
          {
            law: 'a streamed completion of any prompt, with or without include_usage, is a valid section 6 stream',
            arbitrary: fc.record({ request: streamedRequest(), caps: capPair(target.maxTokens) }),
            describe: ({ request, caps }) => `${JSON.stringify(request.messages)}; include_usage ${request.includeUsage ?? 'absent'}; ${describeCaps(caps)}`,
            run: async ({ request, caps }, cc) => {
              const body: Record<string, unknown> = { model: model.id, messages: request.messages, stream: true, ...caps };
              if (request.includeUsage !== undefined) body.stream_options = { include_usage: request.includeUsage };
              const res = await target.chat(body);
              if (request.messages[0]?.role === 'system' && res.exchange.status !== 0 && res.status !== 200) {
                const without = await target.chat({ ...body, messages: request.messages.slice(1) });
                if (without.status === 200) throw new CaseSkipped(`the system message was refused (${res.describe()}) and the same request without it is served: the roles a target accepts are a gap of 4.3`);
              }
              if (request.includeUsage !== undefined) {
                cc.status('REQ-021', res, 200, `stream_options.include_usage ${request.includeUsage} with stream true must be accepted: status`);
              }
              // include_usage as sent is read back from the request by judgeStream (STREAM-016).
              judgeStream(cc, res, model.id);
            },
          },
        );
      },
    );
  });
});

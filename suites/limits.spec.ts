// Limits of POST /v1/chat/completions (sections 4.3 rule 1 and 8): the 10 MB body limit, applied before
// parsing; per-model output and context limits from the catalog; rate limits and quotas (gaps: observed).
import { judges, req, test } from './lib/test-fixtures.ts';

import { chatModel, completionTokensOf, LONG_ANSWER_PROMPT, errorFieldsOf, limitHeaders, noModelReason, outcomeOf, SHORT_PROMPT, usageOf, userMessage } from './lib/requests/chat.ts';
import { judgeCompletion } from '../judge/judge-response.ts';
import { judgeOversizedRefused } from '../judge/limits.ts';
import { refusedForSize } from '../judge/acceptance.ts';
import { closedUpload, judgeRefusalAnswered, judgeRefusedBeforeParsing, uploadOutcome, type UploadOutcome } from '../judge/comparisons.ts';
import { usableModels } from './lib/discovery.ts';
import { slotsOf } from './lib/slots.ts';

/** Just over the limit under both readings of "10 MB" (10,000,000 and 10,485,760 bytes), with a margin. */
const OVERSIZED_BYTES = 10 * 1024 * 1024 + 64 * 1024;
/**
 * Just under the limit under both readings (10,000,000 bytes less 64 KiB): a legal body a server with a smaller
 * limit (1 MiB is a common default) refuses, so LIMIT-003 is judged where such limits bite, not at 1 MiB.
 */
const UNDER_LIMIT_BYTES = 10_000_000 - 64 * 1024;
/** Uploading 10 MB to a remote target takes a while; the per-request timeout is at least this. */
const BIG_REQUEST_TIMEOUT_MS = 60_000;

// Bodies go as Buffers: Playwright JSON-encodes a string body that does not parse when the content type is JSON.

/** A chat request padded to exactly `bytes` with a field 2.1 does not list (so the model never reads the padding). */
function paddedRequest(model: string, bytes: number): Buffer {
  const head = JSON.stringify({ model, messages: [userMessage(SHORT_PROMPT)], max_completion_tokens: 8, chatconform_padding: '' });
  return Buffer.from(`${head.slice(0, -2)}${'x'.repeat(Math.max(0, bytes - head.length))}"}`, 'utf8');
}

/** Not JSON (it breaks off after the first member name), and exactly `bytes` long. */
function oversizedGarbage(bytes: number): Buffer {
  const head = '{"model": not json at all ';
  return Buffer.from(head + '#'.repeat(Math.max(0, bytes - head.length)), 'utf8');
}

for (const slot of slotsOf(import.meta.url)) test.describe(slot.title, slot.details, () => {
  test.use({ slot });

  test.describe('section 8: request body size', () => {
    test(
      'a body over 10 MB is refused before it is parsed',
      // CHAT-006 and CHAT-007 (4.3 rule 1) restate LIMIT-001 and LIMIT-002 (section 8): judged once, here.
      req('LIMIT-001', 'LIMIT-002', 'LIMIT-007', 'OBS-026', judges(judgeOversizedRefused, judgeRefusalAnswered, judgeRefusedBeforeParsing)),
      async ({ target, check, discovery, config }) => {
        const timeoutMs = Math.max(config.requestTimeoutMs, BIG_REQUEST_TIMEOUT_MS);
        test.setTimeout(2 * timeoutMs + 30_000);
        const model = chatModel(discovery, config.profile);
        if (!model) return check.skip(noModelReason(discovery));
        // Expect: 100-continue lets a server refuse from the headers (Content-Length), before any of the body is sent.
        const upload = { timeoutMs, headers: { expect: '100-continue' } };
        let valid = await target.postRaw('/v1/chat/completions', paddedRequest(model.id, OVERSIZED_BYTES), upload);
        let v = uploadOutcome(valid);
        if (v.kind === 'timeout' || v.kind === 'unreachable') {
          // A target that does not answer one big upload in time is not sent a second; the kit stopped waiting, so
          // nothing is judged of it (an answer the kit did not wait for is never a failure).
          for (const id of ['LIMIT-001', 'LIMIT-002']) check.couldNotJudge(id, valid);
          return;
        }
        let garbage = await target.postRaw('/v1/chat/completions', oversizedGarbage(OVERSIZED_BYTES), upload);
        let g = uploadOutcome(garbage);
        // A status for one upload and a bare close for the other: the close may be the connection's, not the
        // refusal's (a server that answers early and closes while the upload is still arriving can lose its own
        // answer to the reset). That upload is sent once more; only a close that reproduces is compared.
        if (closedUpload(g) && v.kind === 'status') g = uploadOutcome((garbage = await target.postRaw('/v1/chat/completions', oversizedGarbage(OVERSIZED_BYTES), upload)));
        // Both closed: the valid one once more, so that a close charged as no answer (LIMIT-007) reproduces.
        else if (closedUpload(v)) v = uploadOutcome((valid = await target.postRaw('/v1/chat/completions', paddedRequest(model.id, OVERSIZED_BYTES), upload)));
        // Each finding on its own upload: the evidence of the valid-JSON one is the valid-JSON request.
        judgeOversizedRefused(check, valid, OVERSIZED_BYTES, 'a valid JSON request');
        judgeOversizedRefused(check, garbage, OVERSIZED_BYTES, 'a body that is not JSON');
        // Rejected before parsing: whether the bytes are JSON cannot change the refusal.
        judgeRefusedBeforeParsing(check, valid, garbage, OVERSIZED_BYTES);
        // Refused, but by a closed connection both times: no answer where one was possible (a warning).
        judgeRefusalAnswered(check, valid, garbage, OVERSIZED_BYTES);
        check.observe('OBS-026', { bytes: OVERSIZED_BYTES, validJson: errorFieldsOf(valid), notJson: errorFieldsOf(garbage) }, 'status and error of an oversized body (valid JSON, and not JSON)', null /* two requests, one valid JSON and one not */);
      },
    );

    test(
      'a body just under 10 MB is not refused for its size',
      req('LIMIT-003', 'REQ-013', judges(judgeCompletion)),
      async ({ target, check, discovery, config }) => {
        const timeoutMs = Math.max(config.requestTimeoutMs, BIG_REQUEST_TIMEOUT_MS);
        test.setTimeout(timeoutMs + 30_000);
        const model = chatModel(discovery, config.profile);
        if (!model) return check.skip(noModelReason(discovery));
        const res = await target.postRaw('/v1/chat/completions', paddedRequest(model.id, UNDER_LIMIT_BYTES), { timeoutMs });
        const what = `a request of ${UNDER_LIMIT_BYTES} bytes, padded with a field 2.1 does not list`;
        check.status('LIMIT-003', res, 200, `for ${what}, status`);
        // A refusal for the body's size is LIMIT-003's failure; it says nothing about reading unlisted fields.
        if (!refusedForSize(check, ['REQ-013'], res, what)) check.status('REQ-013', res, 200, `for ${what}, status`);
        judgeCompletion(check, res, model.id);
      },
    );
  });

  test.describe('section 8: per-model limits', () => {
    test(
      'a response stays within the entry\'s published max_tokens, also when a larger cap is asked',
      req('LIMIT-005', judges(judgeCompletion)),
      async ({ target, check, discovery, config }) => {
        // Judged only where the cap sent can exceed the entry's max_tokens: a cap at or below it would make the
        // rule follow from the cap itself (REQ-010), a pass with nothing behind it.
        const published = usableModels(discovery, config.profile).filter((m) => typeof m.max_tokens === 'number');
        if (published.length === 0) return check.skip(noModelReason(discovery, 'usable model publishing max_tokens'));
        const model = published.find((m) => (m.max_tokens as number) < target.maxTokens);
        if (!model) {
          const least = Math.min(...published.map((m) => m.max_tokens as number));
          return check.skip(`judging it needs a cap above an entry's max_tokens (the least published is ${least}), beyond the budget's per-request cap of ${target.maxTokens} tokens`);
        }
        const maxTokens = model.max_tokens as number;
        const res = await target.chat({ model: model.id, messages: [userMessage(LONG_ANSWER_PROMPT)], max_completion_tokens: target.maxTokens });
        if (res.status !== 200) {
          // Refusing a cap above the entry's maximum keeps the rule too: the target generated nothing beyond it.
          return check.skip(`${model.id} refused a cap of ${target.maxTokens} above its max_tokens ${maxTokens} (${res.describe()}), so nothing was generated to measure`);
        }
        const body = judgeCompletion(check, res, model.id);
        const c = completionTokensOf(body);
        if (c === undefined) return check.skip('the response carries no usage.completion_tokens, so the limit cannot be measured');
        check.that('LIMIT-005', c <= maxTokens, () => `${model.id} publishes max_tokens ${maxTokens}; with a cap of ${target.maxTokens} it generated ${c} tokens`, res);
      },
    );

    test(
      'a response stays within the entry\'s published context_window',
      req('LIMIT-006'),
      async ({ check, discovery, config, target }) => {
        const published = usableModels(discovery, config.profile).filter((m) => typeof m.context_window === 'number');
        if (published.length === 0) return check.skip(noModelReason(discovery, 'usable model publishing context_window'));
        const least = Math.min(...published.map((m) => m.context_window as number));
        // Only a prompt near the window can show the rule; a short prompt cannot come near it (a vacuous pass).
        return check.skip(`judging it needs a prompt near an entry's context_window (the least published is ${least} tokens); the run sends prompts of a few dozen tokens and caps answers at ${target.maxTokens}`);
      },
    );
  });

  test.describe('section 8: rate limits and quotas (not in the contract)', () => {
    test('records the rate-limit and quota signals a completion carries', req('OBS-029', 'OBS-030'), async ({ target, check, discovery, config }) => {
      const model = chatModel(discovery, config.profile);
      if (!model) return check.skip(noModelReason(discovery));
      const res = await target.chat({ model: model.id, messages: [userMessage(SHORT_PROMPT)], max_completion_tokens: 4 });
      check.observe('OBS-029', { outcome: outcomeOf(res), headers: limitHeaders(res, /rate-?limit|retry-after/i), limited: res.status === 429 }, 'rate-limit headers and status of an ordinary completion', res);
      const quotaError = res.status !== 200 && /quota|credit|billing|insufficient/i.test(JSON.stringify(errorFieldsOf(res)));
      check.observe('OBS-030', { outcome: outcomeOf(res), headers: limitHeaders(res, /quota|credit|balance|usage-limit/i), quotaError }, 'quota headers and quota errors of an ordinary completion', res);
    });
  });
});

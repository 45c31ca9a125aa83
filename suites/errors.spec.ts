// Refusals of POST /v1/chat/completions (sections 4.3 and 7): the error body, refusals before a stream
// opens, requests missing required fields, and the model refusals (deactivated, unavailable, unknown).
import { judges, req, test } from './lib/test-fixtures.ts';
import { judgeRefusal } from '../judge/judge-response.ts';
import { answeredBy, chatModel, errorFieldsOf, isObject, limitHeaders, noModelReason, notARefusal, outcomeOf, SHORT_PROMPT, timeFor, unknownModelId, userMessage, type Json } from './lib/requests/chat.ts';
import type { TargetResponse } from '../judge/exchange.ts';
import { slotsOf } from './lib/slots.ts';

const CAP = 8;
const isClientError = (s: number) => s >= 400 && s < 500;

/** A 200 answer that names a model other than the one asked for (a substitute), described; else undefined. */
function substituted(res: TargetResponse, model: string): string | undefined {
  if (res.status !== 200) return undefined;
  const body = res.json();
  return isObject(body) && body.model === model ? undefined : answeredBy(res);
}

for (const slot of slotsOf(import.meta.url)) test.describe(slot.title, slot.details, () => {
  test.use({ slot });

  test.describe('POST /v1/chat/completions: requests missing a required field', () => {
    const cases = [
      { id: 'REQ-002', what: 'without model', body: (_model: string) => ({ messages: [userMessage(SHORT_PROMPT)], max_completion_tokens: CAP }) },
      { id: 'REQ-004', what: 'without messages', body: (m: string) => ({ model: m, max_completion_tokens: CAP }) },
      { id: 'REQ-016', what: 'whose message has no role', body: (m: string) => ({ model: m, messages: [{ content: SHORT_PROMPT }], max_completion_tokens: CAP }) },
      { id: 'REQ-019', what: 'whose user message has no content', body: (m: string) => ({ model: m, messages: [{ role: 'user' }], max_completion_tokens: CAP }) },
    ] as const;
    for (const c of cases) {
      test(`a request ${c.what} is a client error`, req(c.id, judges(judgeRefusal)), async ({ target, check, discovery, config }) => {
        const model = chatModel(discovery, config.profile);
        if (!model) return check.skip(noModelReason(discovery));
        const res = await target.chat(c.body(model.id));
        judgeRefusal(check, res, { id: c.id, status: isClientError, statusText: `for a request ${c.what}, a client error (4xx) status` });
      });
    }
  });

  test.describe('section 7: error bodies', () => {
    test(
      'refusals carry the section 7 error object; records their statuses, codes and types',
      req('OBS-024', 'OBS-028', judges(judgeRefusal)),
      async ({ target, check, discovery, config }) => {
        test.setTimeout(timeFor(5, config));
        const model = chatModel(discovery, config.profile);
        if (!model) return check.skip(noModelReason(discovery));
        const seen: Json[] = [];
        const provoke = async (what: string, send: () => Promise<TargetResponse>): Promise<TargetResponse> => {
          const res = await send();
          seen.push({ case: what, ...outcomeOf(res) });
          // Only a refusal is judged here; whether each case must be refused is another requirement's business.
          if (res.exchange.error === undefined && res.status !== 200) judgeRefusal(check, res, { id: 'ERR-001' });
          return res;
        };
        // A body that is not JSON goes as a Buffer: Playwright JSON-encodes such a string under a JSON content type.
        await provoke('malformed JSON body', () => target.postRaw('/v1/chat/completions', Buffer.from(`{"model": ${JSON.stringify(model.id)}, "messages": [`)));
        await provoke('JSON body that is an array', () => target.postRaw('/v1/chat/completions', JSON.stringify([{ model: model.id }])));
        await provoke('model of the wrong type', () => target.chat({ model: 42, messages: [userMessage(SHORT_PROMPT)], max_completion_tokens: CAP }));
        await provoke('unknown model id', () => target.chat({ model: unknownModelId(discovery), messages: [userMessage(SHORT_PROMPT)], max_completion_tokens: CAP }));
        const tools = await provoke('tool calls in a message with no tools declared', () =>
          target.chat({
            model: model.id,
            messages: [
              userMessage('What is the weather in Paris?'),
              { role: 'assistant', content: '', tool_calls: [{ id: 'call_chatconform_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
              { role: 'tool', tool_call_id: 'call_chatconform_1', content: 'sunny, 21 C' },
            ],
            max_completion_tokens: CAP,
          }),
        );
        check.observe('OBS-024', errorFieldsOf(tools), 'status and error of a request whose messages carry tool calls while no tools are declared', tools);
        check.observe(
          'OBS-028',
          { types: [...new Set(seen.map((s) => s.type).filter((t) => t !== undefined))], cases: seen },
          'error.type values returned, with the case that provoked each', null /* one request per provoked error */,
        );
      },
    );

    test(
      'a deactivated model is refused with 403 model_not_found, also with stream true',
      req('ERR-007', judges(judgeRefusal)),
      async ({ target, check, config }) => {
        const deactivated = config.profile.deactivatedModel;
        if (!deactivated) return check.skip('the profile names no deactivated model (deactivatedModel)');
        const res = await target.chat({ model: deactivated, stream: true, messages: [userMessage(SHORT_PROMPT)], max_completion_tokens: CAP });
        judgeRefusal(check, res, { id: 'ERR-007', status: 403, code: 'model_not_found' });
      },
    );
  });

  test.describe('section 7: refusals of the requested model', () => {
    test(
      'an unknown model id is refused, never answered by another model',
      req('CHAT-010', 'CHAT-012', 'OBS-027', judges(judgeRefusal)),
      async ({ target, check, discovery }) => {
        if (discovery.catalogError) return check.skip(discovery.catalogError);
        const id = unknownModelId(discovery);
        const res = await target.chat({ model: id, messages: [userMessage(SHORT_PROMPT)], max_completion_tokens: CAP });
        const sub = substituted(res, id);
        check.that('CHAT-010', sub === undefined, () => `model ${id} is not in the catalog, yet the request was ${sub}; a request is never silently answered by another model`, res);
        const problem = notARefusal(res);
        check.that('CHAT-012', problem === undefined, () => `model ${id} is not in the catalog, yet the request was not refused with a section 7 error: ${problem}`, res);
        if (res.exchange.error === undefined && res.status !== 200) judgeRefusal(check, res, { id: 'CHAT-012' });
        const one = await target.get(`/v1/models/${encodeURIComponent(id)}`);
        check.observe('OBS-027', { chat: errorFieldsOf(res), getModel: errorFieldsOf(one) }, 'status and error for an unknown model id: as model in a completion request, and on GET /v1/models/{model_id}', res);
      },
    );

    test(
      'a deactivated model is refused with 403 model_not_found',
      req('ERR-007', 'CHAT-012', 'OBS-008', judges(judgeRefusal)),
      async ({ target, check, discovery, config }) => {
        const id = config.profile.deactivatedModel;
        if (!id) return check.skip('the profile names no deactivated model (deactivatedModel)');
        // The 503 is this test's subject: handed back as it is, never retried away.
        const res = await target.chat({ model: id, messages: [userMessage(SHORT_PROMPT)], max_completion_tokens: CAP }, { subjectStatus: 503 });
        const problem = notARefusal(res);
        check.that('CHAT-012', problem === undefined, () => `the deactivated model ${id}: ${problem}; a refusal to serve it is a section 7 error, never a 200 answer`, res);
        judgeRefusal(check, res, { id: 'ERR-007', status: 403, statusText: `for the deactivated model ${id}, status`, code: 'model_not_found' });
        check.observe('OBS-008', { model: id, profileState: 'deactivated', listed: discovery.models.some((m) => m.id === id), chat: outcomeOf(res) }, 'a deactivated model: whether it is listed and how a completion naming it fares', res);
      },
    );

    test(
      'a model that cannot currently be served is refused with 503 model_unavailable',
      req('ERR-008', 'CHAT-012', 'OBS-008', 'OBS-029', judges(judgeRefusal)),
      async ({ target, check, discovery, config }) => {
        const id = config.profile.unavailableModel;
        if (!id) return check.skip('the profile names no unavailable model (unavailableModel)');
        // The 503 is this test's subject: handed back as it is, never retried away.
        const res = await target.chat({ model: id, messages: [userMessage(SHORT_PROMPT)], max_completion_tokens: CAP }, { subjectStatus: 503 });
        const problem = notARefusal(res);
        check.that('CHAT-012', problem === undefined, () => `the unavailable model ${id}: ${problem}; a refusal to serve it is a section 7 error, never a 200 answer`, res);
        judgeRefusal(check, res, { id: 'ERR-008', status: 503, statusText: `for the unavailable model ${id}, status`, code: 'model_unavailable' });
        check.observe('OBS-008', { model: id, profileState: 'unavailable', listed: discovery.models.some((m) => m.id === id), chat: outcomeOf(res) }, 'an unavailable model: whether it is listed and how a completion naming it fares', res);
        check.observe('OBS-029', { status: res.status, headers: limitHeaders(res) }, 'retry and rate-limit headers on the model_unavailable refusal (Retry-After is not required)', res);
      },
    );
  });

  test.describe('a request without a body', () => {
    /** How long a POST with no body may wait for its answer: a server that waits for a body never sends one. */
    const PROBE_WAIT_MS = 10_000;

    test('a POST with no body and no Content-Length is answered with an error, not left waiting', req('CHAT-013', judges(judgeRefusal)), async ({ target, check, config }) => {
      const timeoutMs = Math.min(config.requestTimeoutMs, PROBE_WAIT_MS);
      const res = await target.send('POST', '/v1/chat/completions', undefined, { headers: { 'content-type': 'application/json' }, timeoutMs, noLengthHeaders: true });
      // A timeout here is the deviation itself (the server waits for a body HTTP says is empty), not the kit's limit,
      // provided the target answers an ordinary request in the same time (the control below).
      if (res.exchange.errorKind === 'timeout' && res.exchange.status === 0) {
        // The control: a target that answers nothing at all is not failing this probe in particular. The finding
        // is the probe's: its evidence is the bodiless POST, not the control sent after it.
        const control = await target.get('/v1/models', { timeoutMs });
        if (control.exchange.status === 0) return check.couldNotJudge('CHAT-013', res);
        check.outcome('CHAT-013', false, `no answer within ${timeoutMs} ms to a POST with no body, no Content-Length and no Transfer-Encoding: HTTP/1.1 reads that as an empty body, yet the target is still waiting for one`, res);
        return;
      }
      judgeRefusal(check, res, { id: 'CHAT-013', status: (s) => s !== 200, statusText: 'for a POST without a body, a non-200 status' });
    });
  });
});

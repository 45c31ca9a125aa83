// The kit's own client policy (ERR-009): on model_unavailable it retries the same model and never substitutes
// another. Checked in npm test against the embedded mock (suites/kit.config.ts), never in a target's verdict.
import { req, test } from '../lib/test-fixtures.ts';
import { errorFieldsOf, isObject, SHORT_PROMPT, timeFor, userMessage } from '../lib/requests/chat.ts';
import { chatRetryingUnavailable } from '../lib/clients/kit-policies.ts';
import type { TargetResponse } from '../../judge/exchange.ts';

const CAP = 8;

/** The model that answered, when it is not the one asked for. */
function substituted(res: TargetResponse, model: string): string | undefined {
  const body = res.json();
  const answered = isObject(body) ? body.model : undefined;
  return typeof answered === 'string' && answered !== model ? answered : undefined;
}

test.describe('the kit\'s client', () => {
  test(
    'on model_unavailable the kit\'s client retries the same model and returns the refusal, never a substitute',
    req('ERR-009'),
    async ({ target, check, config }) => {
      test.setTimeout(timeFor(4, config));
      const id = config.profile.unavailableModel;
      if (!id) return check.skip('the profile names no unavailable model (unavailableModel)');
      const attempts = 3;
      const first = target.exchanges.length;
      const started = Date.now();
      const { res: final, attempts: sent } = await chatRetryingUnavailable(target, { model: id, messages: [userMessage(SHORT_PROMPT)], max_completion_tokens: CAP }, { attempts });
      const elapsed = Date.now() - started;
      const exchanges = target.exchanges.slice(first);
      // The client is judged only when the target gave it something to retry (the target's refusal is ERR-008's business).
      const firstCode = (() => {
        try {
          return (JSON.parse(exchanges[0]?.responseBody ?? '') as { error?: { code?: unknown } }).error?.code;
        } catch {
          return undefined;
        }
      })();
      if (exchanges[0]?.status !== 503 || firstCode !== 'model_unavailable') {
        return check.skip(`the target did not refuse ${id} with 503 model_unavailable (${exchanges[0] ? `${exchanges[0].status} ${JSON.stringify(firstCode)}` : 'no request'}), so the client had nothing to retry`);
      }
      const finalUnavailable = final.status === 503 && errorFieldsOf(final).code === 'model_unavailable';
      check.that('ERR-009', exchanges.length === sent && (sent === attempts || !finalUnavailable), () => `the client sent ${exchanges.length} requests (reported ${sent}) and stopped on model_unavailable; it retries up to ${attempts} attempts in all`, null /* the count of all attempts */);
      const asked = exchanges.map((e) => {
        try {
          return (JSON.parse(e.requestBody ?? '') as { model?: unknown }).model;
        } catch {
          return undefined;
        }
      });
      check.that('ERR-009', asked.every((m) => m === id), () => `the attempts asked for ${JSON.stringify(asked)}; every retry asks for the same model ${id}, never a substitute`, null /* every attempt */);
      const servedBySame = final.status === 200 && substituted(final, id) === undefined;
      check.that('ERR-009', finalUnavailable || servedBySame, () => `the client ended with ${final.describe()}; it returns either the model_unavailable refusal, for its caller to tell the end user, or an answer by ${id} itself`, final);
      check.that('ERR-009', elapsed >= 100 * (attempts - 1), () => `${attempts} attempts took ${elapsed} ms: the client retried without waiting`, null /* the time between attempts */);
    },
  );
});

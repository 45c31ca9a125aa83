// Authentication of POST /v1/chat/completions (sections 4 and 5): the credential is required; a key limited
// to a list of models, and a key below an entry's min_tier, are refused rather than rerouted.
import { judges, req, test } from './lib/test-fixtures.ts';
import { judgeRefusal } from '../judge/judge-response.ts';
import { answeredBy, chatModel, errorFieldsOf, invalidKey, noModelReason, notARefusal, SHORT_PROMPT, userMessage } from './lib/requests/chat.ts';
import { judgeCompletion } from '../judge/judge-response.ts';
import { usableModels } from './lib/discovery.ts';
import { slotsOf } from './lib/slots.ts';

const CAP = 8;

for (const slot of slotsOf(import.meta.url)) test.describe(slot.title, slot.details, () => {
  test.use({ slot });

  test.describe('POST /v1/chat/completions: the credential', () => {
    test(
      'creates a completion with the credential and refuses without one',
      req('AUTH-002', 'AUTH-004', 'OBS-018', judges(judgeCompletion, judgeRefusal)),
      async ({ target, check, discovery, config }) => {
        const model = chatModel(discovery, config.profile);
        if (!model) return check.skip(noModelReason(discovery));
        const body = { model: model.id, messages: [userMessage(SHORT_PROMPT)], max_completion_tokens: CAP };
        const withKey = await target.chat(body);
        check.status('AUTH-004', withKey, 200, 'with Authorization: Bearer <key>, status');
        judgeCompletion(check, withKey, model.id);

        const without = await target.chat(body, { key: null });
        check.that('AUTH-004', without.exchange.error === undefined && without.status !== 200, () => `the same request without a credential was not refused (${without.status === 200 ? answeredBy(without) : without.describe()}); the endpoint requires authentication`, without);
        judgeRefusal(check, without, { id: 'AUTH-002' });
        check.observe('OBS-018', { ...errorFieldsOf(without), 'www-authenticate': without.headers['www-authenticate'] }, 'status and error of a chat request without an Authorization header', without);
      },
    );

    test('an invalid key is refused', req('AUTH-003', 'OBS-019', judges(judgeRefusal)), async ({ target, check, discovery, config }) => {
      const model = chatModel(discovery, config.profile);
      if (!model) return check.skip(noModelReason(discovery));
      const res = await target.chat({ model: model.id, messages: [userMessage(SHORT_PROMPT)], max_completion_tokens: CAP }, { key: invalidKey(), keyVar: 'INVALID_KEY' });
      judgeRefusal(check, res, { id: 'AUTH-003' });
      check.observe('OBS-019', { ...errorFieldsOf(res), 'www-authenticate': res.headers['www-authenticate'] }, 'status and error of a chat request with a well-formed key that was never issued', res);
    });

    test('records how the keys of this run were obtained', req('OBS-017'), async ({ check, config }) => {
      const p = config.profile;
      // Which credentials the run was given, never their values; issuance itself is outside the contract.
      check.observe(
        'OBS-017',
        {
          runKey: config.apiKey ? (process.env.CONFORMANCE_API_KEY ? 'CONFORMANCE_API_KEY' : 'profile apiKey') : 'none',
          restrictedKey: p.restrictedKey ? 'profile restrictedKey' : 'none',
          lowTierKey: p.lowTierKey ? 'profile lowTierKey' : 'none',
        },
        'key issuance is outside the contract; this records only where the run took its keys from', null /* where the run took its keys from: no request */,
      );
    });
  });

  test.describe('POST /v1/chat/completions: keys limited by model list and by tier', () => {
    test(
      'a key limited to a list of models is refused for a model outside it, never rerouted',
      req('AUTH-008', 'ERR-006', 'CHAT-011', 'CHAT-012', judges(judgeRefusal)),
      async ({ target, check, discovery, config }) => {
        const restricted = config.profile.restrictedKey;
        if (!restricted) return check.skip('the profile names no restricted key (restrictedKey)');
        const outside = usableModels(discovery, config.profile).find((m) => !restricted.allowedModels.includes(m.id));
        if (!outside) return check.skip(`every usable catalog entry is on the restricted key's list (${restricted.allowedModels.join(', ')})`);
        const res = await target.chat(
          { model: outside.id, messages: [userMessage(SHORT_PROMPT)], max_completion_tokens: CAP },
          { key: restricted.key, keyVar: 'RESTRICTED_KEY' },
        );
        const what = `the restricted key asking for ${outside.id} (not on its list)`;
        const error = judgeRefusal(check, res, { id: 'AUTH-008', status: 403, statusText: `for ${what}, status`, code: 'model_not_allowed' });
        check.that('ERR-006', res.status === 403 && error?.code === 'model_not_allowed', () => `${what}: expected status 403 with code model_not_allowed; received ${res.describe()}`, res);
        const problem = notARefusal(res);
        check.that('CHAT-011', problem === undefined, () => `${what}: ${problem}; it is refused with model_not_allowed, never rerouted to an allowed model`, res);
        check.that('CHAT-012', problem === undefined, () => `${what}: ${problem}; a refusal to serve the model is a section 7 error, never a 200 answer`, res);
      },
    );

    test(
      'a key below an entry\'s min_tier cannot use it',
      req('AUTH-010', 'CHAT-012', judges(judgeRefusal)),
      async ({ target, check, discovery, config }) => {
        const low = config.profile.lowTierKey;
        if (!low) return check.skip('the profile names no low-tier key (lowTierKey)');
        const listed = new Set(discovery.models.map((m) => m.id));
        const denied = low.deniedModels.find((id) => listed.has(id) && id !== config.profile.unavailableModel) ?? low.deniedModels[0];
        if (!denied) return check.skip('the profile\'s lowTierKey lists no denied model');
        const res = await target.chat({ model: denied, messages: [userMessage(SHORT_PROMPT)], max_completion_tokens: CAP }, { key: low.key, keyVar: 'LOW_TIER_KEY' });
        const tier = discovery.models.find((m) => m.id === denied)?.min_tier;
        const problem = notARefusal(res);
        if (res.status === 200) check.that('AUTH-010', false, `the low-tier key asking for ${denied} (min_tier ${JSON.stringify(tier)}) was ${answeredBy(res)}; it is refused with an error`, res);
        else judgeRefusal(check, res, { id: 'AUTH-010' });
        check.that('CHAT-012', problem === undefined, () => `the low-tier key asking for ${denied}: ${problem}; a refusal to serve the model is a section 7 error, never a 200 answer`, res);
      },
    );
  });
});

// Defect modes: authentication (5). Each breaks the requirement it names, as real servers do.
import { UNKNOWN_KEY } from '../../core/auth.ts';
import { MockHttpError } from '../../core/errors.ts';
import { defect } from '../mode.ts';
import { firstKey } from '../support.ts';

export const AUTH_DEFECTS = [
  defect({
    name: 'chat-without-credential',
    breaks: 'AUTH-002',
    section: 'auth',
    description: 'POST /v1/chat/completions without an Authorization header is served with a default key',
    stages: (ctx) => ({
      authenticate: (next) => (input) => next({ ...input, required: false }) ?? (input.required ? firstKey(ctx) : undefined),
    }),
  }),
  defect({
    name: 'invalid-key-accepted',
    tier: 'extended',
    breaks: 'AUTH-003',
    section: 'auth',
    description: 'any well-formed but unknown bearer key is accepted (keys validated by prefix only)',
    stages: (ctx) => ({
      authenticate: (next) => (input) => {
        try {
          return next(input);
        } catch (err) {
          if (err instanceof MockHttpError && err.code === UNKNOWN_KEY.code && err.message === UNKNOWN_KEY.message) return firstKey(ctx);
          throw err;
        }
      },
    }),
  }),
  defect({
    name: 'restricted-key-rerouted',
    breaks: 'AUTH-008',
    section: 'auth',
    description: 'a key limited to a model list asking for another model is silently served by the first model on its list',
    cooperation: 'a key restricted to a list of models (profile.restrictedKey)',
    stages: (ctx) => ({
      resolveModel: (next) => (input) => {
        try {
          return next(input);
        } catch (err) {
          if (!(err instanceof MockHttpError) || err.code !== 'model_not_allowed') throw err;
          const byId = ctx.i.catalog.byId;
          const allowed = input.key.models?.map((m) => byId.get(m)).find((e) => e !== undefined && e.mock.state === 'active');
          if (allowed) return allowed;
          throw err;
        }
      },
    }),
  }),
  defect({
    name: 'tier-not-enforced',
    tier: 'extended',
    breaks: 'AUTH-010',
    section: 'auth',
    description: 'min_tier is published but never enforced: a free-tier key is served pro entries',
    stages: (ctx) => ({
      resolveModel: (next) => (input) => next({ ...input, key: { ...input.key, tier: ctx.i.catalog.tiersOrder.at(-1) ?? input.key.tier } }),
    }),
  }),
] as const;

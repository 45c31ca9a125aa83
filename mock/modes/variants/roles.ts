// Legal variant: the roles a model takes. 4.3 leaves the allowed values of message `role` open, and chat templates
// that have no system turn refuse it.
import { MockHttpError } from '../../core/errors.ts';
import { variant } from '../mode.ts';

export const SYSTEM_ROLE_REFUSED_VARIANT = variant({
  name: 'system-role-refused',
  allows: '4.3 gaps (the allowed values of message role)',
  description: 'a request with a system message is refused with 400 ("this model does not take a system message"), as models whose chat template has no system turn are',
  stages: () => ({
    parse: (next) => (input) => {
      const req = next(input);
      if (req.messages.some((m) => (m as { role?: unknown }).role === 'system')) throw new MockHttpError(400, 'invalid_request', 'invalid request: this model does not take a system message');
      return req;
    },
  }),
});

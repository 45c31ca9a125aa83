// Defect modes: request rules (2.1, 2.5, 2.6, 4.3). Each breaks the requirement it names, as real servers do.
import { LISTED_FIELDS } from '../../../spec/listed-fields.ts';
import { acceptedEfforts } from '../../core/chat.ts';
import { MockHttpError } from '../../core/errors.ts';
import { defect } from '../mode.ts';

export const REQUEST_RULE_DEFECTS = [
  defect({
    name: 'max-tokens-wins',
    breaks: 'REQ-011',
    section: 'request rules',
    description: 'when both caps are sent, the legacy max_tokens wins over max_completion_tokens',
    stages: () => ({
      cap: (next) => (input) => {
        const req = { ...input.req };
        const legacy = req.max_tokens ?? req.max_completion_tokens;
        if (legacy === undefined) delete req.max_completion_tokens;
        else req.max_completion_tokens = legacy;
        return next({ ...input, req });
      },
    }),
  }),
  defect({
    name: 'cap-ignored',
    breaks: 'REQ-010',
    section: 'request rules',
    description: 'max_completion_tokens and max_tokens are ignored: the answer runs to its natural length',
    stages: () => ({
      cap: (next) => (input) => {
        const { max_tokens: _a, max_completion_tokens: _b, ...req } = input.req;
        return next({ ...input, req });
      },
    }),
  }),
  defect({
    name: 'unknown-field-rejected',
    tier: 'extended',
    breaks: 'REQ-013',
    section: 'request rules',
    description: 'strict request decoding: a top-level field 2.1 does not list is refused with 400 instead of being ignored',
    stages: () => ({
      parse: (next) => (input) => {
        const req = next(input);
        const unknown = Object.keys(req).find((k) => !LISTED_FIELDS.request.has(k));
        if (unknown !== undefined) throw new MockHttpError(400, 'invalid_request', `invalid request: unknown field ${unknown}`);
        return req;
      },
    }),
  }),
  defect({
    name: 'effort-accepted',
    breaks: 'RSN-006',
    section: 'request rules',
    description: 'a reasoning.effort outside the entry\'s set is silently mapped to "medium" instead of being refused with 400',
    stages: () => ({
      admit: (next) => (input) => {
        const { req, entry } = input;
        const effort = req.reasoning?.effort;
        const accepted = acceptedEfforts(entry);
        if (entry.supports_reasoning && effort !== undefined && !accepted.includes(effort)) {
          req.reasoning = { ...req.reasoning, effort: accepted.includes('medium') ? 'medium' : accepted[0]! };
        }
        return next(input);
      },
    }),
  }),
  defect({
    name: 'image-to-non-image-answered',
    breaks: 'IMG-006',
    section: 'request rules',
    description: 'image parts sent to an entry with supports_images false are dropped and the request is answered',
    stages: () => ({ admit: (next) => (input) => next({ ...input, entry: { ...input.entry, supports_images: true } }) }),
  }),
] as const;

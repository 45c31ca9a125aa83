// Defect modes: request rules (2.1, 2.5, 2.6, 4.3). Each breaks the requirement it names, as real servers do.
import { LISTED_FIELDS } from '../../../spec/listed-fields.ts';
import { acceptedEfforts } from '../../core/chat.ts';
import { MockHttpError } from '../../core/errors.ts';
import { defect } from '../mode.ts';

/** Request fields of the widely used shape that 2.1 does not list, which a server that implements others refuses. */
const CLIENT_FIELD_NAMES = new Set(['n', 'seed', 'stop', 'store', 'logprobs', 'top_logprobs', 'user', 'presence_penalty', 'frequency_penalty', 'response_format']);

/** Where a request carries one of the nested fields real clients send that the contract does not list, if it does. */
function clientNestedField(req: Record<string, unknown>): string | undefined {
  const has = (o: unknown, key: string): boolean => typeof o === 'object' && o !== null && Object.hasOwn(o, key);
  const tools = Array.isArray(req.tools) ? req.tools : [];
  const tool = tools.findIndex((t) => has(t, 'function') && has((t as { function: unknown }).function, 'strict'));
  if (tool >= 0) return `tools[${tool}].function.strict`;
  for (const [i, m] of (Array.isArray(req.messages) ? req.messages : []).entries()) {
    if (has(m, 'refusal')) return `messages[${i}].refusal`;
  }
  return has(req.provider, 'data_collection') ? 'provider.data_collection' : undefined;
}

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
    name: 'client-fields-refused',
    tier: 'extended',
    breaks: 'REQ-013',
    section: 'request rules',
    description: 'the unlisted fields real clients send (n, seed, stop, store, logprobs, user, penalties, response_format) are refused with 400 "unsupported parameter", though a field of an invented name is ignored',
    stages: () => ({
      parse: (next) => (input) => {
        const req = next(input);
        const refused = Object.keys(req).find((k) => CLIENT_FIELD_NAMES.has(k));
        if (refused !== undefined) throw new MockHttpError(400, 'invalid_request', `unsupported parameter: ${refused}`);
        return req;
      },
    }),
  }),
  defect({
    name: 'client-nested-fields-refused',
    tier: 'extended',
    breaks: 'REQ-014',
    section: 'request rules',
    description: 'the unlisted nested fields real clients send (a function\'s strict, a returned assistant message\'s refusal, provider data_collection) are refused with 400 "unsupported parameter", though a nested field of an invented name is ignored',
    stages: () => ({
      parse: (next) => (input) => {
        const req = next(input);
        // The parsed request keeps only the fields the contract lists: the nested ones are read from the body.
        const refused = clientNestedField(JSON.parse(new TextDecoder().decode(input.bytes)) as Record<string, unknown>);
        if (refused !== undefined) throw new MockHttpError(400, 'invalid_request', `unsupported parameter: ${refused}`);
        return req;
      },
    }),
  }),
  defect({
    name: 'parts-only-for-user',
    tier: 'extended',
    breaks: 'REQ-018',
    section: 'request rules',
    description: 'content given as parts is accepted in user messages only: a system, assistant or tool message whose content is an array is refused with 400, as chat templates that read only a string there do',
    stages: () => ({
      parse: (next) => (input) => {
        const req = next(input);
        const at = (req.messages as { role?: unknown; content?: unknown }[]).find((m) => m.role !== 'user' && Array.isArray(m.content));
        if (at !== undefined) throw new MockHttpError(400, 'invalid_request', `invalid request: ${String(at.role)} message content must be a string`);
        return req;
      },
    }),
  }),
  defect({
    name: 'include-reasoning-false-refused',
    tier: 'extended',
    breaks: 'RSN-002',
    section: 'request rules',
    description: 'include_reasoning false, what clients send by default, is refused with 400 ("include_reasoning must be true when given"); true is served',
    stages: () => ({
      parse: (next) => (input) => {
        const req = next(input);
        if (req.include_reasoning === false) throw new MockHttpError(400, 'invalid_request', 'invalid request: include_reasoning must be true when given');
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

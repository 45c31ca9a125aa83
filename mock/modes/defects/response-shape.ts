// Defect modes: response shape (2.9). Each breaks the requirement it names, as real servers do.
import { countTokens } from '../../engine/tokens.ts';
import { defect } from '../mode.ts';
import { aliasOf, choicesOf } from '../support.ts';

export const RESPONSE_SHAPE_DEFECTS = [
  defect({
    name: 'message-null-fields',
    breaks: 'RESP-001',
    section: 'response shape',
    description: 'with function tools declared, a text answer carries "tool_calls": null instead of omitting it',
    output: {
      body: (body, { req, completion }) => {
        const declared = (req.tools ?? []).some((t) => t.type === 'function');
        const message = choicesOf(body)[0]?.message as Record<string, unknown> | undefined;
        if (declared && completion.toolCalls.length === 0 && message) message.tool_calls = null;
        return body;
      },
    },
  }),
  defect({
    name: 'finish-reason-null',
    tier: 'extended',
    // A null where a value belongs is charged to the rule against nulls alone: one deviation, one requirement.
    breaks: 'RESP-001',
    section: 'response shape',
    description: 'the upstream stop reason "tool_use" has no mapping: an answer with tool calls reports "finish_reason": null',
    output: {
      body: (body, { completion }) => {
        const choice = choicesOf(body)[0];
        if (choice && completion.finishReason === 'tool_calls') choice.finish_reason = null;
        return body;
      },
    },
  }),
  defect({
    name: 'response-model-rerouted',
    breaks: 'CHAT-009',
    section: 'response shape',
    description: 'requests carrying a reasoning object are routed to the alias that implements it, and the response "model" names that other entry (the next reasoning entry of the catalog)',
    stages: (ctx) => ({
      envelope: (next) => (input) => {
        const env = next(input);
        if (!input.entry.supports_reasoning || input.req.reasoning === undefined) return env;
        return { ...env, model: aliasOf(ctx.i.catalog, input.entry.id, (e) => e.supports_reasoning) };
      },
    }),
  }),
  defect({
    name: 'cached-tokens-zero',
    tier: 'extended',
    breaks: 'RESP-025',
    section: 'response shape',
    description: 'caching entries always send usage.prompt_tokens_details, with "cached_tokens": 0 and "cache_write_tokens": 0 when nothing was cached',
    stages: () => ({
      usage: (next) => (input) => {
        const u = next(input);
        if (!input.entry.supports_caching) return u;
        return { ...u, prompt_tokens_details: { cached_tokens: 0, cache_write_tokens: 0, ...u.prompt_tokens_details } };
      },
    }),
  }),
  defect({
    name: 'usage-total-mismatch',
    tier: 'extended',
    breaks: 'RESP-023',
    section: 'response shape',
    description: 'reasoning tokens are counted in completion_tokens and added to total_tokens a second time',
    stages: () => ({
      usage: (next) => (input) => {
        const u = next(input);
        const reasoning = countTokens(input.completion.reasoning ?? '');
        return reasoning > 0 ? { ...u, total_tokens: u.total_tokens + reasoning } : u;
      },
    }),
  }),
  defect({
    name: 'completion-id-empty',
    tier: 'extended',
    breaks: 'RESP-002',
    section: 'response shape',
    description: 'the completion "id" is "" (a gateway passes through an upstream that names its completions with nothing)',
    stages: () => ({ envelope: (next) => (input) => ({ ...next(input), id: '' }) }),
  }),
  defect({
    name: 'created-milliseconds',
    breaks: 'RESP-005',
    section: 'response shape',
    description: '"created" is a Unix time in milliseconds (Date.now()), not seconds',
    stages: () => ({ envelope: (next) => (input) => { const env = next(input); return { ...env, created: env.created * 1000 + 123 }; } }),
  }),
] as const;

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
  defect({
    name: 'created-stale',
    tier: 'extended',
    breaks: 'RESP-030',
    section: 'response shape',
    expect: 'warn',
    description: '"created" is a fixed Unix time in seconds, 1700000000 (November 2023), in every answer and chunk: a cached envelope or a frozen clock',
    stages: () => ({ envelope: (next) => (input) => ({ ...next(input), created: 1_700_000_000 }) }),
  }),
  defect({
    name: 'response-object-missing',
    tier: 'extended',
    breaks: 'RESP-003',
    section: 'response shape',
    description: 'the completion has no "object" (a gateway that rebuilds the answer from the upstream\'s id, choices and usage)',
    output: { body: ({ object: _o, ...body }) => body },
  }),
  defect({
    name: 'created-iso-string',
    tier: 'extended',
    breaks: 'RESP-004',
    section: 'response shape',
    description: '"created" is an ISO 8601 string ("2026-11-25T08:00:00.000Z"), as a datetime serializer writes it',
    output: { body: (body) => (typeof body.created === 'number' ? { ...body, created: new Date(body.created * 1000).toISOString() } : body) },
  }),
  defect({
    name: 'choice-index-from-one',
    tier: 'extended',
    breaks: 'RESP-009',
    section: 'response shape',
    description: 'choices are numbered from 1 (a 1-based loop counter): the only choice has "index": 1',
    output: {
      body: (body) => {
        for (const [i, c] of choicesOf(body).entries()) c.index = i + 1;
        return body;
      },
    },
  }),
  defect({
    name: 'message-role-model',
    tier: 'extended',
    breaks: 'RESP-012',
    section: 'response shape',
    description: 'the message role is "model", passed through from an upstream whose native API names the assistant so (Gemini)',
    output: {
      body: (body) => {
        for (const c of choicesOf(body)) if (typeof c.message === 'object' && c.message !== null) (c.message as Record<string, unknown>).role = 'model';
        return body;
      },
    },
  }),
  defect({
    name: 'reasoning-content-blocks',
    tier: 'extended',
    breaks: 'RSN-007',
    section: 'response shape',
    description: '"reasoning_content" is the upstream\'s list of thinking blocks ([{"type": "thinking", "thinking": ...}]), passed through, not a string',
    output: {
      body: (body) => {
        for (const c of choicesOf(body)) {
          const m = c.message as Record<string, unknown> | undefined;
          if (m && typeof m.reasoning_content === 'string') m.reasoning_content = [{ type: 'thinking', thinking: m.reasoning_content }];
        }
        return body;
      },
    },
  }),
  defect({
    name: 'usage-cost-string',
    tier: 'extended',
    breaks: 'RESP-027',
    section: 'response shape',
    description: '"usage.cost" is a decimal string ("0.0002673"), as a billing service keeps amounts exact',
    stages: () => ({
      usage: (next) => (input) => {
        const u = next(input) as ReturnType<typeof next> & { cost?: unknown };
        return (typeof u.cost === 'number' ? { ...u, cost: String(u.cost) } : u) as ReturnType<typeof next>;
      },
    }),
  }),
  defect({
    name: 'prompt-tokens-zero',
    tier: 'extended',
    breaks: 'RESP-021',
    section: 'response shape',
    description: 'usage.prompt_tokens is 0 (the upstream reports input tokens only on its streams; the non-streamed path defaults them), and total_tokens is the completion tokens alone',
    stages: () => ({
      usage: (next) => (input) => {
        const u = next(input);
        return input.req.stream === true ? u : { ...u, prompt_tokens: 0, total_tokens: u.completion_tokens };
      },
    }),
  }),
  defect({
    name: 'tool-call-tokens-uncounted',
    tier: 'extended',
    breaks: 'RESP-022',
    section: 'response shape',
    description: 'an answer made only of tool calls reports "completion_tokens": 0 (the gateway counts the tokens of content alone)',
    stages: () => ({
      usage: (next) => (input) => {
        const u = next(input);
        if (input.completion.toolCalls.length === 0 || (input.completion.content ?? '') !== '') return u;
        return { ...u, completion_tokens: 0, total_tokens: u.prompt_tokens };
      },
    }),
  }),
] as const;

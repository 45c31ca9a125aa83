// Defect modes: one deviation that breaks several requirements at once, as real servers do (llama-server's 500 to
// tools with stream, a gateway whose model list fails, a fixture server's 404 to prompts it has no fixture for, a
// server that knows only the legacy cap). Each must come out of a run as one root-cause card naming it, whatever
// requirement IDs it touches (report/causes.ts).
import { errorResult } from '../../core/errors.ts';
import { bodyFromBytes, type CoreResult } from '../../core/http.ts';
import type { ChatRequest } from '../../core/request.ts';
import { defect, type ModeContext, type StageWrappers } from '../mode.ts';

/**
 * A chat wrapper that answers `answer(req)` instead of the contract's answer when it returns one. Only requests
 * with a credential and a body the contract's decoding accepts: a refusal for those is the contract's own.
 */
function answerChat(ctx: ModeContext, answer: (req: ChatRequest) => CoreResult | undefined): StageWrappers {
  return {
    chat: (next) => async (input) => {
      const { request } = input;
      if (request.header('authorization') === undefined) return next(input);
      const bytes = await ctx.s.readBody({ request });
      const again = { request: { ...request, body: bodyFromBytes(bytes) } };
      let req: ChatRequest;
      try {
        req = ctx.s.parse({ request, bytes });
      } catch {
        return next(again);
      }
      return answer(req) ?? next(again);
    },
  };
}

/** The prompts the fixture server below has an answer for: the short ones (the kit's "Say hello." among them). */
const FIXTURE_PROMPT_CHARS = 20;

function lastUserText(req: ChatRequest): string {
  const user = [...req.messages].reverse().find((m) => m.role === 'user');
  const content = (user as { content?: unknown } | undefined)?.content;
  if (typeof content === 'string') return content;
  return Array.isArray(content) ? content.map((p) => (typeof p === 'object' && p !== null && typeof (p as { text?: unknown }).text === 'string' ? (p as { text: string }).text : '')).join('') : '';
}

export const ONE_CAUSE_DEFECTS = [
  defect({
    name: 'tools-stream-500',
    tier: 'extended',
    breaks: 'TOOL-001',
    section: 'tools',
    description: 'a request with function tools and stream true is answered 500 ("Cannot use tools with stream"), as llama-server does; the same request unstreamed is served',
    stages: (ctx) =>
      answerChat(ctx, (req) => (req.stream === true && (req.tools ?? []).some((t) => t.type === 'function') ? errorResult(500, 'server_error', 'Cannot use tools with stream') : undefined)),
  }),
  defect({
    name: 'search-tool-500',
    tier: 'extended',
    breaks: 'SEARCH-003',
    section: 'web search',
    description: 'a bare {"type":"web_search"} tools entry is answered 500 (the server reads every tools entry as a function); web_search_options is served',
    stages: (ctx) => answerChat(ctx, (req) => ((req.tools ?? []).some((t) => t.type === 'web_search') ? errorResult(500, 'server_error', 'Unsupported tool type: web_search') : undefined)),
  }),
  defect({
    name: 'max-completion-tokens-ignored',
    tier: 'extended',
    breaks: 'REQ-010',
    section: 'request rules',
    description: 'only the legacy max_tokens is read: max_completion_tokens alone caps nothing, and beside max_tokens it is max_tokens that caps',
    stages: () => ({
      cap: (next) => (input) => {
        const { max_completion_tokens: _ignored, ...req } = input.req;
        return next({ ...input, req });
      },
    }),
  }),
  defect({
    name: 'unknown-prompt-404',
    tier: 'extended',
    breaks: 'CHAT-004',
    section: 'errors',
    description: `a fixture server: a prompt it has no fixture for (any over ${FIXTURE_PROMPT_CHARS} characters) is answered 404 text/plain "No fixture matched this request"`,
    stages: (ctx) =>
      answerChat(ctx, (req) =>
        lastUserText(req).length > FIXTURE_PROMPT_CHARS ? { status: 404, headers: { 'content-type': 'text/plain; charset=utf-8' }, kind: 'text', body: 'No fixture matched this request' } : undefined,
      ),
  }),
  defect({
    name: 'catalog-list-500',
    tier: 'extended',
    breaks: 'AUTH-006',
    section: 'catalog',
    description: 'GET /v1/models answers 500 (the gateway cannot list its providers\' models); GET /v1/models/{model_id} and completions are served',
    stages: () => ({ listModels: () => () => errorResult(500, 'server_error', 'failed to list the models of the configured providers') }),
  }),
] as const;

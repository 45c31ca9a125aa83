// Defect modes: hosted web search (2.7, 2.9, 4.3 rule 6, 7). Each breaks the requirement it names, as real servers do.
import { MockHttpError } from '../../core/errors.ts';
import type { CoreRequest } from '../../core/http.ts';
import { jsonDepthExceeds } from '../../engine/json-depth.ts';
import type { ChatRequest } from '../../core/request.ts';
import { defect } from '../mode.ts';
import { deltasOf, failingStream } from '../support.ts';

/** Refusal codes of hosted search. */
const SEARCH_REFUSALS = new Set(['web_search_not_supported', 'web_search_output_budget_too_small']);

export const WEB_SEARCH_DEFECTS = [
  defect({
    name: 'search-refusal-message',
    breaks: 'SEARCH-045',
    section: 'web search',
    description: 'web_search_not_supported carries "web search is not supported by this model", not the fixed text of section 7',
    stages: () => ({
      error: (next) => (input) => next(input.code === 'web_search_not_supported' ? { ...input, message: 'web search is not supported by this model' } : input),
    }),
  }),
  defect({
    name: 'search-context-size-lenient',
    tier: 'extended',
    breaks: 'SEARCH-007',
    section: 'web search',
    description: 'an unknown search_context_size is quietly read as "medium" instead of being rejected with 400',
    stages: () => ({
      parse: (next) => (input) => {
        const text = new TextDecoder().decode(input.bytes);
        if (!text.includes('search_context_size') || jsonDepthExceeds(text) !== undefined) return next(input);
        let body: unknown;
        try {
          body = JSON.parse(text);
        } catch {
          return next(input);
        }
        const wso = (body as { web_search_options?: Record<string, unknown> } | null)?.web_search_options;
        if (wso === null || typeof wso !== 'object' || !('search_context_size' in wso)) return next(input);
        const size = wso.search_context_size;
        if (size === 'low' || size === 'medium' || size === 'high') return next(input);
        wso.search_context_size = 'medium';
        return next({ ...input, bytes: new TextEncoder().encode(JSON.stringify(body)) });
      },
    }),
  }),
  defect({
    name: 'search-action-url-on-search',
    breaks: 'SEARCH-035',
    section: 'web search',
    description: 'a multi-query "search" action carries the url of its first result page',
    stages: () => ({
      complete: (next) => (input) => {
        const c = next(input);
        c.actions = c.actions.map((a) => (a.type === 'search' && a.queries !== undefined ? { ...a, url: `https://search.example.com/?q=${encodeURIComponent(a.queries[0] ?? '')}` } : a));
        return c;
      },
    }),
  }),
  defect({
    name: 'citation-out-of-bounds',
    breaks: 'SEARCH-027',
    section: 'web search',
    description: 'with search_context_size "high", citation indices count in the expanded context document the upstream saw, so they point past the end of the final text',
    stages: () => ({
      complete: (next) => (input) => {
        const c = next(input);
        if ((input.req.web_search_options?.search_context_size ?? 'medium') !== 'high') return c;
        const shift = (c.content ?? '').length;
        c.citations = c.citations.map((x) => ({ ...x, url_citation: { ...x.url_citation, start_index: x.url_citation.start_index + shift, end_index: x.url_citation.end_index + shift } }));
        return c;
      },
    }),
  }),
  defect({
    name: 'citation-http-url',
    breaks: 'SEARCH-023',
    section: 'web search',
    description: 'search requested by a bare web_search tool goes through a legacy plugin whose citation urls are plain http:// links',
    stages: () => ({
      complete: (next) => (input) => {
        const c = next(input);
        const viaToolOnly = input.req.web_search_options === undefined && (input.req.tools ?? []).some((t) => t.type === 'web_search');
        if (viaToolOnly) c.citations = c.citations.map((x) => ({ ...x, url_citation: { ...x.url_citation, url: x.url_citation.url.replace(/^https:/, 'http:') } }));
        return c;
      },
    }),
  }),
  defect({
    name: 'search-actions-in-annotations',
    breaks: 'SEARCH-029',
    section: 'web search',
    description: 'in a streamed search answer, the stream merger appends the search actions to delta.annotations, next to the url_citation entries',
    output: {
      chunks: (chunks, { completion }) => {
        for (const d of chunks.flatMap(deltasOf)) if (Array.isArray(d.annotations)) d.annotations = [...(d.annotations as unknown[]), ...completion.actions];
        return chunks;
      },
    },
  }),
  defect({
    name: 'search-calls-zero',
    breaks: 'SEARCH-039',
    section: 'web search',
    description: 'stream_options on a non-streamed request makes the usage come from the streaming aggregator, which says "service_web_search_calls": 0 when nothing was searched',
    stages: () => ({
      usage: (next) => (input) => {
        const u = next(input);
        const unstreamed = input.req.stream_options !== undefined && input.req.stream !== true;
        return unstreamed && u.service_web_search_calls === undefined ? { ...u, service_web_search_calls: 0 } : u;
      },
    }),
  }),
  defect({
    name: 'search-refusal-streamed',
    breaks: 'SEARCH-043',
    section: 'web search',
    description: 'with stream true, a search refusal opens a 200 stream, sends some text, then an error event',
    stages: (ctx) => {
      const parsed = new WeakMap<CoreRequest, ChatRequest>();
      return {
        parse: (next) => (input) => {
          const req = next(input);
          parsed.set(input.request, req);
          return req;
        },
        chat: (next) => async (input) => {
          try {
            return await next(input);
          } catch (err) {
            const req = parsed.get(input.request);
            if (err instanceof MockHttpError && SEARCH_REFUSALS.has(err.code) && req?.stream === true) {
              return failingStream(ctx, input.request, req, err, 'Let me search the web for that. ');
            }
            throw err;
          }
        },
      };
    },
  }),
  defect({
    name: 'search-calls-miscounted',
    tier: 'extended',
    breaks: 'SEARCH-038',
    section: 'web search',
    description: 'usage.service_web_search_calls counts the citations as well as the search actions (one billing event per source), more than the actions message.service_web_search lists',
    stages: () => ({
      usage: (next) => (input) => {
        const u = next(input);
        return u.service_web_search_calls !== undefined ? { ...u, service_web_search_calls: u.service_web_search_calls + input.completion.citations.length } : u;
      },
    }),
  }),
  defect({
    name: 'search-calls-omitted',
    tier: 'extended',
    breaks: 'SEARCH-053',
    section: 'web search',
    description: 'usage never carries service_web_search_calls, also on answers that list search actions and citations (a usage block copied from the upstream model, which does not know the gateway searched)',
    stages: () => ({
      usage: (next) => (input) => {
        const { service_web_search_calls: _n, ...u } = next(input);
        return u;
      },
    }),
  }),
] as const;

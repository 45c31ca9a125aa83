// Hosted web search (2.7, 4.3 rule 6, section 7): whether it was requested, upfront refusals, and the
// provenance of an answer (url_citation annotations and service_web_search actions).
import { MESSAGES, MockHttpError } from './errors.ts';
import type { ChatRequest } from './request.ts';
import { messageText } from './tools.ts';
import type { FixtureEntry } from './types.ts';

/** Search is requested by web_search_options or by a bare {type:"web_search"} tool. */
// honours: SEARCH-002, SEARCH-003, SEARCH-004 (both forms are one signal)
export function searchRequested(req: ChatRequest): boolean {
  return req.web_search_options !== undefined || (req.tools ?? []).some((t) => t.type === 'web_search');
}

/** The output budget the caller asked for: max_completion_tokens wins over max_tokens. */
export function requestedCap(req: ChatRequest): number | undefined {
  return req.max_completion_tokens ?? req.max_tokens;
}

/**
 * Upfront refusals (never a partial answer): the entry cannot search at all (400 web_search_not_supported), or
 * it needs an output budget of N tokens and M < N was requested (400 web_search_output_budget_too_small).
 * Route-level capability is checked by routing.
 */
// honours: SEARCH-020, SEARCH-043, SEARCH-044, SEARCH-045
// honours: SEARCH-050, SEARCH-051, SEARCH-052, LIMIT-004 (refused upfront, before any answer or usage)
export function checkSearchAdmission(req: ChatRequest, entry: FixtureEntry): void {
  if (!entry.mock.routes.some((r) => r.web_search)) {
    throw new MockHttpError(400, 'web_search_not_supported', MESSAGES.webSearchNotSupported);
  }
  const n = entry.mock.search_min_output_tokens;
  const m = requestedCap(req);
  if (n !== undefined && m !== undefined && m < n) {
    throw new MockHttpError(400, 'web_search_output_budget_too_small', MESSAGES.budget(n, m));
  }
}

export interface Citation {
  type: 'url_citation';
  url_citation: { url: string; title?: string; start_index: number; end_index: number };
}

export interface SearchAction {
  type: 'search' | 'open_page' | 'find_in_page';
  query?: string;
  queries?: string[];
  url?: string;
  pattern?: string;
}

export interface SearchOutcome {
  /** ASCII text placed at the start of the answer; citation spans point into it. */
  preamble: string;
  citations: Citation[];
  actions: SearchAction[];
}

interface Source {
  url: string;
  title?: string;
  quote: string;
}

const SOURCES: Source[] = [
  { url: 'https://example.com/mock/overview', title: 'Mock overview', quote: 'the mock answers deterministically' },
  { url: 'https://example.org/guide/streaming', title: 'Streaming guide', quote: 'streams end with a DONE sentinel' },
  { url: 'https://example.net/notes/search', quote: 'search provenance arrives in the last delta' },
];

/**
 * A deterministic search outcome. The number of actions follows search_context_size: low 2, medium (default) 3,
 * high 5. Cited spans lie in an ASCII preamble at the start of the final text, so their offsets are the same in
 * UTF-16 code units, code points and bytes.
 */
// honours: SEARCH-022, SEARCH-023, SEARCH-024, SEARCH-025, SEARCH-026, SEARCH-031, SEARCH-032, SEARCH-033, SEARCH-034
// honours: SEARCH-035, SEARCH-037 (url_citation annotations and search actions of the 2.9 shapes)
export function runSearch(req: ChatRequest, seed: number): SearchOutcome {
  const lastUser = [...req.messages].reverse().find((m) => m.role === 'user');
  const words = (lastUser ? messageText(lastUser) : '').split(/\s+/).filter((w) => /^[\x21-\x7e]+$/.test(w));
  const query = words.slice(0, 6).join(' ') || 'mock query';
  const size = req.web_search_options?.search_context_size ?? 'medium';
  const src = (i: number): Source => SOURCES[(seed + i) % SOURCES.length]!;

  const all: SearchAction[] = [
    { type: 'search', query },
    { type: 'open_page', url: src(0).url },
    { type: 'find_in_page', url: src(0).url, pattern: src(0).quote.split(' ').slice(0, 2).join(' ') },
    { type: 'search', queries: [query, `${query} details`] },
    // An entry whose source page cannot be attested: no url, and that is normal.
    { type: 'open_page' },
  ];
  const count = size === 'low' ? 2 : size === 'high' ? 5 : 3;
  const actions = all.slice(0, count);

  const cited = size === 'low' ? [src(0)] : [src(0), src(1)];
  let preamble = 'Sources say ';
  const citations: Citation[] = [];
  cited.forEach((s, i) => {
    if (i > 0) preamble += ' and ';
    const start = preamble.length;
    preamble += s.quote;
    const c: Citation = { type: 'url_citation', url_citation: { url: s.url, start_index: start, end_index: preamble.length } };
    if (s.title !== undefined) c.url_citation.title = s.title;
    citations.push(c);
  });
  preamble += '. ';
  return { preamble, citations, actions };
}

/** Keeps the citations whose span starts inside the final text and clamps their end to it. */
// honours: SEARCH-027
export function boundCitations(citations: Citation[], finalText: string): Citation[] {
  const len = finalText.length;
  return citations
    .filter((c) => c.url_citation.start_index < len)
    .map((c) => ({ ...c, url_citation: { ...c.url_citation, end_index: Math.min(c.url_citation.end_index, len) } }));
}

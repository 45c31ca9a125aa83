// Token accounting, prompt caching and cost (2.9 Usage).
//
// The prompt: the mock's token count (see tokens.ts) of every message's text (string content, text parts,
// name, reasoning_content, tool-call names and arguments) plus 1 per message for its role, 85 per image part,
// plus the token count of the JSON of the declared tools. prompt_tokens is the prompt less the tokens written to
// the cache, which cache_write_tokens reports in addition to it (2.9); cached_tokens are within prompt_tokens.
// Prices are per 1,000,000 tokens: cost = ((prompt_tokens - cached) * input_price + cached * cache_read_price
// + cache_write * cache_write_price + completion * output_price) / 1e6, rounded to 1e-9. cost is omitted when the
// entry does not publish input_price and output_price. cost_details.upstream_inference_cost (= cost) is reported
// only for entries whose hidden `upstream_cost` is true.
import type { ChatRequest, ContentPart, RequestMessage } from './request.ts';
import { countTokens, digest, stableStringify } from '../engine/tokens.ts';
import type { FixtureEntry } from './types.ts';

export const IMAGE_TOKENS = 85;

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details?: { cached_tokens?: number; cache_write_tokens?: number };
  cost?: number;
  cost_details?: { upstream_inference_cost: number };
  service_web_search_calls?: number;
}

export function messageTokens(m: RequestMessage): number {
  let n = 1 + countTokens(m.name ?? '') + countTokens(m.reasoning_content ?? '');
  if (typeof m.content === 'string') n += countTokens(m.content);
  else for (const p of m.content) n += p.type === 'image_url' ? IMAGE_TOKENS : countTokens(p.text ?? '');
  for (const c of m.tool_calls ?? []) n += countTokens(c.function.name) + countTokens(c.function.arguments);
  return n;
}

export function promptTokens(req: ChatRequest): number {
  let n = 0;
  for (const m of req.messages) n += messageTokens(m);
  if (req.tools && req.tools.length > 0) n += countTokens(JSON.stringify(req.tools));
  return n;
}

/**
 * The cacheable prefix of a request: every message before the last content part that carries cache_control, and
 * that message up to and including the part (its role, name and those parts: a cache breakpoint marks the end of
 * what is cached). Returns undefined when no part is marked.
 */
export function cacheablePrefix(req: ChatRequest): { key: string; tokens: number } | undefined {
  let last = -1;
  let part = -1;
  req.messages.forEach((m, i) => {
    if (!Array.isArray(m.content)) return;
    for (let j = m.content.length - 1; j >= 0; j--) {
      if (m.content[j]!.cache_control !== undefined) {
        last = i;
        part = j;
        return;
      }
    }
  });
  if (last < 0) return undefined;
  const marked = req.messages[last]!;
  const head: RequestMessage = { role: marked.role, content: (marked.content as ContentPart[]).slice(0, part + 1) };
  if (marked.name !== undefined) head.name = marked.name;
  const prefix = [...req.messages.slice(0, last), head];
  const tokens = prefix.reduce((n, m) => n + messageTokens(m), 0);
  return { key: `${req.model}\u0000${digest(stableStringify(prefix))}`, tokens };
}

/** Per-instance prompt cache: a bounded set of prefix keys (oldest evicted first). */
export class PromptCache {
  private readonly keys = new Set<string>();
  constructor(private readonly capacity = 10_000) {}

  /** true when the key was already cached (a read); otherwise stores it (a write). */
  readOrWrite(key: string): boolean {
    if (this.keys.has(key)) return true;
    this.keys.add(key);
    if (this.keys.size > this.capacity) {
      const oldest = this.keys.values().next().value;
      if (oldest !== undefined) this.keys.delete(oldest);
    }
    return false;
  }

  clear(): void {
    this.keys.clear();
  }
}

const round = (x: number): number => Math.round(x * 1e9) / 1e9;

/** The usage of an answer to a prompt of `prompt` tokens, `cache.written` of them written to the cache. */
// honours: RESP-021, RESP-022, RESP-023, RESP-024, RESP-025, RESP-027, RESP-028, RESP-029
// honours: SEARCH-038, SEARCH-039, SEARCH-053 (optional usage fields: omitted when zero or unavailable, never null; a search counted)
// honours: RESP-026 (cache_write_tokens in addition to prompt_tokens, not within it)
export function buildUsage(
  entry: FixtureEntry,
  prompt: number,
  completion: number,
  cache: { cached: number; written: number },
  searchCalls: number,
): Usage {
  const input = prompt - cache.written;
  const usage: Usage = { prompt_tokens: input, completion_tokens: completion, total_tokens: input + completion };
  const details: { cached_tokens?: number; cache_write_tokens?: number } = {};
  if (cache.cached > 0) details.cached_tokens = cache.cached;
  if (cache.written > 0) details.cache_write_tokens = cache.written;
  if (Object.keys(details).length > 0) usage.prompt_tokens_details = details;
  if (entry.input_price !== undefined && entry.output_price !== undefined) {
    const cost = round(
      ((input - cache.cached) * entry.input_price +
        cache.cached * (entry.cache_read_price ?? entry.input_price) +
        cache.written * (entry.cache_write_price ?? entry.input_price) +
        completion * entry.output_price) /
        1e6,
    );
    usage.cost = cost;
    if (entry.mock.upstream_cost) usage.cost_details = { upstream_inference_cost: cost };
  }
  if (searchCalls > 0) usage.service_web_search_calls = searchCalls;
  return usage;
}

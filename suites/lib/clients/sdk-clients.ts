// Standard chat-completions clients (openai-node, the Vercel AI SDK's openai-compatible provider) pointed at
// the target through the suite's one HTTP client: their requests go through `target` (timeout, budget, token
// cap, evidence), so a client run is recorded and bounded like any other request of the suite. Each is loaded by
// the one test that uses it: the SDKs are some 300 modules, which every worker and every listing of the suite
// (`chatconform run --list`) would otherwise load through the runner's module hooks, slowest on a loaded machine.
import type OpenAI from 'openai';
import type { Target } from '../../../run/target.ts';

/**
 * A `fetch` for a client library that sends every request through `target`. A POST of a chat completion
 * goes through `target.chat`, so it carries the budget's cap like every other request. A request that got no
 * HTTP response rejects as fetch does (TypeError).
 */
export function targetFetch(target: Target): typeof fetch {
  return async (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const base = target.config.baseUrl;
    if (!url.startsWith(base)) throw new TypeError(`the client asked for ${url}, outside the target ${base}`);
    const path = url.slice(base.length);
    const method = (init?.method ?? 'GET').toUpperCase();
    const headers: Record<string, string> = {};
    new Headers(init?.headers).forEach((value, name) => {
      if (!/^(authorization|content-length|host|connection)$/i.test(name)) headers[name] = value;
    });
    const raw = init?.body;
    const body = raw === undefined || raw === null ? undefined : typeof raw === 'string' ? raw : raw instanceof Uint8Array ? Buffer.from(raw).toString('utf8') : String(raw);
    let parsed: unknown;
    if (method === 'POST' && /\/v1\/chat\/completions$/.test(path) && body !== undefined) {
      try {
        parsed = JSON.parse(body);
      } catch {
        parsed = undefined;
      }
    }
    const res =
      typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
        ? await target.chat(parsed as Record<string, unknown>, { headers })
        : await target.send(method, path, body, { headers });
    if (res.exchange.error) throw new TypeError(`fetch failed: ${res.exchange.error}`);
    const noBody = res.status === 204 || res.status === 304;
    return new Response(noBody ? null : new Uint8Array(res.body), { status: res.status, headers: res.headers });
  };
}

/** openai-node against the target: no retries, the run's credential, the suite's transport. */
export async function openaiClient(target: Target): Promise<OpenAI> {
  const { default: OpenAI } = await import('openai');
  return new OpenAI({
    baseURL: `${target.config.baseUrl}/v1`,
    // The key is sent by `target`; the client needs a non-empty value to start.
    apiKey: target.config.apiKey || 'unset',
    maxRetries: 0,
    timeout: target.config.requestTimeoutMs,
    fetch: targetFetch(target),
  });
}

/** The AI SDK's openai-compatible provider against the target, with usage in streams. */
export async function aiSdkProvider(target: Target) {
  const { createOpenAICompatible } = await import('@ai-sdk/openai-compatible');
  return createOpenAICompatible({
    name: 'chatconform-target',
    baseURL: `${target.config.baseUrl}/v1`,
    apiKey: target.config.apiKey || 'unset',
    includeUsage: true,
    fetch: targetFetch(target),
  });
}

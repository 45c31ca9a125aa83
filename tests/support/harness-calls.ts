// Plain requests to a mock service in-process (no transport), for the harness's unit tests: the core's request
// built by hand, the answer read back as status, headers and JSON or SSE pieces.
import { bodyFromBytes, NO_BODY, type CoreRequest, type CoreResult } from '../../mock/core/http.ts';
import type { MockService } from '../../mock/service.ts';
import { MOCK_KEYS, MOCK_MODELS } from '../../mock/keys-and-models.ts';

export interface Call {
  headers?: Record<string, string>;
  /** a JSON value, or raw text */
  body?: unknown;
  query?: string;
}

export function coreRequest(method: string, path: string, call: Call = {}): CoreRequest {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(call.headers ?? {})) headers[k.toLowerCase()] = v;
  const text = call.body === undefined ? undefined : typeof call.body === 'string' ? call.body : JSON.stringify(call.body);
  if (text !== undefined) headers['content-type'] ??= 'application/json';
  return {
    method,
    path,
    header: (name) => headers[name],
    headers: () => ({ ...headers }),
    body: text === undefined ? NO_BODY : bodyFromBytes(new TextEncoder().encode(text)),
    ...(call.query !== undefined ? { query: call.query } : {}),
  };
}

export interface Answer {
  status: number;
  headers: Record<string, string>;
  /** the JSON body (undefined for a stream) */
  json?: any;
  /** a stream's encoded events */
  pieces?: string[];
  result: CoreResult;
}

export async function send(service: MockService, method: string, path: string, call: Call = {}): Promise<Answer> {
  const result = await service.handle(coreRequest(method, path, call));
  return {
    status: result.status,
    headers: result.headers,
    ...(result.kind === 'json' ? { json: result.body } : {}),
    ...(result.kind === 'sse' ? { pieces: result.pieces } : {}),
    result,
  };
}

/** A chat completion request with the full key. */
export function chat(service: MockService, body: Record<string, unknown> = {}, headers: Record<string, string> = {}): Promise<Answer> {
  return send(service, 'POST', '/v1/chat/completions', {
    headers: { authorization: `Bearer ${MOCK_KEYS.full}`, ...headers },
    body: { model: MOCK_MODELS.small, messages: [{ role: 'user', content: 'hello' }], ...body },
  });
}

/** The JSON payloads of a stream's data events, [DONE] as the string. */
export function events(pieces: readonly string[]): unknown[] {
  return pieces.flatMap((p) => {
    const data = p.split(/\r?\n/).filter((l) => l.startsWith('data:')).map((l) => l.slice(5).replace(/^ /, '')).join('\n');
    if (data === '') return [];
    return [data === '[DONE]' ? data : JSON.parse(data)];
  });
}

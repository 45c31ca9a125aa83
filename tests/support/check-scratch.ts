// A real Checker over a scratch target that holds hand-made exchanges (no network): the harness of the unit tests
// that judge exchanges with the same functions a run uses (judge/judge-response.ts).
import { Checker, type CheckRecord } from '../../judge/checker.ts';
import { TargetResponse, type Exchange, type Target } from '../../run/target.ts';

export type Json = Record<string, unknown>;
export const NOW = (): number => Math.floor(Date.now() / 1000);

/** A checker whose target holds the exchanges `respond` makes (a POST /v1/chat/completions answered as given). */
export function scratch(declared: string[] = []): { check: Checker; respond: (status: number, body: string | Json, headers?: Record<string, string>) => TargetResponse } {
  const exchanges: Exchange[] = [];
  const target = { exchanges, scrub: (s: string) => s } as unknown as Target;
  const check = new Checker(target, { declared: () => declared });
  const respond = (status: number, body: string | Json, headers: Record<string, string> = {}): TargetResponse => {
    const text = typeof body === 'string' ? body : JSON.stringify(body);
    const exchange: Exchange = {
      method: 'POST', path: '/v1/chat/completions', url: 'http://127.0.0.1:1/v1/chat/completions', requestHeaders: {}, requestBytes: 0,
      status, responseHeaders: { 'content-type': typeof body === 'string' ? 'text/event-stream' : 'application/json', ...headers },
      responseBody: text, responseBytes: Buffer.byteLength(text), durationMs: 1, curl: 'curl …',
    };
    exchanges.push(exchange);
    return new TargetResponse(exchange, Buffer.from(text, 'utf8'));
  };
  return { check, respond };
}

/** One requirement's status over the records, the worst first. */
export const statusOf = (records: CheckRecord[], id: string): string => {
  const mine = records.filter((r) => r.id === id).map((r) => r.status);
  return mine.includes('fail') ? 'fail' : mine.includes('warn') ? 'warn' : mine.includes('pass') ? 'pass' : mine.includes('error') ? 'error' : mine.includes('skip') ? 'skip' : 'none';
};

/** A non-streamed answer holding `message`. */
export const completion = (message: Json, extra: Json = {}): Json => ({
  id: 'chatcmpl-1', object: 'chat.completion', created: NOW(), model: 'm',
  choices: [{ index: 0, message: { role: 'assistant', ...message }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 }, ...extra,
});

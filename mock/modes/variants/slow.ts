// Legal variant: a slow server (the contract sets no latency bound). Wraps the whole exchange and the writes.
import { variant } from '../mode.ts';

/** Delays of the variant slow unless MockOptions.slow says otherwise. */
export const SLOW_DEFAULTS = { headersMs: 3000, eventMs: 100 } as const;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export const SLOW_VARIANT = variant({
  name: 'slow',
  allows: '(no latency bound in the contract)',
  description: 'every answer waits before its headers (slow.headersMs, default 3000 ms) and every stream event waits too (slow.eventMs, default 100 ms)',
  stages: ({ options }) => {
    const headersMs = options.slow?.headersMs ?? SLOW_DEFAULTS.headersMs;
    const eventMs = options.slow?.eventMs ?? SLOW_DEFAULTS.eventMs;
    return {
      // Answers of the API wait; the transport's own refusals and a 404 outside /v1/ do not.
      handle: (next) => async (request) => {
        const result = await next(request);
        if (headersMs > 0 && request.path.includes('/v1/')) await sleep(headersMs);
        return result;
      },
      writes: (next) => (input) => {
        const w = next(input);
        return { ...w, chunkDelayMs: Math.max(w.chunkDelayMs, eventMs) };
      },
    };
  },
});

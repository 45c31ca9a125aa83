// Defect modes: limits (4.3 rule 1, 8). Each breaks the requirement it names, as real servers do.
import { checkContentLength, readBodyLimited, tooLarge } from '../../core/limits.ts';
import { MockHttpError } from '../../core/errors.ts';
import { defect, type ModeContext } from '../mode.ts';
import type { StageWrapper } from '../../core/pipeline.ts';

/** How far oversized-parsed-first reads a body before parsing it. */
export const PARSE_FIRST_READ_LIMIT_BYTES = 64 * 1024 * 1024;
const ONE_MB = 1_000_000;
const ONE_MIB = 1024 * 1024;

/**
 * The chat stage of a server whose body limit resets the connection: a 413 becomes a reset before the status line
 * (the transport's runtime-fault path), what a proxy or a server's body limit at the socket does.
 */
function resetOnTooLarge(ctx: ModeContext): StageWrapper<'chat'> {
  return (next) => async (input) => {
    try {
      return await next(input);
    } catch (err) {
      if (!(err instanceof MockHttpError) || err.status !== 413) throw err;
      const writes = ctx.s.writes({ request: input.request, framing: ctx.s.framing({ request: input.request }) });
      return { status: 200, headers: {}, kind: 'sse', pieces: [], writes: { ...writes, resetAfter: 0 } };
    }
  };
}

export const LIMIT_DEFECTS = [
  defect({
    name: 'oversized-accepted',
    breaks: 'LIMIT-001',
    section: 'limits',
    description: 'no request-body limit: a body over 10 MB is read, parsed and answered',
    stages: () => ({ readBody: () => ({ request }) => readBodyLimited(request.body, Number.POSITIVE_INFINITY) }),
  }),
  defect({
    name: 'oversized-parsed-first',
    tier: 'extended',
    breaks: 'LIMIT-002',
    section: 'limits',
    description: 'the body is parsed before its size is checked: an oversized body that is not JSON gets 400 invalid_json, a valid one 413',
    stages: (ctx) => ({
      readBody: () => async ({ request }) => {
        const bytes = await readBodyLimited(request.body, PARSE_FIRST_READ_LIMIT_BYTES);
        if (bytes.byteLength > ctx.i.bodyLimit) {
          ctx.s.parse({ request, bytes });
          throw tooLarge(ctx.i.bodyLimit);
        }
        return bytes;
      },
    }),
  }),
  defect({
    name: 'body-limit-1mb',
    tier: 'extended',
    breaks: 'LIMIT-003',
    section: 'limits',
    description: 'the body limit is 1,000,000 bytes instead of 10 MB, so a 1 MiB request is refused with 413',
    stages: () => ({
      readBody: () => async ({ request }) => {
        checkContentLength(request.header('content-length'), ONE_MB);
        return readBodyLimited(request.body, ONE_MB);
      },
    }),
  }),
  defect({
    name: 'body-limit-1mib',
    breaks: 'LIMIT-003',
    section: 'limits',
    description: 'the body limit is 1 MiB (1,048,576 bytes, a common server default) instead of 10 MB, so a legal body just under 10 MB is refused with 413',
    stages: () => ({
      readBody: () => async ({ request }) => {
        checkContentLength(request.header('content-length'), ONE_MIB);
        return readBodyLimited(request.body, ONE_MIB);
      },
    }),
  }),
  defect({
    name: 'oversized-reset',
    tier: 'extended',
    breaks: 'LIMIT-001',
    section: 'limits',
    description: 'an oversized body is answered by a reset connection before any 100 (Continue) or status, though the Content-Length (and Expect: 100-continue) let it answer 413 before the upload: no refusal is ever given',
    stages: (ctx) => ({ chat: resetOnTooLarge(ctx) }),
  }),
  defect({
    name: 'oversized-reset-mid-upload',
    tier: 'extended',
    breaks: 'LIMIT-007',
    section: 'limits',
    expect: 'warn',
    description: 'an oversized body is let in (100 Continue: the body starts being read), then cut by a reset connection with no status and no body: the upload race of a server that closes at its limit mid-upload',
    stages: (ctx) => ({
      readBody: (next) => async (input) => {
        const length = Number(input.request.header('content-length') ?? 0);
        if (!(length > ctx.i.bodyLimit)) return next(input);
        // One chunk read lets the 100 go out (the transport sends it when the core first reads the body).
        await input.request.body.read();
        input.request.body.cancel();
        throw tooLarge(ctx.i.bodyLimit);
      },
      chat: resetOnTooLarge(ctx),
    }),
  }),
] as const;

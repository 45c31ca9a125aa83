// Defect modes: errors (7, 4.3). Each breaks the requirement it names, as real servers do.
import { MockHttpError } from '../../core/errors.ts';
import { bodyFromBytes } from '../../core/http.ts';
import { defect } from '../mode.ts';
import { failingStream } from '../support.ts';

export const ERROR_DEFECTS = [
  defect({
    name: 'unavailable-500',
    breaks: 'ERR-008',
    section: 'errors',
    description: 'model_unavailable is answered with status 500 instead of 503',
    cooperation: 'a model that cannot currently be served (profile.unavailableModel)',
    stages: () => ({ error: (next) => (input) => next(input.code === 'model_unavailable' ? { ...input, status: 500 } : input) }),
  }),
  defect({
    name: 'deactivated-404',
    tier: 'extended',
    breaks: 'ERR-007',
    section: 'errors',
    description: 'a deactivated model is answered 404 (code model_not_found) instead of 403',
    stages: () => ({ error: (next) => (input) => next(input.code === 'model_not_found' ? { ...input, status: 404 } : input) }),
  }),
  defect({
    name: 'error-plain-text',
    breaks: 'ERR-001',
    section: 'errors',
    description: 'the authorization gateway in front answers its 403 refusals as text/plain ("403 Forbidden: model_not_allowed"), not as a JSON error object',
    cooperation: 'a refusal of a restricted key (profile.restrictedKey): the only refusals the gateway answers as text',
    output: {
      error: (result, input) =>
        result.status === 403
          ? { status: 403, headers: { ...result.headers, 'content-type': 'text/plain; charset=utf-8' }, kind: 'text', body: `403 Forbidden: ${input.code}` }
          : result,
    },
  }),
  defect({
    name: 'error-no-code',
    breaks: 'ERR-003',
    section: 'errors',
    description: 'upstream failures (5xx) are passed through with error.type and error.message but no error.code',
    cooperation: 'an upstream failure, which only the scenario headers (profile.scenarioHeaders) or an unavailable model provoke',
    output: {
      error: (result) => {
        if (result.status < 500 || result.kind !== 'json') return result;
        const body = result.body as { error: Record<string, unknown> };
        const { code: _c, ...error } = body.error;
        return { ...result, body: { ...body, error } };
      },
    },
  }),
  defect({
    name: 'error-type-missing',
    tier: 'extended',
    breaks: 'ERR-002',
    section: 'errors',
    description: 'client errors (4xx) carry error.code and error.message but no error.type (a validation layer that writes its own envelope)',
    output: {
      error: (result) => {
        if (result.status >= 500 || result.kind !== 'json') return result;
        const body = result.body as { error: Record<string, unknown> };
        const { type: _t, ...error } = body.error;
        return { ...result, body: { ...body, error } };
      },
    },
  }),
  defect({
    name: 'stream-error-as-200',
    tier: 'extended',
    breaks: 'ERR-005',
    section: 'errors',
    description: 'with stream true, a failure before the stream opens (no key, deactivated model) is a 200 stream holding an error event',
    stages: (ctx) => ({
      // The body is read before the credential, so that every failure of a stream request can open a stream.
      chat: (next) => async (input) => {
        const { request } = input;
        const bytes = await ctx.s.readBody({ request });
        const req = ctx.s.parse({ request, bytes });
        try {
          return await next({ request: { ...request, body: bodyFromBytes(bytes) } });
        } catch (err) {
          if (err instanceof MockHttpError && req.stream === true) return failingStream(ctx, request, req, err, '');
          throw err;
        }
      },
    }),
  }),
  defect({
    name: 'error-message-object',
    tier: 'extended',
    breaks: 'ERR-004',
    section: 'errors',
    description: 'on upstream failures (5xx) "error.message" is the upstream\'s own error object, passed through, not a string',
    cooperation: 'an upstream failure, which only the scenario headers (profile.scenarioHeaders) or an unavailable model provoke',
    output: {
      error: (result) => {
        if (result.status < 500 || result.kind !== 'json') return result;
        const body = result.body as { error: Record<string, unknown> };
        return { ...result, body: { ...body, error: { ...body.error, message: { upstream_status: result.status, detail: body.error.message } } } };
      },
    },
  }),
] as const;

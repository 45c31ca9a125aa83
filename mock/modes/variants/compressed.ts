// Legal variant: answers compressed as the client allows (HTTP content codings, RFC 9110 8.4 and 12.5.3; the
// contract is silent on them). The core only names the coding; the adapters gzip the bytes they send
// (mock/transport/send.ts, mock/handlers.ts), so the header never claims a coding the body does not have.
import { variant } from '../mode.ts';

/** Whether an Accept-Encoding takes gzip: listed (or `*`) without `q=0`. */
export function acceptsGzip(header: string | undefined): boolean {
  return (header ?? '').split(',').some((part) => {
    const [coding = '', ...params] = part.trim().toLowerCase().split(';').map((p) => p.trim());
    const refused = params.some((p) => /^q=0(\.0*)?$/.test(p));
    return (coding === 'gzip' || coding === 'x-gzip' || coding === '*') && !refused;
  });
}

export const COMPRESSED_VARIANT = variant({
  name: 'compressed',
  allows: 'HTTP content codings (RFC 9110 8.4, 12.5.3; the contract is silent on them)',
  description:
    'every answer of the API to a request whose Accept-Encoding takes gzip is gzip-compressed (Content-Encoding: gzip, Vary: accept-encoding), a stream flushed event by event; a request that does not accept gzip gets the plain answer',
  stages: () => ({
    handle: (next) => async (request) => {
      const result = await next(request);
      if (!request.path.includes('/v1/') || !acceptsGzip(request.header('accept-encoding'))) return result;
      return { ...result, headers: { ...result.headers, 'content-encoding': 'gzip', vary: 'accept-encoding' } };
    },
  }),
});

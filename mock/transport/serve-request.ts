// One request on a connection: its body as the core reads it (with `Expect: 100-continue` answered only then),
// the instance's answer, and the writer that sends it.
import type http from 'node:http';
import { NO_BODY, type CoreResult } from '../core/http.ts';
import type { MockService } from '../service.ts';
import { pathOf, toCoreRequest } from './core-request.ts';
import { RequestBody, type BodyBounds } from './request-body.ts';
import { preflight, withCors, type CorsPolicy } from './cors.ts';
import { send } from './send.ts';
import type { Writer } from './writer.ts';

export interface Exchange {
  service: MockService;
  bounds: BodyBounds;
  writer: Writer;
  /** this server's origin, for absolute-form targets */
  origin: string;
  /** answer browsers of this origin (off when undefined) */
  cors?: CorsPolicy;
}

export async function serveRequest(x: Exchange, req: http.IncomingMessage, res: http.ServerResponse, expectContinue: boolean): Promise<void> {
  const { service } = x;
  const method = req.method ?? 'GET';
  // `Expect: 100-continue`: the 100 goes out only when the core starts reading the body, so a request refused
  // upfront (credential, Content-Length over the limit) gets its final answer without sending the body.
  const body =
    method !== 'GET' && method !== 'HEAD'
      ? new RequestBody(req, x.bounds, () => {
          if (expectContinue && !res.headersSent) res.writeContinue();
        })
      : undefined;
  if (body) {
    body.onCut = () => {
      // No keep-alive after a cut body: where the next request would start is unknown.
      res.shouldKeepAlive = false;
      if (res.writableEnded) req.socket.destroy();
    };
  }
  let result: CoreResult;
  let path: string | undefined;
  try {
    path = pathOf(req.url ?? '/', x.origin);
  } catch {
    path = undefined;
  }
  const asked = x.cors && path !== undefined ? preflight(x.cors, method, path, (name) => singleHeader(req, name)) : undefined;
  if (asked) {
    result = asked;
  } else if (path === undefined) {
    result = service.error({ status: 400, code: 'invalid_request', message: 'invalid request: absolute-form request target for another origin' });
  } else {
    try {
      result = await service.handle(toCoreRequest(req, path, body ?? NO_BODY, res));
    } catch (err) {
      result = service.error({ status: 500, code: 'internal_error', message: `the mock failed: ${(err as Error)?.message}` });
    }
  }
  if (x.cors && path !== undefined && !asked) result = withCors(x.cors, path, singleHeader(req, 'origin'), result);
  // The body was never asked for after `Expect: 100-continue`: the client may never send it.
  if (expectContinue && body && !body.pulled) res.shouldKeepAlive = false;
  await send(res, result, x.writer, body);
}

/** One header's value as sent (the first of duplicates). */
function singleHeader(req: http.IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

// HTTP/1.1 hardening of the connections: the header clock, expectations other than 100-continue (417), malformed
// framing and oversized or slow headers answered with the envelope, and pipelining (a framing error is answered
// only after the answers already owed on its connection).
import http from 'node:http';
import type { Socket } from 'node:net';
import type { CoreResult } from '../core/http.ts';
import type { MockService } from '../service.ts';

/** A check of `bound` ms is enforced within bound + bound/4 ms (+1 s at most), as Node enforces the header clock. */
export const checkEvery = (boundMs: number): number => Math.max(50, Math.min(1000, Math.floor(boundMs / 4)));

/** node:http's options for a header clock of `headersTimeoutMs`. */
export function serverOptions(headersTimeoutMs: number): http.ServerOptions {
  return {
    // Node's own per-request clock would fire on requests the handler is already answering; the body clocks
    // (request-body.ts) cover the body, so only the header clock is Node's.
    requestTimeout: 0,
    headersTimeout: headersTimeoutMs,
    connectionsCheckingInterval: checkEvery(headersTimeoutMs),
  };
}

/** Answers still owed on one connection. */
class Owed {
  private count = 0;
  private then: (() => void) | undefined;
  add(res: http.ServerResponse): void {
    this.count++;
    // 'close' comes once per response, after 'finish' or when the connection goes.
    res.once('close', () => {
      if (--this.count === 0 && this.then) {
        const run = this.then;
        this.then = undefined;
        run();
      }
    });
  }
  /** Runs `action` once every owed answer has gone out (at once when none is owed). */
  afterAll(action: () => void): void {
    if (this.count === 0) action();
    else this.then = action;
  }
}

/**
 * Answers still owed, by connection. A framing error (a malformed request after a valid pipelined one, or the
 * bytes past a short Content-Length) is answered only after them, so no framed request loses its answer.
 */
export class OwedAnswers {
  private readonly owed = new WeakMap<Socket, Owed>();
  private on(socket: Socket): Owed {
    let o = this.owed.get(socket);
    if (!o) this.owed.set(socket, (o = new Owed()));
    return o;
  }
  add(res: http.ServerResponse): void {
    this.on(res.req.socket).add(res);
  }
  afterAll(socket: Socket, action: () => void): void {
    this.on(socket).afterAll(action);
  }
}

/** A whole HTTP/1.1 error response as bytes for a socket that has no ServerResponse (framing errors, slow headers). */
function rawErrorResponse(service: MockService, status: number, code: string, message: string): string {
  const result = service.error({ status, code, message });
  const body = result.kind === 'text' ? result.body : result.kind === 'json' ? JSON.stringify(result.body) : '';
  const head = Object.entries(result.headers).map(([k, v]) => `${k}: ${v}\r\n`).join('');
  return `HTTP/1.1 ${result.status} ${http.STATUS_CODES[result.status] ?? 'Error'}\r\n${head}content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`;
}

/** The 417 of an unmet expectation and the answers to framing errors, from the instance's one error builder. */
export function hardenConnections(
  server: http.Server,
  service: MockService,
  owed: OwedAnswers,
  headersTimeoutMs: number,
  refuse: (res: http.ServerResponse, result: CoreResult) => void,
): void {
  // Any expectation but 100-continue: 417 with the envelope (Node's default answers it with an empty body).
  server.on('checkExpectation', (req: http.IncomingMessage, res: http.ServerResponse) => {
    owed.add(res);
    res.shouldKeepAlive = false;
    const message = `the Expect header "${String(req.headers.expect).slice(0, 100)}" cannot be met; only "100-continue" is supported`;
    refuse(res, service.error({ status: 417, code: 'expectation_failed', message }));
  });
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => {
    let answer: string | undefined;
    if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
      answer = rawErrorResponse(service, 408, 'request_timeout', `the request headers did not arrive within ${headersTimeoutMs} ms`);
    } else if (err.code === 'HPE_HEADER_OVERFLOW') {
      answer = rawErrorResponse(service, 431, 'headers_too_large', 'the request headers are too large');
    } else if (err.code !== 'ECONNRESET' && err.code !== 'EPIPE') {
      answer = rawErrorResponse(service, 400, 'bad_request', `malformed HTTP request (${err.code ?? 'parse error'})`);
    }
    // The malformed bytes come after the requests already framed on this connection: answer those first.
    owed.afterAll(socket, () => {
      if (answer !== undefined && socket.writable) socket.end(answer);
      else socket.destroy();
    });
  });
}

// An IncomingMessage as the core's plain request: its path (origin-form, or absolute-form for this origin), headers
// read as the contract needs them, the body as a BodySource.
import type http from 'node:http';
import type { BodySource, CoreRequest } from '../core/http.ts';
import { servedPath } from '../harness/names.ts';

/** Paths that are already normal: no dot segment, query, fragment, or character the URL parser would re-encode. */
const PLAIN_PATH = /^\/[A-Za-z0-9\-_~%!$&'()*+,;=:@/]*$/;

/** The path of a request target, or undefined for an absolute-form target naming another origin. */
export function pathOf(target: string, origin: string): string | undefined {
  if (PLAIN_PATH.test(target)) return target;
  const url = new URL(target, origin);
  // A path whose dot segments lead into the control API is served as spelled (harness/names.ts): a 404.
  return url.origin === origin ? servedPath(target, url.pathname) : undefined;
}

/** The core's plain request for an IncomingMessage (`res`: its answer, which closes when the client goes away). */
export function toCoreRequest(req: http.IncomingMessage, path: string, body: BodySource, res?: http.ServerResponse): CoreRequest {
  const headers = req.headers;
  return {
    method: req.method ?? 'GET',
    path,
    header: (name) => {
      // Node keeps only the first of duplicated singleton headers (Authorization among them): a request sending two
      // credentials must be seen with both, and refused, never served with the first.
      if (name === 'authorization') return allValues(req.rawHeaders, name);
      const v = headers[name];
      return Array.isArray(v) ? v.join(', ') : v;
    },
    body,
    headers: () => {
      const all: Record<string, string> = {};
      for (const k in headers) {
        const v = headers[k];
        if (v !== undefined) all[k] = Array.isArray(v) ? v.join(', ') : v;
      }
      return all;
    },
    ...queryOf(req.url),
    closed: res ? () => closedOf(res) : undefined,
  };
}

/** Resolves when `res` closes before its answer is sent: the client went away, or the server closed its connections. */
function closedOf(res: http.ServerResponse): Promise<void> {
  if (res.destroyed || res.socket === null || res.socket.destroyed) return Promise.resolve();
  return new Promise((resolve) => res.once('close', () => resolve()));
}

/** The query of a request target, when it has one. */
function queryOf(target: string | undefined): { query?: string } {
  const q = target?.indexOf('?') ?? -1;
  return q >= 0 ? { query: target!.slice(q + 1) } : {};
}

/** Every value of a header in the raw header list, joined as HTTP joins list values; undefined when absent. */
function allValues(raw: readonly string[], name: string): string | undefined {
  let out: string | undefined;
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i]!.length === name.length && raw[i]!.toLowerCase() === name) out = out === undefined ? raw[i + 1]! : `${out}, ${raw[i + 1]!}`;
  }
  return out;
}

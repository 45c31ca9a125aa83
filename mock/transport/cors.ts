// CORS for client authors building browser apps against the mock (`chatconform mock --cors [ORIGIN]`): a
// preflight is answered 204 with what a browser needs to send the real request, and every answer carries the
// allow-origin header. Off by default (the contract says nothing of browsers). The control API (/_chatconform)
// stays closed to web pages (mock/harness/control.ts refuses them) unless asked (`--cors-control`).
import type { CoreResult } from '../core/http.ts';
import { isControlPath } from '../harness/names.ts';

export interface CorsPolicy {
  /** The origin allowed: one origin (`http://localhost:5173`) or `*`. */
  origin: string;
  /** The control API too (`--cors-control`): the origin's pages may set faults and scripts and read the journal. */
  control?: boolean;
}

/** Headers a browser client sends and reads: the credential, the body's type, the mock's scenario headers. */
const ALLOW_HEADERS = 'authorization, content-type, accept, x-mock-scenario, x-mock-framing, x-mock-route, x-stainless-os, x-stainless-lang, x-stainless-arch, x-stainless-runtime, x-stainless-runtime-version, x-stainless-package-version, x-stainless-retry-count, x-stainless-timeout';
const EXPOSE_HEADERS = 'x-mock-route, retry-after, retry-after-ms, x-request-id';

/** The headers every answer of a CORS-enabled mock carries (Vary: the answer depends on the Origin asked from). */
function allowOrigin(policy: CorsPolicy, requestOrigin: string | undefined): Record<string, string> {
  const origin = policy.origin === '*' ? '*' : requestOrigin === policy.origin ? policy.origin : undefined;
  if (origin === undefined) return {};
  return { 'access-control-allow-origin': origin, 'access-control-expose-headers': EXPOSE_HEADERS, ...(origin === '*' ? {} : { vary: 'origin' }) };
}

/** The answer to a preflight, or undefined when the request is none (or asks the control API). */
export function preflight(policy: CorsPolicy, method: string, path: string, header: (name: string) => string | undefined): CoreResult | undefined {
  if (method !== 'OPTIONS' || header('access-control-request-method') === undefined || (isControlPath(path) && !policy.control)) return undefined;
  return {
    status: 204,
    headers: {
      ...allowOrigin(policy, header('origin')),
      'access-control-allow-methods': isControlPath(path) ? 'GET, POST, PUT, DELETE, OPTIONS' : 'GET, POST, OPTIONS',
      'access-control-allow-headers': header('access-control-request-headers') ?? ALLOW_HEADERS,
      'access-control-max-age': '600',
    },
    kind: 'text',
    body: '',
  };
}

/** `result` with the allow-origin headers, unless it answers the control API. */
export function withCors(policy: CorsPolicy, path: string, requestOrigin: string | undefined, result: CoreResult): CoreResult {
  if (isControlPath(path) && !policy.control) return result;
  return { ...result, headers: { ...result.headers, ...allowOrigin(policy, requestOrigin) } };
}

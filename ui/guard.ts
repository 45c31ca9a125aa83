// Who may talk to `chatconform ui`, decided before anything else: the page starts runs against any URL with any key,
// so it answers only its own page, as the mock's control API does (mock/harness/control.ts), and more strictly.
// - The per-launch token is the first segment of every path (`/TOKEN/...`): the page, its script, its API and its
//   event stream. Relative URLs carry it by themselves; nothing stores it (no cookie, no browser storage).
// - The Host header must name this server: a loopback name (or the address it was told to listen on) and its port.
//   A DNS-rebinding page reaches 127.0.0.1 under its own host name, and is refused.
// - An Origin, when sent, must be this server's own; Sec-Fetch-Site must not say cross-site or same-site.
// - A body is JSON, said so (a form or text/plain body is what another site can send without asking first).
import { timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';

/** Every answer's security headers; the Content-Security-Policy admits only the app's own files, no inline script. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'cache-control': 'no-store',
};

export interface GuardConfig {
  token: string;
  port: number;
  /** The address the server listens on (`--host`). */
  host: string;
}

export interface Refusal {
  status: number;
  message: string;
}

/** The request's path below the token (`/api/runs`), or a refusal. */
export type Checked = { ok: true; path: string } | ({ ok: false } & Refusal);

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '::1']);

/** Whether `host` is a loopback address or name (the default, and the only binding without a warning). */
export function isLoopback(host: string): boolean {
  return LOOPBACK_NAMES.has(host.toLowerCase()) || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** The name and port of a Host header (`localhost:8787`, `[::1]:8787`), or undefined when malformed. */
function hostOf(header: string): { name: string; port: string } | undefined {
  try {
    const u = new URL(`http://${header}`);
    if (u.username || u.password || u.pathname !== '/' || header.includes('/')) return undefined;
    return { name: (u.hostname.startsWith('[') ? u.hostname.slice(1, -1) : u.hostname).toLowerCase(), port: u.port || '80' };
  } catch {
    return undefined;
  }
}

function sameToken(given: string, token: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Checks one request. `headers` are the request's (lower-case names, as node:http gives them); `rawPath` is its
 * request target. The host names admitted: the loopback names, and when the server listens elsewhere, that address and
 * any IP literal (a name other than localhost is what a rebinding page uses).
 */
export function checkRequest(config: GuardConfig, method: string, rawPath: string, headers: Readonly<Record<string, string | string[] | undefined>>): Checked {
  const one = (name: string): string | undefined => {
    const v = headers[name];
    return Array.isArray(v) ? v[0] : v;
  };
  const hostHeader = one('host');
  if (hostHeader === undefined) return { ok: false, status: 400, message: 'no Host header' };
  const host = hostOf(hostHeader);
  const bound = config.host.toLowerCase().replace(/^\[|\]$/g, '');
  const nameOk = host !== undefined && (LOOPBACK_NAMES.has(host.name) || host.name === bound || (!isLoopback(bound) && isIP(host.name) !== 0));
  if (!host || !nameOk || host.port !== String(config.port)) {
    return { ok: false, status: 403, message: `this server answers only requests addressed to it (Host ${JSON.stringify(hostHeader.slice(0, 100))} is not ${isLoopback(bound) ? 'a loopback name' : bound} with port ${config.port})` };
  }
  const origin = one('origin');
  if (origin !== undefined && origin.toLowerCase() !== `http://${hostHeader.toLowerCase()}`) {
    return { ok: false, status: 403, message: `cross-origin requests are refused (Origin ${JSON.stringify(origin.slice(0, 100))} is not this server's own)` };
  }
  const site = one('sec-fetch-site');
  if (site === 'cross-site' || site === 'same-site') return { ok: false, status: 403, message: `requests another site's page sends are refused (Sec-Fetch-Site: ${site})` };
  const m = /^\/([^/?#]+)(\/[^?#]*)?(?:[?#].*)?$/.exec(rawPath);
  if (!m || !sameToken(m[1]!, config.token)) return { ok: false, status: 403, message: 'the token is missing or wrong: open the URL `chatconform ui` printed' };
  if (method !== 'GET' && method !== 'HEAD') {
    const type = (one('content-type') ?? '').split(';', 1)[0]!.trim().toLowerCase();
    if (type !== 'application/json') return { ok: false, status: 415, message: 'send JSON (Content-Type: application/json)' };
  }
  const path = m[2] ?? '/';
  // No dot segments: a path names an API route or one of the app's files, never a way out of them.
  if (path.split('/').some((s) => s === '..' || s === '.' || /%2e|%2f|%5c/i.test(s))) return { ok: false, status: 400, message: 'no dot segments in a path' };
  return { ok: true, path };
}

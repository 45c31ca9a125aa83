// The control API of the harness (mock/README.md, "Control API"): JSON in and out under /_chatconform/, plain
// functions of the core's request and result so both adapters serve it. It sets and clears runtime faults, reads
// and clears the journal, and sets and clears scripts, each for one test (the x-chatconform-test-id header or the
// test_id query parameter) or for the whole server. It is not contract traffic: never journaled, never counted by
// a fault, and its errors come from the plain error builder, never shaped by a defect mode.
import { isIP } from 'node:net';
import { errorResult, MockHttpError } from '../core/errors.ts';
import type { CoreRequest, CoreResult } from '../core/http.ts';
import { readBodyLimited } from '../core/limits.ts';
import { FaultSpecError, parseFault } from './faults.ts';
import type { Harness } from './harness.ts';
import { CONTROL_ROOT, TEST_ID_HEADER } from './names.ts';
import { compileScript, ScriptError } from './script.ts';

/** The largest control request body (a script, a list of faults). */
export const CONTROL_BODY_LIMIT = 1024 * 1024;

const ok = (body: unknown, status = 200): CoreResult => ({ status, headers: { 'content-type': 'application/json', 'cache-control': 'no-store' }, kind: 'json', body });
const refuse = (status: number, code: string, message: string): never => {
  throw new MockHttpError(status, code, message);
};

/** The endpoints, for the index and the 404/405 answers. */
const ENDPOINTS: Record<string, string[]> = {
  '': ['GET'],
  '/faults': ['GET', 'POST', 'DELETE'],
  '/faults/{id}': ['DELETE'],
  '/journal': ['GET', 'DELETE'],
  '/script': ['GET', 'PUT', 'DELETE'],
};

interface Call {
  h: Harness;
  request: CoreRequest;
  query: URLSearchParams;
  testId: string | undefined;
}

/** Answers one control request. Never throws: a bad call is a JSON error of section 7's shape. */
export async function control(h: Harness, request: CoreRequest): Promise<CoreResult> {
  try {
    checkCaller(h, request);
    const rest = request.path.slice(CONTROL_ROOT.length).replace(/\/$/, '');
    const { route, id } = routeOf(rest);
    const allowed = ENDPOINTS[route];
    if (allowed === undefined) refuse(404, 'not_found', `no such control endpoint: ${request.method} ${request.path}; known: ${Object.keys(ENDPOINTS).map((p) => `${CONTROL_ROOT}${p}`).join(', ')}`);
    if (!allowed!.includes(request.method)) {
      return errorResult(405, 'method_not_allowed', `method ${request.method} is not allowed on ${CONTROL_ROOT}${route}; use ${allowed!.join(', ')}`, { allow: allowed!.join(', ') });
    }
    const query = new URLSearchParams(request.query ?? '');
    const known = request.method === 'GET' && route === '/journal' ? ['test_id', 'limit'] : ['test_id'];
    for (const k of query.keys()) if (!known.includes(k)) refuse(400, 'invalid_request', `unknown query parameter "${k}"; known here: ${known.join(', ')}`);
    const call: Call = { h, request, query, testId: testIdOf(request, query) };
    return await answer(call, route, id);
  } catch (err) {
    if (err instanceof MockHttpError) return errorResult(err.status, err.code, err.message, err.headers);
    return errorResult(500, 'internal_error', `the control API failed: ${(err as Error)?.message ?? String(err)}`);
  }
}

/** The host name of a Host header value ("localhost:8787", "[::1]:8787"), lower case; undefined when malformed. */
function hostName(host: string): string | undefined {
  try {
    const name = new URL(`http://${host}`).hostname;
    return (name.startsWith('[') ? name.slice(1, -1) : name).toLowerCase();
  } catch {
    return undefined;
  }
}

/**
 * Only the mock's own callers reach the control API: it needs no key, so a web page must not drive it. A browser
 * sends a cross-site POST with text/plain without asking first (no CORS preflight), and a DNS-rebinding page
 * reaches the loopback address under its own host name. So, when the headers are there (a client in-process sends
 * neither): the Host must be localhost, an IP address or one of `controlHosts`; an Origin must be the mock's own
 * (http:// and that Host); Sec-Fetch-Site must not say cross-site or same-site. Refused with 403.
 */
function checkCaller(h: Harness, request: CoreRequest): void {
  const host = request.header('host');
  const origin = request.header('origin');
  if (host !== undefined) {
    const name = hostName(host);
    const own = name !== undefined && (name === 'localhost' || name.endsWith('.localhost') || isIP(name) !== 0 || h.controlHosts.has(name));
    if (!own) refuse(403, 'forbidden_host', `the control API answers only requests addressed to localhost, an IP address or a host named by --control-host (got Host ${JSON.stringify(host.slice(0, 100))})`);
  }
  // An origin the mock was told to let in (--cors-control) drives it from its pages, as its own would.
  if (origin !== undefined && (h.controlOrigins.has(origin.toLowerCase()) || h.controlOrigins.has('*'))) return;
  if (origin !== undefined && (host === undefined || origin.toLowerCase() !== `http://${host.toLowerCase()}`)) {
    refuse(403, 'forbidden_origin', `the control API refuses cross-origin requests (Origin ${JSON.stringify(origin.slice(0, 100))} is not this mock's own)`);
  }
  const site = request.header('sec-fetch-site');
  if (site === 'cross-site' || site === 'same-site') refuse(403, 'forbidden_origin', `the control API refuses requests a web page of another origin sends (Sec-Fetch-Site: ${site})`);
}

/** POST and PUT bodies are JSON, said so: a form or text/plain body is what a web page can send cross-site unasked. */
function checkJsonType(request: CoreRequest): void {
  const type = (request.header('content-type') ?? '').split(';', 1)[0]!.trim().toLowerCase();
  if (type !== 'application/json' && !/^application\/[a-z0-9.+-]+\+json$/.test(type)) {
    refuse(415, 'unsupported_media_type', `the control API takes JSON bodies: send Content-Type: application/json (got ${type === '' ? 'none' : JSON.stringify(type.slice(0, 100))})`);
  }
}

function routeOf(rest: string): { route: string; id?: string } {
  const m = /^\/faults\/([^/]+)$/.exec(rest);
  if (!m) return { route: rest };
  try {
    return { route: '/faults/{id}', id: decodeURIComponent(m[1]!) };
  } catch {
    return refuse(400, 'invalid_request', `the fault id in the path is not valid percent-encoding: ${m[1]!}`);
  }
}

/** The test a call is about: the test_id parameter or the header (they must agree when both are sent). */
function testIdOf(request: CoreRequest, query: URLSearchParams): string | undefined {
  const fromQuery = query.get('test_id') ?? undefined;
  const fromHeader = request.header(TEST_ID_HEADER)?.trim() || undefined;
  if (fromQuery !== undefined && fromQuery.trim() === '') refuse(400, 'invalid_request', 'test_id must not be empty');
  if (fromQuery !== undefined && fromHeader !== undefined && fromQuery !== fromHeader) {
    refuse(400, 'invalid_request', `the test_id parameter (${fromQuery}) and the ${TEST_ID_HEADER} header (${fromHeader}) name different tests`);
  }
  return fromQuery ?? fromHeader;
}

async function jsonBody(request: CoreRequest): Promise<unknown> {
  const bytes = await readBodyLimited(request.body, CONTROL_BODY_LIMIT);
  const text = new TextDecoder().decode(bytes);
  if (text.trim() === '') refuse(400, 'invalid_json', 'the body is empty; send a JSON object');
  // After the emptiness check: an empty body changes nothing whatever its type (and keeps its 400).
  checkJsonType(request);
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    return refuse(400, 'invalid_json', `the body is not JSON: ${(err as Error).message}`);
  }
}

const scope = (testId: string | undefined): Record<string, string> => (testId !== undefined ? { test_id: testId } : {});

async function answer({ h, request, query, testId }: Call, route: string, id: string | undefined): Promise<CoreResult> {
  const method = request.method;
  if (route === '') {
    return ok({
      endpoints: Object.fromEntries(Object.entries(ENDPOINTS).map(([p, m]) => [`${CONTROL_ROOT}${p}`, m])),
      test_id_header: TEST_ID_HEADER,
      faults: h.faults.size,
      journal: { capacity: h.journal.size, held: h.journal.length, dropped: h.journal.dropped, body_bytes: h.journal.bodyBytes },
      ...(h.prefix !== '' ? { prefix: h.prefix } : {}),
    });
  }
  if (route === '/faults') {
    if (method === 'GET') return ok({ faults: h.faults.list(testId).map((f) => f.toJSON()) });
    if (method === 'DELETE') return ok({ cleared: h.faults.clear(testId), ...scope(testId) });
    const body = await jsonBody(request);
    const specs = faultSpecsOf(body);
    const parsed = specs.map((s, i) => {
      try {
        return parseFault(s);
      } catch (err) {
        if (err instanceof FaultSpecError) return refuse(400, 'invalid_fault', specs.length > 1 ? `faults[${i}]: ${err.message}` : err.message);
        throw err;
      }
    });
    // Every spec is checked before any is added: a bad list changes nothing.
    return ok({ faults: h.faults.add(parsed, testId).map((f) => f.toJSON()) }, 201);
  }
  if (route === '/faults/{id}') {
    if (!h.faults.remove(id!)) refuse(404, 'not_found', `no fault with id ${id}`);
    return ok({ removed: id });
  }
  if (route === '/journal') {
    if (method === 'DELETE') return ok({ cleared: h.journal.clear(testId), ...scope(testId) });
    const rawLimit = query.get('limit');
    if (rawLimit !== null && (!/^\d+$/.test(rawLimit) || Number(rawLimit) < 1)) refuse(400, 'invalid_request', `limit must be an integer of at least 1 (got "${rawLimit}")`);
    const entries = h.journal.entries({ ...(testId !== undefined ? { testId } : {}), ...(rawLimit !== null ? { limit: Number(rawLimit) } : {}) });
    return ok({ entries, capacity: h.journal.size, dropped: h.journal.dropped, ...scope(testId) });
  }
  // /script
  if (method === 'GET') {
    const script = h.script(testId);
    return ok({ ...(script !== undefined ? { script: script.document } : {}), ...scope(testId) });
  }
  if (method === 'DELETE') return ok({ cleared: h.clearScripts(testId), ...scope(testId) });
  const body = await jsonBody(request);
  try {
    const script = compileScript(body, 'the script');
    h.setScript(script, testId);
    return ok({ rules: script.rules.length, ...scope(testId) });
  } catch (err) {
    if (err instanceof ScriptError) return refuse(400, 'invalid_script', err.message);
    throw err;
  }
}

/** `{"fault": "..."}` or `{"faults": ["...", ...]}`. */
function faultSpecsOf(body: unknown): string[] {
  const o = body as { fault?: unknown; faults?: unknown } | null;
  const shape = 'send {"fault": "SPEC"} or {"faults": ["SPEC", ...]}';
  if (o === null || typeof o !== 'object' || Array.isArray(o)) return refuse(400, 'invalid_fault', `the body must be a JSON object: ${shape}`);
  const extra = Object.keys(o).filter((k) => k !== 'fault' && k !== 'faults');
  if (extra.length > 0) refuse(400, 'invalid_fault', `unknown field "${extra[0]}": ${shape}`);
  if ((o.fault === undefined) === (o.faults === undefined)) refuse(400, 'invalid_fault', shape);
  const specs = o.fault !== undefined ? [o.fault] : o.faults;
  if (!Array.isArray(specs) || specs.length === 0 || specs.some((s) => typeof s !== 'string')) refuse(400, 'invalid_fault', `every fault must be a string: ${shape}`);
  return specs as string[];
}

// Judging one exchange the proxy forwarded, with the suite's own judge (judge/): the client's request by the request
// checks, the server's answer by the same judge entry points a suite run uses, every one whose precondition the
// exchange meets (judge/answers.ts ANSWER_RULES: both caps sent, a model named, tools declared, search asked for,
// ...; the refusals a broken request is owed; the body limit; an entry read back against the list). Every record
// names its party: a request that breaks a rule is the client's fault; what the server owes such a request (a
// refusal) and every answer are the server's. An exchange the upstream never answered, or the client cut short, says
// nothing about either side.
import { gunzipSync, inflateSync, brotliDecompressSync } from 'node:zlib';
import { primaryOf } from '../spec/requirements/index.ts';
import { Checker, type CheckRecord } from '../judge/checker.ts';
import { isObject, type Check, type Json } from '../judge/checks/check.ts';
import { ERROR_CHECKS } from '../judge/checks/errors.ts';
import { judgeModelEntry, judgeModelList, judgeRefusal } from '../judge/judge-response.ts';
import { ANSWER_RULES, judgeCatalogReadServed, judgeRefusedBeforeStream } from '../judge/answers.ts';
import { askedOfBody } from '../judge/asked.ts';
import { judgeEntryReadBack, judgeListedIdServed, judgeListWhole } from '../judge/comparisons.ts';
import { idsOf } from '../judge/entry.ts';
import { judgeOversizedRefused, judgeSizeNotRefused, overBodyLimit, underBodyLimitButLarge } from '../judge/limits.ts';
import { ERROR_SCHEMA_CHECKS } from '../judge/checks/registry.ts';
import { owedRefusals, REQUEST_ADVICE, REQUEST_CHECKS, REQUEST_SCHEMA_CHECKS, schemaSubjectOf, type OutgoingRequest } from '../judge/checks/request.ts';
import { curlOf, evidenceText } from '../judge/evidence.ts';
import { redactHeaders } from '../spec/redact.ts';
import { TargetResponse, type Exchange } from '../judge/exchange.ts';
import type { CapturedExchange } from './forward.ts';

export interface JudgeContext {
  /** The upstream's base URL: the curls replay requests against it. */
  upstream: string;
  /** Masks every credential the proxy has seen. */
  scrub: (text: string) => string;
  secrets: readonly string[];
  /** The catalog entry of a model id, when the proxy has seen (or read) the catalog. */
  entryOf: (id: string) => Json | undefined;
  /** The entry of `id` as the model list last gave it to the same credential (an Authorization value, or none). */
  listedEntry?: (id: string, authorization: string | undefined) => Json | undefined;
  /** The ids GET /v1/models/{id} has served (200) to the same credential so far. */
  servedEntries?: (authorization: string | undefined) => readonly string[];
  /** Bytes of a body the checks read (the contract's 10 MB limit). */
  captureLimit: number;
}

export interface JudgedExchange {
  /** The exchange as evidence: redacted, bodies cut, a curl that replays it. */
  exchange: Exchange;
  records: CheckRecord[];
  /** Why the exchange was not judged (or only in part), when it was not. */
  note?: string;
}

/**
 * What the proxy may record on a server's answer: the IDs of every judge entry point it calls, and those it names
 * itself (the statuses it judges, the refusals a broken request is owed): its index, as a test's is.
 */
const SERVER_INDEX: readonly string[] = idsOf(
  ANSWER_RULES.map((r) => r.judge),
  [judgeModelList, judgeModelEntry, judgeRefusal, judgeEntryReadBack, judgeListWhole, judgeListedIdServed, judgeCatalogReadServed, judgeRefusedBeforeStream, judgeOversizedRefused, judgeSizeNotRefused],
  ['CHAT-004', 'CHAT-005', 'AUTH-002', 'AUTH-005', 'AUTH-006', 'CAT-036', 'TOOL-012', 'TOOL-013', 'IMG-006', 'SEARCH-046', 'SEARCH-047', 'SEARCH-048', 'SEARCH-049', 'REQ-002', 'REQ-004', 'REQ-016'],
  ERROR_CHECKS.map((c) => c.id),
  ERROR_SCHEMA_CHECKS.map((c) => c.id),
);

type Route = { route: 'models' } | { route: 'model'; id: string } | { route: 'chat' } | undefined;

/** The contract's endpoint a path names (after the upstream's prefix), or undefined for any other path. */
export function routeOf(method: string, path: string): Route {
  const p = path.split('?')[0]!.replace(/\/+$/, '');
  if (method === 'GET' && p === '/v1/models') return { route: 'models' };
  if (method === 'GET' && p.startsWith('/v1/models/')) {
    try {
      return { route: 'model', id: decodeURIComponent(p.slice('/v1/models/'.length)) };
    } catch {
      return undefined;
    }
  }
  if (method === 'POST' && p === '/v1/chat/completions') return { route: 'chat' };
  return undefined;
}

/** The body as the client received it: content-encoding undone (bounded), or undefined when it cannot be. */
export function decodedBody(body: Buffer, encoding: string | undefined, limit: number): Buffer | undefined {
  const e = (encoding ?? '').trim().toLowerCase();
  if (e === '' || e === 'identity') return body;
  try {
    const opts = { maxOutputLength: limit };
    if (e === 'gzip' || e === 'x-gzip') return gunzipSync(body, opts);
    if (e === 'deflate') return inflateSync(body, opts);
    if (e === 'br') return brotliDecompressSync(body, opts);
  } catch {
    return undefined;
  }
  return undefined;
}

function parseJson(bytes: Buffer): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(bytes.toString('utf8')) };
  } catch {
    return { ok: false };
  }
}

/** The client's findings of one check as a record: a breach fails, advice warns. */
function clientRecord<S>(c: Check<S>, subject: S, advice: boolean, scrub: (t: string) => string): CheckRecord | undefined {
  let problems: readonly string[] | undefined;
  try {
    problems = c.run(subject);
  } catch (err) {
    return { id: primaryOf(c.id), status: 'error', message: scrub(`the check ${c.name} threw: ${(err as Error).message}`), exchange: 0, party: 'client' };
  }
  if (problems === undefined) return undefined;
  const record: CheckRecord = { id: primaryOf(c.id), status: problems.length === 0 ? 'pass' : advice ? 'warn' : 'fail', exchange: 0, party: 'client' };
  if (problems.length > 0) record.message = scrub(`the client's request: ${[...new Set(problems)].slice(0, 5).join('\n')}`);
  return record;
}

/** The exchange as evidence (the same shape the suite's client records). */
function evidenceOf(x: CapturedExchange, responseBody: Buffer, ctx: JudgeContext): Exchange {
  const url = `${ctx.upstream.replace(/\/+$/, '')}${x.path}`;
  const hasBody = x.requestBytes > 0;
  const credential = x.requestHeaders.authorization !== undefined;
  const exchange: Exchange = {
    method: x.method,
    path: x.path,
    url: ctx.scrub(url),
    requestHeaders: redactHeaders(x.requestHeaders, ctx.secrets),
    requestBytes: x.requestBytes,
    status: x.status,
    responseHeaders: redactHeaders(x.responseHeaders, ctx.secrets),
    responseBody: evidenceText(responseBody, ctx.scrub, ctx.secrets),
    responseBytes: x.responseBytes,
    durationMs: x.durationMs,
    curl: curlOf({ method: x.method, url, headers: x.requestHeaders, ...(hasBody ? { body: x.requestBody } : {}), ...(credential ? { keyVar: 'CONFORMANCE_API_KEY' } : {}), scrub: ctx.scrub }),
  };
  if (hasBody) exchange.requestBody = evidenceText(x.requestBody, ctx.scrub, ctx.secrets);
  if (x.error) exchange.error = ctx.scrub(x.error);
  if (x.failure === 'upstream-down') exchange.errorKind = 'refused';
  else if (x.failure === 'upstream-timeout') exchange.errorKind = 'timeout';
  else if (x.failure === 'upstream-cut') exchange.errorKind = 'reset';
  return exchange;
}

/**
 * Judges one exchange: the client's request, then the server's answer. `decoded` is the answer as the client read
 * it (decodedBody), undefined when its content-encoding could not be undone.
 */
export function judgeExchange(x: CapturedExchange, decoded: Buffer | undefined, ctx: JudgeContext): JudgedExchange {
  const route = routeOf(x.method, x.path);
  const exchange = evidenceOf(x, decoded ?? x.responseBody, ctx);
  const records: CheckRecord[] = [];
  const judged: JudgedExchange = { exchange, records };
  if (!route) return { ...judged, note: 'not an endpoint of the contract: forwarded, not judged' };

  // The client's request.
  let request: OutgoingRequest | undefined;
  const requestWhole = x.requestBytes <= ctx.captureLimit;
  if (route.route === 'chat' && requestWhole) {
    const parsed = parseJson(x.requestBody);
    if (parsed.ok) {
      const model = isObject(parsed.value) && typeof parsed.value.model === 'string' ? parsed.value.model : undefined;
      const entry = model !== undefined ? ctx.entryOf(model) : undefined;
      request = { body: parsed.value, ...(entry ? { entry } : {}) };
      const schema = schemaSubjectOf(parsed.value);
      for (const c of REQUEST_SCHEMA_CHECKS) push(records, clientRecord(c, schema, false, ctx.scrub));
      for (const c of REQUEST_CHECKS) push(records, clientRecord(c, request, false, ctx.scrub));
      for (const c of REQUEST_ADVICE) push(records, clientRecord(c, request, true, ctx.scrub));
    }
  }

  // The server's answer.
  if (x.failure === 'client-gone') return { ...judged, note: 'the client closed the connection before the answer was whole: the answer is not judged' };
  if (x.status === 0) return { ...judged, note: `the upstream gave no answer (${x.error ?? 'no response'}): nothing to judge` };
  if (x.responseBytes > ctx.captureLimit) return { ...judged, note: `the answer is over ${ctx.captureLimit} bytes: forwarded whole, not judged` };
  if (decoded === undefined) return { ...judged, note: `the answer's content-encoding ${x.responseHeaders['content-encoding']} could not be undone: not judged` };
  const res = new TargetResponse(exchange, decoded, request?.body);
  const check = new Checker({ exchanges: [exchange], scrub: ctx.scrub }, { index: () => SERVER_INDEX });
  const errorBody = (): void => {
    check.apply(ERROR_CHECKS, { res, body: res.json() }, 0);
    check.apply(ERROR_SCHEMA_CHECKS, { values: [{ label: `error body of HTTP ${res.status}`, data: res.json() }] }, 0);
  };
  const credential = x.requestHeaders.authorization !== undefined;
  // The body's size as the client declared it (an answer may come before the whole upload was forwarded).
  const bytes = Math.max(x.requestBytes, Number(x.requestHeaders['content-length']) || 0);
  if (route.route === 'chat') {
    const body = request && isObject(request.body) ? request.body : undefined;
    const broken = new Set(records.filter((r) => r.status === 'fail').map((r) => r.id));
    const owed = request ? owedRefusals(request, broken) : [];
    // 5: a chat request without a credential is not served (a non-200 with a section 7 error body).
    if (!credential) owed.push({ id: 'AUTH-002' });
    if (overBodyLimit(bytes)) {
      // 4.3 rule 1, 8: over the limit, whichever reading of 10 MB: refused, whatever the body holds.
      judgeOversizedRefused(check, res, bytes, 'a request');
    } else if (owed.length > 0) {
      for (const o of owed) judgeRefusal(check, res, { id: o.id, ...(o.status ? { status: o.status } : {}), ...(o.code ? { code: o.code } : {}), ...(o.message ? { message: o.message } : {}) });
      // 7: with stream true, the refusal still comes before a stream opens (its body is judged just above).
      if (body?.stream === true) judgeRefusedBeforeStream(check, res, `a streamed request owed a refusal (${owed.map((o) => o.id).join(', ')})`, false);
      // 4.3 rule 3: refused as the client's error, never blamed on an upstream.
      if (broken.has('TOOL-012')) check.that('TOOL-013', res.status < 500, () => `tool calls without declared tools were answered ${res.describe()}, a server error, not a client error`, res);
    } else if (res.status === 200 && body) {
      // Every judgement of the answer whose precondition the request meets (ANSWER_RULES), with the catalog entry.
      const asked = askedOfBody(body);
      const entry = asked.model !== undefined ? ctx.entryOf(asked.model) : undefined;
      for (const rule of ANSWER_RULES) if (rule.when(asked, entry)) rule.run(check, res, entry);
    } else if (res.status !== 200) errorBody();
    if (underBodyLimitButLarge(bytes)) judgeSizeNotRefused(check, res, bytes);
  } else if (route.route === 'models' || route.route === 'model') {
    if (res.status === 200) {
      if (route.route === 'models') {
        const entries = judgeModelList(check, res, credential ? 'AUTH-006' : 'AUTH-005');
        // The whole catalog: no further page, and every entry GET /v1/models/{id} served this credential is listed.
        const served = ctx.servedEntries?.(x.requestHeaders.authorization) ?? [];
        if (isObject(res.json())) judgeListWhole(check, res, entries.map((e) => e.id), served.map((id) => ({ id, res: { status: 200 } })));
      } else {
        const entry = judgeModelEntry(check, res, route.id, 'GET /v1/models/{model_id}');
        // The same entry as the list gave to the same credential (CAT-037), when the proxy has seen that list.
        const listed = ctx.listedEntry?.(route.id, x.requestHeaders.authorization);
        if (entry && listed) judgeEntryReadBack(check, res, entry, listed, `GET ${x.path.split('?')[0]}`);
      }
    } else {
      // 5: the catalog answers without a credential; with one, a refusal (a key it does not know) is its right, a
      // server error is not.
      if (!credential && res.status !== 404) check.status('AUTH-005', res, 200, 'for the catalog read without a credential, status');
      if (credential) judgeCatalogReadServed(check, res);
      // An id the list gave this credential is served (CAT-036).
      if (route.route === 'model' && ctx.listedEntry?.(route.id, x.requestHeaders.authorization)) judgeListedIdServed(check, res, route.id);
      errorBody();
    }
  }
  for (const r of check.records) records.push({ ...r, party: 'server' });
  return judged;
}

function push(records: CheckRecord[], r: CheckRecord | undefined): void {
  if (r) records.push(r);
}

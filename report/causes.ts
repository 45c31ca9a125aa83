// What a failure is a consequence of. One deviation of a target breaks many requirements at once: a missing route
// fails every rule read through it (with and without a key), a plain-text error body fails every rule that reads
// error.code, a chat route that answers 404 to most prompts fails whatever those prompts were sent to check, a 500
// to every streamed request with tools fails every rule those requests were sent to check. A finding is keyed by
// the deviation its exchange shows, in this order: the route is missing; the route gives the same non-2xx answer to
// most requests (a common cause, named first); the same failure answer (a 5xx, or a 404 from a route that exists)
// to requests sent for several requirements (the same answer to the same request shape, whatever IDs it touches);
// the error body is not a JSON error object; one rule the catalog states as several requirements (the token caps);
// else the requirement it breaks (one rule, one card, whatever its messages say). Pure functions of the run's outcomes.
import type { Exchange } from '../judge/exchange.ts';
import { getRequirement, isKnownRequirement, primaryOf } from '../spec/requirements/index.ts';
import { oneLine, type Entry, type TestOutcome } from './results.ts';

export type CauseKind = 'missing-route' | 'common-answer' | 'same-answer' | 'error-body' | 'rule' | 'requirement';

export interface FindingCause {
  /** Machine-readable: what the findings of one card share. */
  key: string;
  kind: CauseKind;
  /** The deviation, in one sentence. */
  deviation: string;
}

/** A common answer covers at least this many of a route's answered exchanges (and at least half of them). */
const MIN_COMMON = 3;

/** A route as the contract names it: the query dropped, a model id as {model_id}. */
export function routeOf(x: Pick<Exchange, 'method' | 'path'>): string {
  const path = x.path.split('?')[0]!.replace(/\/v1\/models\/[^/]+$/, '/v1/models/{model_id}');
  return `${x.method.toUpperCase()} ${path}`;
}

const hasCredential = (x: Exchange) => Object.keys(x.requestHeaders).some((k) => k.toLowerCase() === 'authorization');
const answered = (x: Exchange) => x.status > 0;
const success = (x: Exchange) => x.status >= 200 && x.status < 300;

/** A JSON object with an `error` object: what section 7 asks of every non-200 answer. */
function isErrorObject(body: string): boolean {
  try {
    const v = JSON.parse(body) as unknown;
    return typeof v === 'object' && v !== null && !Array.isArray(v) && typeof (v as { error?: unknown }).error === 'object' && (v as { error?: unknown }).error !== null;
  } catch {
    return false;
  }
}

/** A non-2xx answer as a group key: its status and its body, generated ids and numbers normalised. */
function answerOf(x: Exchange): string {
  const body = oneLine(x.responseBody, 160).replace(/\b(?=[A-Za-z0-9_-]*\d)[A-Za-z0-9_-]{12,}\b/g, 'ID');
  return `HTTP ${x.status}${body ? `: ${body}` : ''}`;
}

/** What a request asked for, as far as it decides how a server answers: streaming and the optional features. */
export function requestShape(x: Pick<Exchange, 'requestBody'>): string[] {
  let body: unknown;
  try {
    body = JSON.parse(x.requestBody ?? '');
  } catch {
    return [];
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return [];
  const b = body as Record<string, unknown>;
  const features: string[] = [];
  if (b.stream === true) features.push('stream true');
  const tools = Array.isArray(b.tools) ? b.tools : [];
  const type = (t: unknown) => (typeof t === 'object' && t !== null ? (t as { type?: unknown }).type : undefined);
  if (tools.some((t) => type(t) === 'function')) features.push('function tools');
  if (tools.some((t) => type(t) === 'web_search')) features.push('a bare web_search tool');
  if (b.web_search_options !== undefined) features.push('web_search_options');
  if (b.reasoning !== undefined) features.push('reasoning');
  const messages = Array.isArray(b.messages) ? b.messages : [];
  const parts = messages.flatMap((m) => (typeof m === 'object' && m !== null && Array.isArray((m as { content?: unknown }).content) ? ((m as { content: unknown[] }).content) : []));
  if (parts.some((p) => type(p) === 'image_url')) features.push('image parts');
  if (messages.some((m) => typeof m === 'object' && m !== null && Array.isArray((m as { tool_calls?: unknown }).tool_calls))) features.push('tool calls in its messages');
  return features;
}

/** One failure answer repeated across requests: how many requests got it, what they all asked for, the requirements it explains. */
interface SameAnswer {
  /** `answer`: the same status and body; `kind`: the same status and JSON error (type and code, whatever its message) to the same request shape. */
  tier: 'answer' | 'kind';
  requests: number;
  of: number;
  requirements: Set<string>;
  shape: string[];
  contentType: string;
  /** The error's type and code (tier `kind`). */
  identity?: string;
}

export interface CauseContext {
  /** Routes that never answered 2xx and answered 404 or 405 to every request with a credential. */
  missing: Map<string, string>;
  /** Per route, the non-2xx answer it gave to most of its requests. */
  common: Map<string, { answer: string; count: number; of: number }>;
  /** The same-answer groups that formed (at least two requests got the answer, at least two requirements fail only on it), by key. */
  same: Map<string, SameAnswer>;
  /** Per requirement, the same-answer group its findings belong to. */
  sameOf: Map<string, string>;
}

const contentTypeOf = (x: Exchange) => Object.entries(x.responseHeaders).find(([k]) => k.toLowerCase() === 'content-type')?.[1] ?? 'no content-type';

/**
 * An answer no request is owed: a server failure, or "not found" from a route that exists (it answered 2xx). Any
 * other status is a refusal the contract may ask for, judged by the rules that read it (its body, its code).
 */
const failureAnswer = (x: Exchange, served: boolean) => x.status >= 500 || (x.status === 404 && served);
const sameKey = (x: Exchange) => `${routeOf(x)} ${answerOf(x)}`;

/** A JSON error object's type and code: what names the error when its message echoes each request (an exception's text). */
function errorIdentity(body: string): string | undefined {
  if (!isErrorObject(body)) return undefined;
  const e = (JSON.parse(body) as { error: Record<string, unknown> }).error;
  return `error type ${JSON.stringify(e.type ?? null)}, code ${JSON.stringify(e.code ?? null)}`;
}
/** The same status and error type and code, to the same request shape (the features the requests asked for). */
const kindKey = (x: Exchange): string | undefined => {
  const identity = errorIdentity(x.responseBody);
  return identity === undefined ? undefined : `${routeOf(x)} HTTP ${x.status} ${identity} [${requestShape(x).join(', ')}]`;
};

/** What the whole run shows about its routes: which are missing, which answer most requests the same way. */
export function causeContext(outcomes: readonly TestOutcome[]): CauseContext {
  const byRoute = new Map<string, Exchange[]>();
  for (const t of outcomes) {
    for (const x of t.evidence?.exchanges ?? []) {
      if (!answered(x)) continue;
      // Appended in place: a --models run answers some 100,000 requests on one route.
      const route = routeOf(x);
      const xs = byRoute.get(route);
      if (xs) xs.push(x);
      else byRoute.set(route, [x]);
    }
  }
  const missing = new Map<string, string>();
  const common = new Map<string, { answer: string; count: number; of: number }>();
  for (const [route, xs] of byRoute) {
    const keyed = xs.filter(hasCredential);
    if (!xs.some(success) && keyed.length > 0 && keyed.every((x) => x.status === 404 || x.status === 405)) {
      const statuses = [...new Set(xs.map((x) => x.status))].sort();
      const anonymous = [...new Set(xs.filter((x) => !hasCredential(x)).map((x) => x.status))];
      missing.set(route, `${route} is missing: it answers ${[...new Set(keyed.map((x) => x.status))].join(' or ')} with a credential${anonymous.length > 0 ? ` and ${anonymous.join(' or ')} without one` : ''} (${xs.length} request${xs.length === 1 ? '' : 's'}, statuses ${statuses.join(', ')})`);
      continue;
    }
    const counts = new Map<string, number>();
    for (const x of xs) if (!success(x)) counts.set(answerOf(x), (counts.get(answerOf(x)) ?? 0) + 1);
    const [answer, count] = [...counts.entries()].sort((a, b) => b[1] - a[1])[0] ?? ['', 0];
    if (count >= MIN_COMMON && count * 2 >= xs.length) common.set(route, { answer, count, of: xs.length });
  }
  // Every failure answer, counted by request: by its status and body, and by its status, error and request shape.
  const byAnswer = new Map<string, SameAnswer>();
  const byKind = new Map<string, SameAnswer>();
  const served = new Set([...byRoute].filter(([, xs]) => xs.some(success)).map(([route]) => route));
  const count = (m: Map<string, SameAnswer>, key: string, x: Exchange, of: number, tier: SameAnswer['tier']) => {
    const s = m.get(key) ?? { tier, requests: 0, of, requirements: new Set<string>(), shape: requestShape(x), contentType: contentTypeOf(x), ...(tier === 'kind' ? { identity: errorIdentity(x.responseBody)! } : {}) };
    s.requests++;
    // What every request with this answer asked for (the features they share).
    const shape = new Set(requestShape(x));
    s.shape = s.shape.filter((f) => shape.has(f));
    m.set(key, s);
  };
  for (const [route, xs] of byRoute) {
    for (const x of xs) {
      if (!failureAnswer(x, served.has(route))) continue;
      count(byAnswer, sameKey(x), x, xs.length, 'answer');
      const kind = kindKey(x);
      if (kind !== undefined) count(byKind, kind, x, xs.length, 'kind');
    }
  }
  // Each requirement's findings, but those a missing route or a common answer explains (those cards come first).
  const findings = new Map<string, (Exchange | undefined)[]>();
  for (const t of outcomes) {
    for (const r of t.evidence?.checks ?? []) {
      if ((r.status !== 'fail' && r.status !== 'warn') || !isKnownRequirement(r.id)) continue;
      const x = r.exchange !== undefined ? t.evidence?.exchanges[r.exchange] : undefined;
      if (x && answered(x) && (missing.has(routeOf(x)) || (!success(x) && common.get(routeOf(x))?.answer === answerOf(x)))) continue;
      const id = primaryOf(r.id);
      const list = findings.get(id);
      if (list) list.push(x);
      else findings.set(id, [x]);
    }
  }
  // A requirement is a consequence of one failure answer only when every finding of it is on that answer: one that
  // fails elsewhere too (a numeric error.code on every error answer, the 500s included) is its own deviation, and
  // fixing the answer would not remove it. A group forms when the answer explains at least two requirements and was
  // seen on more than one request (one request judged by two rules shows no shared cause: a 500 to a client fault
  // and the numeric code in its body are two), or on one request when the catalog states those rules together, in
  // one section (a 500 to tool calls without tools fails the 4xx of TOOL-012 and the "no upstream failure" of
  // TOOL-013: one fix removes both). The same answer first, else the same error to the same request shape.
  const same = new Map<string, SameAnswer>();
  const sameOf = new Map<string, string>();
  const place = (groups: Map<string, SameAnswer>, keyOf: (x: Exchange) => string | undefined, prefix: string) => {
    for (const [id, xs] of findings) {
      if (sameOf.has(id)) continue;
      const keys = new Set(xs.map((x) => (x && answered(x) && !success(x) && failureAnswer(x, served.has(routeOf(x))) ? keyOf(x) : undefined)));
      const [key] = keys;
      if (keys.size === 1 && key !== undefined) groups.get(key)?.requirements.add(id);
    }
    for (const [key, s] of groups) {
      const sections = new Set([...s.requirements].map((id) => getRequirement(id).section));
      if (s.requirements.size < 2 || (s.requests < 2 && sections.size > 1)) continue;
      same.set(`${prefix}${key}`, s);
      for (const id of s.requirements) sameOf.set(id, `${prefix}${key}`);
    }
  };
  place(byAnswer, sameKey, '');
  place(byKind, kindKey, 'kind ');
  return { missing, common, same, sameOf };
}

/**
 * One rule the catalog states as several requirements, each seen through another request shape: the cap in force
 * (4.3 rule 2) read with max_tokens alone, max_completion_tokens alone, and both. A server that ignores one cap
 * breaks two or three of them at once, on answers that are 200.
 */
const RULES: readonly { name: string; ids: readonly string[]; deviation: string; served?: true }[] = [
  // The cap in force: max_completion_tokens whenever it is sent, else max_tokens.
  { name: 'token-cap', ids: ['REQ-008', 'REQ-009', 'REQ-010', 'REQ-011'], deviation: 'the token cap in force is not applied' },
  // The completion route requires authentication (4), stated for a missing header and for an invalid key (5).
  // Only a request it served (a refusal with a wrong body is section 7's deviation, not this one).
  { name: 'authentication', ids: ['AUTH-002', 'AUTH-003', 'AUTH-004'], deviation: 'POST /v1/chat/completions serves requests without a valid credential', served: true },
  // The response names the requested entry (4.3), whatever the provider preferences (2.8): a substituted model breaks both.
  { name: 'requested-model', ids: ['CHAT-009', 'ROUTE-008'], deviation: 'the response model is not the requested entry' },
  // An effort outside the entry's set is refused with 400 (2.6), a 400 with a section 7 body (7): accepting it breaks both.
  { name: 'effort-refusal', ids: ['RSN-006', 'RSN-010'], deviation: 'a reasoning effort outside the set the entry accepts is not refused with status 400' },
];

/**
 * A rule card's deviation: the rule, and every behaviour it holds, one per requirement it breaks (an ignored
 * max_tokens and an ignored max_completion_tokens are two behaviours of one rule; the card names both).
 */
export function ruleDeviation(rule: string, findings: readonly { id: string; message?: string | undefined }[]): string {
  const first = new Map<string, string>();
  for (const f of findings) if (!first.has(f.id)) first.set(f.id, oneLine(f.message ?? 'the check failed', 200));
  if (first.size === 1) return `${rule}: e.g. ${[...first.values()][0]}`;
  return `${rule}: ${[...first].map(([id, m]) => `${id}: ${m}`).join('; ')}`;
}

/** The rule a rule card's key names (`rule token-cap`), as its deviation starts. */
export function ruleOfKey(key: string): string | undefined {
  return RULES.find((r) => key === `rule ${r.name}`)?.deviation;
}

/** The deviation a fail or warn record is a consequence of. */
export function causeOfFinding(e: Entry, ctx: CauseContext, primary: string): FindingCause {
  const x = e.record.exchange !== undefined ? e.test.evidence?.exchanges[e.record.exchange] : undefined;
  if (x && answered(x)) {
    const route = routeOf(x);
    const missing = ctx.missing.get(route);
    if (missing) return { key: `missing-route ${route}`, kind: 'missing-route', deviation: missing };
    const common = ctx.common.get(route);
    if (common && !success(x) && answerOf(x) === common.answer) {
      return { key: `common-answer ${route} ${common.answer}`, kind: 'common-answer', deviation: `${route} gives most requests the same answer (${common.count} of ${common.of}): ${common.answer}` };
    }
    const sameKeyOf = ctx.sameOf.get(primary);
    const same = sameKeyOf !== undefined ? ctx.same.get(sameKeyOf) : undefined;
    if (same && sameKeyOf !== undefined) {
      const shape = same.shape.length > 0 ? `, every one of them with ${same.shape.join(' and ')}` : '';
      const deviation =
        same.tier === 'answer'
          ? `${route} answers ${same.requests} of its ${same.of} requests ${answerOf(x)} (${same.contentType})${shape}`
          : `${route} answers ${same.requests} of its ${same.of} requests HTTP ${x.status} with ${same.identity}${shape || ', every one of them with none of the optional features'}: e.g. ${answerOf(x)} (${same.contentType})`;
      return { key: `same-answer ${sameKeyOf}`, kind: 'same-answer', deviation };
    }
    // A status judged wrong (a 413 to a legal body) is the status's deviation, whatever body came with it.
    if (!success(x) && !isErrorObject(x.responseBody) && !e.record.statusOnly) {
      return { key: 'error-body', kind: 'error-body', deviation: `error answers are not a JSON error object (section 7): e.g. ${answerOf(x)} (${contentTypeOf(x)})` };
    }
  }
  const rule = RULES.find((r) => r.ids.includes(primary) && (!r.served || (x !== undefined && success(x))));
  if (rule) return { key: `rule ${rule.name}`, kind: 'rule', deviation: ruleDeviation(rule.deviation, [{ id: primary, message: e.record.message }]) };
  return { key: `requirement ${primary}`, kind: 'requirement', deviation: `${primary}: ${oneLine(e.record.message ?? 'the check failed', 200)}` };
}

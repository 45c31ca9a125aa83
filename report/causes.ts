// What a failure is a consequence of. One deviation of a target breaks many requirements at once: a missing route
// fails every rule read through it (with and without a key), a plain-text error body fails every rule that reads
// error.code, a chat route that answers 404 to most prompts fails whatever those prompts were sent to check. A
// finding is keyed by the deviation its exchange shows, in this order: the route is missing; the route gives the
// same non-2xx answer to most requests (a common cause, named first); the error body is not a JSON error object;
// else the requirement it breaks (one rule, one card, whatever its messages say). Pure functions of the run's outcomes.
import type { Exchange } from '../judge/exchange.ts';
import { oneLine, type Entry, type TestOutcome } from './results.ts';

export type CauseKind = 'missing-route' | 'common-answer' | 'error-body' | 'requirement';

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

export interface CauseContext {
  /** Routes that never answered 2xx and answered 404 or 405 to every request with a credential. */
  missing: Map<string, string>;
  /** Per route, the non-2xx answer it gave to most of its requests. */
  common: Map<string, { answer: string; count: number; of: number }>;
}

/** What the whole run shows about its routes: which are missing, which answer most requests the same way. */
export function causeContext(outcomes: readonly TestOutcome[]): CauseContext {
  const byRoute = new Map<string, Exchange[]>();
  for (const t of outcomes) for (const x of t.evidence?.exchanges ?? []) if (answered(x)) byRoute.set(routeOf(x), [...(byRoute.get(routeOf(x)) ?? []), x]);
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
  return { missing, common };
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
    if (!success(x) && !isErrorObject(x.responseBody)) {
      const type = Object.entries(x.responseHeaders).find(([k]) => k.toLowerCase() === 'content-type')?.[1] ?? 'no content-type';
      return { key: 'error-body', kind: 'error-body', deviation: `error answers are not a JSON error object (section 7): e.g. ${answerOf(x)} (${type})` };
    }
  }
  return { key: `requirement ${primary}`, kind: 'requirement', deviation: `${primary}: ${oneLine(e.record.message ?? 'the check failed', 200)}` };
}

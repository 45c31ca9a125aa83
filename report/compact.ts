// What the fold keeps of a case's exchanges. A `--models all` run records some 20,000 cases, and the runner held
// every exchange of every one (up to two 16 KiB bodies each) until the fold at the end. The fold reads whole only
// the exchanges a record that is no pass or skip points at (they become the report's evidence, with their curl) and
// the answers that are not 2xx (causes.ts groups findings by such an answer's body, its content type and what the
// request asked for). Of any other exchange it reads the route, the status, whether a credential was sent (a route
// that answers 404 to keyed requests is missing) and the transport's account: the rest is dropped as the case
// arrives. Pure functions of plain data.
import type { CheckRecord } from '../judge/checker.ts';
import type { Exchange } from '../judge/exchange.ts';

/** A case's evidence as the checks recorded it. */
export interface Evidence {
  checks: CheckRecord[];
  exchanges: Exchange[];
}

/** Records whose exchange the report shows (report/results.ts evidenceItem): findings, observations, the kit's errors. */
const SHOWN: ReadonlySet<CheckRecord['status']> = new Set(['fail', 'warn', 'observed', 'error']);

const success = (x: Exchange) => x.status >= 200 && x.status < 300;

/** An exchange as the fold reads it when no record shows it: its route, status, credential and transport. */
function light(x: Exchange): Exchange {
  const credential = Object.entries(x.requestHeaders).filter(([k]) => k.toLowerCase() === 'authorization');
  return {
    method: x.method,
    path: x.path,
    url: x.url,
    requestHeaders: Object.fromEntries(credential),
    requestBytes: x.requestBytes,
    status: x.status,
    responseHeaders: {},
    responseBody: '',
    responseBytes: x.responseBytes,
    ...(x.error !== undefined ? { error: x.error } : {}),
    ...(x.errorKind !== undefined ? { errorKind: x.errorKind } : {}),
    ...(x.transportEvents && x.transportEvents.length > 0 ? { transportEvents: x.transportEvents } : {}),
    durationMs: x.durationMs,
    curl: '',
  };
}

/**
 * One copy of each string the run's cases repeat: JSON.parse makes a new string of every value, and 20,000 cases
 * repeat the same requirement IDs, statuses, skip reasons, routes and URLs some 800,000 times (half the records'
 * memory; the owner, e.g. a run's reporter, keeps one pool for the run).
 */
export class StringPool {
  private readonly seen = new Map<string, string>();

  of<T extends string | undefined>(s: T): T {
    if (s === undefined) return s;
    const kept = this.seen.get(s);
    if (kept !== undefined) return kept as T;
    this.seen.set(s, s);
    return s;
  }
}

function pooledRecord(r: CheckRecord, pool: StringPool): CheckRecord {
  const out: CheckRecord = { ...r, id: pool.of(r.id), status: pool.of(r.status) };
  if (r.message !== undefined) out.message = pool.of(r.message);
  if (r.cause) out.cause = { ...r.cause, ...(r.cause.message !== undefined ? { message: pool.of(r.cause.message) } : {}), ...(r.cause.id !== undefined ? { id: pool.of(r.cause.id) } : {}) };
  return out;
}

/**
 * The evidence with every 2xx exchange no shown record points at reduced to what the fold reads of it, and the
 * strings its records and reduced exchanges repeat taken from `pool`.
 */
export function compactEvidence(e: Evidence, pool: StringPool = new StringPool()): Evidence {
  const shown = new Set(e.checks.filter((r) => SHOWN.has(r.status) && r.exchange !== undefined).map((r) => r.exchange!));
  return {
    checks: e.checks.map((r) => pooledRecord(r, pool)),
    exchanges: e.exchanges.map((x, i) => {
      if (shown.has(i) || !success(x)) return x;
      const l = light(x);
      l.method = pool.of(l.method);
      l.path = pool.of(l.path);
      l.url = pool.of(l.url);
      for (const k of Object.keys(l.requestHeaders)) l.requestHeaders[k] = pool.of(l.requestHeaders[k]!);
      return l;
    }),
  };
}

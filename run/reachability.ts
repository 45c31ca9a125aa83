// Reachability first: before any test, the run asks the target once for GET /v1/models. A target that cannot be
// reached (refused, a name that does not resolve, TLS, no answer) or that is not this API (an HTML page) ends the
// run within seconds with one line naming what happened and what to do (run/setup-messages.ts), instead of a hundred
// tests each failing to connect. `--wait-for-target SECONDS` asks again, once a second, for a target a CI job started
// in the background. `chatconform run` asks first in its own process (run/preflight.ts).
import type { Exchange } from '../judge/exchange.ts';
import { setupError, type SetupError } from './setup-messages.ts';

/** What the check reads of an answer (a TargetResponse has it, and so does a transport result wrapped). */
export interface ReachAnswer {
  exchange: Pick<Exchange, 'status' | 'error' | 'errorKind' | 'responseHeaders' | 'responseBody'>;
}

/** How long the one check waits for an answer (a catalog read is small). */
export const REACH_TIMEOUT_MS = 10_000;

/** What happened, as the one line of its setup message; undefined when the target answered as this API could (JSON, or anything not a page). */
export function unreachable(res: ReachAnswer, baseUrl: string): SetupError | undefined {
  const { host, hostname } = new URL(baseUrl);
  const x = res.exchange;
  if (x.status === 0) {
    const error = x.error ?? 'no answer';
    if (/ENOTFOUND|EAI_AGAIN|EAI_NONAME/.test(error)) return setupError('hostUnknown', { baseUrl, hostname });
    switch (x.errorKind) {
      case 'refused':
        return setupError('connectionRefused', { baseUrl, host });
      case 'tls':
        return setupError('tlsFailed', { baseUrl, host, error });
      case 'timeout':
        return setupError('noAnswer', { baseUrl, host, seconds: REACH_TIMEOUT_MS / 1000 });
      case 'reset':
        return setupError('connectionClosed', { baseUrl, host });
      case 'protocol':
        return setupError('notHttp', { baseUrl, host, error });
      default:
        return setupError('unreachable', { baseUrl, host, error });
    }
  }
  const type = (x.responseHeaders['content-type'] ?? '').toLowerCase();
  const page = type.includes('html') || /^\s*<(!doctype|html)/i.test(x.responseBody.slice(0, 200));
  if (page) return setupError('htmlPage', { baseUrl, status: x.status });
  return undefined;
}

export interface ReachOptions {
  /** Keep asking for this many seconds while the target cannot be reached (0: ask once). */
  waitSeconds: number;
  /** Told once when the run starts waiting, with what is wrong (a line of run/setup-messages.ts). */
  onWait?: (problem: string) => void;
  /** Told every STILL_WAITING_EVERY_S seconds while the wait goes on: seconds waited so far. */
  onStillWaiting?: (waitedSeconds: number) => void;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
}

/** Asks `get` (GET /v1/models on the target) until it answers or the wait is over; the problem, if it never did. */
export async function reachTarget<A extends ReachAnswer>(get: () => Promise<A>, baseUrl: string, opts: ReachOptions, onAnswer?: (answer: A) => void): Promise<SetupError | undefined> {
  const now = opts.now ?? Date.now;
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const started = now();
  const deadline = started + opts.waitSeconds * 1000;
  let told = false;
  let lastTold = started;
  for (;;) {
    const answer = await get();
    onAnswer?.(answer);
    const problem = unreachable(answer, baseUrl);
    if (problem === undefined || now() >= deadline) return problem;
    if (!told) opts.onWait?.(problem.what);
    else if (now() - lastTold >= STILL_WAITING_EVERY_S * 1000) {
      // A silent wait of a minute reads as a hang: a line every few seconds says the run is alive.
      lastTold = now();
      opts.onStillWaiting?.(Math.round((lastTold - started) / 1000));
    }
    told = true;
    await sleep(1000);
  }
}

/** How often a wait for the target says it is still waiting. */
export const STILL_WAITING_EVERY_S = 10;

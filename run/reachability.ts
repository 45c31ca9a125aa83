// Reachability first: before any test, the run asks the target once for GET /v1/models. A target that cannot be
// reached (refused, a name that does not resolve, TLS, no answer) or that is not this API (an HTML page) ends the
// run within seconds with one line naming what happened, instead of a hundred tests each failing to connect.
// `--wait-for-target SECONDS` asks again, once a second, for a target a CI job started in the background.
import type { TargetResponse } from '../judge/exchange.ts';

/** The run ends before its tests: the message is the one line a person reads first. */
export class TargetUnreachable extends Error {
  constructor(readonly problem: string) {
    super(`${UNREACHABLE_PREFIX}${problem}`);
    this.name = 'TargetUnreachable';
    // Not the kit's fault: the runner prints the line alone, without a stack or a code frame.
    this.stack = this.message;
  }
}
export const UNREACHABLE_PREFIX = 'the target cannot be reached: ';

/** How long the one check waits for an answer (a catalog read is small). */
export const REACH_TIMEOUT_MS = 10_000;

/** What happened, in one line; undefined when the target answered as this API could (JSON, or anything not a page). */
export function unreachable(res: TargetResponse, baseUrl: string): string | undefined {
  const { host, hostname } = new URL(baseUrl);
  const x = res.exchange;
  if (x.status === 0) {
    const error = x.error ?? 'no answer';
    if (/ENOTFOUND|EAI_AGAIN|EAI_NONAME/.test(error)) return `the host name ${hostname} does not resolve (DNS)`;
    switch (x.errorKind) {
      case 'refused':
        return `connection refused at ${host}`;
      case 'tls':
        return `TLS failed with ${host}: ${error}`;
      case 'timeout':
        return `no answer from ${host} within ${REACH_TIMEOUT_MS / 1000} s`;
      case 'reset':
        return `${host} closed the connection without an answer`;
      case 'protocol':
        return `${host} does not answer in HTTP/1.1: ${error}`;
      default:
        return `${host} cannot be reached: ${error}`;
    }
  }
  const type = (x.responseHeaders['content-type'] ?? '').toLowerCase();
  const page = type.includes('html') || /^\s*<(!doctype|html)/i.test(x.responseBody.slice(0, 200));
  if (page) return `${baseUrl}/v1/models answers HTTP ${x.status} with an HTML page, not this API: is the base URL right (without /v1)?`;
  return undefined;
}

export interface ReachOptions {
  /** Keep asking for this many seconds while the target cannot be reached (0: ask once). */
  waitSeconds: number;
  /** Told once when the run starts waiting. */
  onWait?: (problem: string) => void;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
}

/** Asks `get` (GET /v1/models on the target) until it answers or the wait is over; the problem, if it never did. */
export async function reachTarget(get: () => Promise<TargetResponse>, baseUrl: string, opts: ReachOptions): Promise<string | undefined> {
  const now = opts.now ?? Date.now;
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const deadline = now() + opts.waitSeconds * 1000;
  let told = false;
  for (;;) {
    const problem = unreachable(await get(), baseUrl);
    if (problem === undefined || now() >= deadline) return problem;
    if (!told) opts.onWait?.(problem);
    told = true;
    await sleep(1000);
  }
}

// Reachability first: before any test, the run asks the target once for GET /v1/models. A target that cannot be
// reached (refused, a name that does not resolve, TLS, no answer) or that is not this API (an HTML page) ends the
// run within seconds with one line naming what happened, instead of a hundred tests each failing to connect.
// `--wait-for-target SECONDS` asks again, once a second, for a target a CI job started in the background.
// `chatconform run` asks first in its own process (preflight), where a setup mistake is the caller's (exit 2): a base
// URL that ends in /v1 when the kit adds /v1 itself, a --models selection that matches no model of the catalog.
import type { Exchange } from '../judge/exchange.ts';
import { sendRequest, type TransportResult } from './http.ts';
import { chooseModels, matrixProblem, needsCatalog } from './model-matrix.ts';

/** What the check reads of an answer (a TargetResponse has it, and so does a transport result wrapped). */
export interface ReachAnswer {
  exchange: Pick<Exchange, 'status' | 'error' | 'errorKind' | 'responseHeaders' | 'responseBody'>;
}

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
export function unreachable(res: ReachAnswer, baseUrl: string): string | undefined {
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
  /** Told every STILL_WAITING_EVERY_S seconds while the wait goes on: seconds waited so far. */
  onStillWaiting?: (waitedSeconds: number) => void;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
}

/** Asks `get` (GET /v1/models on the target) until it answers or the wait is over; the problem, if it never did. */
export async function reachTarget<A extends ReachAnswer>(get: () => Promise<A>, baseUrl: string, opts: ReachOptions, onAnswer?: (answer: A) => void): Promise<string | undefined> {
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
    if (!told) opts.onWait?.(problem);
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

export interface PreflightInput {
  baseUrl: string;
  /** The run's headers, the credential included (never printed). */
  headers: Record<string, string>;
  waitSeconds: number;
  /** --models, when the run has a per-model matrix. */
  modelSelection?: readonly string[];
  /** One line to the person running it (stderr). */
  say: (line: string) => void;
  send?: (url: string, headers: Record<string, string>) => Promise<TransportResult>;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
}

export interface PreflightResult {
  /** A setup mistake, in one line: the run stops before it starts (exit 2). */
  usage?: string;
  /** The target could not be reached (the suite's own check says so in the reports). */
  unreachable?: string;
  /** Whether it waited for the target: then the suite need not wait again. */
  waited: boolean;
}

function get(url: string, headers: Record<string, string>): Promise<TransportResult> {
  return sendRequest({ method: 'GET', url, headers: { accept: 'application/json', ...headers }, noLengthHeaders: true, idleTimeoutMs: REACH_TIMEOUT_MS, timeoutMs: REACH_TIMEOUT_MS });
}

const asAnswer = (r: TransportResult): ReachAnswer & { result: TransportResult } => ({
  result: r,
  exchange: { status: r.status, responseHeaders: r.headers, responseBody: r.body.toString('utf8'), ...(r.error !== undefined ? { error: r.error } : {}), ...(r.errorKind !== undefined ? { errorKind: r.errorKind } : {}) },
});

/** The ids a catalog answer lists, or undefined when it is not a catalog. */
function listedIds(body: string): string[] | undefined {
  try {
    const data = (JSON.parse(body) as { data?: unknown }).data;
    if (!Array.isArray(data)) return undefined;
    return data.map((m) => (m as { id?: unknown })?.id).filter((id): id is string => typeof id === 'string');
  } catch {
    return undefined;
  }
}

/**
 * The checks `chatconform run` makes before any test, with the one GET /v1/models the suite would make first (and,
 * for a base URL ending in /v1, one more): setup mistakes found here cost a second, not a whole run to a FAIL.
 */
export async function preflight(p: PreflightInput): Promise<PreflightResult> {
  const send = p.send ?? get;
  let last: TransportResult | undefined;
  const problem = await reachTarget(
    async () => asAnswer(await send(`${p.baseUrl}/v1/models`, p.headers)),
    p.baseUrl,
    {
      waitSeconds: p.waitSeconds,
      onWait: (why) => p.say(`chatconform: waiting up to ${p.waitSeconds} s for the target (${why})`),
      onStillWaiting: (s) => p.say(`chatconform: still waiting for the target at ${p.baseUrl}: ${s} of ${p.waitSeconds} s`),
      ...(p.sleep ? { sleep: p.sleep } : {}),
      ...(p.now ? { now: p.now } : {}),
    },
    (a) => (last = a.result),
  );
  const waited = p.waitSeconds > 0;
  if (problem !== undefined || last === undefined) return { unreachable: problem ?? 'no answer', waited };
  // The openai SDK's habit: a base URL with /v1 in it. The kit adds /v1 to every path, so every request would 404.
  if (last.status === 404 && /\/v1$/.test(p.baseUrl)) {
    const without = p.baseUrl.replace(/\/v1$/, '');
    const plain = await send(`${without}/v1/models`, p.headers);
    if (plain.status >= 200 && plain.status < 300) {
      return { usage: `--base-url ${p.baseUrl} ends in /v1, and ${p.baseUrl}/v1/models answers 404 while ${without}/v1/models answers ${plain.status}: the kit adds /v1 itself, so drop it (--base-url ${without})`, waited };
    }
  }
  const selection = p.modelSelection;
  if (selection && selection.length > 0 && needsCatalog(selection) && last.status >= 200 && last.status < 300) {
    const listed = listedIds(last.body.toString('utf8'));
    // A catalog the kit cannot read is the suite's to judge; only a readable one can show the selection empty.
    if (listed !== undefined && chooseModels(selection, listed).length === 0) return { usage: `${matrixProblem([], selection)} (the catalog lists ${listed.length} model${listed.length === 1 ? '' : 's'})`, waited };
  }
  return { waited };
}

// The one client the suite talks to a target through. Every request goes through `send`: the budget, the
// token-cap policy, the transport (idle timeout and overall bound, bounded reads, one retry on a fresh
// connection), and an exchange record (redacted, with a curl that replays it) that travels with the test's result
// into the reports. The kit's own limits are never the target's failure: through the runner's hooks, inside a test
// each request extends the test's timeout by its own, a request the budget refuses skips the test with the reason,
// and an answer the kit stopped waiting for is not judged (judge/exchange.ts noResponse).
import { BudgetExhausted, Ledger } from './ledger.ts';
import { budgetOf } from './profile.ts';
import { redact, redactHeaders } from '../spec/redact.ts';
import type { RunConfig } from './config.ts';
import { runSecrets } from './run-secrets.ts';
import { DEFAULT_IDLE_TIMEOUT_MS, DEFAULT_MAX_EVENTS, sendRequest, type TransportEvent, type TransportResult } from './http.ts';
import { TargetResponse, type Exchange } from '../judge/exchange.ts';
import { nextRetry, retryAfterMs } from './transient.ts';
import { curlOf, evidenceText } from '../judge/evidence.ts';

export { bodyGenerator } from '../judge/evidence.ts';

export type { TransportErrorKind, TransportEvent } from './http.ts';
export { TargetResponse, type Exchange, type ExchangeErrorKind } from '../judge/exchange.ts';

export interface SendOptions {
  /** The credential: undefined = the run's key, null = none, a string = that key. */
  key?: string | null;
  /** How the key is named in the curl (an environment variable the reader sets). */
  keyVar?: string;
  headers?: Record<string, string>;
  /** The overall bound on this request (default the run's CONFORMANCE_REQUEST_TIMEOUT_MS). */
  timeoutMs?: number;
  /** With no body: send no Content-Length and no Transfer-Encoding (the bodiless POST probe). */
  noLengthHeaders?: boolean;
  /**
   * A 429, or a 503 with Retry-After, is the target asking the kit to wait: the request is sent again after the
   * delay (RunConfig.retry), and when that does not end it the exchange is `rate-limited`, never judged. Unless
   * that status is the request's subject (a model_unavailable probe is about its 503): then the refusal is handed
   * back as it is, neither retried nor marked, so it is never retried into a pass.
   */
  subjectStatus?: 429 | 503;
}

/** The cap an uncapped request carries: enough for any short answer, cheap on a paid deployment. */
export const DEFAULT_CAP = 64;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Sent with every request, so a target's logs can tell the kit's traffic apart. */
const USER_AGENT = 'chatconform';

/**
 * What the client tells the runner that drives it (the suite's: suites/lib/runner-hooks.ts). Outside a runner
 * (discovery, a script, the proxy) there are none.
 */
export interface RunnerHooks {
  /** The kit is about to wait up to `ms` for one request: the runner's clock must allow it. */
  extendTimeout?(ms: number): void;
  /** The kit refuses to send a request (budget spent, cap above the budget); may throw to stop the caller. */
  refuse?(reason: string): void;
}

export class Target {
  readonly exchanges: Exchange[] = [];
  private readonly ledger: Ledger;
  private readonly secretList: string[];
  readonly maxTokens: number;

  constructor(
    readonly config: RunConfig,
    private readonly hooks: RunnerHooks = {},
  ) {
    const budget = budgetOf(config.profile);
    this.ledger = Ledger.in(config.runDir, { ...budget, ...(config.maxRps ? { minIntervalMs: 1000 / config.maxRps } : {}), ...(config.matrixModel !== undefined ? { model: config.matrixModel, maxRequestsPerModel: config.maxRequestsPerModel ?? budget.maxRequestsPerModel } : {}) });
    this.maxTokens = budget.maxTokensPerRequest;
    // The run's whole set: another target's key echoed by this one's server is masked here too.
    this.secretList = runSecrets(config);
  }

  url(path: string): string {
    return `${this.config.baseUrl}${path}`;
  }

  get(path: string, opts: SendOptions = {}): Promise<TargetResponse> {
    return this.send('GET', path, undefined, opts);
  }

  /**
   * POST /v1/chat/completions. Unless the body names a cap itself, the request carries the budget's cap,
   * so no request to a paid deployment is ever unbounded; a cap above the budget is refused before sending
   * (inside a test: the test is skipped with the reason).
   */
  chat(body: Record<string, unknown>, opts: SendOptions & { uncapped?: boolean } = {}): Promise<TargetResponse> {
    const sent = { ...body };
    const caps = [sent.max_tokens, sent.max_completion_tokens].filter((v): v is number => typeof v === 'number');
    // An uncapped request gets a small cap (an answer's length rarely matters); tests that need room (tool calls)
    // ask for up to maxTokens themselves.
    if (caps.length === 0 && !opts.uncapped) sent.max_completion_tokens = Math.min(DEFAULT_CAP, this.maxTokens);
    for (const cap of caps) {
      if (cap > this.maxTokens) return Promise.resolve(this.refused('POST', '/v1/chat/completions', `a cap of ${cap} tokens exceeds the profile's maxTokensPerRequest (${this.maxTokens})`));
    }
    return this.send('POST', '/v1/chat/completions', JSON.stringify(sent), {
      ...opts,
      headers: { 'content-type': 'application/json', ...(opts.headers ?? {}) },
    });
  }

  /** POST a raw body (malformed JSON, oversized payloads): no cap policy, the body goes as given. */
  postRaw(path: string, body: string | Buffer, opts: SendOptions = {}): Promise<TargetResponse> {
    return this.send('POST', path, body, { ...opts, headers: { 'content-type': 'application/json', ...(opts.headers ?? {}) } });
  }

  async send(method: string, path: string, body: string | Buffer | undefined, opts: SendOptions = {}): Promise<TargetResponse> {
    let wait: number;
    try {
      wait = this.ledger.reserve();
    } catch (err) {
      if (err instanceof BudgetExhausted) return this.refused(method, path, err.message);
      throw err;
    }
    const timeoutMs = opts.timeoutMs ?? this.config.requestTimeoutMs;
    // The idle clock never outlasts the request's own bound (a short probe stays short).
    const idleTimeoutMs = Math.min(this.config.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS, timeoutMs);
    const key = opts.key === undefined ? this.config.apiKey : opts.key;
    // The run's own headers (-H) on every request; a test's headers, about what it checks, win over them.
    const headers: Record<string, string> = { 'user-agent': USER_AGENT, accept: 'application/json, text/event-stream', ...(this.config.headers ?? {}), ...(opts.headers ?? {}) };
    if (key) headers.authorization = `Bearer ${key}`;
    const url = this.url(path);
    const bytes = body === undefined ? undefined : typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
    const exchange: Exchange = {
      method,
      path,
      url: this.scrub(url),
      requestHeaders: redactHeaders(headers, this.secretList),
      requestBytes: bytes?.length ?? 0,
      status: 0,
      responseHeaders: {},
      responseBody: '',
      responseBytes: 0,
      durationMs: 0,
      curl: curlOf({ method, url, headers, ...(bytes !== undefined ? { body: bytes } : {}), ...(key ? { keyVar: opts.keyVar ?? (key === this.config.apiKey ? (this.config.apiKeyVar ?? 'CONFORMANCE_API_KEY') : 'OTHER_KEY') } : {}), scrub: (t) => this.scrub(t) }),
    };
    if (bytes !== undefined) exchange.requestBody = this.evidence(bytes);
    this.exchanges.push(exchange);
    const started = Date.now();
    const policy = this.config.retry;
    const events: TransportEvent[] = [];
    const done = { retries: 0, waitedMs: 0 };
    let result: TransportResult;
    for (;;) {
      // A slow but correct target never times a test out while each of its requests is within its own bound;
      // the run's own throttle and the waits a target asks for are the kit's time, not the test's.
      this.hooks.extendTimeout?.(timeoutMs + wait);
      if (wait > 0) await sleep(wait);
      result = await sendRequest({
        method,
        url,
        headers,
        ...(bytes !== undefined ? { body: bytes } : {}),
        ...(opts.noLengthHeaders ? { noLengthHeaders: true } : {}),
        timeoutMs,
        idleTimeoutMs,
        maxBodyBytes: this.config.maxBodyBytes,
        maxEvents: DEFAULT_MAX_EVENTS,
      });
      events.push(...result.events);
      const next = result.status === opts.subjectStatus ? undefined : nextRetry(policy, result.status, result.headers, done);
      if (next === undefined) break;
      if ('stop' in next) {
        exchange.errorKind = 'rate-limited';
        exchange.error = `rate limited: ${next.stop}; the request was not about it, so it is not judged`;
        break;
      }
      try {
        wait = Math.max(next.waitMs, this.ledger.reserve());
      } catch (err) {
        if (!(err instanceof BudgetExhausted)) throw err;
        exchange.errorKind = 'rate-limited';
        exchange.error = `rate limited: HTTP ${result.status}, and the budget has no request left to retry it (${err.message})`;
        break;
      }
      done.retries++;
      done.waitedMs += next.waitMs;
      events.push({ kind: 'rate-limited', message: `HTTP ${result.status}${describeRetryAfter(result.headers)} to a request not about it: sent again after ${next.waitMs} ms (retry ${done.retries} of at most ${policy.maxRetries})` });
    }
    exchange.durationMs = Date.now() - started;
    exchange.status = result.status;
    exchange.responseHeaders = redactHeaders(result.headers, this.secretList);
    exchange.responseBytes = result.body.length;
    exchange.responseBody = this.evidence(result.body);
    if (result.error !== undefined) exchange.error = this.scrub(result.error);
    if (result.errorKind) exchange.errorKind = result.errorKind;
    if (result.encoding) exchange.responseEncoding = result.encoding;
    if (result.continued !== undefined) exchange.continued = result.continued;
    if (events.length > 0) exchange.transportEvents = events.map((e) => ({ kind: e.kind, message: this.scrub(e.message) }));
    const response = new TargetResponse(exchange, result.body);
    this.recordCost(response);
    return response;
  }

  /** The run's spending so far (all workers). */
  totals() {
    return this.ledger.totals();
  }

  scrub(text: string): string {
    return redact(text, this.secretList);
  }

  /**
   * A request the kit refuses to send (budget spent, cap above the budget). Inside a test the test is skipped
   * with the reason (never failed: the target did nothing wrong); outside (global setup, discovery) the reason
   * comes back as a response that got no answer, for the caller to report.
   */
  private refused(method: string, path: string, why: string): TargetResponse {
    const reason = `budget exhausted: ${why}`;
    this.hooks.refuse?.(reason);
    const exchange: Exchange = {
      method,
      path,
      url: this.scrub(this.url(path)),
      requestHeaders: {},
      requestBytes: 0,
      status: 0,
      responseHeaders: {},
      responseBody: '',
      responseBytes: 0,
      error: reason,
      durationMs: 0,
      curl: '',
    };
    return new TargetResponse(exchange, Buffer.alloc(0));
  }

  /** The body as evidence (evidence.ts). */
  private evidence(bytes: Buffer): string {
    return evidenceText(bytes, (t) => this.scrub(t), this.secretList);
  }

  private recordCost(res: TargetResponse): void {
    if (res.status !== 200 || res.exchange.error !== undefined) return;
    const ct = res.headers['content-type'] ?? '';
    if (ct.includes('text/event-stream')) {
      for (const { chunk } of res.stream().usageChunks) {
        const cost = (chunk.usage as Record<string, unknown>).cost;
        if (typeof cost === 'number') this.ledger.recordCost(cost);
      }
      return;
    }
    const json = res.json() as { usage?: { cost?: unknown } } | undefined;
    if (typeof json?.usage?.cost === 'number') this.ledger.recordCost(json.usage.cost);
  }
}

/** ` (retry-after: 2)` for the evidence; empty when the refusal named no delay. */
function describeRetryAfter(headers: Record<string, string>): string {
  const named = retryAfterMs(headers);
  if (named === undefined) return ' (no retry-after: backing off)';
  return headers['retry-after-ms'] !== undefined ? ` (retry-after-ms: ${headers['retry-after-ms']})` : ` (retry-after: ${headers['retry-after']})`;
}

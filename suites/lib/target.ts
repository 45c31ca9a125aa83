// The one client the suite talks to a target through. Every request goes through `send`: a timeout, the
// budget, the token-cap policy, and an exchange record (redacted, with a curl that replays it) that travels
// with the test's result into the reports.
import type { APIRequestContext } from '@playwright/test';
import { BudgetExhausted, Ledger } from './ledger.ts';
import { budgetOf } from './profile.ts';
import { redact, redactHeaders } from './redact.ts';
import { secrets, type RunConfig } from './config.ts';
import { readChatStream, type ChatStream } from './chat-stream.ts';

/** Largest body kept in evidence; the rest is elided (a 10 MB probe must not bloat the report). */
const EVIDENCE_LIMIT = 16 * 1024;

export interface Exchange {
  method: string;
  /** Path relative to the base URL, e.g. /v1/models. */
  path: string;
  url: string;
  requestHeaders: Record<string, string>;
  requestBody?: string;
  requestBytes: number;
  status: number;
  responseHeaders: Record<string, string>;
  responseBody: string;
  responseBytes: number;
  /** Set when no complete HTTP response arrived (timeout, refused or reset connection, body over the cap). */
  error?: string;
  /** What kind of transport failure `error` is. */
  errorKind?: TransportErrorKind;
  /** What happened on the way that is not the target's answer, e.g. a retry on a fresh connection. */
  transportEvents?: TransportEvent[];
  durationMs: number;
  curl: string;
}

export type TransportErrorKind = 'timeout' | 'reset' | 'refused' | 'tls' | 'too-large' | 'protocol' | 'other';

/**
 * A transport event: the kit's connection, not the target's answer. `retried` is a request that failed before
 * any response byte on a reused kept-alive connection and was sent again on a fresh one (RFC 9110 9.2.2).
 */
export interface TransportEvent {
  kind: 'retried' | 'reset' | 'timeout' | 'refused' | 'tls' | 'too-large' | 'protocol' | 'other';
  message: string;
}

export interface SendOptions {
  /** The credential: undefined = the run's key, null = none, a string = that key. */
  key?: string | null;
  /** How the key is named in the curl (an environment variable the reader sets). */
  keyVar?: string;
  headers?: Record<string, string>;
  timeoutMs?: number;
}

export class TargetResponse {
  constructor(
    readonly exchange: Exchange,
    readonly body: Buffer,
  ) {}
  get status(): number {
    return this.exchange.status;
  }
  get headers(): Record<string, string> {
    return this.exchange.responseHeaders;
  }
  /** The body as UTF-8 text. */
  get text(): string {
    return this.body.toString('utf8');
  }
  /** The body parsed as JSON, or undefined when it is not JSON. */
  json(): unknown {
    try {
      return JSON.parse(this.text);
    } catch {
      return undefined;
    }
  }
  get isJson(): boolean {
    if (this.body.length === 0) return false;
    try {
      JSON.parse(this.text);
      return true;
    } catch {
      return false;
    }
  }
  /** Decode the body as a chat-completion event stream. */
  stream(): ChatStream {
    return readChatStream([new Uint8Array(this.body.buffer, this.body.byteOffset, this.body.byteLength)]);
  }
  /** A one-line description for failure messages. */
  describe(): string {
    if (this.exchange.error) return `no response (${this.exchange.error})`;
    const snippet = this.exchange.responseBody.slice(0, 300).replace(/\s+/g, ' ');
    return `HTTP ${this.status}: ${snippet}`;
  }
}

export class Target {
  readonly exchanges: Exchange[] = [];
  private readonly ledger: Ledger;
  private readonly secretList: string[];
  readonly maxTokens: number;

  constructor(
    private readonly request: APIRequestContext,
    readonly config: RunConfig,
  ) {
    const budget = budgetOf(config.profile);
    this.ledger = Ledger.in(config.runDir, budget);
    this.maxTokens = budget.maxTokensPerRequest;
    this.secretList = secrets(config);
  }

  url(path: string): string {
    return `${this.config.baseUrl}${path}`;
  }

  get(path: string, opts: SendOptions = {}): Promise<TargetResponse> {
    return this.send('GET', path, undefined, opts);
  }

  /**
   * POST /v1/chat/completions. Unless the body names a cap itself, the request carries the budget's cap,
   * so no request to a paid deployment is ever unbounded; a cap above the budget is refused before sending.
   */
  chat(body: Record<string, unknown>, opts: SendOptions & { uncapped?: boolean } = {}): Promise<TargetResponse> {
    const sent = { ...body };
    const caps = [sent.max_tokens, sent.max_completion_tokens].filter((v): v is number => typeof v === 'number');
    if (caps.length === 0 && !opts.uncapped) sent.max_completion_tokens = this.maxTokens;
    for (const cap of caps) {
      if (cap > this.maxTokens) throw new BudgetExhausted(`a cap of ${cap} tokens exceeds the profile's maxTokensPerRequest (${this.maxTokens})`);
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
    this.ledger.reserve();
    const key = opts.key === undefined ? this.config.apiKey : opts.key;
    const headers: Record<string, string> = { accept: 'application/json, text/event-stream', ...(opts.headers ?? {}) };
    if (key) headers.authorization = `Bearer ${key}`;
    const url = this.url(path);
    const started = Date.now();
    const bodyBytes = body === undefined ? 0 : Buffer.byteLength(body);
    const exchange: Exchange = {
      method,
      path,
      url: this.scrub(url),
      requestHeaders: redactHeaders(headers, this.secretList),
      requestBytes: bodyBytes,
      status: 0,
      responseHeaders: {},
      responseBody: '',
      responseBytes: 0,
      durationMs: 0,
      curl: this.curl(method, url, headers, body, key ? (opts.keyVar ?? (key === this.config.apiKey ? 'CONFORMANCE_API_KEY' : 'OTHER_KEY')) : undefined),
    };
    if (body !== undefined) exchange.requestBody = this.evidence(typeof body === 'string' ? body : body.toString('utf8'));
    this.exchanges.push(exchange);
    let responseBody: Buffer = Buffer.alloc(0);
    try {
      const res = await this.request.fetch(url, {
        method,
        headers,
        // Always bytes: Playwright would JSON-encode a string that does not parse under a JSON content type,
        // and a malformed-JSON probe must arrive exactly as written.
        ...(body !== undefined ? { data: typeof body === 'string' ? Buffer.from(body, 'utf8') : body } : {}),
        timeout: opts.timeoutMs ?? this.config.requestTimeoutMs,
        failOnStatusCode: false,
        maxRedirects: 0,
      });
      exchange.status = res.status();
      exchange.responseHeaders = redactHeaders(res.headers(), this.secretList);
      responseBody = await res.body();
      exchange.responseBytes = responseBody.length;
      exchange.responseBody = this.evidence(responseBody.toString('utf8'));
    } catch (err) {
      exchange.error = this.scrub(err instanceof Error ? err.message.split('\n')[0]! : String(err));
    }
    exchange.durationMs = Date.now() - started;
    const response = new TargetResponse(exchange, responseBody);
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

  private recordCost(res: TargetResponse): void {
    if (res.status !== 200) return;
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

  private evidence(text: string): string {
    const scrubbed = this.scrub(text);
    if (scrubbed.length <= EVIDENCE_LIMIT) return scrubbed;
    return `${scrubbed.slice(0, EVIDENCE_LIMIT)}\n… (${scrubbed.length - EVIDENCE_LIMIT} more characters elided)`;
  }

  /** A curl that replays the request; the credential is an environment variable, never its value. */
  private curl(method: string, url: string, headers: Record<string, string>, body: string | Buffer | undefined, keyVar: string | undefined): string {
    const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
    const parts = ['curl', '-sS', '-N', '-X', method, q(this.scrub(url))];
    for (const [name, value] of Object.entries(headers)) {
      if (name === 'authorization') continue;
      parts.push('-H', q(`${name}: ${this.scrub(value)}`));
    }
    if (keyVar) parts.push('-H', `"Authorization: Bearer \$${keyVar}"`);
    if (body !== undefined) {
      const len = Buffer.byteLength(body);
      if (len > EVIDENCE_LIMIT) parts.push('--data-binary', `@body.json  # ${len} bytes: write the test's body to body.json`);
      else parts.push('--data-binary', q(this.scrub(typeof body === 'string' ? body : body.toString('utf8'))));
    }
    return parts.join(' ');
  }
}

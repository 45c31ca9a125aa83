// What the judge reads of one request and its answer: the exchange record (redacted, with a curl that replays it)
// and the response with its body decoded once. Plain data: the target client fills them, the proxy builds them
// from traffic it relayed, and the checks judge them without knowing which.
import { readChatStream, type ChatStream } from './decoding/chat-stream.ts';

export type TransportErrorKind = 'timeout' | 'reset' | 'refused' | 'tls' | 'too-large' | 'protocol' | 'other';

/**
 * A transport event: the kit's connection, not the target's answer. `retried` is a request that failed before
 * any response byte on a reused kept-alive connection and was sent again on a fresh one (RFC 9110 9.2.2);
 * `rate-limited` one sent again after a transient refusal (429, 503 with Retry-After: transient.ts).
 */
export interface TransportEvent {
  kind: 'retried' | 'rate-limited' | TransportErrorKind;
  message: string;
}

/**
 * Why an exchange gave no answer to judge: a transport failure, or `rate-limited`, a transient refusal (429, 503
 * with Retry-After) that outlasted the run's retries on a request that was not about it.
 */
export type ExchangeErrorKind = TransportErrorKind | 'rate-limited';

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
  /**
   * Set when no complete HTTP response arrived: with `status` 0 no response head arrived at all (the kit could
   * not judge); with a status, the body was cut or over the cap (the target's answer, judged), or the kit stopped
   * waiting for it (`timeout`: not judged, see noResponse).
   */
  error?: string;
  /** What kind of failure `error` is. */
  errorKind?: ExchangeErrorKind;
  /**
   * The content coding the answer came in (gzip, deflate, br), undone before anything judged it: `responseBody`,
   * `responseBytes` and the checks are the decoded answer. Absent for an answer sent as it is.
   */
  responseEncoding?: 'gzip' | 'deflate' | 'br';
  /**
   * Set for a request sent with `Expect: 100-continue`: whether the server's 100 (Continue) came. False with no
   * status: the server answered nothing at all, though the head alone let it refuse (an oversized Content-Length).
   */
  continued?: boolean;
  /** What happened on the way that is not the target's answer, e.g. a retry on a fresh connection. */
  transportEvents?: TransportEvent[];
  durationMs: number;
  curl: string;
}

export class TargetResponse {
  // Decoded once: checks ask for the text and the JSON many times, and a body may be 16 MB.
  private decoded?: string;
  private notJson?: boolean;

  constructor(
    readonly exchange: Exchange,
    readonly body: Buffer,
    /**
     * The request body as sent, when the sender has it parsed (the proxy): what the judge reads of what was asked
     * (judge/asked.ts). Without it, the exchange's evidence of the request is read back (cut past 16 KiB).
     */
    readonly sent?: unknown,
  ) {}
  get status(): number {
    return this.exchange.status;
  }
  get headers(): Record<string, string> {
    return this.exchange.responseHeaders;
  }
  /** The body as UTF-8 text. */
  get text(): string {
    return (this.decoded ??= this.body.toString('utf8'));
  }
  /** The body parsed as JSON (a fresh value each time: callers may change it), or undefined when it is not JSON. */
  json(): unknown {
    if (this.notJson) return undefined;
    try {
      return JSON.parse(this.text);
    } catch {
      this.notJson = true;
      return undefined;
    }
  }
  get isJson(): boolean {
    return this.body.length > 0 && this.json() !== undefined;
  }
  /** Decode the body as a chat-completion event stream. */
  stream(): ChatStream {
    return readChatStream([new Uint8Array(this.body.buffer, this.body.byteOffset, this.body.byteLength)]);
  }
  /** A one-line description for failure messages. */
  describe(): string {
    if (this.exchange.status === 0) return `no response (${this.exchange.error ?? 'no status'})`;
    const snippet = this.exchange.responseBody.slice(0, 300).replace(/\s+/g, ' ');
    // A status with an error: the head came, the body did not come whole (cut, over the cap, or not waited for).
    return `HTTP ${this.status}${this.exchange.error ? ` (then ${this.exchange.error})` : ''}: ${snippet}`;
  }
}

/**
 * No answer to judge: no HTTP response head arrived, the kit stopped waiting before the body was complete (a
 * timeout: the contract sets no latency bound, so a slow answer is not a broken one), or a transient refusal (429,
 * 503 with Retry-After) outlasted the run's retries on a request that was not about it. Either way the exchange
 * says nothing about the rule the request was sent for.
 */
export function noResponse(res: TargetResponse): boolean {
  return noAnswer(res.exchange);
}

/** noResponse, on the exchange record itself (what a Checker holds of a finding's evidence). */
export function noAnswer(x: Exchange): boolean {
  return x.status === 0 || x.errorKind === 'timeout' || x.errorKind === 'rate-limited';
}

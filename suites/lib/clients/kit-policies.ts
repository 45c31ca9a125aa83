// What the kit's client does for its caller beyond sending a request (section 2.9, 7): the conversation
// hygiene and the retry policy the contract asks of a client. Built on the one target client; no HTTP here.
import type { Target, TargetResponse } from '../../../run/target.ts';
import { retryAfterMs } from '../../../run/transient.ts';
import { LISTED_FIELDS } from '../../../spec/listed-fields.ts';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Fields of an assistant message that are response-only (2.9): never sent back in a request message. */
export const RESPONSE_ONLY_MESSAGE_FIELDS = ['annotations', 'service_web_search'] as const;

/**
 * An assistant message from a response (or an assembled stream), made fit to send back in the next request:
 * only the request fields of 2.2 are kept, so the response-only annotations and service_web_search are
 * stripped (SEARCH-030). Tool calls keep only id, type and function {name, arguments}.
 */
export function toRequestMessage(message: Json): Json {
  const out: Json = {};
  // The request message fields of 2.2 (spec/listed-fields.ts); anything else on a returned message is not sent back.
  for (const k of LISTED_FIELDS.message) if (k in message && message[k] !== undefined && message[k] !== null) out[k] = message[k];
  if (Array.isArray(out.tool_calls)) {
    out.tool_calls = out.tool_calls.filter(isObject).map((c) => {
      const fn = isObject(c.function) ? c.function : {};
      return { id: c.id, type: c.type ?? 'function', function: { name: fn.name, arguments: fn.arguments } };
    });
  }
  if (!('content' in out)) out.content = '';
  return out;
}

export interface RetryOutcome {
  /** The last response: an answer, or the refusal that is surfaced to the caller as it is. */
  res: TargetResponse;
  /** Requests sent (1 = no retry). */
  attempts: number;
}

export interface RetryOptions {
  /** Most requests in all (default 3). */
  attempts?: number;
  /** Longest wait between attempts, whatever retry-after asks (default 2000 ms: runs stay bounded). */
  maxWaitMs?: number;
  /** Wait when the refusal names none (default 250 ms). */
  defaultWaitMs?: number;
}

const UNAVAILABLE = 'model_unavailable';

function errorCode(res: TargetResponse): unknown {
  const body = res.json();
  return isObject(body) && isObject(body.error) ? body.error.code : undefined;
}

/**
 * A chat completion that, refused with model_unavailable (7: "Retry; do not substitute another model
 * automatically"), is retried for the SAME model, and whose final refusal is returned to the caller as it is
 * (ERR-009). The body, its `model` included, is never changed between attempts: no substitute is ever asked for.
 */
export async function chatRetryingUnavailable(target: Target, body: Json, opts: RetryOptions = {}): Promise<RetryOutcome> {
  const attempts = Math.max(1, opts.attempts ?? 3);
  const maxWait = opts.maxWaitMs ?? 2000;
  // The refusal is this policy's subject: the transport hands it back as it is, the retries are counted here.
  const send = () => target.chat(body, { subjectStatus: 503 });
  let res = await send();
  let n = 1;
  while (n < attempts && res.status === 503 && errorCode(res) === UNAVAILABLE) {
    const wait = Math.min(maxWait, retryAfterMs(res.headers) ?? opts.defaultWaitMs ?? 250);
    await new Promise((resolve) => setTimeout(resolve, wait));
    res = await send();
    n++;
  }
  return { res, attempts: n };
}

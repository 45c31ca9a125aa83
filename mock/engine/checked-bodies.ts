// Fairness, not contract: a large chat body can be parsed and validated by another thread (the node:http server
// gives a worker, mock/transport/parse-thread.ts), so that a 10 MB body of 2,000,000 integers or 800,000 keys never
// holds the other clients for the hundreds of milliseconds its parse and validation take. The serving thread gets
// the verdict: it throws the refusal at once, or decodes the body it now knows to be valid, once, without the checks,
// a slice of its largest array per turn of the event loop, and takes the request's seed from the verdict instead of
// hashing the whole request again. Large bodies are taken a few at a time (large-body-gate.ts). The answer is
// exactly what parseChatRequest gives, whichever thread judged the body.
import { presetSeeds, type RequestSeeds } from '../core/chat.ts';
import { MockHttpError } from '../core/errors.ts';
import type { BodySource, CoreRequest } from '../core/http.ts';
import type { StageWrapper } from '../core/pipeline.ts';
import { acceptedChatRequest, bodyText, decodeAcceptedChatRequest, type ChatRequest } from '../core/request.ts';
import type { ArrayRuns } from './json-spans.ts';
import type { LargeBodyGate, Release } from './large-body-gate.ts';

/**
 * What parseChatRequest made of a body: accepted (with the request's seeds, and where the items of its largest array
 * sit), or the refusal it threw.
 */
export type BodyVerdict = { accepted: true; seeds?: RequestSeeds; runs?: ArrayRuns } | { accepted: false; status: number; code: string; message: string };

/** Checks a body elsewhere; undefined when it could not (the serving thread then parses it itself). */
export type BodyChecker = (bytes: Uint8Array) => Promise<BodyVerdict | undefined>;

/** Bodies at least this large are checked elsewhere; a smaller one parses in less time than the hand-off costs. */
export const CHECK_ELSEWHERE_FROM_BYTES = 256 * 1024;

/**
 * Characters of a large array decoded in one turn of the event loop. Decoded whole, 9 MB of small messages held
 * the serving thread for one pass of JSON.parse and the young-generation collections it set off, 300 ms and more.
 */
export const DECODE_SLICE_CHARS = 256 * 1024;

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * The request of an accepted body, decoded a slice of its largest array per turn of the event loop: the rest of the
 * object with that array empty, then its runs of items, each parsed alone. The same value as JSON.parse of the
 * whole text (a run of items parses to the same values, in the same order, and the key keeps its place).
 */
async function decodeInTurns(bytes: Uint8Array, runs: ArrayRuns): Promise<ChatRequest> {
  const text = bodyText(bytes);
  const body = JSON.parse(`${text.slice(0, runs.start)}[]${text.slice(runs.end)}`) as Record<string, unknown>;
  const items = body[runs.key] as unknown[];
  for (let r = 0; r < runs.runs.length; r += 2) {
    await nextTurn();
    for (const item of JSON.parse(`[${text.slice(runs.runs[r], runs.runs[r + 1])}]`) as unknown[]) items.push(item);
  }
  return acceptedChatRequest(body);
}

/** The length a request declares (Content-Length), when it declares a plain one. */
function declaredLength(request: CoreRequest): number | undefined {
  const raw = request.header('content-length')?.trim();
  return raw !== undefined && /^\d+$/.test(raw) ? Number(raw) : undefined;
}

/** `inner`, which waits for `admit` once `from` bytes have come through (a body that does not declare its length). */
function admittedPast(inner: BodySource, from: number, admit: () => Promise<void>): BodySource {
  let seen = 0;
  let admitted = false;
  return {
    read: async () => {
      const chunk = await inner.read();
      if (chunk !== null && !admitted && (seen += chunk.byteLength) >= from) {
        admitted = true;
        try {
          await admit();
        } catch (err) {
          // Refused: the transport discards the rest of the body after the answer.
          inner.cancel();
          throw err;
        }
      }
      return chunk;
    },
    cancel: () => inner.cancel(),
  };
}

/**
 * The layer (wrappers of `receive`, `readBody` and `parse`, innermost) for large bodies: with a gate, a large body
 * waits for its place before it is read (when it declares its length, else once it has shown itself large) and
 * keeps it until it is decoded; once read it is checked by `check`, and the contract's parse is answered from the
 * verdict. A mode that rewrites the bytes before the contract's parse gets a fresh parse of its bytes: verdicts are
 * keyed by the very bytes that were read.
 */
export function checkedBodies(
  check: BodyChecker,
  gate?: LargeBodyGate,
  bodyLimit = Number.POSITIVE_INFINITY,
): { receive: StageWrapper<'receive'>; readBody: StageWrapper<'readBody'>; parse: StageWrapper<'parse'> } {
  const verdicts = new WeakMap<Uint8Array, BodyVerdict>();
  /** Accepted bodies already decoded, a slice per turn, while the readBody stage waited. */
  const decoded = new WeakMap<Uint8Array, ChatRequest>();
  /** The place each large body holds, by request, until it is decoded (or its turn fails). */
  const places = new Map<CoreRequest, Release>();
  const letGo = (request: CoreRequest): void => {
    places.get(request)?.();
    places.delete(request);
  };
  return {
    // A turn that failed between reading and decoding (an outer layer threw) lets go of its place too.
    receive: (next) => async (input) => {
      try {
        return await next(input);
      } finally {
        if (places.size > 0) letGo(input.request);
      }
    },
    readBody: (next) => async (input) => {
      const { request } = input;
      let source = request.body;
      if (gate) {
        const admit = async (): Promise<void> => void places.set(request, await gate.admit());
        const declared = declaredLength(request);
        // A body over the limit is refused by the contract's readBody (413) before anything is read.
        if (declared !== undefined && declared >= CHECK_ELSEWHERE_FROM_BYTES && declared <= bodyLimit) await admit();
        else if (declared === undefined) source = admittedPast(request.body, CHECK_ELSEWHERE_FROM_BYTES, admit);
      }
      try {
        // The contract's readBody, innermost, reads `request.body`: given the admitting source, it reads that.
        const bytes = await next(source === request.body ? input : { request: { ...request, body: source } });
        if (bytes.byteLength >= CHECK_ELSEWHERE_FROM_BYTES) {
          const verdict = await check(bytes);
          if (verdict?.accepted && verdict.runs) decoded.set(bytes, await decodeInTurns(bytes, verdict.runs));
          if (verdict) verdicts.set(bytes, verdict);
        }
        return bytes;
      } catch (err) {
        letGo(request);
        throw err;
      }
    },
    parse: (next) => (input) => {
      try {
        const verdict = verdicts.get(input.bytes);
        if (verdict === undefined) return next(input);
        if (!verdict.accepted) throw new MockHttpError(verdict.status, verdict.code, verdict.message);
        const req = decoded.get(input.bytes) ?? decodeAcceptedChatRequest(input.bytes);
        if (verdict.seeds) presetSeeds(req, verdict.seeds);
        return req;
      } finally {
        if (places.size > 0) letGo(input.request);
      }
    },
  };
}

// `chatconform proxy --record DIR`: every answered exchange as one file of the recording format
// (mock/replay/recording.ts, spec/schemas/recording.schema.json), which `chatconform mock --replay DIR` serves.
// Credentials never reach a file: credential headers are dropped, and every other credential is masked
// (spec/redact.ts: by its place and shape, and the exchange's own keys wherever it shows them). An event stream is
// kept as its events, with the boundaries it was sent with.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { decodeSse, SseDecoder } from '../judge/decoding/sse.ts';
import { isCredentialHeader } from '../spec/redact.ts';
import { nextSequence, RECORDING_FORMAT, recordingFileName, type Recording } from '../mock/replay/recording.ts';
import type { CapturedExchange } from './forward.ts';

/** Headers never written besides the credentials: those that describe one connection or transfer. */
const TRANSFER_HEADER = /^(connection|keep-alive|transfer-encoding|content-length|content-encoding|host)$/i;

function headersOf(headers: Record<string, string>, scrub: (t: string) => string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) if (!isCredentialHeader(k) && !TRANSFER_HEADER.test(k)) out[k] = scrub(v);
  return out;
}

/**
 * A body as the format keeps it: `body` for JSON whose compact form is the text itself (so a replay sends the same
 * bytes), else `bodyText`; nothing for an empty body.
 */
function bodyFields(text: string): { body?: unknown; bodyText?: string } {
  if (text === '') return {};
  try {
    const value: unknown = JSON.parse(text);
    if (value !== null && JSON.stringify(value) === text) return { body: value };
  } catch {
    // Not JSON: kept as text.
  }
  return { bodyText: text };
}

/** A stream's events, or undefined when it does not decode as one (then it is kept as text). */
function eventsOf(text: string): Recording['response']['events'] {
  try {
    return decodeSse([text]).map((e) => ({ data: e.data, ...(e.event !== undefined ? { event: e.event } : {}), ...(e.id !== undefined ? { id: e.id } : {}) }));
  } catch {
    return undefined;
  }
}

/** When each event of a stream had arrived whole (ms after the head), from when each chunk came; undefined if it does not decode. */
function arrivalTimes(raw: Buffer, times: readonly [number, number][]): number[] | undefined {
  const out: number[] = [];
  let at = 0;
  const decoder = new SseDecoder(() => out.push(at));
  let start = 0;
  try {
    for (const [ms, end] of times) {
      at = ms;
      decoder.feed(raw.subarray(start, end));
      start = end;
    }
    decoder.end();
  } catch {
    return undefined;
  }
  return out;
}

export class Recorder {
  private seq: number;

  constructor(
    readonly dir: string,
    private readonly scrub: (t: string) => string,
  ) {
    mkdirSync(dir, { recursive: true });
    this.seq = nextSequence(dir);
  }

  /**
   * Writes one exchange (`responseBody` with its content-encoding undone); returns the file, or undefined when not
   * recorded. `scrub` masks the exchange's own credentials too (the recorder's default masks by place and shape).
   */
  record(x: CapturedExchange, responseBody: Buffer, scrub: (t: string) => string = this.scrub): string | undefined {
    // Nothing answered, or an answer cut by the client: nothing a replay could serve.
    if (x.status === 0 || x.failure === 'client-gone') return undefined;
    const requestPath = x.path.split('?')[0]!;
    const contentType = x.responseHeaders['content-type'] ?? '';
    const text = scrub(responseBody.toString('utf8'));
    const response: Recording['response'] = { status: x.status, headers: headersOf(x.responseHeaders, scrub) };
    const events = /text\/event-stream/i.test(contentType) ? eventsOf(text) : undefined;
    // The pace is read from the bytes as they came: only when they are the stream itself (not content-encoded).
    const times = events && x.responseTimes && !x.responseHeaders['content-encoding'] ? arrivalTimes(x.responseBody, x.responseTimes) : undefined;
    if (events && times?.length === events.length) events.forEach((e, i) => (e.atMs = times[i]!));
    if (events) response.events = events;
    else Object.assign(response, bodyFields(text));
    if (!x.complete) response.complete = false;
    const recording: Recording = {
      format: RECORDING_FORMAT,
      recordedAt: new Date(x.startedAt + x.durationMs).toISOString(),
      request: { method: x.method, path: requestPath, headers: headersOf(x.requestHeaders, scrub), ...bodyFields(scrub(x.requestBody.toString('utf8'))) },
      response,
    };
    const file = path.join(this.dir, recordingFileName(this.seq++, x.method, requestPath));
    writeFileSync(file, `${JSON.stringify(recording, null, 2)}\n`);
    return file;
  }
}

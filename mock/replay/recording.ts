// Recorded exchanges: the fixture format `chatconform proxy --record DIR` writes and `chatconform mock --replay
// DIR` serves (spec/schemas/recording.schema.json; docs/traffic.md). One JSON file per exchange, named
// NNNNNN-<method>-<path>.json so a directory lists in the order it was recorded. Credentials never reach a file:
// the recorder drops credential headers and masks the run's secrets wherever else they appear.
import { readdirSync, realpathSync } from 'node:fs';
import { validateHeaderName, validateHeaderValue } from 'node:http';
import path from 'node:path';
import { FileReadError, readBoundedText } from '../../spec/file-reader.ts';
import { formatIssues, validate } from '../../spec/validator.ts';
import { LISTED_FIELDS } from '../../spec/listed-fields.ts';
import { jsonDepthExceeds, MAX_JSON_DEPTH } from '../engine/json-depth.ts';
import { DEFAULT_BODY_LIMIT_BYTES } from '../core/limits.ts';
import { stableStringify } from '../engine/tokens.ts';

export const RECORDING_FORMAT = 'chatconform-recording/1';

export interface RecordedEvent {
  data: string;
  event?: string;
  id?: string;
  /** When the event had arrived whole, in ms after the response head (`mock --replay-pace recorded` keeps it). */
  atMs?: number;
}

export interface Recording {
  format: typeof RECORDING_FORMAT;
  /** ISO 8601 time the exchange ended. */
  recordedAt: string;
  request: { method: string; path: string; headers: Record<string, string>; body?: unknown; bodyText?: string };
  response: { status: number; headers: Record<string, string>; body?: unknown; bodyText?: string; events?: RecordedEvent[]; complete?: boolean };
}

/** A recording file that cannot be served; the message names the file and the problem. */
export class RecordingError extends Error {}

/** The file name of the `seq`-th recording of a directory. */
export function recordingFileName(seq: number, method: string, requestPath: string): string {
  const slug = requestPath.replace(/^\/+/, '').replace(/[^A-Za-z0-9._-]+/g, '-').replace(/-+/g, '-').slice(0, 80) || 'root';
  return `${String(seq).padStart(6, '0')}-${method.toLowerCase()}-${slug}.json`;
}

const FILE = /^(\d{6,})-.+\.json$/;

/** The sequence number the next recording in `dir` takes (recordings made earlier in the same directory are kept). */
export function nextSequence(dir: string): number {
  let max = 0;
  let names: string[] = [];
  try {
    names = readdirSync(dir);
  } catch {
    return 1;
  }
  for (const n of names) {
    const m = FILE.exec(n);
    if (m) max = Math.max(max, Number(m[1]));
  }
  return max + 1;
}

/**
 * The largest recording file: a request within the live mock's body limit (10 MB) and its answer, pretty-printed
 * as the proxy writes them. Checked before the file is read, so a huge file is refused rather than loaded.
 */
export const RECORDING_FILE_LIMIT = 4 * DEFAULT_BODY_LIMIT_BYTES;

/**
 * The nesting bound of a recording file: the live mock's bound (MAX_JSON_DEPTH) for the bodies it holds, which sit
 * two levels down (the file's object, then `request` or `response`). Deeper bodies would overflow the stack of the
 * request key and of the JSON writer.
 */
const RECORDING_DEPTH = MAX_JSON_DEPTH + 2;

/** The real path of a recording inside `root` (the folder's real path); a link leading out of it is refused. */
function insideFolder(root: string, dir: string, name: string): string {
  const file = path.join(dir, name);
  let real: string;
  try {
    real = realpathSync(file);
  } catch (err) {
    // The link's target is not named: it lies outside what --replay was given.
    throw new RecordingError(`--replay ${file}: cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  if (!real.startsWith(root + path.sep)) throw new RecordingError(`--replay ${file}: a link leading out of ${dir}; recordings are read only from inside their folder`);
  return real;
}

/** The text of a recording file: a regular file within RECORDING_FILE_LIMIT (a FIFO would block the read forever). */
function readWithin(real: string, file: string): string {
  try {
    // The kit's one reader: the descriptor's own stat (no race with a swapped file), the bound checked as it reads.
    return readBoundedText(real, '--replay', { maxBytes: RECORDING_FILE_LIMIT, timeoutMs: 30_000 });
  } catch (err) {
    // Named by the path it was given, not by where a link led.
    throw new RecordingError(err instanceof FileReadError ? err.message.replace(`--replay ${real}`, `--replay ${file}`) : `--replay ${file}: cannot be read`);
  }
}

/** The rules a recording must meet to be served as the live mock serves: its headers, its events. */
function checkServable(rec: Recording, file: string): void {
  for (const [name, value] of Object.entries(rec.response.headers)) {
    // The node:http adapter's own rules (ServerResponse.writeHead applies them): a recording that breaks them
    // would go out as a 500, or split the header block.
    try {
      validateHeaderName(name);
      validateHeaderValue(name, value);
    } catch (err) {
      throw new RecordingError(`--replay ${file}: response header ${JSON.stringify(name.slice(0, 64))} cannot be sent (${(err as NodeJS.ErrnoException).code ?? 'invalid'})`);
    }
  }
  for (const [i, e] of (rec.response.events ?? []).entries()) {
    // SSE ends a line at CR, LF or CRLF: one inside a field would start another field, or another event.
    if (e.data.includes('\r')) throw new RecordingError(`--replay ${file}: response.events[${i}].data holds a carriage return, which SSE reads as a line end; it cannot be served as recorded`);
    for (const field of ['event', 'id'] as const) {
      if (/[\r\n]/.test(e[field] ?? '')) throw new RecordingError(`--replay ${file}: response.events[${i}].${field} holds a line break; it cannot be served as recorded`);
    }
  }
}

/**
 * Every recording of `dir`, in recorded order, each checked against the format and the live mock's rules:
 * read only from inside the folder, within RECORDING_FILE_LIMIT and the nesting bound, with headers and events it
 * can send. A recording that breaks one is refused with one line naming the file.
 */
export function readRecordings(dir: string): Recording[] {
  let names: string[];
  let root: string;
  try {
    root = realpathSync(dir);
    names = readdirSync(root).filter((n) => FILE.test(n)).sort();
  } catch (err) {
    throw new RecordingError(`--replay ${dir}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such directory' : (err as Error).message}`);
  }
  return names.map((name) => {
    const file = path.join(dir, name);
    const real = insideFolder(root, dir, name);
    const text = readWithin(real, file);
    if (jsonDepthExceeds(text, RECORDING_DEPTH) !== undefined) {
      throw new RecordingError(`--replay ${file}: a body nests objects and arrays more than ${MAX_JSON_DEPTH} levels deep (the mock's bound)`);
    }
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch (err) {
      throw new RecordingError(`--replay ${file}: not JSON (${(err as Error).message})`);
    }
    const r = validate('recording', data);
    if (!r.valid) throw new RecordingError(`--replay ${file} does not match spec/schemas/recording.schema.json: ${formatIssues(r.errors).split('\n').join('; ')}`);
    const rec = data as Recording;
    const bodies = ['body', 'bodyText', 'events'].filter((k) => k in rec.response);
    if (bodies.length > 1) throw new RecordingError(`--replay ${file}: the response holds ${bodies.join(' and ')}; a recording holds at most one of them`);
    checkServable(rec, file);
    return rec;
  });
}

/** The path a request is matched by: no query, no trailing slash. */
export function matchedPath(p: string): string {
  const noQuery = p.split('?')[0]!;
  return noQuery.length > 1 ? noQuery.replace(/\/+$/, '') : noQuery;
}

/**
 * The normalised request a replay matches on (docs/traffic.md): the method, the path without query or trailing
 * slash, and for a JSON object body the fields 2.1 lists, as canonical JSON (keys sorted at every level). Headers,
 * credentials and unlisted fields (which a server does not read) are not part of it.
 */
export function requestKey(method: string, requestPath: string, body: { json?: unknown; text?: string }): string {
  const head = `${method.toUpperCase()} ${matchedPath(requestPath)}`;
  if (body.json !== undefined && body.json !== null && typeof body.json === 'object' && !Array.isArray(body.json)) {
    const read: Record<string, unknown> = {};
    // The fields 2.1 lists: the only ones a server reads, so the only ones that can change an answer.
    for (const f of LISTED_FIELDS.request) if (f in (body.json as Record<string, unknown>)) read[f] = (body.json as Record<string, unknown>)[f];
    return `${head} ${stableStringify(read)}`;
  }
  if (body.json !== undefined) return `${head} ${stableStringify(body.json)}`;
  return body.text ? `${head} ${body.text}` : head;
}

// Recorded exchanges: the fixture format `chatconform proxy --record DIR` writes and `chatconform mock --replay
// DIR` serves (spec/schemas/recording.schema.json; docs/traffic.md). One JSON file per exchange, named
// NNNNNN-<method>-<path>.json so a directory lists in the order it was recorded. Credentials never reach a file:
// the recorder drops credential headers and masks the run's secrets wherever else they appear.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { formatIssues, validate } from '../../spec/validator.ts';
import { LISTED_FIELDS } from '../../spec/listed-fields.ts';
import { stableStringify } from '../core/tokens.ts';

export const RECORDING_FORMAT = 'chatconform-recording/1';

export interface RecordedEvent {
  data: string;
  event?: string;
  id?: string;
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

/** Every recording of `dir`, in recorded order, each checked against the format. */
export function readRecordings(dir: string): Recording[] {
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => FILE.test(n)).sort();
  } catch (err) {
    throw new RecordingError(`--replay ${dir}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such directory' : (err as Error).message}`);
  }
  return names.map((name) => {
    const file = path.join(dir, name);
    let data: unknown;
    try {
      data = JSON.parse(readFileSync(file, 'utf8'));
    } catch (err) {
      throw new RecordingError(`--replay ${file}: not JSON (${(err as Error).message})`);
    }
    const r = validate('recording', data);
    if (!r.valid) throw new RecordingError(`--replay ${file} does not match spec/schemas/recording.schema.json: ${formatIssues(r.errors).split('\n').join('; ')}`);
    const rec = data as Recording;
    const bodies = ['body', 'bodyText', 'events'].filter((k) => k in rec.response);
    if (bodies.length > 1) throw new RecordingError(`--replay ${file}: the response holds ${bodies.join(' and ')}; a recording holds at most one of them`);
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

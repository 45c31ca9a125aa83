// The engine's events of one run, for a watcher in another process (`chatconform ui`): one JSON line per event,
// appended to the file the run's plan names (`--events FILE`) as the run goes (the suite's events reporter, the
// client command's own --events).
// A file rather than a pipe: `chatconform run` hands its runner the terminal's stdio, and a line appended to a file
// survives the watcher being slow. Every line is written redacted by its writer; the payload is plain data.
import { appendFileSync, closeSync, openSync, readSync } from 'node:fs';

/**
 * What happens in a run, in order: `begin` (how many tests, which requirements they declare), a `case` per finished
 * test (its outcome with its evidence, as the fold reads it), a `scenario` per finished client scenario, `end`.
 */
export type EngineEvent =
  | { type: 'begin'; at: number; total: number; declared: string[] }
  | { type: 'case'; at: number; case: Record<string, unknown> }
  | { type: 'scenario'; at: number; id: string; status: string; durationMs: number; total: number }
  | { type: 'end'; at: number; status: string };

/** Appends one event to the file `file` (the writer redacted it already). */
export function appendEvent(file: string, event: EngineEvent): void {
  appendFileSync(file, `${JSON.stringify(event)}\n`);
}

/**
 * Reads an events file as it grows: each call returns the whole lines appended since the last one (a line still
 * being written waits for the next call). A line that is not an event is skipped.
 */
export class EventsReader {
  private offset = 0;
  private rest: Buffer = Buffer.alloc(0);

  constructor(private readonly file: string) {}

  read(): EngineEvent[] {
    let fd: number;
    try {
      fd = openSync(this.file, 'r');
    } catch {
      return []; // not written yet
    }
    const chunks: Buffer[] = [this.rest];
    try {
      const buf = Buffer.allocUnsafe(256 * 1024);
      for (;;) {
        const n = readSync(fd, buf, 0, buf.length, this.offset);
        if (n === 0) break;
        this.offset += n;
        chunks.push(Buffer.from(buf.subarray(0, n)));
      }
    } finally {
      closeSync(fd);
    }
    const all = Buffer.concat(chunks);
    const last = all.lastIndexOf(10);
    this.rest = last < 0 ? all : all.subarray(last + 1);
    if (last < 0) return [];
    const out: EngineEvent[] = [];
    for (const line of all.subarray(0, last).toString('utf8').split('\n')) {
      if (line === '') continue;
      try {
        const e = JSON.parse(line) as EngineEvent;
        if (e && typeof e === 'object' && typeof e.type === 'string') out.push(e);
      } catch {
        // A torn line of a writer that died mid-write: not an event.
      }
    }
    return out;
  }
}

// The proxy's reports on disk while it runs, not only at its stop: a stop that never reaches the proxy's own
// handler (SIGKILL, a parent that kills it, a crash) still leaves the report of all but the last few seconds.
// Each file is replaced whole (written beside it, then renamed over it), so a reader never sees half a report.
import { mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';

/** How often the reports are rewritten while traffic changes them (ms): a SIGKILL loses at most this much. */
export const DEFAULT_REPORT_EVERY_MS = 3000;

/**
 * Writes files into `dir` through `write(tmp)`, which writes them into a temporary folder inside `dir` (the same
 * file system, so each rename is atomic); then moves each over its old self. Returns the final paths.
 */
export function writeAtomically(dir: string, write: (tmp: string) => string[]): string[] {
  mkdirSync(dir, { recursive: true });
  // The pid keeps two proxies writing into one folder apart; a folder left by a killed writer is cleared first.
  const tmp = path.join(dir, `.chatconform-proxy-${process.pid}.tmp`);
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp);
  try {
    let written: string[] = [];
    try {
      written = write(tmp);
    } finally {
      // What the writer left (conformance.invalid.json when it threw) goes to `dir` as well.
      for (const name of readdirSync(tmp)) renameSync(path.join(tmp, name), path.join(dir, name));
    }
    // A report that was invalid once and is valid now: the writer cleared the marker in `tmp`, not in `dir`.
    rmSync(path.join(dir, 'conformance.invalid.json'), { force: true });
    return written.map((f) => path.join(dir, path.basename(f)));
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** Calls `write` every `everyMs` while `version()` has moved since the last write; `stop()` ends it. */
export function everyFewSeconds(version: () => number, write: () => void, everyMs: number, log: (line: string) => void): { stop(): void } {
  let written = version();
  let lastError = '';
  const timer = setInterval(() => {
    const now = version();
    if (now === written) return;
    try {
      write();
      written = now;
      lastError = '';
    } catch (err) {
      // Once per distinct failure, not every few seconds; the write at the stop reports it too.
      const message = (err as Error).message;
      if (message !== lastError) log(`proxy: the reports could not be written: ${message}`);
      lastError = message;
    }
  }, everyMs);
  // The timer never keeps the process alive.
  timer.unref();
  return { stop: () => clearInterval(timer) };
}

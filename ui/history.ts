// The runs in the report folder: every conformance.json under it (a `chatconform run`'s at the top, the UI's runs in
// ui/<id>/, reruns in rerun/, a target's in targets/<name>/), each named by its folder relative to the report folder.
// A key from the page is resolved inside the report folder only, and only a conformance.json is ever read there
// (report/load.ts: the one reader, schema-checked).
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import type { ConformanceReport } from '../report/json.ts';
import { loadReport } from '../report/load.ts';
import { historyEntry, type HistoryEntry } from './view.ts';

/** How deep under the report folder a report is looked for (ui/<id>/rerun/ is three). */
const MAX_DEPTH = 4;
/** Folders that hold no report of a run: a shard's blob reports. */
const SKIP = new Set(['blob-report', 'node_modules']);

export class History {
  private readonly cache = new Map<string, { mtimeMs: number; report: ConformanceReport }>();

  constructor(readonly reportDir: string) {}

  /** The report folder's folder for `key`, or undefined when the key points outside it or is malformed. */
  folderOf(key: string): string | undefined {
    if (typeof key !== 'string' || key.length > 500 || key.includes('\\') || key.split('/').some((s) => s === '..' || s === '')) {
      return key === '.' ? this.reportDir : undefined;
    }
    const dir = path.resolve(this.reportDir, key);
    return dir === this.reportDir || dir.startsWith(this.reportDir + path.sep) ? dir : undefined;
  }

  /** The key of a folder under the report folder. */
  keyOf(dir: string): string {
    return path.relative(this.reportDir, dir).split(path.sep).join('/') || '.';
  }

  /** The report of `key`, read once per change of the file; undefined when there is none or it is not a report. */
  report(key: string): ConformanceReport | undefined {
    const dir = this.folderOf(key);
    if (!dir) return undefined;
    const file = path.join(dir, 'conformance.json');
    let mtimeMs: number;
    try {
      const st = statSync(file);
      if (!st.isFile()) return undefined;
      mtimeMs = st.mtimeMs;
    } catch {
      return undefined;
    }
    const cached = this.cache.get(file);
    if (cached?.mtimeMs === mtimeMs) return cached.report;
    try {
      const report = loadReport(file);
      this.cache.set(file, { mtimeMs, report });
      return report;
    } catch {
      return undefined;
    }
  }

  /** Every run of the report folder, the latest first. */
  list(): HistoryEntry[] {
    const out: HistoryEntry[] = [];
    const walk = (dir: string, depth: number): void => {
      let names: import('node:fs').Dirent[];
      try {
        names = readdirSync(dir, { withFileTypes: true });
      } catch {
        return;
      }
      if (names.some((n) => n.isFile() && n.name === 'conformance.json')) {
        const key = this.keyOf(dir);
        const report = this.report(key);
        if (report) out.push(historyEntry(key, report));
      }
      if (depth >= MAX_DEPTH) return;
      for (const n of names) if (n.isDirectory() && !SKIP.has(n.name)) walk(path.join(dir, n.name), depth + 1);
    };
    walk(this.reportDir, 0);
    return out.sort((a, b) => b.startedAt.localeCompare(a.startedAt));
  }
}

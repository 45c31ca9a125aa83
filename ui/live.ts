// A run as it goes, for the page: the cases the engine's events carry (each finished test's outcome and evidence),
// folded by report/'s own fold into the report so far, and what changed since the page last heard (the rows whose
// status moved, the progress, the root causes). Nothing is judged here: a status is the fold's, as in
// conformance.json. A client run's scenarios are counted as they end; their rows come from its report.
import { CONTRACT } from '../spec/requirements/index.ts';
import { foldReport, type RecordedCase } from '../report/fold.ts';
import type { ConformanceReport } from '../report/json.ts';
import type { RequirementResult } from '../report/results.ts';
import { specInfo, type RunInfo } from '../report/run-info.ts';
import { kitPackage } from '../run/config.ts';
import type { EngineEvent } from '../run/events.ts';
import type { TrialSettings } from '../run/trials.ts';
import { causeCard, rowOf, type CauseCard, type Row } from './view.ts';

export interface Progress {
  done: number;
  total: number;
  elapsedMs: number;
  /** MUST requirements failed so far. */
  mustFailed: number;
  /** When the first case ended (ms since the run started), once one has. */
  firstResultMs?: number;
}

/** What the page is sent of a run in one batch: only the rows that changed since the last batch. */
export interface LiveDelta {
  progress: Progress;
  rows: Row[];
  causes: CauseCard[];
  scenarios?: { id: string; status: string; durationMs: number }[];
}

/** Root-cause cards sent live: the first ones by rank (the report has them all once the run ends). */
const LIVE_CAUSES = 12;

export interface LiveOptions {
  startedAt: number;
  target: { url?: string; embeddedMock: boolean };
  trials?: TrialSettings;
  /** A client run: scenarios, not cases. */
  client?: boolean;
}

export class LiveRun {
  private readonly cases: RecordedCase[] = [];
  private readonly declared = new Set<string>();
  private total = 0;
  private firstResultMs: number | undefined;
  private readonly sent = new Map<string, string>();
  private report: ConformanceReport | undefined;
  private folded = 0;
  private readonly scenarios: { id: string; status: string; durationMs: number }[] = [];
  private scenariosSent = 0;
  private ended = false;
  private endedAt: number | undefined;

  constructor(private readonly opts: LiveOptions) {}

  /** Takes the events read since the last call; true when something the page shows changed. */
  apply(events: readonly EngineEvent[]): boolean {
    let changed = false;
    for (const e of events) {
      if (e.type === 'begin') {
        this.total = e.total;
        for (const id of e.declared) this.declared.add(id);
        changed = true;
      } else if (e.type === 'case') {
        this.cases.push(e.case as unknown as RecordedCase);
        this.firstResultMs ??= e.at - this.opts.startedAt;
        changed = true;
      } else if (e.type === 'scenario') {
        this.scenarios.push({ id: e.id, status: e.status, durationMs: e.durationMs });
        this.total = e.total;
        this.firstResultMs ??= e.at - this.opts.startedAt;
        changed = true;
      }
    }
    return changed;
  }

  /** The run ended (its process exited): the clock stops. */
  end(at: number = Date.now()): void {
    this.ended = true;
    this.endedAt = at;
  }

  get done(): number {
    return this.opts.client ? this.scenarios.length : this.cases.length;
  }

  /** The report of the cases so far (the fold runs again only when cases came since the last one). */
  current(): ConformanceReport | undefined {
    if (this.opts.client) return undefined;
    if (this.report && this.folded === this.cases.length) return this.report;
    const now = Date.now();
    const info: RunInfo = {
      kit: kitPackage(),
      spec: specInfo(),
      target: { ...(this.opts.target.url ? { url: this.opts.target.url } : {}), embeddedMock: this.opts.target.embeddedMock },
      reportDir: '',
      // The events are redacted by their writer; the report so far never leaves this process but as rows and evidence.
      secrets: [],
      sectionTitles: new Map(Object.entries(CONTRACT.sections)),
      problems: [],
    };
    this.report = foldReport(this.cases, { info, startedAt: new Date(this.opts.startedAt), durationMs: now - this.opts.startedAt, stopReason: 'completed', errors: [] }, this.opts.trials ? { trials: this.opts.trials } : {});
    this.folded = this.cases.length;
    return this.report;
  }

  /** A requirement's result so far. */
  requirement(id: string): RequirementResult | undefined {
    return this.current()?.requirements.find((r) => r.id === id);
  }

  private progress(report: ConformanceReport | undefined): Progress {
    return {
      done: this.done,
      total: Math.max(this.total, this.done),
      elapsedMs: (this.endedAt ?? Date.now()) - this.opts.startedAt,
      mustFailed: report?.verdict.mustFailed.length ?? 0,
      ...(this.firstResultMs !== undefined ? { firstResultMs: this.firstResultMs } : {}),
    };
  }

  /** The rows the page shows: every requirement the run's tests declare, and any other the fold judged. */
  private rows(report: ConformanceReport | undefined): Row[] {
    if (!report) return [];
    return report.requirements.filter((r) => this.declared.has(r.id) || r.status !== 'untested').map((r) => rowOf(r, this.declared.has(r.id) && !this.ended));
  }

  /** What changed since the last delta (the first one has every row). */
  delta(): LiveDelta {
    const report = this.current();
    const rows = this.rows(report).filter((row) => {
      const key = `${row.status}\u0000${row.reason ?? ''}`;
      if (this.sent.get(row.id) === key) return false;
      this.sent.set(row.id, key);
      return true;
    });
    const out: LiveDelta = { progress: this.progress(report), rows, causes: (report?.rootCauses ?? []).slice(0, LIVE_CAUSES).map(causeCard) };
    if (this.opts.client) {
      out.scenarios = this.scenarios.slice(this.scenariosSent);
      this.scenariosSent = this.scenarios.length;
    }
    return out;
  }

  /** Everything so far, for a page that connects (or reloads) during the run. */
  snapshot(): LiveDelta {
    const report = this.current();
    return { progress: this.progress(report), rows: this.rows(report), causes: (report?.rootCauses ?? []).slice(0, LIVE_CAUSES).map(causeCard), ...(this.opts.client ? { scenarios: [...this.scenarios] } : {}) };
  }
}

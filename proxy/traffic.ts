// What the proxy knows across exchanges: the judged exchanges (for the report). Credentials are masked per exchange
// (the ones its own request carries) and by place and shape (spec/redact.ts), never remembered. Each finished exchange is judged (judging.ts: the catalog, the checks,
// the recorder), its violations printed one line each, and the same four report files a suite run writes are
// written from it (one outcome per exchange; per requirement, how many exchanges honoured it and broke it).
import { requirements, getRequirement, type Requirement } from '../spec/requirements/index.ts';
import type { CheckRecord } from '../judge/checker.ts';
import { credentialsOf, redact } from '../spec/redact.ts';
import type { ConformanceReport } from '../report/json.ts';
import { foldReport } from '../report/fold.ts';
import { firstLine, oneLine, type TestOutcome } from '../report/results.ts';
import { kitInfo, publicUrl, specInfo, type RunInfo } from '../report/run-info.ts';
import { CONTRACT } from '../spec/requirements/index.ts';
import { writeReports } from '../report/write.ts';
import type { CapturedExchange } from './forward.ts';
import type { JudgedExchange } from './judge-exchange.ts';
import { LocalJudge } from './judging.ts';
import { writeAtomically } from './report-writer.ts';

/**
 * The catalog records a traffic report judges: the target's, and the client rules a suite run leaves to the kit
 * (IMG-007: never send image parts to an entry with supports_images false), which traffic judges in the client.
 */
export const TRAFFIC_REQUIREMENTS: readonly Requirement[] = requirements.map((r) => (r.id === 'IMG-007' ? { ...r, check: 'black-box' } : r));

/** Outcomes that keep their exchanges as evidence (those with a breach); past it, only their records are kept. */
const MAX_EVIDENCE_OUTCOMES = 500;
/**
 * Exchanges kept one outcome each; past them, every record is folded into a count per requirement, status and
 * party, so a proxy that runs for days holds as much as one that ran for an hour.
 */
export const MAX_OUTCOMES = 1000;

/** A violation as the proxy prints it: one line, with a curl that replays the request (the key as $CONFORMANCE_API_KEY). */
export interface Violation {
  id: string;
  party: 'client' | 'server';
  status: 'fail' | 'warn';
  line: string;
}

export class Traffic {
  readonly outcomes: TestOutcome[] = [];
  /** The records of the exchanges past MAX_OUTCOMES: one per requirement, status and party, with its count. */
  private readonly folded = new Map<string, CheckRecord & { count: number }>();
  private foldedExchanges = 0;
  private withEvidence = 0;
  readonly startedAt = new Date();
  exchanges = 0;
  /** Judges in this thread, for take(); the proxy judges in a worker (judging.ts) and hands the judgements to account(). */
  private local: LocalJudge | undefined;

  /**
   * Masks credentials by their place and shape (spec/redact.ts), remembering no values: however many keys pass
   * through, none is let through for want of room. A key echoed in plain words is masked by its own exchange's scrub.
   */
  scrub = (text: string): string => redact(text, []);

  constructor(
    readonly upstream: string,
    private readonly captureLimit: number,
    /** Records every answered exchange (`--record DIR`) when take() judges, masking every credential the traffic has shown. */
    private readonly recordDir?: string,
  ) {}

  /** The credentials one exchange's request carries (headers, query, JSON body), masked wherever that exchange shows them. */
  secretsOf(x: CapturedExchange): string[] {
    return credentialsOf(x.requestHeaders, x.path, x.requestBytes <= this.captureLimit ? x.requestBody.toString('utf8') : '');
  }

  /** Judges one finished exchange here, records it, and returns its violations (printed by the caller). */
  take(x: CapturedExchange): Violation[] {
    const secrets = this.secretsOf(x);
    this.local ??= new LocalJudge({ upstream: this.upstream, captureLimit: this.captureLimit, ...(this.recordDir ? { recordDir: this.recordDir } : {}) });
    return this.account(x, this.local.judge(x, secrets));
  }

  /** Counts in one judged exchange (its secrets learnt first), and returns its violations. */
  account(x: CapturedExchange, judged: JudgedExchange): Violation[] {
    this.exchanges++;
    const breaches = judged.records.filter((r): r is CheckRecord & { status: 'fail' | 'warn' } => r.status === 'fail' || r.status === 'warn');
    const secrets = this.secretsOf(x);
    const title = `#${x.seq} ${x.method} ${redact(x.path.split('?')[0]!, secrets)} → ${x.status === 0 ? 'no answer' : x.status}`;
    const failed = breaches.filter((r) => r.status === 'fail');
    if (this.outcomes.length >= MAX_OUTCOMES) this.fold(judged.records);
    else this.keepOutcome(x, title, judged, breaches.length > 0, failed);
    return breaches.map((r) => {
      const req = getRequirement(r.id);
      const who = r.party ?? 'server';
      const what = oneLine((r.message ?? '').replace(/^the client's request: /, ''), 300);
      return {
        id: r.id,
        party: who,
        status: r.status,
        line: `${r.status === 'fail' ? 'violation' : 'warning'} ${r.id} (${req.level}, §${req.section}) by the ${who}: ${title}: ${what} | replay: ${judged.exchange.curl}`,
      };
    });
  }

  /** An exchange past MAX_OUTCOMES: its records counted in with the others of the same requirement, status and party. */
  private fold(records: readonly CheckRecord[]): void {
    this.foldedExchanges++;
    for (const r of records) {
      const key = `${r.id}|${r.status}|${r.party ?? ''}`;
      const seen = this.folded.get(key);
      if (seen) seen.count++;
      else {
        const { exchange: _x, cause: _c, ...rest } = r;
        this.folded.set(key, { ...rest, count: 1 });
      }
    }
  }

  private keepOutcome(x: CapturedExchange, title: string, judged: JudgedExchange, breached: boolean, failed: readonly CheckRecord[]): void {
    const keep = breached && this.withEvidence < MAX_EVIDENCE_OUTCOMES;
    if (keep) this.withEvidence++;
    // A case of the traffic is the exchange itself, named by its sequence number: judged to its end.
    const outcome: TestOutcome = {
      title,
      exchange: x.seq,
      status: 'judged',
      declared: [],
      durationMs: x.durationMs,
      evidence: keep ? { checks: judged.records, exchanges: [judged.exchange] } : { checks: judged.records.map(({ exchange: _x, ...r }) => r), exchanges: [] },
    };
    if (failed.length > 0) outcome.error = failed.map((r) => `${r.id} (${r.party}): ${firstLine(r.message ?? '')}`).join('\n');
    this.outcomes.push(outcome);
  }

  /** Every outcome: one per kept exchange, and one for the folded rest. */
  private allOutcomes(): TestOutcome[] {
    if (this.foldedExchanges === 0) return this.outcomes;
    const checks = [...this.folded.values()];
    const rest: TestOutcome = {
      title: `${this.foldedExchanges} exchange(s) judged after the first ${MAX_OUTCOMES}, counted per requirement`,
      status: 'judged',
      declared: [],
      durationMs: 0,
      evidence: { checks, exchanges: [] },
    };
    return [...this.outcomes, rest];
  }

  /** The report of the traffic so far (a partial run: traffic is no certification of the whole contract). */
  report(durationMs: number, reportDir: string): ConformanceReport {
    // Each exchange was masked with its own credentials when it was judged; the report masks by place and shape.
    const secrets: string[] = [];
    const url = publicUrl(this.upstream);
    const info: RunInfo = {
      kit: kitInfo(),
      spec: specInfo(TRAFFIC_REQUIREMENTS),
      target: { ...(url ? { url } : {}), embeddedMock: false },
      reportDir,
      secrets,
      sectionTitles: new Map(Object.entries(CONTRACT.sections)),
      problems: [],
    };
    const outcomes = this.allOutcomes();
    const judgedIds = [...new Set(outcomes.flatMap((o) => o.evidence?.checks.map((c) => c.id) ?? []))];
    // The one fold a suite run uses, with the traffic's plan: its cases are exchanges, judged on what they exercised.
    return foldReport(
      outcomes,
      { info, startedAt: this.startedAt, durationMs, stopReason: 'completed', errors: [] },
      { catalog: TRAFFIC_REQUIREMENTS, selection: `traffic through chatconform proxy: ${this.exchanges} exchange(s), judged on what they exercised`, scope: judgedIds, caseKind: 'exchange' },
    );
  }

  /**
   * Writes conformance.json, junit.xml, conformance.html and badge.svg of the traffic so far, each replacing the
   * last whole (the proxy writes them every few seconds while it runs); returns the report and the files.
   */
  writeReport(reportDir: string): { report: ConformanceReport; files: string[] } {
    const report = this.report(Date.now() - this.startedAt.getTime(), reportDir);
    return { report, files: writeAtomically(reportDir, (tmp) => writeReports(report, tmp, [])) };
  }
}

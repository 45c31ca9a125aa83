// `chatconform proxy`: the validation proxy as a library. It forwards a client's traffic to the upstream unchanged
// (forward.ts), judges every exchange with the suite's checks (judge.ts, traffic.ts), prints each violation, and
// records exchanges when asked (recorder.ts). The four report files are rewritten every few seconds while the traffic
// changes them (report-writer.ts), and once more by `stop()`, which closes it.
import { DEFAULT_CAPTURE_LIMIT, startProxy, type CapturedExchange } from './forward.ts';
import { DEFAULT_REPORT_EVERY_MS, everyFewSeconds } from './report-writer.ts';
import { Traffic, type Violation } from './traffic.ts';
import type { ConformanceReport } from '../report/json.ts';

export { Traffic, type Violation } from './traffic.ts';
export type { CapturedExchange } from './forward.ts';

export interface TrafficProxyOptions {
  upstream: string;
  port?: number;
  host?: string;
  /** where the reports go: every few seconds while the traffic changes them, and on stop */
  reportDir: string;
  /** how often the reports are rewritten while the traffic changes (ms; default 3000) */
  reportEveryMs?: number;
  /** record every answered exchange here (docs/traffic.md) */
  recordDir?: string;
  upstreamTimeoutMs?: number;
  /** bytes of a body the checks read; default 10 MB */
  captureLimit?: number;
  /** each violation line (default: stdout) */
  onViolation?: (v: Violation) => void;
  /** the operator's log lines: upstream down, a request cut (default: stderr) */
  log?: (line: string) => void;
  /** every judged exchange (tests read them) */
  onExchange?: (x: CapturedExchange) => void;
}

export interface RunningTrafficProxy {
  url: string;
  port: number;
  traffic: Traffic;
  /** the report of the traffic so far, without writing it */
  report(): ConformanceReport;
  /** stops listening and writes the reports; returns the report and its files */
  stop(): Promise<{ report: ConformanceReport; files: string[] }>;
}

export async function startTrafficProxy(opts: TrafficProxyOptions): Promise<RunningTrafficProxy> {
  const captureLimit = opts.captureLimit ?? DEFAULT_CAPTURE_LIMIT;
  const log = opts.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const onViolation = opts.onViolation ?? ((v: Violation) => process.stdout.write(`${v.line}\n`));
  const t = new Traffic(opts.upstream, captureLimit, opts.recordDir);
  const proxy = await startProxy({
    upstream: opts.upstream,
    ...(opts.port !== undefined ? { port: opts.port } : {}),
    ...(opts.host !== undefined ? { host: opts.host } : {}),
    ...(opts.upstreamTimeoutMs !== undefined ? { upstreamTimeoutMs: opts.upstreamTimeoutMs } : {}),
    captureLimit,
    log: (line) => log(t.scrub(line)),
    onExchange: (x) => {
      for (const v of t.take(x)) onViolation(v);
      opts.onExchange?.(x);
    },
  });
  const periodic = everyFewSeconds(() => t.exchanges, () => t.writeReport(opts.reportDir), opts.reportEveryMs ?? DEFAULT_REPORT_EVERY_MS, (line) => log(t.scrub(line)));
  return {
    url: proxy.url,
    port: proxy.port,
    traffic: t,
    report: () => t.report(Date.now() - t.startedAt.getTime(), opts.reportDir),
    stop: async () => {
      periodic.stop();
      await proxy.close();
      return t.writeReport(opts.reportDir);
    },
  };
}

// `chatconform proxy`: the validation proxy as a library. It forwards a client's traffic to the upstream unchanged
// (forward.ts), judges every exchange with the suite's checks in a worker thread, off the forwarding (judging.ts,
// judge.ts), keeps the judgements (traffic.ts), prints each violation, and
// records exchanges when asked (recorder.ts). The four report files are rewritten every few seconds while the traffic
// changes them (report-writer.ts), and once more by `stop()`, which closes it.
import { DEFAULT_CAPTURE_LIMIT, startProxy, type CapturedExchange } from './forward.ts';
import { WorkerJudging } from './judging.ts';
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
  /** the report of the traffic judged so far, without writing it */
  report(): ConformanceReport;
  /** resolves once every exchange finished so far is judged and counted in (judging runs in a worker, after the answer) */
  settled(): Promise<void>;
  /** stops listening and writes the reports; returns the report and its files */
  stop(): Promise<{ report: ConformanceReport; files: string[] }>;
}

export async function startTrafficProxy(opts: TrafficProxyOptions): Promise<RunningTrafficProxy> {
  const captureLimit = opts.captureLimit ?? DEFAULT_CAPTURE_LIMIT;
  const log = opts.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const onViolation = opts.onViolation ?? ((v: Violation) => process.stdout.write(`${v.line}\n`));
  const t = new Traffic(opts.upstream, captureLimit);
  const scrubbed = (line: string) => log(t.scrub(line));
  const judging = new WorkerJudging({ upstream: opts.upstream, captureLimit, ...(opts.recordDir ? { recordDir: opts.recordDir } : {}) }, scrubbed);
  /** Judgements not yet counted in: the final report waits for them. */
  const judgingNow = new Set<Promise<void>>();
  const listening = startProxy({
    upstream: opts.upstream,
    ...(opts.port !== undefined ? { port: opts.port } : {}),
    ...(opts.host !== undefined ? { host: opts.host } : {}),
    ...(opts.upstreamTimeoutMs !== undefined ? { upstreamTimeoutMs: opts.upstreamTimeoutMs } : {}),
    captureLimit,
    log: scrubbed,
    onExchange: (x) => {
      const secrets = t.secretsOf(x);
      // Never rejects: a judgement that failed, or a callback that threw, is one line in the log.
      const done: Promise<void> = judging
        .judge(x, secrets)
        .then((judged) => {
          for (const v of t.account(x, judged)) onViolation(v);
          opts.onExchange?.(x);
        })
        .catch((err: unknown) => scrubbed(`proxy: could not judge exchange #${x.seq}: ${(err as Error)?.message ?? String(err)}`))
        .finally(() => judgingNow.delete(done));
      judgingNow.add(done);
    },
  });
  // A proxy that cannot listen (a port in use) stops its worker: the worker's message port would otherwise keep the
  // process alive after the error was printed.
  const proxy = await listening.catch(async (err: unknown) => {
    await judging.close();
    throw err;
  });
  const settled = async (): Promise<void> => {
    while (judgingNow.size > 0) await Promise.allSettled([...judgingNow]);
  };
  const periodic = everyFewSeconds(() => t.exchanges, () => t.writeReport(opts.reportDir), opts.reportEveryMs ?? DEFAULT_REPORT_EVERY_MS, scrubbed);
  return {
    url: proxy.url,
    port: proxy.port,
    traffic: t,
    report: () => t.report(Date.now() - t.startedAt.getTime(), opts.reportDir),
    settled,
    stop: async () => {
      periodic.stop();
      await proxy.close();
      // Every exchange the proxy forwarded is in the report: those still being judged are waited for.
      await settled();
      await judging.close();
      return t.writeReport(opts.reportDir);
    },
  };
}

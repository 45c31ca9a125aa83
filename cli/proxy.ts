// `chatconform proxy` (and `npm run proxy`): the validation proxy on 127.0.0.1 until SIGINT/SIGTERM. It prints
// `proxy listening on http://127.0.0.1:N`, then one line per violation; on stop it writes the four report files
// and exits 1 when the traffic broke a MUST requirement, 0 otherwise (docs/traffic.md). Its heap is set as the
// mock's: the young-generation cap from the start (cli/mock-relaunch.ts) and the mock's V8 flags, so that a soak at
// 16 connections stays under 300 MB (it reached 441 MB with V8's defaults: bench/proxy-soak.ts, bench/README.md).
import path from 'node:path';
import { Command, InvalidArgumentError } from 'commander';
import { startTrafficProxy } from '../proxy/index.ts';
import { reportDirOf } from '../run/config.ts';
import { paintFor, renderSummary } from '../report/terminal.ts';
import v8 from 'node:v8';
import { V8_FLAGS } from './mock.ts';
import { followLauncher } from './mock-relaunch.ts';
import { ConfigError, integerFrom, listenProblem, portNumber } from './usage.ts';

interface ProxyFlags {
  upstream: string;
  port: number;
  reportDir?: string;
  record?: string;
  upstreamTimeoutMs: number;
}

function upstreamUrl(raw: string): string {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new InvalidArgumentError('expected an http or https URL, e.g. https://api.example.com');
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new InvalidArgumentError('expected an http or https URL');
  if (u.username || u.password) throw new InvalidArgumentError('the URL must not carry credentials: clients send their own');
  return raw;
}

export function proxyCommand(): Command {
  return new Command('proxy')
    .description('forward clients to --upstream on 127.0.0.1, judging every exchange by the contract (until interrupted; then the reports)')
    .requiredOption('--upstream <url>', 'the server to forward to: its base URL, without /v1', upstreamUrl)
    .option('-p, --port <n>', 'port; 0 picks a free one', portNumber, 8788)
    .option('--report-dir <dir>', 'where the reports go on stop (default: CONFORMANCE_REPORT_DIR, else reports/)')
    .option('--record <dir>', 'record every answered exchange into this directory (replay with chatconform mock --replay)')
    .option('--upstream-timeout-ms <n>', 'the upstream must answer, and keep sending, within this many ms (else 502)', integerFrom(1), 120_000)
    .action(async (flags: ProxyFlags) => {
      // Before the judging worker starts: the flags are the process's, its heap's too.
      for (const flag of V8_FLAGS) v8.setFlagsFromString(flag);
      followLauncher();
      const reportDir = flags.reportDir ? path.resolve(flags.reportDir) : reportDirOf();
      let proxy;
      try {
        proxy = await startTrafficProxy({
          upstream: flags.upstream,
          port: flags.port,
          reportDir,
          ...(flags.record ? { recordDir: path.resolve(flags.record) } : {}),
          upstreamTimeoutMs: flags.upstreamTimeoutMs,
        });
      } catch (err) {
        const e = err as NodeJS.ErrnoException;
        throw new ConfigError(listenProblem(e, flags.port) ?? e.message);
      }
      console.log(`proxy listening on ${proxy.url}`);
      let stopping = false;
      const stop = (): void => {
        if (stopping) return;
        stopping = true;
        proxy.stop().then(
          ({ report, files }) => {
            process.stdout.write(renderSummary(report, files, paintFor(process.stdout)));
            process.exit(report.verdict.mustFailed.length > 0 ? 1 : 0);
          },
          (err: unknown) => {
            process.stderr.write(`chatconform proxy: the report could not be written: ${(err as Error).message}\n`);
            process.exit(3);
          },
        );
      };
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
    });
}

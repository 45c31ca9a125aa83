// `chatconform ui`: the kit in the browser (ui/: docs/ui.md). Serves the page on loopback and prints its URL with the
// per-launch token; every run the page starts is `chatconform run` (or `chatconform client`) in a child process, its
// reports in the report folder as usual. Runs until interrupted; Ctrl-C stops a run going (its reports are written)
// and then the server.
import net from 'node:net';
import { Command, InvalidArgumentError } from 'commander';
import { SCENARIOS } from '../client/scenarios.ts';
import { reportDirOf } from '../run/config.ts';
import { startUiServer } from '../ui/server.ts';
import { ConfigError, listenProblem, portNumber } from './usage.ts';
import { closeOnSignal } from './close-on-signal.ts';

interface UiFlags {
  port: number;
  host: string;
  reportDir?: string;
}

function address(raw: string): string {
  if (net.isIP(raw) === 0 && raw !== 'localhost') throw new InvalidArgumentError('expected an IP address (127.0.0.1, 0.0.0.0, ::1) or localhost');
  return raw;
}

export function uiCommand(): Command {
  return new Command('ui')
    .description('serve the kit as a local web page: pick a target and requirements, watch the run live, open the evidence, rerun, compare (until interrupted)')
    .option('-p, --port <n>', 'port; 0 picks a free one', portNumber, 8790)
    .option('--host <address>', 'address to listen on (default 127.0.0.1: this machine only)', address, '127.0.0.1')
    .option('--report-dir <dir>', "where the runs' reports go (each in ui/<id>/) and whose runs the history lists (default: CONFORMANCE_REPORT_DIR, else reports/)")
    .action(async (flags: UiFlags) => {
      const server = await startUiServer({
        port: flags.port,
        host: flags.host,
        reportDir: flags.reportDir ?? reportDirOf(),
        clientScenarios: SCENARIOS.map((s) => ({ id: s.id, title: s.title, requirements: s.requirements })),
      }).catch((err: NodeJS.ErrnoException) => {
        const problem = listenProblem(err, flags.port);
        throw problem ? new ConfigError(problem) : err;
      });
      // The first line, for a reader waiting for it (as `mock listening on URL`); the token is in the URL.
      console.log(`ui listening on ${server.url}\nopen it in a browser on this machine: the token in its path is needed on every request (a new one each launch)`);
      closeOnSignal(server);
    });
}

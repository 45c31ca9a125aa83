// `chatconform client`: judges a client (an SDK, an agent, an app) under the contract's consumer scenarios. The
// engine is client/ (docs/client-conformance.md); this file is the command line: flags, selection, the baseline,
// progress, the reports and the exit code.
import path from 'node:path';
import { Command } from 'commander';
import { commandDriver, DEFAULT_JOBS, runClientScenarios } from '../client/engine.ts';
import { buildClientReport, scenarioStatus, writeClientReports } from '../client/report.ts';
import { leftoverNote } from '../client/runner.ts';
import { SCENARIOS, type Scenario } from '../client/scenarios.ts';
import { loadBaseline, type Baseline } from '../report/baseline.ts';
import { paintFor, renderSummary } from '../report/terminal.ts';
import { reportDirOf } from '../run/config.ts';
import { appendEvent } from '../run/events.ts';
import { redact } from '../spec/redact.ts';
import { isKnownRequirement } from '../spec/requirements/index.ts';
import type { Done } from './program.ts';
import { collectList, ConfigError, integerFrom, UsageError } from './usage.ts';

interface ClientFlags {
  command?: string;
  scenario?: string[];
  requirement?: string[];
  expectedFailures?: string;
  timeoutMs: number;
  reportDir?: string;
  seed: number;
  jobs: number;
  list?: boolean;
  events?: string;
}

/** The scenarios the flags choose (every one without a selection), and the selection in words. */
export function selectScenarios(flags: Pick<ClientFlags, 'scenario' | 'requirement'>): { scenarios: Scenario[]; selection?: string } {
  const ids = flags.scenario ?? [];
  const reqs = (flags.requirement ?? []).map((r) => r.toUpperCase());
  for (const id of ids) if (!SCENARIOS.some((s) => s.id === id)) throw new UsageError(`--scenario: no scenario is called ${JSON.stringify(id)} (chatconform client --list)`);
  for (const r of reqs) {
    if (!isKnownRequirement(r)) throw new UsageError(`--requirement: ${r} is not in the catalog (chatconform requirements)`);
    if (!SCENARIOS.some((s) => s.requirements.includes(r))) throw new UsageError(`--requirement: no client scenario judges ${r} (chatconform client --list)`);
  }
  if (ids.length === 0 && reqs.length === 0) return { scenarios: [...SCENARIOS] };
  const scenarios = SCENARIOS.filter((s) => ids.includes(s.id) || s.requirements.some((r) => reqs.includes(r)));
  const words = [...(ids.length ? [`scenario ${ids.join(', ')}`] : []), ...(reqs.length ? [`requirement ${reqs.join(', ')}`] : [])];
  return { scenarios, selection: words.join('; ') };
}

export function clientCommand(done: Done): Command {
  return new Command('client')
    .description('judge a client under the consumer scenarios: it is run once per scenario against the reference mock (docs/client-conformance.md)')
    .argument('[cmd...]', 'the client as an argument vector, after --: chatconform client -- node my-client.mjs')
    .option('--command <cmd>', 'the client as a shell command line, e.g. "node examples/clients/openai.mjs"')
    .option('--scenario <ids>', 'run only these scenarios (repeatable, or comma-separated)', collectList())
    .option('--requirement <ids>', 'run only the scenarios that judge these requirement IDs', collectList())
    .option('--expected-failures <file>', 'a baseline of known failures (as for chatconform run)')
    .option('--timeout-ms <n>', 'the client must finish each scenario within this many ms (else it is killed: an error)', integerFrom(1), 30_000)
    .option('--report-dir <dir>', 'where the four reports go (default: CONFORMANCE_REPORT_DIR, else reports/)')
    .option('--seed <n>', 'the seed of the mocks', integerFrom(0), 0)
    .option('--jobs <n>', `scenarios run at once, each with its own mock (1: one after the other; the verdict is the same)`, integerFrom(1), DEFAULT_JOBS)
    .option('--events <file>', "append the run's events to this file as they happen, one JSON line each (the start, each finished scenario, the end): for a watcher such as chatconform ui")
    .option('--list', 'list the scenarios and the requirements each judges, then exit')
    .action(async (argv: string[], flags: ClientFlags) => {
      if (flags.list) {
        for (const s of SCENARIOS) process.stdout.write(`${s.id.padEnd(26)} ${s.requirements.join(', ').padEnd(34)} ${s.title}\n`);
        done(0);
        return;
      }
      if (flags.command !== undefined && argv.length > 0) throw new UsageError('give the client once: --command "..." or -- cmd args, not both');
      if ((flags.command ?? '').trim() === '' && argv.length === 0) throw new UsageError('no client: give --command "node my-client.mjs" or -- node my-client.mjs');
      const { scenarios, selection } = selectScenarios(flags);
      let baseline: Baseline | undefined;
      if (flags.expectedFailures) {
        try {
          baseline = loadBaseline(flags.expectedFailures);
        } catch (err) {
          throw new ConfigError(`--expected-failures: ${(err as Error).message}`);
        }
      }
      const reportDir = flags.reportDir ? path.resolve(flags.reportDir) : reportDirOf();
      const command = flags.command ?? argv.map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)).join(' ');
      const started = new Date();
      // A watcher (`chatconform ui`) follows the scenarios as they end (run/events.ts).
      const events = flags.events;
      if (events) appendEvent(events, { type: 'begin', at: Date.now(), total: scenarios.length, declared: [...new Set(scenarios.flatMap((s) => s.requirements))] });
      const results = await runClientScenarios({
        driver: commandDriver(flags.command !== undefined ? { shell: flags.command } : { argv }),
        scenarios,
        bounds: { timeoutMs: flags.timeoutMs },
        seed: flags.seed,
        jobs: flags.jobs,
        onScenario: (r) => {
          if (events) appendEvent(events, { type: 'scenario', at: Date.now(), id: r.scenario.id, status: scenarioStatus(r), durationMs: r.run.durationMs, total: scenarios.length });
          process.stderr.write(`  ${r.scenario.id} (${r.run.durationMs} ms)${r.run.leftovers ? ` ${leftoverNote(r.run).replace(/^[;,] /, '')}` : ''}\n`);
        },
      });
      // A key written into the command line (OPENAI_API_KEY=sk-... node x) is masked by its shape.
      process.stdout.write(`client: ${redact(command, [])}\n`);
      for (const r of results) {
        const bad = r.records.find((x) => x.status !== 'pass');
        process.stdout.write(`${scenarioStatus(r).padEnd(5)} ${r.scenario.id.padEnd(26)} ${r.scenario.requirements.join(', ')}${bad ? `  ${(bad.message ?? '').split('\n')[0]!.slice(0, 160)}` : ''}\n`);
      }
      const report = buildClientReport({ results, command, startedAt: started, durationMs: Date.now() - started.getTime(), seed: flags.seed, reportDir, ...(selection ? { selection } : {}), ...(baseline ? { baseline } : {}) });
      let files: string[];
      try {
        files = writeClientReports(report, reportDir);
      } catch (err) {
        throw new ConfigError(`the reports could not be written to ${reportDir}: ${(err as Error).message}`);
      }
      process.stdout.write(renderSummary(report, files, paintFor(process.stdout)));
      done(report.verdict.exitCode);
    });
}

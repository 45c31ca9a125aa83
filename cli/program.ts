// The `chatconform` command: its subcommands, and one policy for bad input on all of them. Commander parses;
// every parse error and every UsageError becomes one line on stderr and exit 2; --help and --version exit 0.
import { Command, CommanderError } from 'commander';
import { kitPackage } from '../run/config.ts';
import { clientCommand } from './client.ts';
import { mockCommand } from './mock.ts';
import { proxyCommand } from './proxy.ts';
import { openapiCommand } from './openapi.ts';
import { reportCommand } from './report.ts';
import { requirementsCommand } from './requirements.ts';
import { runCommand } from './run.ts';
import { ConfigError, EXIT, EXIT_CODES_TEXT, oneLine, UsageError } from './usage.ts';
import { baselineCommand, initCommand, verifyCommand } from './gating.ts';

export interface Io {
  out: (s: string) => void;
  err: (s: string) => void;
}

const stdio: Io = { out: (s) => process.stdout.write(s), err: (s) => process.stderr.write(s) };

/** How a command reports its exit code to main() (never through process.exitCode, which belongs to the process). */
export type Done = (code: number) => void;

export function buildProgram(io: Io = stdio, done: Done = () => undefined): Command {
  const program = new Command('chatconform')
    .description('Conformance kit for the Chat Completion and Model Catalog HTTP API: the suite, the reference mock, the catalog.')
    .version(kitPackage().version, '-V, --version', 'print the version')
    .addCommand(runCommand(done))
    .addCommand(mockCommand())
    .addCommand(proxyCommand())
    .addCommand(clientCommand(done))
    .addCommand(reportCommand(io, done))
    .addCommand(requirementsCommand())
    .addCommand(openapiCommand())
    .addCommand(baselineCommand(io))
    .addCommand(verifyCommand(io, done))
    .addCommand(initCommand(io))
    .addHelpText('after', `\n\`chatconform <command> --help\` describes a command.\n\n${EXIT_CODES_TEXT}`);
  // Commander hands its settings only to subcommands made with .command(); these were built apart, so every
  // command gets the same policy here.
  const apply = (cmd: Command) => {
    cmd
      .exitOverride()
      .configureOutput({ writeOut: io.out, writeErr: io.err, outputError: (message, write) => write(`${oneLine(message)}\n`) })
      .showSuggestionAfterError(true)
      .allowExcessArguments(false);
    for (const sub of cmd.commands) apply(sub);
  };
  apply(program);
  return program;
}

/** Runs the command line; resolves to the exit code. */
export async function main(argv: readonly string[], io: Io = stdio): Promise<number> {
  let code: number = EXIT.ok;
  const program = buildProgram(io, (c) => (code = c));
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return code;
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode === 0 ? EXIT.ok : EXIT.usage; // already printed, on one line
    if (err instanceof UsageError) {
      io.err(`error: ${oneLine(err.message)}\n`);
      return EXIT.usage;
    }
    if (err instanceof ConfigError) {
      io.err(`error: ${oneLine(err.message)}\n`);
      return EXIT.config;
    }
    throw err;
  }
}

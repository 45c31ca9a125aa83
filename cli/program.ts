// The `chatconform` command: its subcommands, and one policy for bad input on all of them. Commander parses;
// every parse error and every UsageError becomes one line on stderr and exit 2; --help and --version exit 0.
import { Command, CommanderError } from 'commander';
import { kitPackage } from '../run/config.ts';
import { SetupError } from '../run/setup-messages.ts';
import { ConfigError, EXIT, EXIT_CODES_TEXT, oneLine, UsageError } from './usage.ts';

export interface Io {
  out: (s: string) => void;
  err: (s: string) => void;
}

const stdio: Io = { out: (s) => process.stdout.write(s), err: (s) => process.stderr.write(s) };

/** How a command reports its exit code to main() (never through process.exitCode, which belongs to the process). */
export type Done = (code: number) => void;

type Build = (io: Io, done: Done) => Promise<Command>;

/**
 * Every command, in the order --help lists them, each loaded only when it is the one that runs: a `run` does not load
 * the mock, the proxy or the client (a few hundred milliseconds of every run's start).
 */
const COMMANDS: readonly (readonly [string, Build])[] = [
  ['run', async (_io, done) => (await import('./run.ts')).runCommand(done)],
  ['mock', async () => (await import('./mock.ts')).mockCommand()],
  ['proxy', async () => (await import('./proxy.ts')).proxyCommand()],
  ['client', async (_io, done) => (await import('./client.ts')).clientCommand(done)],
  ['ui', async () => (await import('./ui.ts')).uiCommand()],
  ['report', async (io, done) => (await import('./report.ts')).reportCommand(io, done)],
  ['requirements', async () => (await import('./requirements.ts')).requirementsCommand()],
  ['openapi', async () => (await import('./openapi.ts')).openapiCommand()],
  ['baseline', async (io) => (await import('./gating.ts')).baselineCommand(io)],
  ['verify', async (io, done) => (await import('./gating.ts')).verifyCommand(io, done)],
  ['init', async (io) => (await import('./gating.ts')).initCommand(io)],
];

/**
 * Commander's refusal of a flag's value quotes the value (`argument 'sk-…' is invalid`): the value is left out, as
 * every refusal of a run's setting does (a key pasted into `--seed` must not land in a CI log).
 */
export function withoutArgument(message: string): string {
  return message.replace(/ argument '([^]*)' is invalid\./, (_m, value: string) => ` argument (${value.length} character${value.length === 1 ? '' : 's'}, not shown) is invalid.`);
}

/** The program with every command, or with `only` when it names one (the command line's first word). */
export async function buildProgram(io: Io = stdio, done: Done = () => undefined, only?: string): Promise<Command> {
  const one = COMMANDS.find(([name]) => name === only);
  const commands = await Promise.all((one ? [one] : COMMANDS).map(([, build]) => build(io, done)));
  const program = new Command('chatconform')
    .description('Conformance kit for the Chat Completion and Model Catalog HTTP API: the suite, the reference mock, the catalog.')
    .version(kitPackage().version, '-V, --version', 'print the version');
  for (const c of commands) program.addCommand(c);
  program.addHelpText('after', `\n\`chatconform <command> --help\` describes a command.\n\n${EXIT_CODES_TEXT}`);
  // Commander hands its settings only to subcommands made with .command(); these were built apart, so every
  // command gets the same policy here.
  const apply = (cmd: Command) => {
    cmd
      .exitOverride()
      .configureOutput({ writeOut: io.out, writeErr: io.err, outputError: (message, write) => write(`${oneLine(cmd.name() === 'run' ? withoutArgument(message) : message)}\n`) })
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
  const program = await buildProgram(io, (c) => (code = c), argv[0]);
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
    // A setup mistake the run found before any test (run/setup-messages.ts): its line, its exit code.
    if (err instanceof SetupError) {
      io.err(`error: ${oneLine(err.message)}\n`);
      return err.exitCode;
    }
    throw err;
  }
}

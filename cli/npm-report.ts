// `npm run report -- --compare OLD NEW [--json]` and `npm run report -- --baseline REPORT`: the spellings a clone's
// users script against, kept as aliases of the one command (`chatconform report compare`, `chatconform baseline`),
// so there is one implementation, one set of messages and one set of exit codes.
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { main as chatconform, type Io } from './program.ts';
import { EXIT } from './usage.ts';

const USAGE = `usage: npm run report -- --compare <old conformance.json> <new conformance.json> [--json]
       npm run report -- --baseline <conformance.json>

  --compare A B   chatconform report compare A B: the requirements that regressed and improved from
                  run A to run B; exit 1 when something regressed, 2 when the files cannot be compared
  --json          print the comparison as JSON instead of text
  --baseline R    chatconform baseline R: a baseline of expected failures (YAML) from run R
`;

const stdio: Io = { out: (s) => process.stdout.write(s), err: (s) => process.stderr.write(s) };

/** The chatconform arguments an npm-run spelling stands for, or undefined when it is none. */
export function aliasOf(argv: readonly string[]): string[] | undefined {
  if (argv.length === 2 && argv[0] === '--baseline') return ['baseline', argv[1]!];
  const json = argv.includes('--json');
  const args = argv.filter((a) => a !== '--json');
  if (args.length === 3 && args[0] === '--compare') return ['report', 'compare', args[1]!, args[2]!, ...(json ? ['--json'] : [])];
  return undefined;
}

export async function main(argv: readonly string[], io: Io = stdio): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    io.out(USAGE);
    return EXIT.ok;
  }
  const alias = aliasOf(argv);
  if (!alias) {
    io.err(`error: ${argv.length === 0 ? 'nothing to do' : `unexpected arguments: ${argv.join(' ')}`}\n\n${USAGE}`);
    return EXIT.usage;
  }
  return chatconform(alias, io);
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  process.exitCode = await main(process.argv.slice(2));
}

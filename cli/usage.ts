// Bad input is the caller's to fix: one line on stderr, exit 2, before anything runs. Commander reports its own
// parse errors (unknown flag, missing value, a value a parser below refused) through the same door.
import { InvalidArgumentError } from 'commander';

/**
 * The exit codes of every subcommand (EXIT_CODES_TEXT: `chatconform --help` and README print it): 0 nothing failed
 * the gate; 1 a MUST failed; 2 the command line is wrong; 3 the run could not be done as asked (a file, a port, the
 * target, the kit itself).
 */
export const EXIT = { ok: 0, mustFailed: 1, usage: 2, config: 3 } as const;

/** The exit-code table, as `chatconform --help` prints it and README shows it. */
export const EXIT_CODES_TEXT = `Exit codes (every command):
  0  nothing failed the gate: run and proxy, no MUST failed and the target could be judged (a PASS, a PARTIAL,
     an INCOMPLETE resting on some answers); verify, the bundle holds; any other command, done
  1  a MUST requirement failed outside the baseline, whatever else happened (or a stale baseline entry, a warning
     with --fail-on warn, a bundle that does not verify)
  2  the command line is wrong: an unknown flag, a bad value or URL, flags that do not fit together, a base URL
     ending in /v1 (the kit adds /v1), a --models selection that matches no model, a --model the catalog does not
     list; nothing ran
  3  the command could not be done as asked: a file missing or unusable (profile, baseline, config file, report,
     bundle, fixtures, script, recordings), a report folder it cannot write, a port in use, a target never
     reached or never judged (not this API, no key or a refused one), an error outside the tests, a run
     interrupted (Ctrl-C) or out of time, the kit's own failure
Errors are one line on stderr, never a stack trace.`;

/** A usage error found after parsing (an ID the catalog does not know, a flag that does not fit another). */
export class UsageError extends Error {}

/** The environment stops the command (exit 3): a file the flags name, or one found beside the project, that cannot be used; a busy port. */
export class ConfigError extends Error {}

/** An integer option value from `min` up. */
export function integerFrom(min: number): (raw: string) => number {
  return (raw) => {
    const n = Number(raw);
    if (!/^-?\d+$/.test(raw.trim()) || !Number.isSafeInteger(n) || n < min) throw new InvalidArgumentError(`expected an integer of at least ${min}`);
    return n;
  };
}

/** A repeatable option that also takes comma-separated values: `--defect a --defect b,c`. */
export function collectList(check?: (value: string) => string | undefined): (raw: string, previous: string[] | undefined) => string[] {
  return (raw, previous) => {
    const values = raw.split(',').map((v) => v.trim()).filter(Boolean);
    if (values.length === 0) throw new InvalidArgumentError('expected a value');
    for (const v of values) {
      const problem = check?.(v);
      if (problem) throw new InvalidArgumentError(problem);
    }
    return [...(previous ?? []), ...values];
  };
}

/** A number above 0 (decimals allowed). */
export function positiveNumber(raw: string): number {
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(n) || n <= 0) throw new InvalidArgumentError('expected a number above 0');
  return n;
}

/** The message on one line: a usage error is always one line. */
export function oneLine(message: string): string {
  return message.replace(/\s*\n\s*/g, ' ').trim();
}

/** A TCP port: 0 (a free one) to 65535. */
export function portNumber(raw: string): number {
  const n = integerFrom(0)(raw);
  if (n > 65535) throw new InvalidArgumentError('expected an integer from 0 to 65535');
  return n;
}

/** Why a server could not listen on `port`, in one line; undefined when the failure is not about the address. */
export function listenProblem(err: NodeJS.ErrnoException, port: number): string | undefined {
  if (err.code === 'EADDRINUSE') return `port ${port} is in use; pick another with --port (0 picks a free one)`;
  if (err.code === 'EACCES') return `port ${port} needs privileges this user does not have; pick another with --port (0 picks a free one)`;
  if (err.code === 'EADDRNOTAVAIL') return `the address to listen on is not on this machine (${err.message})`;
  return undefined;
}

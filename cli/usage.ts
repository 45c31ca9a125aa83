// Bad input is the caller's to fix: one line on stderr, exit 2, before anything runs. Commander reports its own
// parse errors (unknown flag, missing value, a value a parser below refused) through the same door.
import { InvalidArgumentError } from 'commander';

/**
 * 0 nothing failed the gate; 1 a MUST failed (outside the baseline; or a stale baseline entry, or a warning with
 * --fail-on warn); 2 the command line is wrong; 3 a configuration or runtime error (a profile, baseline or config
 * file that does not load, no target, the kit crashed).
 */
export const EXIT = { ok: 0, mustFailed: 1, usage: 2, config: 3 } as const;

/** A usage error found after parsing (an ID the catalog does not know, a flag that does not fit another). */
export class UsageError extends Error {}

/** A configuration error: a file the flags name, or one found beside the project, that cannot be used. */
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

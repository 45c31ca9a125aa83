// Bad input is the caller's to fix: one line on stderr, exit 2, before anything runs. Commander reports its own
// parse errors (unknown flag, missing value, a value a parser below refused) through the same door.
import { InvalidArgumentError } from 'commander';

export const EXIT = { ok: 0, mustFailed: 1, usage: 2 } as const;

/** A usage error found after parsing (a file that is not there, an ID the catalog does not know). */
export class UsageError extends Error {}

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

/** The message on one line: a usage error is always one line. */
export function oneLine(message: string): string {
  return message.replace(/\s*\n\s*/g, ' ').trim();
}

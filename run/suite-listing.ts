// The listing of the suite (`chatconform run --list`, and the check that a partial run runs something), as the
// listing reporter (suites/list-reporter.ts) writes it and the CLI (cli/selection.ts) reads it: one JSON line per
// test in a file, never one document held whole.
import { closeSync, openSync, readSync } from 'node:fs';

/** The variable naming the file the listing reporter writes. */
export const LIST_FILE_ENV = 'CHATCONFORM_LIST_FILE';

/** One listed test: its file relative to the suite's root, line, describe titles and title, declared IDs. */
export interface ListedLine {
  file: string;
  line: number;
  titles: string[];
  ids: string[];
}

/** Each line of a file, read a MiB at a time (a line longer than the rest of the file is still one line). */
export function* fileLines(file: string): Generator<string> {
  const fd = openSync(file, 'r');
  try {
    const buf = Buffer.allocUnsafe(1024 * 1024);
    let rest: Buffer[] = [];
    for (;;) {
      const n = readSync(fd, buf, 0, buf.length, null);
      if (n === 0) break;
      let start = 0;
      for (let nl = buf.indexOf(10, 0); nl >= 0 && nl < n; nl = buf.indexOf(10, start)) {
        yield Buffer.concat([...rest, buf.subarray(start, nl)]).toString('utf8');
        rest = [];
        start = nl + 1;
      }
      if (start < n) rest.push(Buffer.from(buf.subarray(start, n)));
    }
    if (rest.length > 0) yield Buffer.concat(rest).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

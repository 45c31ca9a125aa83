// The one reader of the files the kit is given (a config file found or named, a profile, a targets file, a baseline,
// a report, a recording, a blob): a file in a checkout or a CI workspace is input like any other, and may be a link
// to /dev/zero, a FIFO that never gets a writer, or 50 MB where a few KB were meant. So each is opened without
// blocking, must be a regular file once open (the descriptor's own stat: no race with a swapped link), is read within
// a size bound and a time bound, and anything else is refused in one line naming the file and what was wrong. Its
// text is never echoed: a parse error says where, never what (a key pasted into the wrong file must not reach a log).
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';

/** The bounds of one read. */
export interface ReadBounds {
  /** Most bytes the file may hold. */
  maxBytes: number;
  /** Most milliseconds the read may take (checked between chunks: a read of a regular file returns, a slow disk is cut). */
  timeoutMs?: number;
}

/** The bounds of the files people write by hand: a config file, a profile, a targets file, a baseline. */
export const SMALL_FILE: ReadBounds = { maxBytes: 4 * 1024 * 1024, timeoutMs: 10_000 };

/** A file refused or unreadable: the message is one line, naming the file. */
export class FileReadError extends Error {}

const MIB = 1024 * 1024;
const size = (n: number): string => (n < 1024 ? `${n} bytes` : n < MIB ? `${Math.round(n / 1024)} KiB` : `${Math.round((n / MIB) * 10) / 10} MiB`);
const CHUNK = 1024 * 1024;
// Where the platform has it (not Windows): opening a FIFO must not wait for a writer before the stat can refuse it.
const NONBLOCK = constants.O_NONBLOCK ?? 0;

/** What a descriptor's stat says the file is, when it is not a regular file. */
function kindOf(st: import('node:fs').Stats): string {
  if (st.isDirectory()) return 'a folder';
  if (st.isFIFO()) return 'a FIFO (named pipe)';
  if (st.isCharacterDevice()) return 'a character device (such as /dev/zero)';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isSocket()) return 'a socket';
  return 'not a regular file';
}

/** The reason of a failed open or read, without a stack: ENOENT → "no such file". */
function reasonOf(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  if (e.code === 'ENOENT') return 'no such file';
  if (e.code === 'EACCES' || e.code === 'EPERM') return 'permission denied';
  if (e.code === 'ELOOP') return 'a loop of links';
  if (e.code === 'ENOTDIR') return 'a part of its path is not a folder';
  return (e.message ?? String(err)).split('\n')[0]!;
}

/**
 * Opens `file` for reading if it is a regular file: the descriptor, and the file's size. `what` names the file in a
 * refusal ("config file", "the target profile"). The caller closes the descriptor.
 */
export function openRegularFile(file: string, what: string): { fd: number; size: number } {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | NONBLOCK);
  } catch (err) {
    throw new FileReadError(`${what} ${file}: ${reasonOf(err)}`);
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new FileReadError(`${what} ${file}: ${kindOf(st)}, not a regular file: refused`);
    return { fd, size: st.size };
  } catch (err) {
    closeSync(fd);
    throw err instanceof FileReadError ? err : new FileReadError(`${what} ${file}: ${reasonOf(err)}`);
  }
}

/** The bytes of a regular file within the bounds, or a one-line refusal. */
export function readBoundedBytes(file: string, what: string, bounds: ReadBounds = SMALL_FILE): Buffer {
  const { fd, size: declared } = openRegularFile(file, what);
  const tooLarge = (): FileReadError => new FileReadError(`${what} ${file}: larger than ${size(bounds.maxBytes)}, the most the kit reads of it: refused`);
  try {
    if (declared > bounds.maxBytes) throw tooLarge();
    const deadline = bounds.timeoutMs === undefined ? Number.POSITIVE_INFINITY : performance.now() + bounds.timeoutMs;
    // A file may grow while it is read, or declare 0 bytes and hold more (/proc): read to the bound plus one byte.
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const buf = Buffer.allocUnsafe(Math.min(CHUNK, bounds.maxBytes + 1 - total));
      let n: number;
      try {
        n = readSync(fd, buf, 0, buf.length, null);
      } catch (err) {
        throw new FileReadError(`${what} ${file}: ${reasonOf(err)}`);
      }
      if (n === 0) break;
      chunks.push(buf.subarray(0, n));
      total += n;
      if (total > bounds.maxBytes) throw tooLarge();
      if (performance.now() > deadline) throw new FileReadError(`${what} ${file}: not read within ${bounds.timeoutMs} ms: refused`);
    }
    return Buffer.concat(chunks, total);
  } finally {
    closeSync(fd);
  }
}

/** The text (UTF-8) of a regular file within the bounds, or a one-line refusal. */
export function readBoundedText(file: string, what: string, bounds: ReadBounds = SMALL_FILE): string {
  return readBoundedBytes(file, what, bounds).toString('utf8');
}

/** Line and column (1-based) of a character offset in a text. */
function lineAndColumn(text: string, offset: number): string {
  let line = 1;
  let start = 0;
  for (let i = text.indexOf('\n'); i >= 0 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++;
    start = i + 1;
  }
  return `line ${line}, column ${offset - start + 1}`;
}

/**
 * JSON.parse of a file's text, with a refusal that says where the text stops being JSON and never quotes it (node 20's
 * own message shows a piece of the text, a key pasted there included).
 */
export function parseJsonText(text: string, file: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    const at = /position (\d+)/.exec((err as Error).message);
    const where = at ? ` at ${lineAndColumn(text, Number(at[1]))}` : text.trim() === '' ? ' (it is empty)' : /Unexpected end/.test((err as Error).message) ? ' (it ends too soon)' : '';
    throw new FileReadError(`${what} ${file}: not valid JSON${where}`);
  }
}

/** A regular file's JSON within the bounds, or a one-line refusal. */
export function readJsonFile(file: string, what: string, bounds: ReadBounds = SMALL_FILE): unknown {
  return parseJsonText(readBoundedText(file, what, bounds), file, what);
}

// Runs the client under test once, bounded: a time limit, a cap on stdout, the last bytes of stderr kept. The run
// owns the client's whole process tree (client/process-tree.ts): its own session and group, and a mark every
// descendant inherits, so a timeout, a flood or the client's exit ends it and every process it started (a shell, an
// npx, a language runtime, a daemon that left with setsid), never anything else. The client's exit ends the
// wait: a process it left behind holding its output open is ended, not waited for.
import { spawn } from 'node:child_process';
import { describeEnded, processTree, type Ended } from './process-tree.ts';

export interface ClientCommand {
  /** A command line run by the shell (`--command "..."`), or an argument vector run as it is (`-- cmd args`). */
  shell?: string;
  argv?: readonly string[];
}

export interface RunBounds {
  timeoutMs: number;
  /** stdout past this many bytes ends the client (a report is one JSON object, not a stream). */
  maxStdoutBytes: number;
  /** bytes of stderr kept, the last ones. */
  stderrTailBytes: number;
}

export const DEFAULT_BOUNDS: RunBounds = { timeoutMs: 30_000, maxStdoutBytes: 1024 * 1024, stderrTailBytes: 2048 };

export interface ClientRun {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  /** stdout went past maxStdoutBytes */
  flooded: boolean;
  /** the process could not be started (the message) */
  spawnError?: string;
  stdout: string;
  stderrTail: string;
  durationMs: number;
  /** Processes the client started that were still running when it ended (or was ended): the kit ended them. */
  leftovers?: Ended[];
}

/** After the client exits, how long its output may take to close before what holds it open is ended. */
const EXIT_GRACE_MS = 150;
/** After a kill, how long the pipes may take to close before the kit stops reading them. */
const CLOSE_GRACE_MS = 500;

export function runClient(command: ClientCommand, env: NodeJS.ProcessEnv, bounds: RunBounds = DEFAULT_BOUNDS, cwd?: string): Promise<ClientRun> {
  const started = performance.now();
  const [file, args] = command.argv !== undefined && command.argv.length > 0 ? [command.argv[0]!, command.argv.slice(1)] : ['/bin/sh', ['-c', command.shell ?? '']];
  const tree = processTree(env);
  return new Promise((resolve) => {
    const out: Buffer[] = [];
    let outBytes = 0;
    let errTail = Buffer.alloc(0);
    let timedOut = false;
    let flooded = false;
    let spawnError: string | undefined;
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    const leftovers: Ended[] = [];
    const timers: NodeJS.Timeout[] = [];
    let done = false;
    // detached: the client leads a new session and process group (setsid).
    const child = spawn(file, args, { env: tree.env, cwd, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    const sweep = (): void => {
      for (const e of tree.sweep(child.pid)) if (!leftovers.some((x) => x.pid === e.pid)) leftovers.push(e);
    };
    const finish = (code: number | null, signal: NodeJS.Signals | null): void => {
      if (done) return;
      done = true;
      timers.forEach(clearTimeout);
      // Whatever is still running now was started by the client and outlived it.
      sweep();
      child.stdout.destroy();
      child.stderr.destroy();
      resolve({
        exitCode: exit?.code ?? code,
        signal: exit?.signal ?? signal,
        timedOut,
        flooded,
        ...(spawnError !== undefined ? { spawnError } : {}),
        stdout: Buffer.concat(out).toString('utf8'),
        stderrTail: errTail.toString('utf8'),
        durationMs: Math.round(performance.now() - started),
        ...(leftovers.length > 0 ? { leftovers } : {}),
      });
    };
    /** Ends the tree, then stops waiting for the pipes after a grace (a process outside the tree may hold them). */
    const end = (): void => {
      sweep();
      timers.push(setTimeout(() => finish(null, null), CLOSE_GRACE_MS));
    };
    timers.push(
      setTimeout(() => {
        timedOut = true;
        end();
      }, bounds.timeoutMs),
    );
    child.stdout.on('data', (b: Buffer) => {
      if (flooded) return;
      outBytes += b.length;
      if (outBytes > bounds.maxStdoutBytes) {
        flooded = true;
        end();
        return;
      }
      out.push(b);
    });
    child.stderr.on('data', (b: Buffer) => {
      errTail = Buffer.concat([errTail, b]);
      if (errTail.length > bounds.stderrTailBytes) errTail = errTail.subarray(errTail.length - bounds.stderrTailBytes);
    });
    child.on('error', (err) => {
      spawnError = err.message;
      // No process to wait for ('close' still comes, but nothing else will).
      timers.push(setTimeout(() => finish(null, null), CLOSE_GRACE_MS));
    });
    child.on('exit', (code, signal) => {
      exit = { code, signal };
      // The client is gone: its output should close at once; a process it left behind may hold it open.
      timers.push(setTimeout(end, EXIT_GRACE_MS));
    });
    child.on('close', (code, signal) => finish(code, signal));
  });
}

/** What the kit had to end besides the client, as a clause of a reason ("" when nothing). */
export function leftoverNote(run: ClientRun): string {
  if (!run.leftovers || run.leftovers.length === 0) return '';
  return run.timedOut || run.flooded ? `, with ${describeEnded(run.leftovers)}` : `; after it exited, ${describeEnded(run.leftovers)} still ran: the kit ended them`;
}

/** Why a run gave no report, in one line with the stderr tail; undefined when the client ended on its own in time. */
export function runProblem(run: ClientRun, timeoutMs: number): string | undefined {
  const tail = run.stderrTail.trim() === '' ? '' : `; stderr ends: ${JSON.stringify(run.stderrTail.trim().split('\n').slice(-5).join('\n'))}`;
  if (run.spawnError !== undefined) return `the client could not be started: ${run.spawnError}${tail}`;
  if (run.timedOut) return `the client did not finish within ${timeoutMs} ms (killed${leftoverNote(run)})${tail}`;
  if (run.flooded) return `the client printed more than the stdout bound allows (killed${leftoverNote(run)})${tail}`;
  if (run.signal !== null) return `the client was ended by ${run.signal}${leftoverNote(run)}${tail}`;
  if (run.exitCode !== 0) return `the client exited with code ${run.exitCode}${leftoverNote(run)}${tail}`;
  return undefined;
}

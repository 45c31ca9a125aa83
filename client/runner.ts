// Runs the client under test once, bounded: a time limit, a cap on stdout, the last bytes of stderr kept. The
// client runs in its own process group so that a timeout or a flood ends it and every process it started (a
// shell, an npx, a language runtime), never anything else.
import { spawn } from 'node:child_process';

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
}

/** Kills the client's process group (the client and what it started); it may be gone already. */
function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // the group is gone
  }
}

export function runClient(command: ClientCommand, env: NodeJS.ProcessEnv, bounds: RunBounds = DEFAULT_BOUNDS, cwd?: string): Promise<ClientRun> {
  const started = performance.now();
  const [file, args] = command.argv !== undefined && command.argv.length > 0 ? [command.argv[0]!, command.argv.slice(1)] : ['/bin/sh', ['-c', command.shell ?? '']];
  return new Promise((resolve) => {
    const out: Buffer[] = [];
    let outBytes = 0;
    let errTail = Buffer.alloc(0);
    let timedOut = false;
    let flooded = false;
    let spawnError: string | undefined;
    const child = spawn(file, args, { env, cwd, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child.pid);
    }, bounds.timeoutMs);
    child.stdout.on('data', (b: Buffer) => {
      if (flooded) return;
      outBytes += b.length;
      if (outBytes > bounds.maxStdoutBytes) {
        flooded = true;
        killGroup(child.pid);
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
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      // A client that exited may leave children behind (a shell's background job): end the group too.
      killGroup(child.pid);
      resolve({
        exitCode: code,
        signal,
        timedOut,
        flooded,
        ...(spawnError !== undefined ? { spawnError } : {}),
        stdout: Buffer.concat(out).toString('utf8'),
        stderrTail: errTail.toString('utf8'),
        durationMs: Math.round(performance.now() - started),
      });
    });
  });
}

/** Why a run gave no report, in one line with the stderr tail; undefined when the client ended on its own in time. */
export function runProblem(run: ClientRun, timeoutMs: number): string | undefined {
  const tail = run.stderrTail.trim() === '' ? '' : `; stderr ends: ${JSON.stringify(run.stderrTail.trim().split('\n').slice(-5).join('\n'))}`;
  if (run.spawnError !== undefined) return `the client could not be started: ${run.spawnError}${tail}`;
  if (run.timedOut) return `the client did not finish within ${timeoutMs} ms (killed)${tail}`;
  if (run.flooded) return `the client printed more than the stdout bound allows (killed)${tail}`;
  if (run.signal !== null) return `the client was ended by ${run.signal}${tail}`;
  if (run.exitCode !== 0) return `the client exited with code ${run.exitCode}${tail}`;
  return undefined;
}

// The tests' child processes, in one place: a server started and waited for until it prints where it listens
// (`startProcess`), a command run to its end within a bound (`runProcess`), and the `chatconform` command itself
// (`CliProcesses`). Every child leads its own process group, so a test stops it (and anything it started) by the
// group's id, never by name; one that outlives the test process is killed with it.
//
// The `chatconform` command runs as a user runs it (its TypeScript loaded through tsx in a clone), as one process,
// not tsx's CLI: that one relays a signal to a child it starts and SIGKILLs it when the child does not acknowledge
// within 30 ms (a loaded machine), which would cut the proxy's reports short on SIGTERM.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { repoRoot } from '../../../run/config.ts';

export const CLI = path.join(repoRoot, 'cli/main.ts');

/** The URL of `mock listening on URL` or `proxy listening on URL` (the first line the commands print). */
export const listeningUrl = (out: string): string | undefined => /^(?:mock|proxy) listening on (http:\/\/\S+)/m.exec(out)?.[1];

/** How a child ended: its code, or the signal that ended it. */
export interface Ending {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface Started {
  url: string;
  child: ChildProcess;
  /** Its process id, which is also its process group's. */
  pid: number;
  stdout: () => string;
  stderr: () => string;
  /** stdout and stderr as they came, interleaved. */
  output: () => string;
  /** Resolves with the exit code (null after a signal). */
  exited: Promise<number | null>;
  /** Resolves with the code and the signal. */
  ended: Promise<Ending>;
  /** Sends a signal to the child's process group. */
  stop(signal?: NodeJS.Signals): void;
  /** SIGTERM to the group, SIGKILL if it has not exited within 5 s; resolves once it exited. */
  close(): Promise<void>;
}

export interface StartOptions {
  cwd?: string;
  /** The child's whole environment (default: this process's). */
  env?: NodeJS.ProcessEnv;
  /** What to wait for in stdout: returns the URL once it is there (default: the commands' listening line). */
  ready?: (stdout: string) => string | undefined;
  /** How long to wait for it (default 30 s); then the group is killed. */
  timeoutMs?: number;
  /** Keep only the last this many characters of each stream (for a server that logs every request). */
  keepChars?: number;
}

export interface Ran extends Ending {
  stdout: string;
  stderr: string;
  /** stdout and stderr as they came, interleaved. */
  output: string;
  /** True when the run outlived its bound and its group was killed. */
  killed: boolean;
}

export interface RunOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** SIGKILL the whole group after this long. */
  boundMs?: number;
  /** Keep only the last this many characters of each stream, and of the interleaved output. */
  keepChars?: number;
  /** Stops the child (SIGTERM to its group) once its stdout so far makes this true (a command that serves instead of refusing). */
  stopWhen?: (stdout: string) => boolean;
  /** Called with the child's pid once it started (the pid of its process group too). */
  onSpawn?: (pid: number) => void;
}

/** SIGTERM (or `signal`) to the child's process group. */
export function stop(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): void {
  try {
    if (child.pid) process.kill(-child.pid, signal);
  } catch {
    // Already gone.
  }
}

// The children still running: a test process that ends without stopping one (a hook timeout, say) takes it along.
const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const c of running) stop(c, 'SIGKILL');
});

/** Spawns `command` as the leader of a new process group, its output piped; `keep` bounds what is kept of each stream. */
function spawnGroup(command: string, args: readonly string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv; keepChars?: number }) {
  const child = spawn(command, args, { cwd: opts.cwd ?? repoRoot, env: opts.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  running.add(child);
  const keep = opts.keepChars ?? Infinity;
  const held = { stdout: '', stderr: '', output: '' };
  // Cut back to `keep` only once twice as much is held: one copy per `keep` characters, not one per chunk.
  const bounded = (s: string) => (s.length > 2 * keep ? s.slice(-keep) : s);
  const last = (s: string) => (s.length > keep ? s.slice(-keep) : s);
  const on = (stream: 'stdout' | 'stderr') => (d: Buffer) => {
    const s = d.toString('utf8');
    held[stream] = bounded(held[stream] + s);
    held.output = bounded(held.output + s);
  };
  const text = {
    get stdout() {
      return last(held.stdout);
    },
    get stderr() {
      return last(held.stderr);
    },
    get output() {
      return last(held.output);
    },
  };
  child.stdout!.on('data', on('stdout'));
  child.stderr!.on('data', on('stderr'));
  const ended = new Promise<Ending>((resolve) =>
    child.once('close', (code, signal) => {
      running.delete(child);
      resolve({ code, signal });
    }),
  );
  return { child, text, ended };
}

/** Starts a process that serves, and resolves once `ready` finds what it waits for in its stdout (by default the listening URL). */
export function startProcess(command: string, args: readonly string[], opts: StartOptions = {}): Promise<Started> {
  const { child, text, ended } = spawnGroup(command, args, opts);
  const ready = opts.ready ?? listeningUrl;
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const exited = ended.then((e) => e.code);
  const what = `${path.basename(command)} ${args.join(' ')}`;
  return new Promise((resolve, reject) => {
    let done = false;
    const fail = (why: string) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      stop(child, 'SIGKILL');
      reject(new Error(`${what}: ${why}: ${text.stdout} ${text.stderr}`));
    };
    const timer = setTimeout(() => fail(`not ready in ${timeoutMs / 1000} s`), timeoutMs);
    child.once('error', (err) => fail(`did not start (${err.message})`));
    void ended.then((e) => fail(`exited ${e.code ?? e.signal} before it was ready`));
    child.stdout!.on('data', () => {
      if (done) return;
      const url = ready(text.stdout);
      if (url === undefined) return;
      done = true;
      clearTimeout(timer);
      resolve({
        url,
        child,
        pid: child.pid!,
        stdout: () => text.stdout,
        stderr: () => text.stderr,
        output: () => text.output,
        exited,
        ended,
        stop: (signal = 'SIGTERM') => stop(child, signal),
        close: async () => {
          if (child.exitCode !== null || child.signalCode !== null) return;
          stop(child, 'SIGTERM');
          const t = setTimeout(() => stop(child, 'SIGKILL'), 5_000);
          await ended;
          clearTimeout(t);
        },
      });
    });
  });
}

/** Runs a command to its end, in its own process group; one that outlives `boundMs` is killed with its group. */
export function runProcess(command: string, args: readonly string[], opts: RunOptions = {}): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const { child, text, ended } = spawnGroup(command, args, opts);
    if (child.pid !== undefined) opts.onSpawn?.(child.pid);
    let killed = false;
    const timer =
      opts.boundMs === undefined
        ? undefined
        : setTimeout(() => {
            killed = true;
            stop(child, 'SIGKILL');
          }, opts.boundMs);
    if (opts.stopWhen) {
      const when = opts.stopWhen;
      child.stdout!.on('data', () => {
        if (when(text.stdout)) stop(child);
      });
    }
    child.once('error', (err) => {
      clearTimeout(timer);
      running.delete(child);
      reject(err);
    });
    void ended.then(({ code, signal }) => {
      clearTimeout(timer);
      resolve({ code, signal, killed, stdout: text.stdout, stderr: text.stderr, output: text.output });
    });
  });
}

/** The command line that starts a script with its arguments. */
export type Launcher = (script: string, args: readonly string[]) => readonly [command: string, ...args: string[]];

/** `node --import tsx SCRIPT …`: one process. */
export const direct: Launcher = (script, args) => [process.execPath, '--import', 'tsx', script, ...args];

/** `npm run NAME -- …` as a user types it in a clone (npm, a shell, then the command, all in the process group). */
export const npmRun =
  (name: string): Launcher =>
  (_script, args) => ['npm', 'run', '--silent', name, '--', ...args];

/** The commands a test file starts; `stopAll()` in its afterAll stops those still running. */
export class CliProcesses {
  private readonly children: ChildProcess[] = [];

  /** `script`: the command's entry point, or another of the kit's scripts run the same way (a bench server). */
  constructor(
    private readonly script: string = CLI,
    private readonly launch: Launcher = direct,
  ) {}

  /** The command line that starts the script with these arguments (the launcher's). */
  private command(args: readonly string[]): [string, string[]] {
    const [command, ...rest] = this.launch(this.script, args);
    return [command, rest];
  }

  /** Starts a command that serves, and resolves once `ready` finds what it waits for in stdout (by default the listening URL). */
  async start(args: readonly string[], ready: (stdout: string) => string | undefined = listeningUrl): Promise<Started> {
    const started = await startProcess(...this.command(args), { ready });
    this.children.push(started.child);
    return started;
  }

  /** Runs a command to its end; one that starts listening instead of refusing is stopped, and its output returned. */
  async run(args: readonly string[]): Promise<Ran> {
    return runProcess(...this.command(args), { stopWhen: (out) => listeningUrl(out) !== undefined });
  }

  stopAll(): void {
    for (const c of this.children) if (c.exitCode === null && c.signalCode === null) stop(c);
  }
}

// The tests' child processes, in one place: a server started and waited for until it prints where it listens
// (`startProcess`), a command run to its end within a bound (`runProcess`), and the `chatconform` command itself
// (`CliProcesses`). Every child leads its own process group, so a test stops it (and anything it started) by the
// group's id, never by name; one that outlives the test process is killed with it.
//
// The `chatconform` command runs as a user runs it, as one node process: from the sources, its TypeScript loaded
// through tsx (`--import`, not tsx's CLI: that one relays a signal to a child it starts and SIGKILLs it when the
// child does not acknowledge within 30 ms, on a loaded machine, which would cut the proxy's reports short on
// SIGTERM); under CHATCONFORM_KIT=installed, the installed package's compiled entry point (support/installed-kit.ts).
// `chatconformCommand` is the one place that chooses.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { repoRoot } from '../../../run/config.ts';
import { installedKitOfRun, KIT_ENV, KIT_PROJECT_ENV, kitMode, type InstalledKit } from './installed-kit.ts';

/** The command's entry point in the sources. */
export const CLI = path.join(repoRoot, 'cli/main.ts');

/** tsx's loader by its URL: `node --import` finds it from any working directory (the bare name only from the repository). */
const TSX_LOADER = import.meta.resolve('tsx');

/** Where the `chatconform` command comes from: the sources (cli/main.ts through tsx), or an installed package. */
export type KitSource = 'sources' | InstalledKit;

/** The run's kit: the installed one under CHATCONFORM_KIT=installed (the global setup installed it), else the sources. */
export function runKit(): KitSource {
  if (kitMode() === 'sources') return 'sources';
  const kit = installedKitOfRun();
  if (!kit) throw new Error(`${KIT_ENV}=installed, but no kit is installed: run with -c playwright.config.ts (its global setup installs one), or name an install in ${KIT_PROJECT_ENV}`);
  return kit;
}

/** The script `chatconform` runs: cli/main.ts, or the installed package's "bin" (cli/chatconform.mjs, running dist/). */
export function kitEntry(kit: KitSource = runKit()): string {
  return kit === 'sources' ? CLI : kit.main;
}

/** Whether a process's argument is the command's script: cli/main.ts, dist/cli/main.js, the package's bin, or npm's shim of it. */
export const isKitEntry = (arg: string): boolean => /(?:^|\/)cli\/(?:main\.[jt]s|chatconform\.mjs)$|\/node_modules\/\.bin\/chatconform$/.test(arg);

/**
 * The command line of `chatconform ARGS` as one node process (`nodeOptions` before the script): from the run's kit
 * unless `kit` names one. Spread it into runProcess/startProcess: `runProcess(...chatconformCommand(['run']), opts)`.
 */
export function chatconformCommand(args: readonly string[], opts: { kit?: KitSource; nodeOptions?: readonly string[] } = {}): [command: string, args: string[]] {
  const kit = opts.kit ?? runKit();
  return [process.execPath, [...(opts.nodeOptions ?? []), ...(kit === 'sources' ? ['--import', TSX_LOADER] : []), kitEntry(kit), ...args]];
}

/** The URL of `mock listening on URL` or `proxy listening on URL` (the first line the commands print). */
export const listeningUrl = (out: string): string | undefined => /^(?:mock|proxy|ui) listening on (http:\/\/\S+)/m.exec(out)?.[1];

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

/**
 * `npm run NAME -- …` as a user types it in a clone (npm, a shell, then the command, all in the process group); with
 * the installed kit, what its user types instead: `npx chatconform NAME …` (npm exec, in the kit's project).
 */
export const npmRun =
  (name: string): Launcher =>
  (_script, args) => {
    const kit = runKit();
    return kit === 'sources' ? ['npm', 'run', '--silent', name, '--', ...args] : ['npm', 'exec', '--prefix', kit.project, '--no', '--', 'chatconform', name, ...args];
  };

/** The commands a test file starts; `stopAll()` in its afterAll stops those still running. */
export class CliProcesses {
  private readonly children: ChildProcess[] = [];

  /**
   * No `script`: the `chatconform` command of the run's kit (chatconformCommand). A `script`: another of the kit's
   * scripts (a bench server), run by `launch` (default: node with tsx).
   */
  constructor(
    private readonly script?: string,
    private readonly launch?: Launcher,
  ) {}

  /** The command line that starts the command with these arguments. */
  private command(args: readonly string[]): [string, string[]] {
    if (this.script === undefined && this.launch === undefined) return chatconformCommand(args);
    const [command, ...rest] = (this.launch ?? direct)(this.script ?? CLI, args);
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

// The `chatconform` command in a child process, as a user runs it (its TypeScript loaded through tsx in a clone):
// started in its own process group, so a test stops it by the group, never by name. One process, not tsx's CLI:
// that one relays a signal to a child it starts and SIGKILLs it when the child does not acknowledge within 30 ms
// (a loaded machine), which would cut the proxy's reports short on SIGTERM.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { repoRoot } from '../../../run/config.ts';

export const CLI = path.join(repoRoot, 'cli/main.ts');

/** The URL of `mock listening on URL` or `proxy listening on URL` (the first line the commands print). */
export const listeningUrl = (out: string): string | undefined => /^(?:mock|proxy) listening on (http:\/\/\S+)/m.exec(out)?.[1];

export interface Started {
  url: string;
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  /** Resolves with the exit code (null after a signal). */
  exited: Promise<number | null>;
}

export interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
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

  private spawn(args: readonly string[]): ChildProcess {
    const [command, ...rest] = this.launch(this.script, args);
    const child = spawn(command, rest, { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    this.children.push(child);
    return child;
  }

  /** Starts a command that serves, and resolves once `ready` finds what it waits for in stdout (by default the listening URL). */
  start(args: readonly string[], ready: (stdout: string) => string | undefined = listeningUrl): Promise<Started> {
    const child = this.spawn(args);
    let out = '';
    let err = '';
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${args.join(' ')}: not ready in 30 s: ${out} ${err}`)), 30_000);
      child.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        const url = ready(out);
        if (url !== undefined) {
          clearTimeout(timer);
          resolve({ url, child, stdout: () => out, stderr: () => err, exited });
        }
      });
      void exited.then((code) => reject(new Error(`${args.join(' ')}: exited ${code} before it was ready: ${err}`)));
    });
  }

  /** Runs a command to its end; one that starts listening instead of refusing is stopped, and its output returned. */
  run(args: readonly string[]): Promise<Ran> {
    const child = this.spawn(args);
    let out = '';
    let err = '';
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (listeningUrl(out) !== undefined) stop(child);
    });
    return new Promise((resolve) => child.once('exit', (code) => resolve({ code, stdout: out, stderr: err })));
  }

  stopAll(): void {
    for (const c of this.children) if (c.exitCode === null && c.signalCode === null) stop(c);
  }
}

/** SIGTERM to the child's process group. */
export function stop(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): void {
  try {
    if (child.pid) process.kill(-child.pid, signal);
  } catch {
    // Already gone.
  }
}

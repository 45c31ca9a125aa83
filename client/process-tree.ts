// Every process a client run started, found and ended: the client runs in its own session and process group, and
// each of its processes carries a mark in its environment (a variable with a token of this run alone), which every
// descendant inherits, one that leaves the group with setsid included. Ending the tree is killing the group, then
// every process that carries the mark, until none is left. Linux reads the marks in /proc; elsewhere the group
// kill is all there is. A process that empties its own environment and leaves the session escapes the sweep:
// the runner still stops waiting for it (it closes the client's output pipes itself).
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';

/** The variable that marks a run's processes. */
export const TREE_VARIABLE = 'CHATCONFORM_CLIENT_TREE';

/** A process the sweep ended: its pid and its command line (cut), for the reason a report gives. */
export interface Ended {
  pid: number;
  command: string;
}

export interface ProcessTree {
  /** The environment the client starts with: `env` and the mark. */
  readonly env: NodeJS.ProcessEnv;
  /** Kills the group of `leader` and every marked process, and returns the marked ones it found (not the leader). */
  sweep(leader: number | undefined): Ended[];
}

function marked(mark: string): number[] {
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return [];
  }
  const out: number[] = [];
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    const pid = Number(name);
    if (pid === process.pid) continue;
    try {
      // NUL-separated NAME=VALUE pairs; a process of another user, or gone, cannot be read and is not ours.
      const environ = readFileSync(`/proc/${name}/environ`, 'latin1');
      if (environ.startsWith(mark) || environ.includes(`\0${mark}`)) out.push(pid);
    } catch {
      // gone, or not ours
    }
  }
  return out;
}

function commandOf(pid: number): string {
  try {
    const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter((a) => a !== '');
    const line = argv.join(' ');
    return line.length > 80 ? `${line.slice(0, 80)}...` : line;
  } catch {
    return '?';
  }
}

function kill(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // gone already
  }
}

export function processTree(env: NodeJS.ProcessEnv): ProcessTree {
  const token = randomBytes(12).toString('hex');
  const mark = `${TREE_VARIABLE}=${token}\0`;
  return {
    env: { ...env, [TREE_VARIABLE]: token },
    sweep(leader) {
      if (leader !== undefined) {
        try {
          process.kill(-leader, 'SIGKILL');
        } catch {
          // the group is gone
        }
      }
      const ended: Ended[] = [];
      // A process may fork while its parent is killed: sweep until a round finds none.
      for (let round = 0; round < 8; round++) {
        const found = marked(mark).filter((pid) => !ended.some((e) => e.pid === pid));
        if (found.length === 0) break;
        for (const pid of found) {
          ended.push({ pid, command: commandOf(pid) });
          kill(pid);
        }
      }
      return ended.filter((e) => e.pid !== leader);
    },
  };
}

/** "1 process it started (pid 123: sleep 60)": what the sweep ended, in words. */
export function describeEnded(ended: readonly Ended[]): string {
  const shown = ended.slice(0, 3).map((e) => `pid ${e.pid}: ${e.command}`).join('; ');
  return `${ended.length} process${ended.length === 1 ? '' : 'es'} it started (${shown}${ended.length > 3 ? '; ...' : ''})`;
}

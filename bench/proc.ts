// What the bench reads of a running process from /proc: its memory, open files, CPU time, and which process of a
// launcher's line serves. Apart from lib.ts, which pins the calling process as it loads.
import { readdirSync, readFileSync } from 'node:fs';

export const procStatus = (pid: number, field: 'VmRSS' | 'VmHWM'): number => {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
};
export const openFds = (pid: number): number => readdirSync(`/proc/${pid}/fd`).length;
/** The last of a process's line of only children (itself when it has none). */
export function servingPid(pid: number): number {
  for (;;) {
    let children: string[];
    try {
      children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean);
    } catch {
      return pid;
    }
    if (children.length !== 1) return pid;
    pid = Number(children[0]);
  }
}
/** CPU time (user + system) a process has used so far, µs (/proc/PID/stat fields 14 and 15, in clock ticks of 10 ms). */
export const cpuMicros = (pid: number): number => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '').split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
};

// Resident memory of a process tree, read from /proc: a run's runner and its workers together.

import { readdirSync, readFileSync } from 'node:fs';

/** Resident memory of `pid` and every process below it, in bytes (a process that ended meanwhile counts 0). */
export function treeRss(pid: number): number {
  return treeProcesses(pid).reduce((sum, p) => sum + p.rss, 0);
}

/** `pid` and every process below it, each with its resident memory in bytes and its command line's first words. */
export function treeProcesses(pid: number): { pid: number; rss: number; command: string }[] {
  const children = new Map<number, number[]>();
  const rss = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const ppid = Number(fields[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(name)]);
      rss.set(Number(name), Number(fields[21]) * 4096);
    } catch {
      // Gone meanwhile.
    }
  }
  const out: { pid: number; rss: number; command: string }[] = [];
  const stack = [pid];
  while (stack.length > 0) {
    const p = stack.pop()!;
    let command = '';
    try {
      command = readFileSync(`/proc/${p}/cmdline`, 'utf8').split('\0').filter(Boolean).map((a) => a.split('/').at(-1)).slice(0, 6).join(' ');
    } catch {
      // Gone meanwhile.
    }
    out.push({ pid: p, rss: rss.get(p) ?? 0, command });
    stack.push(...(children.get(p) ?? []));
  }
  return out;
}

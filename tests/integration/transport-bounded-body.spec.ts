// A target whose catalog is intact but which answers every other request with a 200 MB body: every test finds
// its models and sends its requests, the suite reads at most its body cap (16 MB) of each answer, fails with
// "response larger than N bytes" (the target's answer, judged), and no process of the run grows past 640 MB.
// The peak resident set (VmHWM) of every process of the run is sampled from /proc while it runs.
import { readdirSync, readFileSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import { giganticAnswersTarget } from './support/hostile-targets.ts';
import { cleanup, crashes, runSuite } from './support/suite-runner.ts';

const BODY_BYTES = 200 * 1024 * 1024;
// A worker of the suite idles near 255 MB and collects lazily: the peaks measured here are 470-540 MB, before and after
// the evidence went to files. Reading one 200 MB answer whole (its bytes, then its text) would pass 640 MB on its own.
const RSS_BOUND_MB = 640;
const RUN_BOUND_MS = 300_000;
const CAP = 16 * 1024 * 1024;

interface Peak {
  pid: number;
  role: string;
  vmHwmKb: number;
}

/** Samples VmHWM of every live process of the process group `pgid`, keeping each one's highest value. */
function sampleGroup(pgid: number, peaks: Map<number, Peak>): void {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // The fields after the command name (in parentheses, which may hold spaces): state ppid pgrp ...
      const group = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
      if (group !== pgid) continue;
      const hwm = Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${entry}/status`, 'utf8'))?.[1] ?? 0);
      const pid = Number(entry);
      const cmd = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' ');
      const role = pid === pgid ? 'runner' : /worker/i.test(cmd) ? 'worker' : 'other';
      const old = peaks.get(pid);
      if (!old || hwm > old.vmHwmKb) peaks.set(pid, { pid, role, vmHwmKb: hwm });
    } catch {
      // the process ended between the listing and the read
    }
  }
}

test('a target answering 200 MB bodies: bounded failures, and every process of the run stays under 640 MB', async () => {
  test.setTimeout(RUN_BOUND_MS + 60_000);
  const target = await giganticAnswersTarget(BODY_BYTES);
  const peaks = new Map<number, Peak>();
  let timer: NodeJS.Timeout | undefined;
  try {
    const run = await runSuite({
      baseUrl: target.url,
      profile: null,
      workers: 2,
      requestTimeoutMs: 5_000,
      boundMs: RUN_BOUND_MS,
      label: 'bounded-body',
      extraEnv: { CONFORMANCE_API_KEY: target.apiKey! },
      onSpawn: (pgid) => {
        timer = setInterval(() => sampleGroup(pgid, peaks), 50);
      },
    });
    clearInterval(timer);
    const all = [...peaks.values()].sort((a, b) => b.vmHwmKb - a.vmHwmKb);
    const mb = (kb: number) => (kb / 1024).toFixed(0);
    const workers = all.filter((p) => p.role === 'worker');
    console.log(
      `\n200 MB answers: run ${(run.wallMs / 1000).toFixed(0)} s, exit ${run.code}, ${run.report?.run.requests ?? '?'} requests; ` +
        `peak RSS (VmHWM) of ${workers.length} worker process(es): max ${mb(Math.max(0, ...workers.map((w) => w.vmHwmKb)))} MB; ` +
        `runner ${mb(all.find((p) => p.role === 'runner')?.vmHwmKb ?? 0)} MB; highest five: ${all.slice(0, 5).map((p) => `${p.role} ${mb(p.vmHwmKb)} MB`).join(', ')}\n`,
    );
    const where = `log ${run.logFile}\n${run.tail.slice(-1500)}`;
    expect(run.killed, where).toBe(false);
    expect(run.report, where).toBeDefined();
    expect(run.report!.errors, where).toEqual([]);
    expect(crashes(run.report!), where).toEqual([]);
    // The bounded failure is what the target is judged on.
    expect(readFileSync(`${run.reportDir}/conformance.json`, 'utf8'), where).toContain(`response larger than ${CAP} bytes`);
    expect(workers.length, 'the sampler saw the workers').toBeGreaterThan(0);
    // Many 200 MB answers were read (to the cap), not a handful.
    expect(run.report!.run.requests ?? 0, where).toBeGreaterThan(50);
    for (const p of all) expect(p.vmHwmKb / 1024, `peak RSS of ${p.role} ${p.pid}`).toBeLessThan(RSS_BOUND_MB);
    cleanup(run);
  } finally {
    clearInterval(timer);
    await target.close();
  }
});

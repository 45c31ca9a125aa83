// A client that hangs, crashes, prints garbage or floods stdout: each scenario ends within its bound with an
// `error` that carries the client's stderr tail, and the run goes on to the next scenario. The run owns the client's
// whole process tree: a process that left the client's group with setsid neither holds the run nor survives it.
import { readFileSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import { commandDriver, runClientScenarios } from '../../client/engine.ts';
import { parseReport } from '../../client/protocol.ts';
import { buildClientReport } from '../../client/report.ts';
import { runClient, runProblem } from '../../client/runner.ts';
import { SCENARIOS } from '../../client/scenarios.ts';
import { HANG_BOUND_MS } from '../support/hang-bound.ts';

const node = (code: string): string[] => [process.execPath, '-e', code];
const two = SCENARIOS.filter((s) => s.id === 'stream-plain' || s.id === 'catalog-optional');

// Only the hanging client meets its bound; the others end on their own, given time for node to start on a loaded machine.
const CLIENTS: Record<string, { argv: string[]; problem: RegExp; timeoutMs?: number }> = {
  // A shell, not node: it writes its stderr within milliseconds however loaded the machine, well inside the bound.
  hangs: { argv: ['/bin/sh', '-c', 'echo "waiting for ever" >&2; exec sleep 60'], problem: /did not finish within 1500 ms \(killed\); stderr ends: "waiting for ever"/, timeoutMs: 1500 },
  crashes: { argv: node('process.stderr.write("TypeError: boom\\n    at main (client.js:3:9)\\n"); process.exit(7)'), problem: /exited with code 7; stderr ends: "TypeError: boom\\n    at main/ },
  'prints garbage': { argv: node('console.log("<html>not json</html>"); console.error("oops")'), problem: /stdout is not one JSON object: "<html>not json<\/html>"; stderr ends: "oops"/ },
  floods: { argv: node('const s = "x".repeat(65536); const w = () => process.stdout.write(s, w); w()'), problem: /more than the stdout bound allows \(killed\)/ },
};

for (const [name, client] of Object.entries(CLIENTS)) {
  test(`a client that ${name} gets an error per scenario with its stderr tail, and the run goes on`, async () => {
    const results = await runClientScenarios({ driver: commandDriver({ argv: client.argv }), scenarios: two, bounds: { timeoutMs: client.timeoutMs ?? 30_000, maxStdoutBytes: 256 * 1024 } });
    expect(results.map((r) => r.scenario.id)).toEqual(['stream-plain', 'catalog-optional']);
    for (const r of results) {
      expect(r.problem).toMatch(client.problem);
      expect(r.records.map((x) => x.status)).toEqual(r.scenario.requirements.map(() => 'error'));
    }
    // A client never judged anywhere is a run that could not be done: exit 3, not a pass.
    const report = buildClientReport({ results, command: client.argv.join(' '), startedAt: new Date(), durationMs: 1, seed: 0, reportDir: '/tmp' });
    expect(report.verdict.exitCode).toBe(3);
  });
}

test('a timed-out client is killed with its whole process group, children included', async () => {
  // The shell starts a child that would outlive it; the group kill ends both.
  const run = await runClient({ shell: `${process.execPath} -e "setInterval(() => {}, 1000)" & echo "child $!" >&2; wait` }, process.env, { timeoutMs: 800, maxStdoutBytes: 1024, stderrTailBytes: 1024 });
  expect(run.timedOut).toBe(true);
  const child = Number(/child (\d+)/.exec(run.stderrTail)?.[1]);
  expect(child).toBeGreaterThan(0);
  // Signal 0 probes the pid: it throws ESRCH once the child is gone.
  await expect.poll(() => { try { process.kill(child, 0); return 'alive'; } catch { return 'gone'; } }).toBe('gone');
});

/** Whether a process is still alive (a zombie awaiting its reaper counts as gone). */
function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

// A process the client starts in a session of its own (setsid: outside the client's process group) holds the
// client's output open for two minutes: the run still ends on its own terms (long before the grandchild would: a
// hang bound, not a speed target), says what it ended, and leaves nothing.
const ESCAPES = `${process.execPath} -e "const c = require('child_process').spawn('sleep', ['120'], { detached: true, stdio: 'inherit' }); process.stderr.write('grandchild ' + c.pid + '\\n'); c.unref()"`;

test('a client that exits leaving a setsid grandchild holding its output: the run ends at once, the grandchild ended and named', async () => {
  test.setTimeout(HANG_BOUND_MS + 10_000);
  const results = await runClientScenarios({ driver: commandDriver({ shell: ESCAPES }), scenarios: SCENARIOS.filter((s) => s.id === 'stream-plain'), bounds: { timeoutMs: 3000 } });
  const r = results[0]!;
  // Not timed out: the client's exit ended the wait, the grandchild did not hold it.
  expect(r.run.timedOut).toBe(false);
  expect(r.run.durationMs).toBeLessThan(HANG_BOUND_MS);
  const grandchild = Number(/grandchild (\d+)/.exec(r.run.stderrTail)?.[1]);
  expect(grandchild).toBeGreaterThan(0);
  expect(r.problem).toMatch(new RegExp(`^the client printed nothing on stdout; after it exited, 1 process it started \\(pid ${grandchild}: sleep 120\\) still ran: the kit ended them`));
  await expect.poll(() => alive(grandchild), { timeout: 2000 }).toBe(false);
});

test('a client that hangs with a setsid grandchild: the time bound holds, both are ended, the reason says so', async () => {
  test.setTimeout(HANG_BOUND_MS + 10_000);
  const run = await runClient({ shell: `${ESCAPES}; exec sleep 120` }, process.env, { timeoutMs: 3000, maxStdoutBytes: 1024, stderrTailBytes: 1024 });
  expect(run.timedOut).toBe(true);
  expect(run.durationMs).toBeLessThan(HANG_BOUND_MS);
  const grandchild = Number(/grandchild (\d+)/.exec(run.stderrTail)?.[1]);
  expect(runProblem(run, 3000)).toMatch(new RegExp(`^the client did not finish within 3000 ms \\(killed, with 1 process it started \\(pid ${grandchild}: sleep 120\\)\\)`));
  await expect.poll(() => alive(grandchild), { timeout: 2000 }).toBe(false);
});

test("the client's report: one JSON object, or its last line after logs", () => {
  expect(parseReport('{"text":"hi"}\n')).toEqual({ report: { text: 'hi' } });
  expect(parseReport('debug: starting\n{"text":"hi"}\n')).toEqual({ report: { text: 'hi' } });
  expect(parseReport('')).toEqual({ problem: 'the client printed nothing on stdout' });
  expect(parseReport('[1,2]')).toHaveProperty('problem');
});

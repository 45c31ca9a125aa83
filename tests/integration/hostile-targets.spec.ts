// The suite against targets that misbehave at the transport level: one that hangs, one that answers bytes that
// are not HTTP, one that answers HTML with 200, one that closes streams mid-way, one whose streams never end,
// and one that answers every request with a 100 MB body. Each run (the whole suite, 2 s per-request timeout)
// must finish within RUN_BOUND_MS (past it the run is killed with its workers, and the test fails) and write
// conformance.json. The first three fail the one check before the tests (run/reachability.ts): the run ends there,
// exit 3, saying what happened. The others must never crash (no error outside the tests, no test failed by an
// exception in the suite's code) and name in their evidence what the transport saw (a cut body, a stream the kit
// stopped waiting for, a body over the cap). The six runs go at once: they mostly wait.
import { expect, test } from '@playwright/test';
import {
  closesMidStreamTarget,
  garbageTarget,
  giganticBodyTarget,
  hangingTarget,
  htmlTarget,
  streamsForeverTarget,
  type HostileTarget,
} from './support/hostile-targets.ts';
import { cleanup, crashes, pool, runSuite } from './support/suite-runner.ts';

/** Per-request timeout of the hostile runs (CONFORMANCE_REQUEST_TIMEOUT_MS). */
const REQUEST_TIMEOUT_MS = 2_000;
/**
 * The bound each hostile run must finish within. The six runs together take 40-100 s on an idle two-core
 * machine; the bound leaves room for sharing it with the defect matrix (and whatever else) during npm test.
 */
const RUN_BOUND_MS = 420_000;
const GIGANTIC_BYTES = 100 * 1024 * 1024;

/**
 * The hostile targets are black boxes the suite knows nothing about: no profile (so nothing beyond the contract
 * is asked of them), only a key. The two that put the real mock behind a proxy get one of its keys, so their
 * catalog and completions work until the transport breaks.
 */
const ANY_KEY = 'sk-hostile-0123456789abcdef';

/** The suite's default body cap (CONFORMANCE_MAX_BODY_BYTES). */
const BODY_CAP = 16 * 1024 * 1024;

/**
 * Each target, and how the transport must name what it did in the report's evidence: no response head at all
 * (status 0: a timeout, bytes that are not HTTP), or an answer whose body was cut, too slow or over the cap.
 */
/**
 * `unreached`: the target fails the one check before the tests (run/reachability.ts: it hangs, answers bytes that
 * are not HTTP, or an HTML page): the run ends at once, no test runs, nothing is charged, and the report says what
 * happened in one line (exit 3).
 * `unfinished`: the target answers, but its streams
 * never end: a stream still arriving when the kit stops waiting is `error`, never a failure (slow is not broken), so
 * nothing fails and the verdict is INCOMPLETE (exit 0: it answered). The others answer, badly: judged, and they fail.
 */
const TARGETS: { name: string; start: () => Promise<HostileTarget>; transport?: RegExp; unreached?: RegExp; unfinished?: boolean }[] = [
  { name: 'hangs (accepts, never answers)', start: hangingTarget, unreached: /^[^\n]*the target cannot be reached: no answer from 127\.0\.0\.1:\d+ within 10 s/ },
  { name: 'answers garbage bytes (not HTTP)', start: garbageTarget, unreached: /^[^\n]*the target cannot be reached: 127\.0\.0\.1:\d+ does not answer in HTTP\/1\.1: .*Parse Error/ },
  { name: 'answers HTML with status 200', start: htmlTarget, unreached: /^[^\n]*the target answers, but not as this API: .*answers HTTP 200 with an HTML page/ },
  { name: 'closes the connection mid-stream', start: closesMidStreamTarget, transport: /aborted \(ECONNRESET\)|the connection closed before the response body was complete/ },
  { name: 'streams forever (never [DONE])', start: streamsForeverTarget, transport: /request timed out after 2000 ms while reading the response body/, unfinished: true },
  {
    name: `answers a ${GIGANTIC_BYTES / 1024 / 1024} MB body to every request`,
    start: () => giganticBodyTarget(GIGANTIC_BYTES),
    transport: new RegExp(`response larger than ${BODY_CAP} bytes`),
  },
];

test('hostile targets: the suite finishes in bounded time, reports failures, never crashes or hangs', async ({}, testInfo) => {
  test.setTimeout(RUN_BOUND_MS + 120_000);
  const started = Date.now();
  const results = await pool(TARGETS, TARGETS.length, async ({ name, start, transport, unreached, unfinished }) => {
    const target = await start();
    // The proxies in front of the mock answer their catalog before the run: a cold mock on a loaded machine
    // (six runs starting at once) can miss the run's 2 s discovery timeout, and then nothing would be judged.
    if (target.apiKey) await fetch(`${target.url}/v1/models`, { headers: { authorization: `Bearer ${target.apiKey}` } }).then((r) => r.arrayBuffer());
    try {
      const run = await runSuite({
        baseUrl: target.url,
        requestTimeoutMs: REQUEST_TIMEOUT_MS,
        workers: 1,
        fuzzRuns: 3,
        profile: null,
        extraEnv: { CONFORMANCE_API_KEY: target.apiKey ?? ANY_KEY },
        boundMs: RUN_BOUND_MS,
        label: `hostile-${name.split(' ')[0]}`,
      });
      return { name, run, transport, unreached, unfinished };
    } finally {
      await target.close();
    }
  });

  const lines = [`hostile targets (per-request timeout ${REQUEST_TIMEOUT_MS} ms, bound ${RUN_BOUND_MS / 1000} s per run, all at once):`];
  for (const { name, run } of results) {
    const r = run.report;
    const tests = r ? (r as unknown as { run: { tests: Record<string, number> } }).run.tests : undefined;
    lines.push(
      `  ${name.padEnd(44)} ${`${(run.wallMs / 1000).toFixed(0)} s`.padStart(5)}  exit ${run.killed ? 'killed' : run.code}  ` +
        (r ? `verdict ${r.verdict.result}, ${r.verdict.mustFailed.length} MUST failed, tests ${tests?.unfinished ?? '?'} unfinished / ${tests?.skipped ?? '?'} skipped / ${tests?.judged ?? '?'} judged` : 'no report'),
    );
  }
  lines.push(`  total ${((Date.now() - started) / 1000).toFixed(0)} s`);
  console.log(`\n${lines.join('\n')}\n`);

  for (const { name, run, transport, unreached, unfinished } of results) {
    const r = run.report;
    const where = `target that ${name}: log ${run.logFile}\n${run.tail.slice(-1500)}`;
    expect.soft(run.killed, `the run against the ${where}\nfinishes within ${RUN_BOUND_MS / 1000} s`).toBe(false);
    expect.soft(r, `the run against the ${where}\nwrites conformance.json`).toBeDefined();
    if (!r) continue;
    if (unreached) {
      const tests = (r as unknown as { run: { tests: { total: number } } }).run.tests;
      expect.soft(r.errors, `the run against the ${where}\nends at the reachability check, saying what happened`).toEqual([expect.stringMatching(unreached)]);
      expect.soft(r.verdict.summary, `the run against the ${where}\nheads its verdict with it`).toMatch(/^the target (cannot be reached|answers, but not as this API): /);
      expect.soft(tests.total, `the run against the ${where}\nruns no test`).toBe(0);
      expect.soft(r.verdict.mustFailed, `the run against the ${where}\ncharges nothing`).toEqual([]);
      expect.soft(run.code, `the run against the ${where}\nexits 3`).toBe(3);
      if (!run.killed && r.verdict.result === 'incomplete') cleanup(run);
      continue;
    }
    expect.soft(r.errors, `the run against the ${where}\nhas no error outside its tests (a crash)`).toEqual([]);
    expect.soft(crashes(r), `the run against the ${where}\nfails only on requirement checks, never on an exception in the suite's code`).toEqual([]);
    const counts = (r as unknown as { counts: { error: number } }).counts;
    if (unfinished) {
      expect.soft(r.verdict.result, `the run against the ${where}\nis incomplete, never a pass`).toBe('incomplete');
      expect.soft(r.verdict.mustFailed, `the run against the ${where}\ncharges no failure for a stream the kit stopped waiting for`).toEqual([]);
      expect.soft(counts.error, `the run against the ${where}\nreports the streams it stopped waiting for as error`).toBeGreaterThan(0);
      expect.soft(run.code, `the run against the ${where}\nexits 0 (it answered; nothing failed)`).toBe(0);
    } else {
      expect.soft(r.verdict.result, `the run against the ${where}\nfails`).toBe('fail');
      expect.soft(r.verdict.mustFailed.length, `the run against the ${where}\nreports failed MUST requirements`).toBeGreaterThan(0);
      expect.soft(run.code, `the run against the ${where}\nexits 1`).toBe(1);
    }
    // What the transport saw reaches the report (failure messages, and the evidence exchanges' error).
    if (transport) expect.soft(JSON.stringify(r), `the run against the ${where}\nreports what the transport saw`).toMatch(transport);
    if (!run.killed && r.verdict.result === (unfinished ? 'incomplete' : 'fail') && r.errors.length === 0 && crashes(r).length === 0) cleanup(run);
  }
  await testInfo.attach('hostile-targets', { body: lines.join('\n'), contentType: 'text/plain' });
});

// Proxy parity (the matrix tier): the suite run *through* `chatconform proxy` (started in-process, as the CLI starts
// it: startTrafficProxy) against every black-box defect mode of the matrix, and the proxy's own verdict on the traffic
// it relayed. Each defect's run is the tests that can judge the requirement it breaks (its selection, what `run
// --requirement R` runs: the traffic the suite itself judges R on), as a black box (only a key). Wherever the exchange shows the defect, the proxy fails the defect's requirement by the
// same judge the suite uses (judge/answers.ts and the rest). A defect a proxy cannot see from traffic alone is listed
// below with the reason, as data; one neither seen nor listed is missed, and the test fails on it.
//
// Each defect is a target of a conformance run (run/targets.ts) whose base URL is its own proxy in front of its own
// mock; a run takes a batch of targets (each proxy judges in a worker thread of its own: a batch bounds the threads).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestInfo } from '@playwright/test';
import { DEFECTS, type DefectName, type DefectSpec } from '../../../mock/defects.ts';
import { MOCK_KEYS } from '../../../mock/keys-and-models.ts';
import { startMockServer } from '../../../mock/server.ts';
import { startTrafficProxy } from '../../../proxy/index.ts';
import { primaryOf } from '../../../spec/requirements/index.ts';
import type { ConformanceReport } from '../../../report/json.ts';
import { BLACK_BOX_SEED, blackBoxBlindSpot, FUZZ_RUNS, selectionOfRequirement, targetsTestList, WORKERS } from './defect-matrix.ts';
import { cleanup, runTargets, type SuiteRun } from './suite-runner.ts';

/**
 * The black-box defects a proxy cannot see from the traffic alone, each with why: what the suite knows that an
 * exchange does not say (which key is invalid, what a refusal was for, two answers compared, a probe of its own).
 */
export const NOT_VISIBLE_FROM_TRAFFIC: Partial<Record<DefectName, string>> = {
  'invalid-key-accepted': 'which key is invalid is the suite\'s knowledge (it sends a key it made up); an exchange with a key answered 200 says nothing against the key',
  'unknown-field-rejected': 'a refusal of a request that carries unlisted fields does not say it refused them: the suite sends the same request without them, which traffic does not',
  'client-nested-fields-refused': 'a refusal of a request that carries unlisted nested fields does not say it refused them: the suite sends the same conversation without them, which traffic does not',
  'client-fields-refused': 'a refusal of a request that carries unlisted fields does not say it refused them: the suite sends the same request without them, which traffic does not',
  'include-reasoning-false-refused': 'a refusal of a request with include_reasoning false does not say it refused that field: the suite knows the request was valid, which traffic does not',
  'parts-only-for-user': 'a refusal of a conversation with text parts does not say it refused the parts: the suite sends the same conversation with string content, which traffic does not',
  'effort-accepted': 'the efforts an entry accepts are a gap of the contract (thinking_config): an answer to an effort the traffic cannot place says nothing',
  'oversized-parsed-first': 'LIMIT-002 compares the refusals of two oversized uploads (valid JSON and not): one exchange has no second to compare with',
  'tools-stream-500': 'a 500 to a request with tools is an upstream failure as far as one exchange shows: the suite tells it from a healthy route by the requests around it',
  'search-tool-500': 'a 500 to a request for search is an upstream failure as far as one exchange shows: the suite tells it from a healthy route by the requests around it',
  'unknown-prompt-404': 'a 404 to a chat request is a refusal as far as one exchange shows: that the prompt was valid is the suite\'s knowledge',
  'oversized-reset': 'whether the server sent a 100 (Continue) before it reset the upload is on the client\'s own connection, which the relayed exchange does not show: a bare reset is a refusal to traffic',
  'oversized-reset-mid-upload': 'a connection closed on one oversized upload may be the race of an early answer with the upload: the suite sends it again to tell a close that reproduces, which traffic does not',
};

/** The black-box defects of the matrix: visible to a black box (no cooperation needed to provoke them). */
export function parityDefects(): DefectSpec[] {
  return (DEFECTS as readonly DefectSpec[]).filter((d) => blackBoxBlindSpot(d) === undefined);
}

export interface ParityRow {
  defect: DefectSpec;
  /** The proxy's status for the defect's requirement (from its conformance.json). */
  proxyStatus: string;
  /** The proxy's failed MUST IDs. */
  proxyFailed: string[];
  /** What the suite itself (the same run, through the proxy) failed. */
  suiteFailed: string[];
  outcome: 'seen' | 'not visible' | 'missed';
  why?: string;
}

/** Proxies judge in worker threads of their own: a run takes this many targets at once. */
const BATCH = 12;

async function runBatch(defects: readonly DefectSpec[], label: string): Promise<{ rows: ParityRow[]; run: SuiteRun }> {
  const mocks = await Promise.all(defects.map((d) => startMockServer({ port: 0, defect: d.name as DefectName })));
  const reportRoot = mkdtempSync(path.join(os.tmpdir(), 'chatconform-parity-'));
  const proxies = await Promise.all(mocks.map((m, i) => startTrafficProxy({ upstream: m.url, port: 0, reportDir: path.join(reportRoot, defects[i]!.name), onViolation: () => undefined, log: () => undefined })));
  let run: SuiteRun & { reportOf: (name: string) => { verdict: { mustFailed: string[] } } | undefined };
  const reports: ConformanceReport[] = [];
  const list = path.join(reportRoot, 'tests.txt');
  writeFileSync(list, targetsTestList(defects.map((d) => ({ target: `proxied-${d.name}`, tests: selectionOfRequirement(d.breaks) }))));
  try {
    run = await runTargets(
      defects.map((d, i) => ({ name: `proxied-${d.name}`, baseUrl: proxies[i]!.url, apiKey: MOCK_KEYS.full, seed: BLACK_BOX_SEED })),
      { seed: BLACK_BOX_SEED, fuzzRuns: FUZZ_RUNS, workers: WORKERS, boundMs: 900_000 + defects.length * 30_000, label, extraArgs: ['--test-list', list] },
    );
  } finally {
    for (const p of proxies) reports.push((await p.stop()).report);
    await Promise.all(mocks.map((m) => m.close()));
    rmSync(reportRoot, { recursive: true, force: true });
  }
  const rows = defects.map((d, i): ParityRow => {
    const report = reports[i]!;
    const id = primaryOf(d.breaks);
    const proxyStatus = report.requirements.find((r) => r.id === id)?.status ?? 'absent';
    const wanted = d.expect === 'warn' ? 'warn' : 'fail';
    const blind = NOT_VISIBLE_FROM_TRAFFIC[d.name as DefectName];
    const outcome = proxyStatus === wanted ? 'seen' : blind !== undefined ? 'not visible' : 'missed';
    return { defect: d, proxyStatus, proxyFailed: report.verdict.mustFailed, suiteFailed: run.reportOf(`proxied-${d.name}`)?.verdict.mustFailed ?? [], outcome, ...(blind !== undefined ? { why: blind } : {}) };
  });
  return { rows, run };
}

/** The parity table: seen from traffic, not visible from traffic alone (why), missed. */
export function parityTable(rows: readonly ParityRow[]): string {
  const w = Math.max(...rows.map((r) => r.defect.name.length), 10);
  const lines = [`proxy parity: the suite (each defect's requirement selection) through chatconform proxy against every black-box defect, as a black box (seed ${BLACK_BOX_SEED})`, ''];
  lines.push(`  ${'defect'.padEnd(w)}  ${'breaks'.padEnd(10)}  ${'proxy'.padEnd(8)}  ${'outcome'.padEnd(12)}  suite failed (through the proxy)`);
  for (const r of rows) lines.push(`  ${r.defect.name.padEnd(w)}  ${r.defect.breaks.padEnd(10)}  ${r.proxyStatus.padEnd(8)}  ${r.outcome.padEnd(12)}  ${r.suiteFailed.join(', ') || '-'}${r.outcome === 'missed' ? `   (proxy failed: ${r.proxyFailed.join(', ') || 'none'})` : ''}`);
  const by = (o: ParityRow['outcome']) => rows.filter((r) => r.outcome === o);
  lines.push('');
  lines.push(`  seen from traffic: ${by('seen').length}   not visible from traffic alone: ${by('not visible').length}   missed: ${by('missed').length} (of ${rows.length} black-box defects)`);
  for (const r of by('not visible')) lines.push(`    not visible: ${r.defect.name} (${r.defect.breaks}): ${r.why}${r.proxyStatus === (r.defect.expect === 'warn' ? 'warn' : 'fail') ? ' [seen all the same: drop it from the list]' : ''}`);
  if (by('missed').length > 0) lines.push(`    missed: ${by('missed').map((r) => r.defect.name).join(', ')}`);
  return lines.join('\n');
}

/**
 * Too strict is a defect too: the whole suite through the proxy against the clean mock, as a black box. The suite
 * sends broken requests on purpose (the client's findings); the server's answers must give the proxy no failure.
 */
export async function cleanThroughProxy(): Promise<{ serverFailures: string[]; run: SuiteRun }> {
  const mock = await startMockServer({ port: 0 });
  const reportRoot = mkdtempSync(path.join(os.tmpdir(), 'chatconform-parity-clean-'));
  const proxy = await startTrafficProxy({ upstream: mock.url, port: 0, reportDir: reportRoot, onViolation: () => undefined, log: () => undefined });
  let report: ConformanceReport | undefined;
  let run: SuiteRun;
  try {
    run = await runTargets([{ name: 'proxied-clean', baseUrl: proxy.url, apiKey: MOCK_KEYS.full, seed: BLACK_BOX_SEED }], { seed: BLACK_BOX_SEED, fuzzRuns: FUZZ_RUNS, workers: WORKERS, boundMs: 900_000, label: 'parity-clean' });
  } finally {
    report = (await proxy.stop()).report;
    await mock.close();
    rmSync(reportRoot, { recursive: true, force: true });
  }
  const serverFailures = report.requirements.flatMap((r) => r.evidence.filter((e) => e.status === 'fail' && e.party !== 'client').slice(0, 1).map((e) => `${r.id}: ${(e.message ?? '').split('\n')[0]} (${(e.exchange?.requestBody ?? '').slice(0, 300)} -> ${e.exchange?.status ?? ''} ${(e.exchange?.responseBody ?? '').slice(0, 200)})`));
  return { serverFailures, run };
}

/** Runs every batch, prints and attaches the table; returns the rows (the caller asserts). */
export async function runProxyParity(testInfo: TestInfo, defects: readonly DefectSpec[] = parityDefects()): Promise<{ rows: ParityRow[]; cleanFailures: string[] }> {
  const rows: ParityRow[] = [];
  const runs: SuiteRun[] = [];
  for (let i = 0; i < defects.length; i += BATCH) {
    const batch = await runBatch(defects.slice(i, i + BATCH), `parity-${i / BATCH + 1}`);
    rows.push(...batch.rows);
    runs.push(batch.run);
  }
  const clean = await cleanThroughProxy();
  runs.push(clean.run);
  const table = `${parityTable(rows)}\n  clean mock, the whole suite through the proxy: ${clean.serverFailures.length === 0 ? 'no failure of the server' : `FALSE ALARMS: ${clean.serverFailures.join('; ')}`}`;
  console.log(`\n${table}\n`);
  const file = testInfo.outputPath('proxy-parity.txt');
  writeFileSync(file, `${table}\n`);
  await testInfo.attach('proxy-parity', { path: file, contentType: 'text/plain' });
  if (rows.every((r) => r.outcome !== 'missed') && clean.serverFailures.length === 0) runs.forEach(cleanup);
  return { rows, cleanFailures: clean.serverFailures };
}

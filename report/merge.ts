// `chatconform report merge`: the kit's half of joining shards. Playwright's merge-reports replays the shards' blob
// reports (the test results, evidence included) into the conformance reporter, which aggregates them as one run;
// this module checks the shards belong together (shards 1..n of one n, one seed, profile, target, selection) and
// gives the reporter what no blob holds: the run's facts from each shard's conformance.json, its discovery, its
// ledger, and the shards that are missing.
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Baseline } from './baseline.ts';
import type { ConformanceReport, FailOn, MergeInfo, RunStatus, ShardInfo } from './json.ts';

/** Set for `playwright merge-reports`: the file holding the MergeContext; the reporter then writes the merged report. */
export const MERGE_CONTEXT_ENV = 'CHATCONFORM_MERGE_CONTEXT';

/** Where a shard keeps Playwright's blob report: beside its conformance.json. */
export const BLOB_DIR = 'blob-report';

/** The shards cannot be merged (a missing or foreign report, mismatched shards): exit 3, with what is wrong. */
export class MergeRefused extends Error {}

export interface ShardReport {
  /** The shard's report folder (conformance.json and blob-report/). */
  dir: string;
  report: ConformanceReport;
}

/** What the reporter needs, in `playwright merge-reports`, beside the replayed tests. */
export interface MergeContext {
  kit: ConformanceReport['kit'];
  spec: ConformanceReport['spec'];
  target: ConformanceReport['target'];
  seed?: number;
  fuzzRuns?: number;
  ledger?: { requests: number; cost: number; costedResponses: number };
  selection?: string;
  scope?: string[];
  failOn: FailOn;
  baseline?: Baseline;
  startedAt: string;
  durationMs: number;
  playwrightStatus: RunStatus;
  /** The shards' errors outside the tests, each named by its shard. */
  errors: string[];
  merge: MergeInfo;
}

/**
 * The shard folders DIR... name: a folder holding a conformance.json, or a folder of such folders (the artifacts of
 * a CI matrix, downloaded side by side).
 */
export function shardDirs(args: readonly string[]): string[] {
  const out: string[] = [];
  for (const arg of args) {
    const dir = path.resolve(arg);
    if (existsSync(path.join(dir, 'conformance.json'))) {
      out.push(dir);
      continue;
    }
    const inner = existsSync(dir) && statSync(dir).isDirectory()
      ? readdirSync(dir).sort().map((n) => path.join(dir, n)).filter((d) => existsSync(path.join(d, 'conformance.json')))
      : [];
    if (inner.length === 0) throw new MergeRefused(`${arg}: no conformance.json in it or in its folders (a shard's report folder, from chatconform run --shard i/n)`);
    out.push(...inner);
  }
  return out;
}

/** The blob report files of a shard folder; refuses a shard without one. */
export function blobFiles(dir: string): string[] {
  const blobs = path.join(dir, BLOB_DIR);
  const files = existsSync(blobs) ? readdirSync(blobs).filter((n) => n.endsWith('.zip')).map((n) => path.join(blobs, n)) : [];
  if (files.length === 0) throw new MergeRefused(`${dir}: no Playwright blob report in ${BLOB_DIR}/ (was it written by chatconform run --shard i/n?)`);
  return files;
}

const label = (s: ShardInfo) => `shard ${s.index}/${s.total}`;

/** The settings every shard of one run shares; a merge of shards that differ in one of them is refused. */
const SAME: { what: string; of: (r: ConformanceReport) => unknown }[] = [
  { what: 'the target', of: (r) => (r.target.embeddedMock ? 'the embedded mock' : (r.target.url ?? '(none)')) },
  { what: 'the seed', of: (r) => r.run.seed ?? '(none)' },
  { what: 'the profile', of: (r) => r.target.profile?.path ?? r.target.profile?.name ?? '(none)' },
  { what: 'the runs per property', of: (r) => r.run.fuzzRuns ?? '(default)' },
  { what: 'the selection', of: (r) => r.run.shard?.selection ?? '(whole suite)' },
  { what: 'the gate (fail on)', of: (r) => r.verdict.failOn ?? 'must' },
  { what: 'the baseline', of: (r) => r.verdict.baseline?.file ?? '(none)' },
  { what: 'the kit version', of: (r) => r.kit.version },
  { what: 'the contract', of: (r) => r.spec.sha256 ?? r.spec.file },
];

/** Checks the shards belong to one run and returns what the merged report is built from; MergeRefused otherwise. */
export function planMerge(shards: readonly ShardReport[]): MergeContext {
  if (shards.length === 0) throw new MergeRefused('no shard to merge');
  const foreign = shards.find((s) => !s.report.run.shard);
  if (foreign) throw new MergeRefused(`${foreign.dir}: its conformance.json is not a shard's (no run.shard; it was not run with --shard i/n)`);
  const infos = shards.map((s) => s.report.run.shard!);
  const totals = [...new Set(infos.map((i) => i.total))];
  if (totals.length > 1) throw new MergeRefused(`the shards split the suite differently: ${shards.map((s) => `${s.dir} is ${label(s.report.run.shard!)}`).join(', ')}`);
  const total = totals[0]!;
  const byIndex = new Map<number, ShardReport>();
  for (const s of shards) {
    const i = s.report.run.shard!.index;
    const twice = byIndex.get(i);
    if (twice) throw new MergeRefused(`shard ${i}/${total} is given twice: ${twice.dir} and ${s.dir}`);
    byIndex.set(i, s);
  }
  for (const { what, of } of SAME) {
    const values = new Map<string, string[]>();
    for (const s of shards) {
      const v = JSON.stringify(of(s.report));
      values.set(v, [...(values.get(v) ?? []), label(s.report.run.shard!)]);
    }
    if (values.size > 1) throw new MergeRefused(`the shards are not of one run: they differ in ${what} (${[...values].map(([v, l]) => `${l.join(', ')}: ${v}`).join('; ')})`);
  }
  const ordered = [...byIndex.entries()].sort(([a], [b]) => a - b).map(([, s]) => s);
  const missing = Array.from({ length: total }, (_, i) => i + 1).filter((i) => !byIndex.has(i));
  const first = ordered[0]!.report;
  const shardInfo = first.run.shard!;
  const starts = ordered.map((s) => Date.parse(s.report.run.startedAt));
  const ends = ordered.map((s) => Date.parse(s.report.run.startedAt) + s.report.run.durationMs);
  const digests = new Set(ordered.map((s) => s.report.run.shard!.discovery.sha256));
  const ownSelection = shardInfo.selection;
  const missingNote = missing.length > 0 ? `shards missing from the merge: ${missing.map((i) => `${i}/${total}`).join(', ')}` : undefined;
  const selection = [missingNote, ownSelection].filter((s): s is string => s !== undefined).join('; ');
  const baseline = first.verdict.baseline;
  const ledgers = ordered.map((s) => s.report.run).filter((r) => r.requests !== undefined);
  return {
    kit: first.kit,
    spec: first.spec,
    target: first.target,
    ...(first.run.seed !== undefined ? { seed: first.run.seed } : {}),
    ...(first.run.fuzzRuns !== undefined ? { fuzzRuns: first.run.fuzzRuns } : {}),
    ...(ledgers.length > 0
      ? { ledger: { requests: sum(ledgers.map((r) => r.requests ?? 0)), cost: sum(ledgers.map((r) => r.cost ?? 0)), costedResponses: sum(ledgers.map((r) => r.costedResponses ?? 0)) } }
      : {}),
    ...(selection ? { selection } : {}),
    ...(shardInfo.scope ? { scope: shardInfo.scope } : {}),
    failOn: first.verdict.failOn ?? 'must',
    // Every entry of the baseline is in one of the three lists of each shard's outcome.
    ...(baseline ? { baseline: { file: baseline.file, entries: [...baseline.expected, ...baseline.stale, ...baseline.unjudged] } } : {}),
    startedAt: new Date(Math.min(...starts)).toISOString(),
    durationMs: Math.max(...ends) - Math.min(...starts),
    playwrightStatus: worstStatus(ordered.map((s) => s.report.run.playwrightStatus)),
    errors: ordered.flatMap((s) => s.report.errors.map((e) => `${label(s.report.run.shard!)}: ${e}`)),
    merge: {
      total,
      shards: ordered.map((s) => ({ index: s.report.run.shard!.index, startedAt: s.report.run.startedAt, durationMs: s.report.run.durationMs, discovery: s.report.run.shard!.discovery })),
      missing,
      catalogsDiffer: digests.size > 1,
    },
  };
}

function sum(xs: readonly number[]): number {
  return xs.reduce((a, b) => a + b, 0);
}

/** One status for the shards together: an interrupted or timed-out shard decides, then a failed one. */
function worstStatus(statuses: readonly RunStatus[]): RunStatus {
  for (const s of ['interrupted', 'timedout', 'failed'] as const) if (statuses.includes(s)) return s;
  return 'passed';
}

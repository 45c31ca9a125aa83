// `chatconform report merge`: the kit's half of joining shards. Playwright's merge-reports replays the shards' blob
// reports (the test results, evidence included) into the conformance reporter, which folds them as one run with the
// one fold (fold.ts); this module checks the shards belong together (shards 1..n of one n, one seed, profile,
// target, selection, and every run feature the same), that each shard's blob is the one its report names (its
// digest), and gives the reporter what no blob holds: the run's facts from each shard's conformance.json, its
// discovery, its ledger, the features the fold's steps keep, and the shards that are missing.
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { openRegularFile } from '../spec/file-reader.ts';
import { FOLD_STEPS, type KeptFeatures } from './fold.ts';
import { REPORT_VERSION, type ConformanceReport, type FailOn, type MergeInfo, type ShardInfo, type StopReason } from './json.ts';
import type { CaseCounts } from './results.ts';

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
  /** Where the merged reports are written (set by `report merge`; the replay's reporter reads it here, never from a variable). */
  reportDir?: string;
  kit: ConformanceReport['kit'];
  spec: ConformanceReport['spec'];
  target: ConformanceReport['target'];
  seed?: number;
  fuzzRuns?: number;
  ledger?: { requests: number; cost: number; costedResponses: number };
  selection?: string;
  scope?: string[];
  failOn: FailOn;
  /** What the fold's steps keep of the run's features (trials, baseline, reference, models). */
  features: KeptFeatures;
  /** With a reference: the merged reference run's conformance.json (its shards merged first). */
  referenceReport?: string;
  /** In a run of several targets (the target beside its reference): the target whose cases this merge folds. */
  slotTarget?: string;
  startedAt: string;
  durationMs: number;
  stopReason: StopReason;
  /** The cases the shards' reports count, per status: the replay must hold as many. */
  tests: CaseCounts;
  /**
   * Whether `tests` counts per status as the replay does: not when a shard's report is of version 1, whose counts
   * (Playwright's statuses) the upgrade can only map in total (report/upgrade.ts).
   */
  countsPerStatus: boolean;
  /** The shards' errors outside the tests, each named by its shard. */
  errors: string[];
  merge: MergeInfo;
  /** Where the reporter writes why it refused the replayed cases (one line for `report merge` to print). */
  refusalFile?: string;
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

/**
 * The blob report of a shard folder: the file its conformance.json names, with the digest it names. Refuses a
 * shard whose report names none (written by a kit that did not record it, or the blob reporter wrote none), whose
 * blob is missing, or whose blob is another (another run's, copied into the folder).
 */
export async function shardBlob(s: ShardReport): Promise<string> {
  const shard = s.report.run.shard;
  const who = `${shard ? label(shard) : 'a shard'} (${s.dir})`;
  const named = shard?.blob;
  if (!named) throw new MergeRefused(`${who}: its conformance.json names no blob report (run.shard.blob): run the shard again with this kit`);
  const file = path.join(s.dir, BLOB_DIR, path.basename(named.file));
  if (!existsSync(file)) throw new MergeRefused(`${who}: no blob report ${BLOB_DIR}/${named.file}, which its conformance.json names`);
  const digest = await sha256File(file);
  if (digest !== named.sha256) throw new MergeRefused(`${who}: ${BLOB_DIR}/${named.file} is not the blob its conformance.json was written with (SHA-256 ${digest.slice(0, 12)}, the report names ${named.sha256.slice(0, 12)}): another run's blob?`);
  return file;
}

function sha256File(file: string): Promise<string> {
  let fd: number;
  try {
    // The kit's one reader's check first: a blob that is a FIFO or a device is refused, not waited on.
    ({ fd } = openRegularFile(file, 'the blob'));
  } catch (err) {
    return Promise.reject(new MergeRefused((err as Error).message));
  }
  return new Promise((resolve, reject) => {
    const hash = createHash('sha256');
    createReadStream('', { fd })
      .on('data', (c) => hash.update(c))
      .on('error', (err) => reject(new MergeRefused(`cannot read ${file}: ${err.message}`)))
      .on('end', () => resolve(hash.digest('hex')));
  });
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
  { what: 'the kit version', of: (r) => r.kit.version },
  // Two builds of one version judge differently; a shard from a kit that did not record its build is not this one's.
  { what: 'the kit build', of: (r) => r.kit.build ?? '(not recorded)' },
  { what: 'the contract', of: (r) => r.spec.sha256 ?? r.spec.file },
  // Every feature the fold folds: a merge keeps it, so the shards must agree on it (trials, reference, matrix).
  ...FOLD_STEPS.map((step) => ({
    what: `the ${step.name}`,
    of: (r: ConformanceReport) => {
      const kept = (step.kept as (r: ConformanceReport) => unknown)(r);
      return kept === undefined ? '(none)' : (step.same as (k: unknown) => unknown)(kept);
    },
  })),
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
    features: keptFeatures(ordered.map((s) => s.report)),
    startedAt: new Date(Math.min(...starts)).toISOString(),
    durationMs: Math.max(...ends) - Math.min(...starts),
    stopReason: worstStop(ordered.map((s) => s.report.run.stopReason)),
    tests: testCounts(ordered.map((s) => s.report)),
    countsPerStatus: ordered.every((s) => s.report.reportVersion === REPORT_VERSION),
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

/** One stop reason for the shards together: the worst of theirs. */
function worstStop(reasons: readonly StopReason[]): StopReason {
  for (const r of ['interrupted', 'out-of-time', 'failed-to-run'] as const) if (reasons.includes(r)) return r;
  return 'completed';
}

function testCounts(reports: readonly ConformanceReport[]): CaseCounts {
  const out: CaseCounts = { total: 0, judged: 0, unfinished: 0, skipped: 0, notRun: 0 };
  for (const r of reports) for (const k of Object.keys(out) as (keyof CaseCounts)[]) out[k] += r.run.tests[k];
  return out;
}

/** What every step of the fold keeps from the shards (they agree on it: SAME checked it), joined. */
function keptFeatures(reports: readonly ConformanceReport[]): KeptFeatures {
  const out: Record<string, unknown> = {};
  for (const step of FOLD_STEPS) {
    const kept = reports.map((r) => (step.kept as (r: ConformanceReport) => unknown)(r)).filter((k) => k !== undefined);
    if (kept.length > 0) out[step.name] = (step.join as (ks: unknown[]) => unknown)(kept);
  }
  return out as KeptFeatures;
}

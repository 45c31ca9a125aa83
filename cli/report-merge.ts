// `chatconform report merge DIR... [--report-dir OUT]`: joins the shards of one run (`chatconform run --shard i/n`)
// into the four reports with one verdict and one coverage. The kit checks the shards belong together and that each
// blob is its shard's own (report/merge.ts), and bounds what the blobs may inflate (report/blob-zip.ts); Playwright's
// merge-reports replays the blob reports into the conformance reporter, which folds the tests of all shards as one
// run (report/fold.ts), the reference's shards first when the run had one. Exit: the merged verdict's code; 3 when
// the shards cannot be merged.
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Command } from 'commander';
import { ENV, reportDirOf } from '../run/config.ts';
import { loadReport, ReportFileError } from '../report/load.ts';
import { checkZip, ZipRefused } from '../report/blob-zip.ts';
import { MERGE_CONTEXT_ENV, MergeRefused, planMerge, shardBlob, shardDirs, type ShardReport } from '../report/merge.ts';
import { referenceReportDir } from '../run/reference.ts';
import { withoutInputVariables } from '../run/plan.ts';
import { REFERENCE_PAIR } from '../run/targets.ts';
import { CONFORMANCE_CONFIG, playwrightCli } from './kit-files.ts';
import { ConfigError } from './usage.ts';

export function mergeCommand(done: (code: number) => void): Command {
  return new Command('merge')
    .description('merge the reports of the shards of one run (chatconform run --shard i/n) into the four reports, with one verdict')
    .argument('<dir...>', "a shard's report folder (its conformance.json and blob-report/), or a folder of them")
    .option('--report-dir <dir>', `where the merged reports are written (default ./reports) [${ENV.reportDir}]`)
    .action(async (dirs: string[], opts: { reportDir?: string }) => {
      done(await mergeShards(dirs, path.resolve(opts.reportDir ?? reportDirOf())));
    });
}

/** Checks, merges and writes; resolves to the merged verdict's exit code. */
export async function mergeShards(args: readonly string[], reportDir: string): Promise<number> {
  const shards = readShards(args);
  return mergeRun(shards, reportDir);
}

/**
 * Merges the shards of one run (checked by planMerge) into `reportDir`. With a reference, the shards' reference
 * runs (each shard's reference/ folder) are merged first into `reportDir`/reference, as `chatconform run --reference`
 * runs the reference first, and the target's merge pairs with that report.
 */
async function mergeRun(shards: readonly ShardReport[], reportDir: string, slotTarget?: string): Promise<number> {
  const context = refusedAsConfig(() => planMerge(shards));
  // The target and its reference ran in one run: each shard's blob holds both; each merge folds its own target's cases.
  const own = slotTarget ?? (context.features.reference ? REFERENCE_PAIR.self : undefined);
  if (own !== undefined) context.slotTarget = own;
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'chatconform-merge-'));
  const blobs = path.join(scratch, 'blobs');
  mkdirSync(blobs);
  try {
    // One folder of all blob reports, as merge-reports reads them; each is the one its shard's report names, and
    // within the bounds of what merge-reports may inflate (report/blob-zip.ts).
    for (const [i, s] of shards.entries()) {
      const file = await refusedAsConfigAsync(() => shardBlob(s));
      try {
        await checkZip(file);
      } catch (err) {
        if (err instanceof ZipRefused) throw new ConfigError(`report merge: shard ${s.report.run.shard!.index}/${s.report.run.shard!.total} (${s.dir}): its blob report ${path.basename(file)} is refused: ${err.message}`);
        throw err;
      }
      copyFileSync(file, path.join(blobs, `${i + 1}-${path.basename(file)}`));
    }
    if (context.features.reference) context.referenceReport = await mergeReference(shards, reportDir);
    if (context.merge.missing.length > 0) process.stderr.write(`chatconform: merging ${context.merge.shards.length} of ${context.merge.total} shards; missing: ${context.merge.missing.map((i) => `${i}/${context.merge.total}`).join(', ')} (the merged verdict is partial)\n`);
    context.refusalFile = path.join(scratch, 'refused.txt');
    context.reportDir = reportDir;
    const contextFile = path.join(scratch, 'merge-context.json');
    writeFileSync(contextFile, JSON.stringify(context));
    const env = { ...withoutInputVariables(process.env), [MERGE_CONTEXT_ENV]: contextFile };
    // The replay reads the context file, and no setting's variable (the shard's, the report dir's) of this process.
    await spawnMerge(['merge-reports', '-c', CONFORMANCE_CONFIG, blobs], env);
    if (existsSync(context.refusalFile)) throw new ConfigError(`report merge: ${readFileSync(context.refusalFile, 'utf8').split('\n')[0]}`);
    try {
      const report = loadReport(path.join(reportDir, 'conformance.json'));
      // A report left there by an earlier run is not this merge's.
      if (!report.run.merge || report.run.startedAt !== context.startedAt) throw new ReportFileError('not this merge\'s report');
      return report.verdict.exitCode;
    } catch (err) {
      if (err instanceof ReportFileError) throw new ConfigError(`the merge wrote no report to ${reportDir} (see Playwright's output above)`);
      throw err;
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** The shards' reference runs (reference/ in each shard folder), merged into `reportDir`/reference; its report. */
async function mergeReference(shards: readonly ShardReport[], reportDir: string): Promise<string> {
  const refs = shards.map((s) => {
    const dir = referenceReportDir(s.dir);
    const file = path.join(dir, 'conformance.json');
    if (!existsSync(file)) throw new ConfigError(`report merge: ${s.dir}: its report is paired with a reference run, but ${path.relative(s.dir, file)} is missing`);
    return { dir, report: loadShardReport(file) };
  });
  const out = referenceReportDir(reportDir);
  process.stdout.write(`chatconform: merging the reference run's shards (reports in ${out})\n`);
  await mergeRun(refs, out, REFERENCE_PAIR.reference);
  return path.join(out, 'conformance.json');
}

function readShards(args: readonly string[]): ShardReport[] {
  const dirs = refusedAsConfig(() => shardDirs(args));
  return dirs.map((dir) => ({ dir, report: loadShardReport(path.join(dir, 'conformance.json')) }));
}

function loadShardReport(file: string) {
  try {
    return loadReport(file);
  } catch (err) {
    if (err instanceof ReportFileError) throw new ConfigError(err.message);
    throw err;
  }
}

function refusedAsConfig<T>(f: () => T): T {
  try {
    return f();
  } catch (err) {
    if (err instanceof MergeRefused) throw new ConfigError(`report merge: ${err.message}`);
    throw err;
  }
}

async function refusedAsConfigAsync<T>(f: () => Promise<T>): Promise<T> {
  try {
    return await f();
  } catch (err) {
    if (err instanceof MergeRefused) throw new ConfigError(`report merge: ${err.message}`);
    throw err;
  }
}

function spawnMerge(args: string[], env: NodeJS.ProcessEnv): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [playwrightCli(), ...args], { env, stdio: 'inherit' });
    child.on('error', reject);
    child.on('close', resolve);
  });
}

// `chatconform report merge DIR... [--report-dir OUT]`: joins the shards of one run (`chatconform run --shard i/n`)
// into the four reports with one verdict and one coverage. The kit checks the shards belong together
// (report/merge.ts); Playwright's merge-reports replays their blob reports into the conformance reporter, which
// judges the tests of all shards as one run. Exit: the merged verdict's code; 3 when the shards cannot be merged.
import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Command } from 'commander';
import { ENV, reportDirOf } from '../run/config.ts';
import { loadReport, ReportFileError } from '../report/load.ts';
import { blobFiles, MERGE_CONTEXT_ENV, MergeRefused, planMerge, shardDirs, type ShardReport } from '../report/merge.ts';
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
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'chatconform-merge-'));
  const blobs = path.join(scratch, 'blobs');
  mkdirSync(blobs);
  try {
    const shards = readShards(args);
    const context = refusedAsConfig(() => planMerge(shards));
    // One folder of all blob reports, as merge-reports reads them; each shard's file keeps its own name.
    for (const [i, s] of shards.entries()) {
      for (const file of refusedAsConfig(() => blobFiles(s.dir))) copyFileSync(file, path.join(blobs, `${i + 1}-${path.basename(file)}`));
    }
    if (context.merge.missing.length > 0) process.stderr.write(`chatconform: merging ${context.merge.shards.length} of ${context.merge.total} shards; missing: ${context.merge.missing.map((i) => `${i}/${context.merge.total}`).join(', ')} (the merged verdict is partial)\n`);
    const contextFile = path.join(scratch, 'merge-context.json');
    writeFileSync(contextFile, JSON.stringify(context));
    const env: NodeJS.ProcessEnv = { ...process.env, [MERGE_CONTEXT_ENV]: contextFile, [ENV.reportDir]: reportDir };
    delete env[ENV.shard];
    await spawnMerge(['merge-reports', '-c', CONFORMANCE_CONFIG, blobs], env);
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

function readShards(args: readonly string[]): ShardReport[] {
  const dirs = refusedAsConfig(() => shardDirs(args));
  return dirs.map((dir) => {
    try {
      return { dir, report: loadReport(path.join(dir, 'conformance.json')) };
    } catch (err) {
      if (err instanceof ReportFileError) throw new ConfigError(err.message);
      throw err;
    }
  });
}

function refusedAsConfig<T>(f: () => T): T {
  try {
    return f();
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

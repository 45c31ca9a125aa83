// `npm run bench:shards`: the whole conformance suite against the embedded mock as one, two and four shards, each
// shard run after the other (one machine, as a CI matrix of n jobs would run them side by side), then merged.
// Prints, per n: every shard's time, their sum and the longest (what n parallel jobs would take), the merge's time,
// and whether the merged verdict and every requirement's status equal the one-shard run's. Figures only, never
// asserted (the machine's 1-minute load average is printed beside them: other work swings them). BENCH_SHARDS=1,2,4 and BENCH_SEED=1 choose; BENCH_WORKERS (default 2) is each shard's workers.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CLI = path.join(ROOT, 'cli/main.ts');
const counts = (process.env.BENCH_SHARDS ?? '1,2,4').split(',').map(Number);
const seed = process.env.BENCH_SEED ?? '1';
const workers = process.env.BENCH_WORKERS ?? '2';

interface Report {
  verdict: { result: string };
  requirements: { id: string; status: string }[];
  run: { tests: { total: number } };
}

/** Runs the chatconform command; returns its exit code and wall time in seconds. */
function chatconform(args: string[]): { code: number | null; seconds: number } {
  const started = process.hrtime.bigint();
  const child = spawnSync(process.execPath, ['--import', 'tsx', CLI, ...args], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, CONFORMANCE_BASE_URL: '', CI: '1' } });
  return { code: child.status, seconds: Number(process.hrtime.bigint() - started) / 1e9 };
}

const read = (dir: string): Report => JSON.parse(readFileSync(path.join(dir, 'conformance.json'), 'utf8')) as Report;
const statuses = (r: Report) => new Map(r.requirements.map((x) => [x.id, x.status]));

const scratch = mkdtempSync(path.join(os.tmpdir(), 'chatconform-bench-shards-'));
const lines: string[] = [];
let reference: Report | undefined;
try {
  for (const n of counts) {
    const times: number[] = [];
    const dirs: string[] = [];
    for (let i = 1; i <= n; i++) {
      const dir = path.join(scratch, `${n}`, `${i}`);
      dirs.push(dir);
      const { code, seconds } = chatconform(['run', '--seed', seed, '--workers', workers, '--shard', `${i}/${n}`, '--report-dir', dir]);
      times.push(seconds);
      process.stderr.write(`bench: shard ${i}/${n}: ${seconds.toFixed(1)} s (exit ${code})\n`);
    }
    const out = path.join(scratch, `${n}`, 'merged');
    const merge = chatconform(['report', 'merge', ...dirs, '--report-dir', out]);
    const merged = read(out);
    reference ??= merged;
    const ref = statuses(reference);
    const differ = merged.requirements.filter((r) => ref.get(r.id) !== r.status).map((r) => r.id);
    const sum = times.reduce((a, b) => a + b, 0);
    lines.push(
      `${n} shard(s): ${times.map((t) => t.toFixed(1)).join(' + ')} = ${sum.toFixed(1)} s one after another; longest ${Math.max(...times).toFixed(1)} s; ` +
        `merge ${merge.seconds.toFixed(1)} s (exit ${merge.code}); verdict ${merged.verdict.result}, ${merged.run.tests.total} tests; ` +
        `load ${os.loadavg()[0]!.toFixed(1)}; ${differ.length === 0 ? `every status equals the ${counts[0]}-shard run's` : `statuses differing from the ${counts[0]}-shard run: ${differ.join(', ')}`}`,
    );
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
process.stdout.write(`The whole suite against the embedded mock, seed ${seed}, ${workers} workers per shard, ${os.cpus().length} CPUs:\n${lines.map((l) => `  ${l}`).join('\n')}\n`);

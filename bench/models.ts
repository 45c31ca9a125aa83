// Scale of the per-model matrix (issue 33, item 3): `chatconform run --models all` against the mock serving the
// 200-model catalog (fixtures/catalogs/200-models.json). Prints the run's wall time, its requests (the run's ledger),
// the peak memory of the run's process tree (the runner and its workers, summed, read from /proc while it runs) and
// the models' verdicts. A figure, never a pass/fail: speed targets live here, not in tests.
//
//   npx tsx bench/models.ts                      # all 200 models
//   BENCH_MODELS='bulk/chat-00*' npx tsx bench/models.ts    # a smaller matrix
//   BENCH_FUZZ_RUNS=25 BENCH_WORKERS=2 ...       # the run's fuzz runs (default 3) and workers (default 2)
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startMockServer } from '../mock/server.ts';
import { loadCatalogFile } from '../mock/fixture-files.ts';
import { fileURLToPath } from 'node:url';
import { treeProcesses } from './process-tree.ts';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The parts of conformance.json read here (bench/ stays off run/ and report/: the layers README). */
interface ConformanceReport {
  verdict: { result: string; summary: string };
  run: { durationMs: number; requests?: number; tests: { total: number; judged: number; skipped: number; unfinished: number } };
  requirements: { reason?: string }[];
  models?: { verdict: string; requests?: number }[];
}

const CATALOG = path.join(repoRoot, 'fixtures/catalogs/200-models.json');
/** The mock's profile with the matrix (`modelMatrix: ["all"]`) and a budget per model and in total for 200 models. */
const PROFILE = path.join(repoRoot, 'fixtures/profiles/mock-200-models.json');
const models = process.env.BENCH_MODELS ?? 'all';
const fuzzRuns = process.env.BENCH_FUZZ_RUNS ?? '3';
const workers = process.env.BENCH_WORKERS ?? '2';

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;

async function main(): Promise<void> {
  const catalog = loadCatalogFile(CATALOG);
  const mock = await startMockServer({ port: 0, catalog });
  const reportDir = mkdtempSync(path.join(os.tmpdir(), 'chatconform-bench-models-'));
  const args = ['--import', 'tsx', path.join(repoRoot, 'cli/main.ts'), 'run', '--base-url', mock.url, '--profile', PROFILE, '--models', models, '--seed', '1', '--fuzz-runs', fuzzRuns, '--workers', workers, '--report-dir', reportDir];
  process.stderr.write(`bench: chatconform run --models ${models} against the mock with ${catalog.entries.length} models (fuzz runs ${fuzzRuns}, ${workers} workers)\n`);
  const started = Date.now();
  const child = spawn(process.execPath, args, { cwd: repoRoot, stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, CI: '1', FORCE_COLOR: '0' } });
  // The whole tree's peak, and each process's own (the runner's, the workers'): where the memory goes.
  let peak = 0;
  const own = new Map<number, { rss: number; command: string }>();
  const poll = setInterval(() => {
    const tree = treeProcesses(child.pid!);
    peak = Math.max(peak, tree.reduce((sum, p) => sum + p.rss, 0));
    for (const p of tree) if (p.rss > (own.get(p.pid)?.rss ?? -1)) own.set(p.pid, { rss: p.rss, command: p.command });
  }, 250);
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  clearInterval(poll);
  const wallMs = Date.now() - started;
  await mock.close();
  const text = readFileSync(path.join(reportDir, 'conformance.json'), 'utf8');
  const report = JSON.parse(text) as ConformanceReport;
  rmSync(reportDir, { recursive: true, force: true });
  const rows = report.models ?? [];
  const by = (v: string) => rows.filter((m) => m.verdict === v).length;
  const perModel = rows.map((m) => m.requests ?? 0).sort((a, b) => a - b);
  const budgetSkips = report.requirements.some((r) => (r.reason ?? '').includes('budget exhausted'));
  const lines = [
    `models          ${rows.length} (pass ${by('pass')}, fail ${by('fail')}, skipped ${by('skipped')}, incomplete ${by('incomplete')})`,
    `verdict         ${report.verdict.result}, exit ${code} — ${report.verdict.summary.split('; ').slice(0, 2).join('; ')}`,
    `wall time       ${(wallMs / 1000).toFixed(1)} s (the report's run: ${(report.run.durationMs / 1000).toFixed(1)} s)`,
    `tests           ${report.run.tests.total} (${report.run.tests.judged} judged, ${report.run.tests.skipped} skipped, ${report.run.tests.unfinished} unfinished)`,
    `requests        ${report.run.requests ?? '?'} sent by the run (its ledger; plus the one catalog read that resolves --models all)`,
    `per model       median ${perModel[Math.floor(perModel.length / 2)] ?? 0}, max ${perModel.at(-1) ?? 0} requests`,
    `budget          ${budgetSkips ? 'EXHAUSTED: some tests were skipped for budget' : 'within the budget (no test skipped for it)'}`,
    `peak RSS        ${mb(peak)} (runner and workers together, sampled every 250 ms)`,
    `report          conformance.json ${mb(Buffer.byteLength(text))}`,
    `processes       ${own.size} in the tree over the run; the largest peaks: ${[...own.values()].sort((a, b) => b.rss - a.rss).slice(0, 3).map((p) => `${mb(p.rss)} (${p.command})`).join(', ')}`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

await main();

// `npm run bench:runner`: what a run costs, this checkout beside an older one, in one run. For each case the two
// checkouts run one after the other (interleaved, so a load swing hits both alike), and the figures are printed side
// by side: wall time, peak RSS of the run's process tree, verdict, tests. Figures only, never asserted.
//
//   BENCH_BEFORE=/path/to/older/checkout npm run bench:runner     # before and after (the older one needs node_modules)
//   npm run bench:runner                                          # this checkout alone
//   BENCH_CASES=one,clean,broken,reference BENCH_SEED=1 BENCH_ROUNDS=1 ...
//
// The cases: one requirement against the embedded mock; the whole suite against it; the whole suite against a mock
// whose every answer breaks a MUST (`created` in milliseconds: every completion fails RESP-005); a `--reference` run
// (mock against mock) beside the plain run it doubles. `--models all` over 200 models is bench/models.ts.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { treeRss } from './process-tree.ts';

const AFTER = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BEFORE = process.env.BENCH_BEFORE ? path.resolve(process.env.BENCH_BEFORE) : undefined;
const SEED = process.env.BENCH_SEED ?? '1';
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS) || 1);
const CASES = (process.env.BENCH_CASES ?? 'one,clean,broken,reference').split(',').map((c) => c.trim());
/** The defect that fails every completion answer. */
const BROKEN = 'created-milliseconds';

interface Figures {
  seconds: number;
  peakMb: number;
  code: number | null;
  verdict: string;
  tests: number;
  /** Each requirement's status, to say whether before and after judged alike. */
  statuses: Map<string, string>;
}

interface Started {
  url: string;
  stop: () => void;
}

/** `chatconform mock` of a checkout, on a free port; resolves once it prints its URL. */
function startMock(root: string, args: string[]): Promise<Started> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'cli/main.ts'), 'mock', '--port', '0', ...args], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'], detached: true });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (b: Buffer) => {
      out += b.toString();
      const m = /mock listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) resolve({ url: m[1]!, stop: () => process.kill(-child.pid!, 'SIGTERM') });
    });
    child.on('exit', (code) => reject(new Error(`the mock of ${root} ended (exit ${code}) before it listened`)));
  });
}

/** `chatconform run` of a checkout; its wall time, peak RSS and report. */
async function run(root: string, args: string[]): Promise<Figures> {
  const reportDir = mkdtempSync(path.join(os.tmpdir(), 'chatconform-bench-runner-'));
  const started = Date.now();
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'cli/main.ts'), 'run', '--seed', SEED, '--report-dir', reportDir, ...args], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'ignore'],
    env: { ...process.env, CONFORMANCE_BASE_URL: '', CI: '1', FORCE_COLOR: '0' },
  });
  let peak = 0;
  const poll = setInterval(() => (peak = Math.max(peak, treeRss(child.pid!))), 250);
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  clearInterval(poll);
  const seconds = (Date.now() - started) / 1000;
  const file = path.join(reportDir, 'conformance.json');
  const report = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as { verdict: { result: string }; run: { tests: { total: number } }; requirements: { id: string; status: string }[] }) : undefined;
  rmSync(reportDir, { recursive: true, force: true });
  const statuses = new Map((report?.requirements ?? []).map((r) => [r.id, r.status]));
  return { seconds, peakMb: peak / 1024 / 1024, code, verdict: report?.verdict.result ?? 'no report', tests: report?.run.tests.total ?? 0, statuses };
}

/** One case on one checkout: the figures of the run (with a mock of that checkout where the case needs one). */
async function measure(name: string, root: string): Promise<Figures[]> {
  switch (name) {
    case 'one':
      return [await run(root, ['--requirement', 'STREAM-004'])];
    case 'clean':
      return [await run(root, [])];
    case 'broken': {
      const mock = await startMock(root, ['--defect', BROKEN]);
      try {
        return [await run(root, ['--base-url', mock.url, '--profile', 'mock'])];
      } finally {
        mock.stop();
      }
    }
    case 'reference': {
      const target = await startMock(root, []);
      const reference = await startMock(root, []);
      try {
        const plain = await run(root, ['--base-url', target.url, '--profile', 'mock']);
        const paired = await run(root, ['--base-url', target.url, '--profile', 'mock', '--reference', reference.url, '--reference-profile', 'mock']);
        return [plain, paired];
      } finally {
        target.stop();
        reference.stop();
      }
    }
    default:
      throw new Error(`BENCH_CASES: no case named ${name} (one, clean, broken, reference)`);
  }
}

const LABELS: Record<string, string[]> = {
  one: ['one requirement (STREAM-004), embedded mock'],
  clean: ['whole suite, embedded mock'],
  broken: [`whole suite, mock failing every answer (${BROKEN})`],
  reference: ['whole suite against a mock, plain', 'the same with --reference (a second mock)'],
};

const cell = (f: Figures | undefined) => (f ? `${f.seconds.toFixed(1).padStart(6)} s ${f.peakMb.toFixed(0).padStart(5)} MB  ${`${f.verdict}/${f.code}`.padEnd(13)} ${String(f.tests).padStart(4)}` : '-');

const rows: { label: string; before?: Figures; after: Figures }[] = [];
for (const name of CASES) {
  for (let round = 0; round < ROUNDS; round++) {
    const before = BEFORE ? await measure(name, BEFORE) : undefined;
    const after = await measure(name, AFTER);
    after.forEach((f, i) => rows.push({ label: LABELS[name]![i]!, ...(before ? { before: before[i]! } : {}), after: f }));
    process.stderr.write(`bench: ${name} round ${round + 1}: ${after.map((f) => `${f.seconds.toFixed(1)} s`).join(', ')}${before ? ` (before: ${before.map((f) => `${f.seconds.toFixed(1)} s`).join(', ')})` : ''}\n`);
  }
}
const w = Math.max(...rows.map((r) => r.label.length));
const head = 'wall    peak RSS  verdict/exit tests';
process.stdout.write(`chatconform run, seed ${SEED}, ${os.cpus().length} CPUs, load ${os.loadavg()[0]!.toFixed(1)} at the end\n`);
process.stdout.write(`${''.padEnd(w)}  ${BEFORE ? `${`before (${BEFORE})`.padEnd(40)}  ` : ''}after (${AFTER})\n`);
process.stdout.write(`${''.padEnd(w)}  ${BEFORE ? `${head.padEnd(40)}  ` : ''}${head}\n`);
/** The requirements whose status differs between the two runs of a row. */
const differing = (a: Figures, b: Figures) => [...new Set([...a.statuses.keys(), ...b.statuses.keys()])].filter((id) => a.statuses.get(id) !== b.statuses.get(id));
for (const r of rows) {
  const diff = r.before ? differing(r.before, r.after) : [];
  const same = r.before ? (diff.length === 0 ? '  same statuses' : `  statuses differ: ${diff.slice(0, 8).map((id) => `${id} ${r.before!.statuses.get(id) ?? '-'}->${r.after.statuses.get(id) ?? '-'}`).join(', ')}`) : '';
  process.stdout.write(`${r.label.padEnd(w)}  ${BEFORE ? `${cell(r.before).padEnd(40)}  ` : ''}${cell(r.after)}${same}\n`);
}

// `npm run bench:ladder`: where the mock's served time goes. The bench's chat request, then its streamed chat
// request, against the bare server and a ladder of servers (bench/ladder-server.ts), each doing more of the mock's
// work than the one before, up to the mock itself as `chatconform mock` serves it; the CPU time per request
// between two rungs is what that part of the mock costs when served, with the network and the load generator as
// they are in the bench. Same method as bench/mock.ts (rounds in which the targets take turns, medians, ratios
// within each round, pinned CPUs); BENCH_ROUNDS (default 3), BENCH_DURATION and BENCH_PIN as there. Figures are
// printed, never asserted.
import os from 'node:os';
import path from 'node:path';
import { rmSync, writeFileSync } from 'node:fs';
import { V8_FLAGS } from '../cli/mock.ts';
import type { RecordedAnswer } from './bare-server.ts';
import { buildBench, OUT } from './build.ts';
import { fmt, loadLine, median, pinLine, ratio, record, rounds, scenarios, startChild, type Child } from './lib.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const MOCK_NODE_FLAGS = ['--max-semi-space-size=8'];

const RUNGS = [
  'lean: JSON.parse, schema, key, FNV of the body, words counted, a 40-80 word answer by template',
  '+ the mock\'s request parsing (parseChatRequest)',
  '+ the mock\'s completion and usage (complete, usageOf)',
  '+ the mock\'s response body (toResponseBody, chatJson) or stream (toChunks, encodeStream)',
  'the mock\'s service (every stage and layer), journal off, behind a minimal handler',
  '+ the journal (1,000 entries)',
  'the mock\'s own node:http adapter instead of the minimal handler (startMockServer)',
];

buildBench();
/** The bench's chat request, then its streamed one. */
const ladderScenarios = scenarios.filter((s) => s.method === 'POST');
const recordedFile = path.join(os.tmpdir(), `chatconform-ladder-${process.pid}.json`);
const mock = await startChild('mock', [...MOCK_NODE_FLAGS, path.join(OUT, 'cli/mock-main.js'), '--port', '0'], { printed: /mock listening on (http:\/\/\S+)/ });
const children: Child[] = [mock];
const lines: string[] = [];
try {
  const recorded: RecordedAnswer[] = [];
  for (const s of ladderScenarios) recorded.push(await record(mock.url, s));
  writeFileSync(recordedFile, JSON.stringify(recorded));
  const bare = await startChild('bare', [path.join(OUT, 'bench/bare-server.js'), recordedFile], { printed: /bare listening on (http:\/\/\S+)/ });
  children.push(bare);
  const rungs: Child[] = [];
  for (let i = 0; i < RUNGS.length; i++) {
    // The V8 settings `chatconform mock` gives itself, given to every rung on its command line.
    rungs.push(await startChild(`${i}`, [...MOCK_NODE_FLAGS, ...V8_FLAGS, path.join(OUT, 'bench/ladder-server.js'), String(i)], { printed: /listening on (http:\/\/\S+)/ }));
  }
  children.push(...rungs);
  const ladder = [bare, ...rungs, mock];
  lines.push(`node ${process.version}, ${os.cpus().length} CPUs, load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')} at the start`);
  lines.push(loadLine(ROUNDS), pinLine());
  for (const scenario of ladderScenarios) {
    const figures = await rounds(ladder, scenario, ROUNDS);
    lines.push('', `the bench's ${scenario.name === 'chat' ? 'chat request' : 'streamed chat request'}`);
    lines.push(`${'rung'.padEnd(6)}${'req/s'.padStart(9)}${'cpu'.padStart(7)}${'step'.padStart(7)}   ${'vs bare'.padEnd(20)}what it runs`);
    const b = figures.get('bare')!;
    let previous: number | undefined;
    for (const t of ladder) {
      const fs = figures.get(t.name)!;
      const cpu = median(fs.map((f) => f.cpu));
      const step = previous === undefined || t === bare ? '' : `${cpu - previous >= 0 ? '+' : ''}${(cpu - previous).toFixed(0)}`;
      const what = t === bare ? 'the bare server: the mock\'s bytes replayed' : t === mock ? 'the mock as `chatconform mock` serves it (the rungs have its V8 settings too)' : RUNGS[Number(t.name)]!;
      const bad = fs.reduce((n, f) => n + f.non2xx + f.errors, 0);
      lines.push(`${t.name.padEnd(6)}${fmt(median(fs.map((f) => f.rps)))}${fmt(cpu, 7)}${step.padStart(7)}   ${(t === bare ? '' : ratio(fs, b)).padEnd(20)}${what}${bad > 0 ? `   (non-2xx or errors: ${bad})` : ''}`);
      if (t !== bare) previous = cpu;
    }
  }
} finally {
  for (const c of children) await c.stop();
  rmSync(recordedFile, { force: true });
}
for (const l of lines) console.log(l);

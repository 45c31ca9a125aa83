// One deviation, one card, on the mock's defects combined two at a time: each defect alone and the pair, every target
// running the same tests (the union of the two defects' requirement selections), so the pair's root cause cards are
// exactly the two defects' own (one card each), neither merged (two deviations on one card) nor split (one defect on two). Slow tier:
// one conformance run of twelve targets.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import type { DefectName } from '../../mock/defects.ts';
import { startMockServer } from '../../mock/server.ts';
import type { RootCause } from '../../report/root-causes.ts';
import { defectNamed, FUZZ_RUNS, selectionOfRequirement, targetsTestList } from './support/defect-matrix.ts';
import { cleanup, MOCK_PROFILE, runTargets } from './support/suite-runner.ts';

/** A sample of pairs: two answers of one status (two 500s), a body and a stream defect, auth beside the catalog, two request rules. */
const PAIRS: readonly [DefectName, DefectName][] = [
  ['message-null-fields', 'stream-no-done'],
  ['tools-undeclared-500', 'unavailable-500'],
  ['chat-without-credential', 'catalog-backend-field'],
  ['routing-substitute-model', 'effort-accepted'],
];

const SEED = 20261129;
const cardKey = (c: Pick<RootCause, 'kind' | 'requirements'>) => `${c.kind} ${[...c.requirements].sort().join(',')}`;

test('the mock\'s defects two at a time: each pair gives exactly the cards its two defects give alone', async ({}, testInfo) => {
  test.setTimeout(1_200_000);
  const targets = PAIRS.flatMap(([a, b]) => {
    const tests = [...new Map([...selectionOfRequirement(defectNamed(a).breaks), ...selectionOfRequirement(defectNamed(b).breaks)].map((t) => [`${t.file} ${t.titles.join(' › ')}`, t])).values()];
    return [
      { label: `${a}.${b}`, defects: [a, b], tests },
      { label: `${a}.${b}.only-${a}`, defects: [a], tests },
      { label: `${a}.${b}.only-${b}`, defects: [b], tests },
    ];
  });
  const mocks = await Promise.all(targets.map((t) => startMockServer({ port: 0, defect: t.defects })));
  const listDir = mkdtempSync(path.join(os.tmpdir(), 'chatconform-card-pairs-'));
  const list = path.join(listDir, 'tests.txt');
  writeFileSync(list, targetsTestList(targets.map((t) => ({ target: t.label, tests: t.tests }))));
  try {
    const run = await runTargets(
      targets.map((t, i) => ({ name: t.label, baseUrl: mocks[i]!.url, profile: MOCK_PROFILE, seed: SEED })),
      { seed: SEED, fuzzRuns: FUZZ_RUNS, workers: 2, boundMs: 1_000_000, label: 'card-pairs', extraArgs: ['--test-list', list] },
    );
    for (const t of targets) expect(run.reportOf(t.label), `${t.label}: no report\n${run.tail.slice(-3000)}`).toBeDefined();
    const cardsOf = (label: string): RootCause[] => (JSON.parse(readFileSync(path.join(run.reportDirOf(label), 'conformance.json'), 'utf8')) as { rootCauses: RootCause[] }).rootCauses;
    const lines: string[] = [];
    for (const [a, b] of PAIRS) {
      const pair = cardsOf(`${a}.${b}`);
      const alone = [...cardsOf(`${a}.${b}.only-${a}`), ...cardsOf(`${a}.${b}.only-${b}`)];
      lines.push(`${a} + ${b}: ${pair.length} card(s): ${pair.map(cardKey).join(' | ')}; alone: ${alone.map(cardKey).join(' | ')}`);
      expect.soft(pair.map(cardKey).sort(), `${a} + ${b}`).toEqual(alone.map(cardKey).sort());
      // Each defect alone is one card, and the pair is exactly those two.
      expect.soft(cardsOf(`${a}.${b}.only-${a}`).map(cardKey), `${a} alone`).toHaveLength(1);
      expect.soft(cardsOf(`${a}.${b}.only-${b}`).map(cardKey), `${b} alone`).toHaveLength(1);
      expect.soft(pair, `${a} + ${b}: exactly two cards`).toHaveLength(2);
      for (const d of [a, b]) expect.soft(pair.filter((c) => c.requirements.includes(defectNamed(d).breaks)), `${d} on one card`).toHaveLength(1);
      const ids = pair.flatMap((c) => c.requirements);
      expect.soft(ids.length, `${a} + ${b}: a requirement on two cards`).toBe(new Set(ids).size);
    }
    console.log(lines.join('\n'));
    await testInfo.attach('card-pairs', { body: lines.join('\n'), contentType: 'text/plain' });
    cleanup(run);
  } finally {
    await Promise.all(mocks.map((m) => m.close()));
    rmSync(listDir, { recursive: true, force: true });
  }
});

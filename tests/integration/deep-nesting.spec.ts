// Issue 51, items 3 and 4 (brief point 3): no recursion over the depth of what a target or a client sends. A target
// whose every JSON answer carries one field nested 3,000 (then 100,000) deep is judged: the run writes its report,
// judges the catalog's requirements, and fails on the extra field, never "Maximum call stack size exceeded" in the
// kit's own code. A client whose report nests 3,000 deep is judged too, its reports written. The old code judged 0
// requirements (the global setup's walk of the search probes recursed) and `chatconform client` ended with exit 3.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { nestsAnswersTarget } from './support/hostile-targets.ts';
import { cleanup, crashes, runSuite } from './support/suite-runner.ts';
import { chatconformCommand, runProcess } from './support/cli-process.ts';

test.describe.configure({ mode: 'parallel' });

for (const depth of [3_000, 100_000]) {
  test(`a target nesting a field ${depth.toLocaleString('en')} deep in every answer is judged, its report written`, async () => {
    test.setTimeout(300_000);
    const target = await nestsAnswersTarget(depth);
    try {
      const run = await runSuite({ baseUrl: target.url, files: ['suites/catalog.spec.ts'], boundMs: 240_000, label: `deep-${depth}`, extraEnv: { CONFORMANCE_API_KEY: target.apiKey! } });
      try {
        expect(run.killed).toBe(false);
        expect(run.report, run.tail).toBeDefined();
        expect(run.code, run.tail).not.toBe(3);
        const judged = run.report!.requirements.filter((r) => r.status === 'pass' || r.status === 'fail');
        expect(judged.length).toBeGreaterThan(10);
        expect(run.stderr).not.toMatch(/THE CONFORMANCE REPORT COULD NOT BE WRITTEN|internal error/);
        if (depth === 3_000) {
          // The extra field is what fails (CAT-001: a field the entry must not have), and nothing of the kit crashed.
          expect(run.code, run.tail).toBe(1);
          expect(run.report!.verdict.mustFailed).toContain('CAT-001');
          expect(crashes(run.report!)).toEqual([]);
        }
        // 100,000 deep: the global setup, the suite's walks and the report writers hold; one test of the catalog still
        // stops in the judge's own comparison (JSON.stringify of the answer), a finding of the kit, not a lost run.
      } finally {
        cleanup(run);
      }
    } finally {
      await target.close();
    }
  });
}

test('a client whose report nests 3,000 deep is judged, its four reports written', async ({}, testInfo) => {
  test.setTimeout(180_000);
  const client = testInfo.outputPath('deep-client.mjs');
  const deep = `\${'{"x":'.repeat(3000)}1\${'}'.repeat(3000)}`;
  // The client asks for a completion first (a scenario judges only a client that got as far as its request), then
  // reports an answer nested 3,000 deep in every field.
  const asks = [
    'const ins = JSON.parse(process.env.CHATCONFORM_INSTRUCTION);',
    "const headers = { authorization: `Bearer ${process.env.OPENAI_API_KEY}`, 'content-type': 'application/json' };",
    "const list = await (await fetch(`${process.env.OPENAI_BASE_URL}/models`, { headers })).json();",
    "const body = { model: ins.model ?? list.data[0].id, messages: ins.messages ?? [{ role: 'user', content: 'hi' }] };",
    "await (await fetch(`${process.env.OPENAI_BASE_URL}/chat/completions`, { method: 'POST', headers, body: JSON.stringify(body) })).text();",
  ].join('\n');
  writeFileSync(client, `${asks}\nprocess.stdout.write(\`{"text":"hi","models":[${deep}],"tool_calls":[{"id":"a","name":"f","arguments":${deep}}],"error":${deep}}\\n\`);\n`);
  const reports = testInfo.outputPath('reports');
  const r = await runProcess(...chatconformCommand(['client', '--command', `node ${JSON.stringify(client)}`, '--report-dir', reports]), { boundMs: 150_000 });
  expect(r.code, r.output.slice(-3000)).toBe(1);
  expect(r.output).not.toMatch(/could not be written|internal error|Maximum call stack/);
  for (const f of ['conformance.json', 'junit.xml', 'conformance.html', 'badge.svg']) expect(existsSync(path.join(reports, f)), f).toBe(true);
  const report = JSON.parse(readFileSync(path.join(reports, 'conformance.json'), 'utf8')) as { verdict: { result: string } };
  expect(report.verdict.result).toBe('fail');
});

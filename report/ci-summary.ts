// What a CI page shows of a run. On GitHub Actions: a Markdown summary appended to $GITHUB_STEP_SUMMARY (the
// verdict, counts per section, new failures, stale baseline entries, each failure with its ID and message), and
// one workflow annotation per MUST failure, warning and stale entry, printed as `::error …::` commands.
import { appendFileSync } from 'node:fs';
import type { ConformanceReport } from './json.ts';
import { headline } from './json.ts';
import { causeOrigin, gateResult } from './gate.ts';
import { oneLine } from './results.ts';

const ICON = { pass: '✅', fail: '❌', incomplete: '⚪', partial: '🔷' } as const;

/** A table cell: one line, pipes escaped. */
const cell = (s: string) => oneLine(s, 300).replace(/\|/g, '\\|');

/** The run as Markdown for the job summary. */
export function stepSummary(report: ConformanceReport): string {
  const v = report.verdict;
  const out: string[] = [];
  // The gate's word, as the exit code has it, with why where it differs from the verdict.
  const gate = gateResult(report);
  const icon = gate.tone === 'gated-pass' ? '✅' : gate.word === 'FAIL' ? ICON.fail : ICON[v.result];
  out.push(`## ${icon} chatconform: ${gate.word}${gate.why ? ` (${cell(gate.why)})` : ''}`, '');
  out.push(`**${cell(headline(report))}** · target \`${report.target.url ?? '(none)'}\` · ${report.kit.name} ${report.kit.version}`, '');
  out.push(`Coverage: ${report.coverage.mustJudged} of ${report.coverage.mustDeclared} MUST requirements judged (${report.coverage.percent} %); ${v.requirementsPassed} of ${v.requirementsTotal} requirements pass.`);
  if (v.selection) out.push('', `Partial run (${cell(v.selection)}): not a certification of the whole contract.`);
  out.push('', '| section | pass | fail | warn | error | expected fail | skip | observed | untested |', '|---|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const s of report.sections) out.push(`| §${s.section} ${cell(s.title ?? '')} | ${s.pass} | ${s.fail} | ${s.warn} | ${s.error} | ${s['expected-fail']} | ${s.skip} | ${s.observed} | ${s.untested} |`);
  const c = report.counts;
  out.push(`| **total** | ${c.pass} | ${c.fail} | ${c.warn} | ${c.error} | ${c['expected-fail']} | ${c.skip} | ${c.observed} | ${c.untested} |`);
  const failures = report.requirements.filter((r) => r.status === 'fail');
  if (failures.length > 0) {
    out.push('', `### ${v.baseline ? 'New failures (not in the baseline)' : 'Failures'} (${failures.length})`, '', '| ID | level | § | message |', '|---|---|---|---|');
    // With a reference, each failure says whose it is: the target's own, or inherited from the reference.
    for (const r of failures) {
      const origin = causeOrigin(report, { id: r.id, requirements: [r.id] });
      out.push(`| ${r.id}${origin === 'target-only' || origin === 'inherited' ? ` (${origin})` : ''} | ${r.level} | ${r.section} | ${cell(r.reason ?? 'failed')} |`);
    }
  }
  if (v.baseline && v.baseline.stale.length > 0) {
    out.push('', `### Stale baseline entries (${v.baseline.stale.length})`, '', `These now pass: delete them from \`${v.baseline.file}\`.`, '');
    for (const e of v.baseline.stale) out.push(`- ${e.listedAs ?? e.id}: ${cell(e.reason)}`);
  }
  if (v.baseline && v.baseline.expected.length > 0) out.push('', `Expected failures (baseline): ${v.baseline.expected.map((e) => e.id).join(', ')}.`);
  const warnings = report.requirements.filter((r) => r.status === 'warn');
  if (warnings.length > 0) {
    out.push('', `<details><summary>Warnings (${warnings.length})${v.failOn === 'warn' ? ': they fail the run' : ''}</summary>`, '', '| ID | level | message |', '|---|---|---|');
    for (const r of warnings) out.push(`| ${r.id} | ${r.level} | ${cell(r.reason ?? 'warned')} |`);
    out.push('', '</details>');
  }
  return `${out.join('\n')}\n`;
}

/** Escapes a workflow command's message (and, with `property`, a property value). */
function escapeCommand(s: string, property = false): string {
  const e = s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
  return property ? e.replace(/:/g, '%3A').replace(/,/g, '%2C') : e;
}

/** One workflow command per MUST failure (error), warning (warning) and stale baseline entry (error). */
export function annotations(report: ConformanceReport): string[] {
  const out: string[] = [];
  for (const r of report.requirements) {
    if (r.status !== 'fail' && r.status !== 'warn') continue;
    const test = r.tests[0];
    const where = test?.file !== undefined ? `file=${escapeCommand(test.file, true)},line=${test.line ?? 0},` : '';
    out.push(`::${r.status === 'fail' ? 'error' : 'warning'} ${where}title=${escapeCommand(`${r.id} (${r.level}, §${r.section})`, true)}::${escapeCommand(`${r.statement}\n${r.reason ?? ''}`)}`);
  }
  for (const e of report.verdict.baseline?.stale ?? []) {
    out.push(`::error title=${escapeCommand(`stale baseline: ${e.listedAs ?? e.id}`, true)}::${escapeCommand(`${e.listedAs ?? e.id} now passes; delete its entry from ${report.verdict.baseline!.file}`)}`);
  }
  return out;
}

/** On GitHub Actions: appends the summary and prints the annotations. Returns what it did, for the terminal. */
export function publishToCi(report: ConformanceReport, env: NodeJS.ProcessEnv = process.env, print: (s: string) => void = (s) => process.stdout.write(s)): string[] {
  const done: string[] = [];
  const file = env.GITHUB_STEP_SUMMARY;
  if (file) {
    appendFileSync(file, stepSummary(report));
    done.push('job summary written');
  }
  if (env.GITHUB_ACTIONS === 'true') {
    const lines = annotations(report);
    if (lines.length > 0) print(`${lines.join('\n')}\n`);
    done.push(`${lines.length} annotation(s)`);
  }
  return done;
}

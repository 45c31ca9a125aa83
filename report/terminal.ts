// The summary printed at the end of a run: the verdict with the coverage behind it, the distinct root causes
// ranked by impact, then per top-level section the counts, the MUST failures with their one-line reason, what
// the run cost, and where the reports are. Target text is printed with its control bytes escaped: a target
// never writes escape sequences to the certifier's terminal.
import path from 'node:path';
import { escapeControls } from './control-chars.ts';
import { headline, rerunSentence, subjectLine, type ConformanceReport } from './json.ts';
import { firstLine, location, oneLine, type SectionCounts } from './results.ts';
import { CLASSIFICATION_TEXT, readingText, referenceRunText, trialsText } from './columns.ts';
import { modelsSentence, type ModelResult } from './models.ts';
import { coverageSentence } from './coverage.ts';
import { plural } from './plural.ts';
import { blameLine, causeOrigin, clientOnly, gateResult } from './gate.ts';
import type { RootCause } from './root-causes.ts';

const COLUMNS = ['pass', 'fail', 'warn', 'error', 'expected-fail', 'skip', 'observed', 'untested'] as const;
/** Wider columns for the longer headings. */
const width = (k: (typeof COLUMNS)[number]): number => (k === 'expected-fail' ? 14 : k === 'observed' || k === 'untested' ? 9 : 6);
/** Longest curl printed under its card; a longer one (a large body) is left to conformance.html. */
const MAX_CURL_LINE = 1000;

/**
 * A card's replay in one line, as Schemathesis prints its reproduction: the curl of its exchange (the key read from
 * `$CONFORMANCE_API_KEY`, never its value), or where to find it when it does not fit one line.
 */
export function replayLine(rc: Pick<RootCause, 'exchange'>): string | undefined {
  const curl = rc.exchange?.curl;
  if (!curl) return undefined;
  if (curl.length <= MAX_CURL_LINE && !curl.includes('\n')) return curl;
  return `replay: its curl (${curl.length} characters${curl.includes('\n') ? ', several lines' : ''}) is in conformance.html`;
}

/** Root causes listed in the terminal; the rest are in the reports. */
const MAX_ROOT_CAUSES = 15;
/** Model lines printed in the terminal (failures first); the rest are in the reports. */
const MAX_MODEL_LINES = 40;
const MODEL_ORDER: readonly ModelResult['verdict'][] = ['fail', 'incomplete', 'skipped', 'pass'];

export interface Paint {
  red(s: string): string;
  green(s: string): string;
  yellow(s: string): string;
  bold(s: string): string;
  dim(s: string): string;
}

const plain: Paint = { red: (s) => s, green: (s) => s, yellow: (s) => s, bold: (s) => s, dim: (s) => s };

export function ansiPaint(): Paint {
  const wrap = (open: number, close: number) => (s: string) => `\u001b[${open}m${s}\u001b[${close}m`;
  return { red: wrap(31, 39), green: wrap(32, 39), yellow: wrap(33, 39), bold: wrap(1, 22), dim: wrap(2, 22) };
}

/** Colours when the terminal takes them (FORCE_COLOR wins, NO_COLOR forbids). */
export function paintFor(stream: NodeJS.WriteStream): Paint {
  const env = process.env;
  if (env.FORCE_COLOR && env.FORCE_COLOR !== '0') return ansiPaint();
  if (env.NO_COLOR || !stream.isTTY) return plain;
  return ansiPaint();
}

/** Target text as one safe line of at most n characters. */
function truncate(s: string, n: number): string {
  const safe = escapeControls(s);
  return safe.length <= n ? safe : `${safe.slice(0, n - 1)}…`;
}

function duration(ms: number): string {
  const s = ms / 1000;
  return s < 120 ? `${s.toFixed(1)}s` : `${Math.floor(s / 60)}m${Math.round(s % 60)}s`;
}

/** The per-model matrix: one line for the count, then one per model (failures first). */
function modelLines(models: readonly ModelResult[], paint: Paint): string[] {
  const out = [`  models: ${modelsSentence(models)}`];
  const sorted = [...models].sort((a, b) => MODEL_ORDER.indexOf(a.verdict) - MODEL_ORDER.indexOf(b.verdict));
  for (const m of sorted.slice(0, MAX_MODEL_LINES)) {
    const mark = m.verdict === 'pass' ? paint.green('PASS') : m.verdict === 'fail' ? paint.red('FAIL') : paint.yellow(m.verdict === 'skipped' ? 'SKIP' : 'INCO');
    const what = m.verdict === 'fail' ? `fails ${m.mustFailed.join(', ')}` : m.reason ?? `${m.coverage.mustJudged} of ${m.coverage.mustDeclared} MUST judged`;
    out.push(`    ${mark} ${paint.bold(truncate(m.id, 40).padEnd(40))} ${truncate(what, 100)}${m.requests !== undefined ? paint.dim(` · ${m.requests} requests`) : ''}`);
  }
  if (models.length > MAX_MODEL_LINES) out.push(paint.dim(`    … ${models.length - MAX_MODEL_LINES} more models in conformance.html / conformance.json`));
  return out;
}

export function renderSummary(report: ConformanceReport, files: string[], paint: Paint = plain, cwd = process.cwd()): string {
  const out: string[] = [''];
  const v = report.verdict;
  // The gate's word leads (the exit code follows it); the verdict's own clause comes after the dash.
  const gate = gateResult(report);
  const colour = gate.word === 'PASS' ? paint.green : gate.word === 'FAIL' ? paint.red : paint.yellow;
  const head = `${colour(paint.bold(gate.word))}${gate.why ? ` ${colour(`(${gate.why})`)}` : ''}`;
  out.push(`${paint.bold('chatconform conformance')}: ${head} — ${escapeControls(headline(report))}`);
  out.push(paint.dim(report.subject ? subjectLine(report) : `target ${report.target.url ?? '(none)'}${report.target.embeddedMock ? ' (embedded mock)' : ''}`));
  const blame = blameLine(report);
  if (blame) out.push(paint.bold(`  ${blame}`));
  if (report.run.rerunOf) out.push(paint.bold(`  ${rerunSentence(report.run.rerunOf)}`));
  const c = report.coverage;
  if (v.result === 'incomplete') {
    const why = c.coreNotJudged.length > 0 ? `; core requirements not judged: ${c.coreNotJudged.join(', ')}` : '';
    out.push(paint.yellow(paint.bold(`  INCOMPLETE — NOT A PASS: ${coverageSentence(c)}${why}`)));
  } else if (v.result === 'partial') {
    out.push(paint.yellow(paint.bold(`  PARTIAL RUN — NOT A CERTIFICATION: ${v.selection ?? 'some tests only'}; ${coverageSentence(c)}`)));
  } else out.push(`  coverage: ${coverageSentence(c)}; ${v.requirementsPassed} of ${v.requirementsTotal} requirements pass`);
  if (report.models) out.push(...modelLines(report.models, paint));
  if (report.transport.failed + report.transport.withEvents > 0) {
    const t = report.transport;
    out.push(paint.yellow(`  transport: ${t.failed} of ${t.exchanges} exchanges failed at the transport level${t.withEvents > 0 ? `, ${t.withEvents} met transport events` : ''}; the verdict rests on the rest`));
  }
  out.push('');
  if (report.rootCauses.length > 0) {
    out.push(paint.bold(`  Root causes (${report.rootCauses.length}), by impact:`));
    for (const rc of report.rootCauses.slice(0, MAX_ROOT_CAUSES)) {
      const origin = causeOrigin(report, rc);
      const mark = origin === 'expected (baseline)' ? paint.yellow('XFAIL') : rc.status === 'fail' ? paint.red('FAIL') : paint.yellow('WARN');
      // With a reference: whether the target added the failure or inherited it (the gate of target-only reads this).
      const whose = origin === 'target-only' ? ` ${paint.red('[target-only]')}` : origin === 'inherited' ? ` ${paint.dim('[inherited]')}` : '';
      const reach = `${rc.tests.length} test${rc.tests.length === 1 ? '' : 's'}${rc.blocked.length > 0 ? `, left ${rc.blocked.length} unjudged` : ''}`;
      // A card of a cause (a missing route, a common answer, the error body) names it, then what it breaks.
      const named = rc.kind !== undefined && rc.kind !== 'requirement';
      out.push(`  ${String(rc.rank).padStart(3)}. ${mark} ${paint.bold(rc.id.padEnd(11))}${paint.dim(`§${rc.section}`.padEnd(7))}${paint.dim(rc.tier.padEnd(19))}${truncate(named ? rc.deviation! : rc.message, 120)} ${paint.dim(`(${reach})`)}${whose}`);
      if ((rc.requirements?.length ?? 0) > 1) out.push(paint.dim(`       breaks ${rc.requirements!.join(', ')}`));
      // A card whose requirements rest on the kit's reading of a gap says so.
      for (const id of rc.requirements ?? [rc.id]) {
        const reading = report.requirements.find((r) => r.id === id)?.reading;
        if (reading) out.push(paint.yellow(`       ${id} ${truncate(readingText(reading), 140)}`));
      }
      const replay = replayLine(rc);
      if (replay) out.push(paint.dim(`       ${replay}`));
    }
    if (report.rootCauses.length > MAX_ROOT_CAUSES) out.push(paint.dim(`       … ${report.rootCauses.length - MAX_ROOT_CAUSES} more in conformance.html / conformance.json`));
    out.push('');
  }
  const titleWidth = 34;
  const row = (label: string, c: Pick<SectionCounts, (typeof COLUMNS)[number]>, bold = false) => {
    const cells = COLUMNS.map((k) => {
      const text = String(c[k]).padStart(width(k));
      if (c[k] === 0) return paint.dim(text);
      if (k === 'fail') return paint.red(text);
      if (k === 'warn') return paint.yellow(text);
      if (k === 'pass') return paint.green(text);
      return text;
    });
    const l = label.padEnd(titleWidth);
    return `  ${bold ? paint.bold(l) : l}${cells.join('')}`;
  };
  // A run that stopped before any test has no table to show: every row would be untested.
  if (report.run.tests.total > 0 || report.counts.pass + report.counts.fail > 0) {
    out.push(paint.bold(`  ${'section'.padEnd(titleWidth)}${COLUMNS.map((k) => k.padStart(width(k))).join('')}`));
    for (const s of report.sections) out.push(row(truncate(`§${s.section} ${s.title ?? ''}`.trim(), titleWidth - 1), s));
    out.push(row('total', report.counts, true));
  }
  const failures = report.requirements.filter((r) => r.level === 'MUST' && r.status === 'fail');
  if (failures.length > 0) {
    out.push('', paint.red(paint.bold(`  MUST failures (${failures.length}):`)));
    for (const r of failures) {
      out.push(`    ${paint.bold(r.id.padEnd(11))}${paint.dim(`§${r.section}`.padEnd(8))}${clientOnly(r) ? paint.yellow('[client] ') : ''}${truncate(oneLine(r.reason ?? ''), 150)}`);
      if (r.reading) out.push(paint.yellow(`               ${truncate(readingText(r.reading), 140)}`));
    }
  }
  // --reference: whose failure each one is; --trials: the rates of the model-dependent requirements.
  if (report.run.reference) {
    out.push('', paint.bold(`  reference ${referenceRunText(report.run.reference)}`));
    for (const r of report.requirements.filter((q) => q.differential && (q.status === 'fail' || q.status === 'warn' || q.differential.reference === 'fail' || q.differential.reference === 'warn'))) {
      const d = r.differential!;
      out.push(`    ${paint.bold(r.id.padEnd(11))}target ${r.status.padEnd(6)} reference ${d.reference.padEnd(6)} ${d.classification === 'target-only' ? paint.red(CLASSIFICATION_TEXT['target-only']) : CLASSIFICATION_TEXT[d.classification]}${d.reason ? `: ${truncate(d.reason, 160)}` : ''}`);
    }
  }
  const rated = report.requirements.filter((r) => r.trials);
  if (rated.length > 0) {
    out.push('', paint.bold(`  trials: ${report.run.trials?.k ?? '?'} per model-dependent test`));
    for (const r of rated) out.push(`    ${paint.bold(r.id.padEnd(11))}${r.status.padEnd(6)} ${trialsText(r.trials!)}`);
  }
  const warnings = report.requirements.filter((r) => r.status === 'warn').length;
  if (warnings > 0) out.push(paint.yellow(`  ${warnings} SHOULD/MAY warning(s): see the report${report.verdict.failOn === 'warn' ? ' (they fail the run: fail on warn)' : ''}`));
  const baseline = report.verdict.baseline;
  if (baseline) {
    if (baseline.expected.length > 0) out.push(paint.yellow(`  ${baseline.expected.length} expected failure(s) of the baseline ${baseline.file}: ${baseline.expected.map((e) => e.id).join(', ')}`));
    for (const e of baseline.stale) out.push(paint.red(`  stale baseline: ${e.listedAs ?? e.id} now passes; delete its entry from ${baseline.file}`));
    if (baseline.unjudged.length > 0) out.push(paint.dim(`  listed in the baseline but not judged by this run: ${baseline.unjudged.map((e) => e.id).join(', ')}`));
  }
  const uncharged = report.failedTests.filter((t) => t.failed.length === 0);
  if (uncharged.length > 0) {
    out.push(paint.yellow(`  ${uncharged.length} failed test(s) charged to no requirement (the kit could not judge; they do not decide the exit code):`));
    for (const t of uncharged.slice(0, 10)) out.push(`    ${location(t)} ${truncate(t.title, 80)}: ${truncate(t.error, 100)}`);
  }
  if (report.errors.length > 0) {
    out.push('', paint.red(paint.bold('  errors outside the tests:')));
    for (const e of report.errors) out.push(`    ${truncate(firstLine(e), 160)}`);
  }
  const run = report.run;
  out.push('');
  out.push(
    `  ${[
      `duration ${duration(run.durationMs)}`,
      // What a run of the suite has and observed traffic (the proxy) does not: only the figures the run knows.
      ...(run.seed !== undefined ? [`seed ${run.seed}`] : []),
      ...(run.requests !== undefined ? [`${plural(run.requests, 'request')} sent`] : []),
      ...(run.cost !== undefined ? [`cost ${Number(run.cost.toFixed(6))}`] : []),
    ].join(' · ')}`,
  );
  if (files.length > 0) {
    const dir = path.dirname(files[0]!);
    const rel = path.relative(cwd, dir) || '.';
    out.push(`  reports in ${rel.startsWith('..') ? dir : rel}/: ${files.map((f) => path.basename(f)).join(', ')}`);
  }
  out.push('');
  return out.join('\n');
}

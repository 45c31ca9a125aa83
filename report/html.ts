// conformance.html: the page a certifier publishes. One self-contained file: inline CSS and JS (written in
// report/html/report.css and report.js), no URL of any kind is loaded (a Content-Security-Policy forbids every
// fetch, and admits only this page's own script and style by hash), so it works from file:// and offline.
// Rendered on the server side from the (already redacted) report: every piece of target data is escaped, so HTML
// in a response body shows as text. The script only filters, expands and copies; without it the page still reads
// in full. The page leads with the verdict and the coverage behind it, then the distinct root causes ranked by
// impact, then the matrix.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { escapeControls } from './control-chars.ts';
import { headline, rerunSentence, subjectLine, type ConformanceReport } from './json.ts';
import { blameLine, causeOrigin, gateResult } from './gate.ts';
import { STATUSES, location, oneLine, type CaseCounts, type CaseKind, type ModelTally, type EvidenceItem, type ReportExchange, type RequirementResult, type RequirementStatus, type SectionCounts } from './results.ts';
import type { ImpactTier, RootCause } from './root-causes.ts';
import { CLASSIFICATION_TEXT, readingText, referenceRunText, trialsText } from './columns.ts';
import { modelsSentence } from './models.ts';
import { compareSections } from '../spec/requirements/index.ts';

const LEVELS = ['MUST', 'SHOULD', 'MAY', 'none'] as const;

/** Escapes text for HTML content and quoted attributes; control characters show as `\u0007`. */
export function esc(text: string): string {
  return escapeControls(text)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

const STATUS_LABEL: Record<RequirementStatus, string> = {
  fail: 'fail',
  warn: 'warn',
  error: 'error',
  'expected-fail': 'expected fail',
  pass: 'pass',
  observed: 'observed',
  skip: 'skip',
  untested: 'untested',
};

/** A case's status as the page says it: a judged case that found a failure says so (never a green mark beside it). */
const TEST_STATUS_LABEL: Record<string, string> = { 'not-run': 'not run', unfinished: 'unfinished' };

function pill(status: string): string {
  // The class is the status's slug: a label with a space ("expected fail") names the same status.
  return `<span class="pill s-${esc(status.replace(/ /g, '-'))}">${esc(TEST_STATUS_LABEL[status] ?? status)}</span>`;
}

/** A case's pill: its status, and a judged case that found a failure in the failure's colour. */
function casePill(t: { status: string; error?: string }): string {
  return t.status === 'judged' && t.error ? `<span class="pill s-fail">judged: failed</span>` : pill(t.status);
}

const CASE_WORD: Record<CaseKind, string> = { test: 'Tests', exchange: 'Exchanges', scenario: 'Scenarios' };

/** "114 run: 105 judged, 3 skipped". */
function casesText(c: CaseCounts): string {
  const parts = CASE_COUNT_KEYS.filter((k) => c[k] > 0).map((k) => `${c[k]} ${k === 'notRun' ? 'not run' : k}`);
  return `${c.total} run: ${parts.join(', ') || 'none'}`;
}
const CASE_COUNT_KEYS = ['judged', 'unfinished', 'skipped', 'notRun'] as const;

/** "on 200 models; failed on acme/x (2 of 12)": the models where it failed, by name; the rest counted. */
function byModelText(by: Record<string, ModelTally>): string {
  const failing = Object.entries(by).filter(([, n]) => n.failed > 0);
  return `on ${Object.keys(by).length} models${failing.length > 0 ? `; failed on ${failing.map(([m, n]) => `${m} (${n.failed} of ${n.tests})`).join(', ')}` : ''}`;
}

function anchor(id: string): string {
  return `req-${id}`;
}

function duration(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  const s = ms / 1000;
  if (s < 120) return `${s.toFixed(1)} s`;
  return `${Math.floor(s / 60)} min ${Math.round(s % 60)} s`;
}

/** JSON as it reads best: each value on one line when it fits, its members on their own lines when not. */
export function smartJson(value: unknown, indent = ''): string {
  const flat = JSON.stringify(value);
  if (flat === undefined) return String(value);
  if (value === null || typeof value !== 'object' || indent.length + flat.length <= 100) return flat;
  const inner = `${indent}  `;
  const entries = Array.isArray(value)
    ? value.map((x) => `${inner}${smartJson(x, inner)}`)
    : Object.entries(value).map(([k, x]) => `${inner}${JSON.stringify(k)}: ${smartJson(x, inner)}`);
  if (entries.length === 0) return flat;
  return Array.isArray(value) ? `[\n${entries.join(',\n')}\n${indent}]` : `{\n${entries.join(',\n')}\n${indent}}`;
}

/** A body as it reads best: pretty JSON when it is JSON, else the text. */
function prettyBody(body: string): string {
  const t = body.trim();
  if (t.startsWith('{') || t.startsWith('[')) {
    try {
      return smartJson(JSON.parse(t));
    } catch {
      /* not JSON: shown as sent */
    }
  }
  return body;
}

function headerLines(h: Record<string, string>): string {
  return Object.entries(h)
    .map(([k, v]) => `${k}: ${v}`)
    .join('\n');
}

function curlHtml(x: ReportExchange): string {
  return `<div class="curl"><h5>Replay with curl <button type="button" class="copy" title="Copy the curl">copy</button></h5><pre class="curl-text">${esc(x.curl)}</pre></div>`;
}

/** The request and the response, side by side. */
function halvesHtml(x: ReportExchange): string {
  const request = [`${x.method} ${x.url}`, headerLines(x.requestHeaders), ...(x.requestBody !== undefined ? ['', prettyBody(x.requestBody)] : [])].filter((l, i) => i < 2 ? l !== '' : true).join('\n');
  const events = (x.transportEvents ?? []).map((e) => `transport: ${e.kind}: ${e.message}`);
  const response = x.error
    ? [...events, `no response${x.errorKind ? ` (${x.errorKind})` : ''}: ${x.error} (after ${x.durationMs} ms)`].join('\n')
    : [...events, `HTTP ${x.status} (${x.durationMs} ms)`, headerLines(x.responseHeaders), ...(x.responseBody !== '' ? ['', prettyBody(x.responseBody)] : [])].join('\n');
  return `<div class="exchange">
<div class="half"><h5>Request</h5><pre class="http">${esc(request)}</pre></div>
<div class="half"><h5>Response</h5><pre class="http">${esc(response)}</pre></div>
</div>`;
}

function exchangeHtml(x: ReportExchange): string {
  return `${halvesHtml(x)}\n${curlHtml(x)}`;
}

function evidenceHtml(e: EvidenceItem): string {
  const head = `${pill(e.status)} in <span class="test-title">${esc(e.test)}</span> <span class="loc">${esc(e.location)}</span>${e.fromTestError ? ' <span class="note">(the test ended with this error before judging it)</span>' : ''}${e.party ? ` <span class="note">(the ${e.party === 'client' ? "client's request" : "server's answer"})</span>` : ''}`;
  const parts = [`<div class="ev-head">${head}</div>`];
  if (e.message) parts.push(`<pre class="msg">${esc(e.message)}</pre>`);
  if (e.observed !== undefined) parts.push(`<h5>Observed</h5><pre class="observed">${esc(smartJson(e.observed))}</pre>`);
  if (e.exchange) parts.push(exchangeHtml(e.exchange));
  else if (e.status === 'fail' || e.status === 'warn') parts.push('<p class="note">No request was recorded for this check.</p>');
  return `<div class="ev ev-${esc(e.status)}">${parts.join('\n')}</div>`;
}

function requirementHtml(r: RequirementResult): string {
  const searchText = `${r.id} ${r.section} ${r.statement} ${r.reason ?? ''}`.toLowerCase();
  // --reference: the reference's status beside the target's, and whose failure it is.
  const ref = r.differential ? `<span class="refcol" title="${esc(`${CLASSIFICATION_TEXT[r.differential.classification]}${r.differential.reason ? `: ${r.differential.reason}` : ''}`)}">ref ${pill(r.differential.reference)}<span class="cls cls-${esc(r.differential.classification)}">${esc(r.differential.classification)}</span></span>` : '';
  const rate = r.trials ? `<span class="rate">${esc(trialsText(r.trials))}</span>` : '';
  const reading = r.reading ? `<span class="reading" title="${esc(readingText(r.reading))}">kit's reading</span>` : '';
  const summary = `<summary>${pill(r.status)}${ref}${rate}${reading}<code class="rid">${esc(r.id)}</code><span class="lvl lvl-${esc(r.level)}">${esc(r.level === 'none' ? 'obs.' : r.level)}</span><span class="sec">§${esc(r.section)}</span><span class="stmt">${esc(r.statement)}</span></summary>`;
  const body: string[] = [];
  if (r.reason && r.status !== 'pass') {
    const label = r.status === 'skip' ? 'Skipped' : r.status === 'untested' ? 'Untested' : r.status === 'observed' ? 'Observed' : r.status === 'error' ? 'The kit could not judge' : 'Reason';
    if (r.status === 'skip' && r.skipReasons && r.skipReasons.length > 1) body.push(`<div class="reason"><b>${label}:</b><ul>${r.skipReasons.map((s) => `<li>${esc(s)}</li>`).join('')}</ul></div>`);
    else body.push(`<div class="reason"><b>${label}:</b> <span>${esc(oneLine(r.reason))}</span></div>`);
  }
  if (r.reading) body.push(`<div class="reason reading"><b>The kit's reading:</b> <span>${esc(readingText(r.reading))}</span></div>`);
  if (r.baselineReason) body.push(`<div class="reason"><b>${r.status === 'expected-fail' ? 'Expected failure (baseline)' : r.status === 'pass' ? 'Stale baseline entry (it passes now; delete it)' : 'Listed in the baseline'}:</b> <span>${esc(oneLine(r.baselineReason))}</span></div>`);
  body.push(
    `<p class="facts">${esc(r.kind)} · ${esc(r.check)} · cases: ${r.cases.judged} judged, ${r.cases.unjudged} not judged · records: ${(['pass', 'fail', 'warn', 'error', 'skip', 'observed'] as const)
      .filter((k) => r.records[k] > 0)
      .map((k) => `${r.records[k]} ${k}`)
      .join(', ') || 'none'}</p>`,
  );
  if (r.tests.length > 0) {
    body.push(
      `<h4>Tests</h4><ul class="tests">${r.tests
        .map((t) => `<li>${casePill(t)} <span class="test-title">${esc(t.title)}</span> <span class="loc">${esc(location(t))}</span>${t.error ? `<div class="err">${esc(t.error)}</div>` : ''}</li>`)
        .join('')}${r.testsOmitted > 0 ? `<li class="note">… and ${r.testsOmitted} more${r.byModel ? ` (per model: ${esc(byModelText(r.byModel))})` : ''}</li>` : ''}</ul>`,
    );
  }
  if (r.trials?.failing) body.push(`<h4>Failing trials</h4><ul class="tests">${r.trials.failing.map((f) => `<li>trial ${f.trial + 1}: <span class="test-title">${esc(f.test)}</span><div class="err">${esc(f.reason)}</div></li>`).join('')}</ul>`);
  if (r.differential?.reason) body.push(`<div class="reason"><b>Reference column, ${esc(r.differential.classification)}:</b> <span>${esc(r.differential.reason)}</span></div>`);
  if (r.differential?.referenceEvidence) {
    // The two sides' evidence side by side, the reference's of the same tests first (paired by test and request order).
    body.push(`<div class="paired"><div><h4>Target</h4>${r.evidence.map(evidenceHtml).join('\n') || '<p class="note">No failure recorded.</p>'}</div><div><h4>Reference</h4>${r.differential.referenceReason ? `<div class="reason"><span>${esc(oneLine(r.differential.referenceReason))}</span></div>` : ''}${r.differential.referenceEvidence.map(evidenceHtml).join('\n')}</div></div>`);
  } else if (r.evidence.length > 0) {
    body.push(`<h4>Evidence</h4>${r.evidence.map(evidenceHtml).join('\n')}`);
    if (r.evidenceOmitted > 0) body.push(`<p class="note">${r.evidenceOmitted} more record(s) omitted; conformance.json lists the first ${r.evidence.length}.</p>`);
  }
  return `<details class="req st-${esc(r.status)}" id="${esc(anchor(r.id))}" data-status="${esc(r.status)}" data-level="${esc(r.level)}" data-text="${esc(searchText)}">${summary}<div class="req-body">${body.join('\n')}</div></details>`;
}

function countCells(c: SectionCounts): string {
  return STATUSES.map((s) => `<td class="n${c[s] > 0 ? ` c-${s}` : ''}">${c[s]}</td>`).join('') + `<td class="n total">${c.total}</td>`;
}

function matrixHtml(report: ConformanceReport): string {
  const rows: string[] = [];
  for (const top of report.sections) {
    rows.push(`<tr class="top"><th scope="row"><a href="#sec-${esc(top.section)}">§${esc(top.section)}</a></th><td class="title">${esc(top.title ?? '')}</td>${countCells(top)}</tr>`);
    for (const sub of report.subsections.filter((s) => s.section.split('.')[0] === top.section && s.section !== top.section)) {
      rows.push(`<tr class="sub"><th scope="row">§${esc(sub.section)}</th><td class="title">${esc(sub.title ?? '')}</td>${countCells(sub)}</tr>`);
    }
  }
  const total: SectionCounts = { section: '1', ...report.counts };
  rows.push(`<tr class="sum"><th scope="row">All</th><td class="title"></td>${countCells(total)}</tr>`);
  return `<table class="matrix" id="matrix-table"><thead><tr><th>Section</th><th></th>${STATUSES.map((s) => `<th class="n">${pill(STATUS_LABEL[s])}</th>`).join('')}<th class="n">total</th></tr></thead><tbody>${rows.join('\n')}</tbody></table>`;
}

/**
 * The per-model matrix: a row per model, a column per section its tests reached, each cell the model's worst status
 * there; a cell that failed links to the requirement's card, a verdict to the model's own list of failures.
 */
function modelsHtml(models: NonNullable<ConformanceReport['models']>, report: ConformanceReport): string {
  const sectionOf = new Map(report.requirements.map((r) => [r.id, r.section]));
  const titles = new Map(report.subsections.map((s) => [s.section, s.title ?? '']));
  const columns = [...new Set(models.flatMap((m) => m.sections.map((c) => c.section)))].sort(compareSections);
  const rows = models.map((m, i) => {
    const cells = columns.map((section) => {
      const status = m.sections.find((c) => c.section === section)?.status;
      if (status === undefined) return '<td class="mc"></td>';
      const failing = m.failed.filter((id) => sectionOf.get(id) === section);
      const label = esc(STATUS_LABEL[status]);
      return `<td class="mc s-${status}">${failing.length > 0 ? `<a href="#${anchor(failing[0]!)}" title="${esc(failing.join(', '))}">${label}</a>` : label}</td>`;
    });
    return `<tr><th scope="row"><a href="#model-${i}">${esc(m.id)}</a></th><td>${pill(m.verdict === 'skipped' ? 'skip' : m.verdict)}</td>${cells.join('')}</tr>`;
  });
  const details = models.map((m, i) => {
    // `failed` lists the failures first, then the warnings: a warning (a SHOULD) is called one, never a failure.
    const links = (ids: readonly string[]) => ids.map((id) => `<a href="#${anchor(id)}">${esc(id)}</a>`).join(', ');
    const failing = links(m.failed.slice(0, m.counts.fail));
    const warning = links(m.failed.slice(m.counts.fail));
    const why = m.reason ? ` — ${esc(m.reason)}` : '';
    return `<li id="model-${i}"><b>${esc(m.id)}</b> ${pill(m.verdict === 'skipped' ? 'skip' : m.verdict)}${why}${failing ? ` — fails: ${failing}` : ''}${warning ? ` — warns: ${warning}` : ''} <span class="note">(${m.coverage.mustJudged} of ${m.coverage.mustDeclared} MUST judged${m.requests !== undefined ? `, ${m.requests} requests` : ''})</span></li>`;
  });
  const head = columns.map((c) => `<th title="${esc(titles.get(c) ?? '')}">§${esc(c)}</th>`).join('');
  return `<table class="matrix models-matrix" id="models-table"><thead><tr><th>Model</th><th>Verdict</th>${head}</tr></thead><tbody>${rows.join('\n')}</tbody></table><ol class="models">${details.join('\n')}</ol>`;
}

function metaHtml(report: ConformanceReport): string {
  const t = report.target;
  const run = report.run;
  const items: [string, string][] = [
    ['Target', `${t.url ?? '(none)'}${t.embeddedMock ? ' (embedded reference mock)' : ''}`],
    ['Profile', t.profile ? [t.profile.name, t.profile.path].filter(Boolean).join(' — ') : '(none)'],
    ['Kit', `${report.kit.name} ${report.kit.version}`],
    ['Spec', `${report.spec.file}${report.spec.sha256 ? ` · sha256 ${report.spec.sha256.slice(0, 16)}…` : ' (not readable: no hash)'} · ${report.spec.requirements} requirements, ${report.spec.observations} observations${report.spec.kitOnly ? ` (${report.spec.kitOnly} records about the kit itself are judged by its own tests, not here)` : ''}`],
    ['Started', run.startedAt.replace('T', ' ').replace(/\.\d+Z$/, ' UTC')],
    ['Duration', duration(run.durationMs)],
    ['Seed', run.seed === undefined ? '(none)' : `${run.seed} (replay with CONFORMANCE_SEED=${run.seed})`],
    ['Fuzz runs', run.fuzzRuns === undefined ? '(default)' : String(run.fuzzRuns)],
    ['Requests sent', run.requests === undefined ? '(unknown)' : String(run.requests)],
    ['Cost (sum of usage.cost)', run.cost === undefined ? '(unknown)' : `${Number(run.cost.toFixed(6))}${run.costedResponses ? ` over ${run.costedResponses} response(s)` : ''}`],
    ['Coverage', `${report.coverage.mustJudged} of ${report.coverage.mustDeclared} declared MUST requirements judged (${report.coverage.percent} %)${report.coverage.coreNotJudged.length > 0 ? `; core not judged: ${report.coverage.coreNotJudged.join(', ')}` : ''}`],
    ['Exchanges', `${report.transport.exchanges} recorded; ${report.transport.failed} failed at the transport level${report.transport.withEvents > 0 ? `; ${report.transport.withEvents} met transport events` : ''}`],
    ...(run.reference ? [['Reference', referenceRunText(run.reference)] as [string, string]] : []),
    ...(run.rerunOf ? [['Rerun of', rerunSentence(run.rerunOf)] as [string, string]] : []),
    ...(run.trials ? [['Trials', `${run.trials.k} per model-dependent test; minimum pass rate ${run.trials.minPassRate}`] as [string, string]] : []),
    [CASE_WORD[run.caseKind], casesText(run.tests)],
  ];
  return `<dl class="meta">${items.map(([k, v]) => `<div><dt>${esc(k)}</dt><dd>${esc(v)}</dd></div>`).join('')}</dl>`;
}

function filtersHtml(report: ConformanceReport): string {
  const levelCount = (l: string) => report.requirements.filter((r) => r.level === l).length;
  return `<div class="filters" id="filters">
<fieldset><legend>Status</legend>${STATUSES.map((s) => `<label class="chip"><input type="checkbox" name="status" value="${s}" checked>${pill(STATUS_LABEL[s])}<b>${report.counts[s]}</b></label>`).join('')}</fieldset>
<fieldset><legend>Level</legend>${LEVELS.map((l) => `<label class="chip"><input type="checkbox" name="level" value="${l}" checked><span class="lvl lvl-${l}">${l === 'none' ? 'observation' : l}</span><b>${levelCount(l)}</b></label>`).join('')}</fieldset>
<fieldset class="tools"><legend>Find</legend><input type="search" id="q" placeholder="ID, section or words" aria-label="Search requirements"><button type="button" id="expand">Expand shown</button><button type="button" id="collapse">Collapse all</button><span id="shown" class="shown">${report.requirements.length} of ${report.requirements.length} shown</span></fieldset>
</div>`;
}

function requirementsHtml(report: ConformanceReport): string {
  const groups: string[] = [];
  for (const top of report.sections) {
    const list = report.requirements.filter((r) => r.section.split('.')[0] === top.section);
    groups.push(`<section class="group" id="sec-${esc(top.section)}"><h3>§${esc(top.section)} ${esc(top.title ?? '')}</h3>${list.map(requirementHtml).join('\n')}</section>`);
  }
  return groups.join('\n');
}


function observationsHtml(report: ConformanceReport): string {
  const obs = report.requirements.filter((r) => r.kind === 'observation');
  if (obs.length === 0) return '<p class="note">The catalog has no observations.</p>';
  const rows = obs.map((r) => {
    const seen = r.evidence.filter((e) => e.status === 'observed');
    const what = seen.length > 0
      ? seen.map((e) => {
          const value = e.observed === undefined ? '' : smartJson(e.observed);
          const short = value.length > 1500 ? `${value.slice(0, 1500)}… (${value.length - 1500} more characters in conformance.json)` : value;
          return `<div class="obs-item">${e.message ? `<span class="obs-label">${esc(e.message)}</span>` : ''}${short ? `<pre class="observed">${esc(short)}</pre>` : ''}<span class="loc">${esc(e.location)}</span></div>`;
        }).join('')
      : `<span class="note">${esc(r.reason ?? r.status)}</span>`;
    return `<tr class="st-${esc(r.status)}"><td><a href="#${esc(anchor(r.id))}" class="jump"><code>${esc(r.id)}</code></a><br>${pill(r.status)}</td><td>§${esc(r.section)}</td><td>${esc(r.statement)}</td><td>${what}</td></tr>`;
  });
  return `<table class="obs"><thead><tr><th>ID</th><th>Section</th><th>Where the spec is silent</th><th>What the target did</th></tr></thead><tbody>${rows.join('\n')}</tbody></table>`;
}

function skipsHtml(report: ConformanceReport): string {
  const byReason = new Map<string, string[]>();
  for (const r of report.requirements) {
    if (r.status !== 'skip' && r.status !== 'untested' && r.status !== 'error') continue;
    for (const reason of r.status === 'skip' ? (r.skipReasons ?? [r.reason ?? 'skipped']) : [r.reason ?? r.status]) {
      const key = `${r.status}\u0000${reason}`;
      byReason.set(key, [...(byReason.get(key) ?? []), r.id]);
    }
  }
  if (byReason.size === 0) return '<p class="note">Everything declared was judged.</p>';
  // What the kit could not judge first, then skips (each says what the target or profile lacked), then what no test declares.
  const rank = (key: string) => (key.startsWith('error') ? 0 : key.startsWith('skip') ? 1 : 2);
  const rows = [...byReason].sort((a, b) => rank(a[0]) - rank(b[0]) || b[1].length - a[1].length).map(([key, ids]) => {
    const [status, reason] = key.split('\u0000') as [string, string];
    return `<tr><td>${pill(status)}</td><td>${esc(reason)}</td><td class="n">${ids.length}</td><td class="ids">${ids.map((id) => `<a href="#${esc(anchor(id))}" class="jump">${esc(id)}</a>`).join(' ')}</td></tr>`;
  });
  return `<table class="skips"><thead><tr><th></th><th class="reason-col">Reason</th><th class="n">IDs</th><th>Requirements</th></tr></thead><tbody>${rows.join('\n')}</tbody></table>`;
}

function problemsHtml(report: ConformanceReport): string {
  const parts: string[] = [];
  if (report.errors.length > 0) parts.push(`<h3>Errors outside the tests</h3><ul class="errors">${report.errors.map((e) => `<li><pre>${esc(e)}</pre></li>`).join('')}</ul>`);
  if (report.failedTests.length > 0) {
    parts.push(
      `<h3>Failed ${CASE_WORD[report.run.caseKind].toLowerCase()}</h3><table class="failed-tests"><thead><tr><th>${CASE_WORD[report.run.caseKind].slice(0, -1)}</th><th>Error</th><th>Charged to</th></tr></thead><tbody>${report.failedTests
        .map((t) => `<tr><td>${casePill(t)} ${esc(t.title)}<br><span class="loc">${esc(location(t))}</span></td><td><pre class="msg">${esc(t.error)}</pre></td><td>${t.failed.length > 0 ? t.failed.map((id) => `<a href="#${esc(anchor(id))}" class="jump">${esc(id)}</a>`).join(' ') : '<span class="note">no requirement (the kit could not judge: its IDs are errors, not failures)</span>'}</td></tr>`)
        .join('')}</tbody></table>`,
    );
  }
  return parts.join('\n');
}

const TIER_LABEL: Record<ImpactTier, string> = { core: 'core', 'auth-errors-limits': 'auth, errors, limits', extension: 'extension' };

function rootCauseHtml(c: RootCause, known: ReadonlySet<string>, report: ConformanceReport): string {
  const link = (id: string) => (known.has(id) ? `<a href="#${esc(anchor(id))}" class="jump"><code>${esc(id)}</code></a>` : `<code>${esc(id)}</code>`);
  const tests = `<ul class="tests">${c.tests.map((t) => `<li><span class="test-title">${esc(t.title)}</span> <span class="loc">${esc(location(t))}</span></li>`).join('')}</ul>`;
  const reach = `${c.occurrences} occurrence${c.occurrences === 1 ? '' : 's'} in ${c.tests.length} test${c.tests.length === 1 ? '' : 's'}`;
  const blocked = c.blocked.length > 0 ? `<p class="blocked">Left unjudged because of it (${c.blocked.length}): ${c.blocked.map(link).join(' ')}</p>` : '';
  // The deviation the card stands for, and every requirement it breaks (one cause, one card).
  const deviation = c.deviation && c.kind !== 'requirement' ? `<p class="deviation"><b>${esc(c.deviation)}</b></p>` : '';
  const breaks = c.requirements && c.requirements.length > 1 ? `<p class="breaks">Breaks ${c.requirements.length} requirements: ${c.requirements.map(link).join(' ')}</p>` : '';
  const exchange = c.exchange ? `${curlHtml(c.exchange)}<details class="rc-more"><summary>The request and the response</summary>${halvesHtml(c.exchange)}</details>` : '<p class="note">No request was recorded for it.</p>';
  const origin = causeOrigin(report, c);
  const whose = origin ? ` <span class="origin origin-${esc(origin.split(' ')[0]!)}">${esc(origin)}</span>` : '';
  return `<li class="rc rc-${esc(c.status)}" id="rc-${c.rank}"><div class="rc-head">${pill(c.status)} ${link(c.id)}${whose} <span class="lvl lvl-${esc(c.level)}">${esc(c.level)}</span> <span class="sec">§${esc(c.section)}</span> <span class="tier tier-${esc(c.tier)}">${esc(TIER_LABEL[c.tier])}</span> <span class="note">${esc(reach)}</span></div>
${deviation}<pre class="msg">${esc(c.message)}</pre>${breaks}${blocked}
<details class="rc-more"><summary>Tests it touched (${c.tests.length})</summary>${tests}</details>
${exchange}</li>`;
}

function rootCausesHtml(report: ConformanceReport): string {
  const causes = report.rootCauses;
  if (causes.length === 0) return '<section id="root-causes"><h2>Root causes</h2><p class="note">No requirement failed or warned.</p></section>';
  const known = new Set(report.requirements.map((r) => r.id));
  return `<section id="root-causes"><h2>Root causes, by impact (${causes.length})</h2><p class="note">Each deviation once, with every requirement it breaks, however many tests it touched; a common cause first; then MUST before SHOULD; the core (chat and the catalog) before auth, errors and limits, before the extensions.</p><ol class="root-causes">${causes.map((c) => rootCauseHtml(c, known, report)).join('\n')}</ol></section>`;
}

function mustFailuresHtml(report: ConformanceReport): string {
  const failed = report.requirements.filter((r) => r.level === 'MUST' && r.status === 'fail');
  if (failed.length === 0) return '';
  return `<section id="must-failures"><h2>MUST requirements that failed (${failed.length})</h2><ol class="must">${failed
    .map((r) => `<li><a href="#${esc(anchor(r.id))}" class="jump"><code>${esc(r.id)}</code></a> <span class="sec">§${esc(r.section)}</span> ${esc(r.statement)}<div class="err">${esc(oneLine(r.reason ?? ''))}</div>${r.reading ? `<div class="reading">${esc(readingText(r.reading))}</div>` : ''}</li>`)
    .join('')}</ol></section>`;
}

// The page's style and script live beside this file (report/html/), so they can be read and restyled on their own;
// the package ships them at the same place under dist/ (scripts/build-package.ts). Inlined into the page, whose
// Content-Security-Policy admits exactly these texts by their hashes.
const ASSETS = new URL('./html/', import.meta.url);
const CSS = readFileSync(new URL('report.css', ASSETS), 'utf8');

const SCRIPT = readFileSync(new URL('report.js', ASSETS), 'utf8');

function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('base64');
}

/** The Content-Security-Policy of the page: nothing may be fetched; only this page's own style and script run. */
export function contentSecurityPolicy(): string {
  return [
    "default-src 'none'",
    `style-src 'sha256-${sha256(CSS)}'`,
    `script-src 'sha256-${sha256(SCRIPT)}'`,
    "img-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
}

export interface HtmlOptions {
  /** In a signed certification bundle: the signing key's fingerprint (SHA-256 of its SPKI DER, hex). */
  signedBy?: string;
}

export function renderHtml(report: ConformanceReport, opts: HtmlOptions = {}): string {
  const v = report.verdict;
  // The gate's word (what the exit code says), with its reason where it differs from the verdict's.
  const gate = gateResult(report);
  const verdictWord = gate.word;
  const gateWhy = gate.why ? `<div class="gate">${esc(gate.why)}</div>` : '';
  const blame = blameLine(report);
  const c = report.coverage;
  const coverageLine = `${c.mustJudged} of ${c.mustDeclared} MUST requirements judged (${c.percent} %)`;
  const loud =
    v.result === 'incomplete'
      ? `<div class="loud">${esc(`INCOMPLETE — NOT A PASS: ${coverageLine}${c.coreNotJudged.length > 0 ? `; core requirements not judged: ${c.coreNotJudged.join(', ')}` : ''}`)}</div>`
      : v.result === 'partial'
        ? `<div class="loud">${esc(`PARTIAL RUN — NOT A CERTIFICATION: ${v.selection ?? 'some tests only'}; ${coverageLine}`)}</div>`
        : `<div class="coverage">${esc(`Coverage: ${coverageLine} · ${v.requirementsPassed} of ${v.requirementsTotal} requirements pass`)}</div>`;
  const t = report.transport;
  const transport =
    t.failed + t.withEvents > 0
      ? `<div class="transport">${esc(`Transport: ${t.failed} of ${t.exchanges} exchanges failed at the transport level${t.withEvents > 0 ? `, ${t.withEvents} met transport events` : ''}; the verdict rests on the rest.`)}</div>`
      : '';
  const tiles = STATUSES.map(
    (s) => `<button type="button" class="tile t-${s}" data-only-status="${s}" title="Show only ${s}"><b>${report.counts[s]}</b>${STATUS_LABEL[s]}</button>`,
  ).join('');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${esc(contentSecurityPolicy())}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${esc(`Conformance report: ${verdictWord} — ${report.subject ? `client: ${report.subject.command}` : (report.target.url ?? 'no target')}`)}</title>
<style>${CSS}</style>
</head>
<body>
<header class="banner v-${esc(gate.tone)}" id="verdict"><div class="inner"><div class="verdict">${verdictWord}</div>${gateWhy}<div><div class="what">${esc(headline(report))}</div><div class="target">${esc(`${subjectLine(report)} · ${report.kit.name} ${report.kit.version} · ${report.run.startedAt}`)}</div>${blame ? `<div class="blame">${esc(blame)}</div>` : ''}${opts.signedBy ? `<div class="signed">${esc(`Signed certification bundle: ed25519 key SHA-256 ${opts.signedBy}; chatconform verify --verify-key PUBLIC.pem checks it`)}</div>` : ''}${loud}${transport}</div></div></header>
<main>
${rootCausesHtml(report)}
${scenariosHtml(report)}<section id="run"><h2>Run</h2>${metaHtml(report)}<div class="tiles">${tiles}</div></section>
${mustFailuresHtml(report)}
${report.models ? `<section id="models"><h2>Models (${esc(modelsSentence(report.models))})</h2>${modelsHtml(report.models, report)}</section>` : ''}
<section id="matrix"><h2>Results by section</h2>${matrixHtml(report)}</section>
<section id="requirements"><h2>Requirements</h2>${filtersHtml(report)}${requirementsHtml(report)}</section>
<section id="observations"><h2>Observations: what the target does where the spec is silent</h2>${observationsHtml(report)}</section>
<section id="skips"><h2>Not judged: errors of the kit, skips, untested</h2>${skipsHtml(report)}</section>
${report.errors.length + report.failedTests.length > 0 ? `<section id="problems"><h2>Problems</h2>${problemsHtml(report)}</section>` : ''}
<footer>Generated by ${esc(`${report.kit.name} ${report.kit.version}`)} from conformance.json (report version ${report.reportVersion}). Credentials are masked as ***REDACTED***; the curls read the key from an environment variable. This page loads nothing from anywhere.</footer>
</main>
<script>${SCRIPT}</script>
</body>
</html>
`;
}

/** A client run's scenario table: one row per scenario, what the client sent, what it reported, the expected answer. */
function scenariosHtml(report: ConformanceReport): string {
  if (!report.scenarios || report.scenarios.length === 0) return '';
  const json = (v: unknown): string => JSON.stringify(v, null, 2);
  const rows = report.scenarios.map((s) => {
    const exchange = s.exchanges.map((x) => `${x.method} ${x.path} -> ${x.status} ${x.outcome}${x.error_code ? ` (${x.error_code})` : ''}${x.body ? `\n${x.body}` : ''}`).join('\n\n');
    const got = s.report ? json(s.report) : (s.problem ?? '(no report)');
    return `<tr class="s-${esc(s.status)}"><td><b>${esc(s.id)}</b><br>${esc(s.title)}</td><td>${esc(s.status.toUpperCase())}${s.reason ? `<br>${esc(s.reason)}` : ''}</td><td>${esc(s.requirements.join(', '))}</td><td><details><summary>${esc(`${s.exchanges.length} request(s)`)}</summary><pre>${esc(exchange)}</pre></details></td><td><details><summary>report</summary><pre>${esc(got)}</pre></details></td><td>${esc(s.expected)}</td></tr>`;
  });
  return `<section id="scenarios"><h2>${esc(`Client scenarios: ${report.subject?.command ?? ''}`)}</h2><table class="obs"><thead><tr><th>Scenario</th><th>Result</th><th>Requirements</th><th>What the client sent (the mock's journal)</th><th>What it reported</th><th>Expected</th></tr></thead><tbody>${rows.join('\n')}</tbody></table></section>`;
}

// junit.xml: what an implementer's CI reads. One <testcase> per requirement ID the target is judged on
// (classname = its section, name = "ID: statement"); a failed requirement carries its message and its redacted
// evidence with the curl that replays it; one the kit could not judge is an <error>, never a <failure>; skipped
// and untested requirements are <skipped>; warnings and observations pass, with what was found in <system-out>.
// Written from the (already redacted) report.
import { escapeControls } from './control-chars.ts';
import type { ConformanceReport } from './json.ts';
import type { EvidenceItem, ReportExchange, RequirementResult } from './results.ts';
import { location, oneLine } from './results.ts';
import { columnProperties, referenceRunText } from './columns.ts';

/** Escapes text for XML content and attributes; what XML 1.0 cannot carry (control characters) shows as `\u0007`. */
export function xmlEscape(text: string): string {
  return escapeControls(text)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

function attr(text: string): string {
  // Attribute values normalise newlines away; keep them as character references.
  return xmlEscape(text).replace(/\n/g, '&#10;').replace(/\r/g, '&#13;').replace(/\t/g, '&#9;');
}

function headersText(h: Record<string, string>): string {
  return Object.entries(h)
    .map(([k, v]) => `${k}: ${v}`)
    .join('\n');
}

export function exchangeText(x: ReportExchange): string {
  const lines = [`> ${x.method} ${x.url}`];
  if (Object.keys(x.requestHeaders).length > 0) lines.push(headersText(x.requestHeaders).replace(/^/gm, '> '));
  if (x.requestBody !== undefined) lines.push('>', x.requestBody.replace(/^/gm, '> '));
  for (const e of x.transportEvents ?? []) lines.push(`! transport: ${e.kind}: ${e.message}`);
  if (x.error) lines.push(`< no response${x.errorKind ? ` (${x.errorKind})` : ''}: ${x.error}`);
  else {
    lines.push(`< HTTP ${x.status} (${x.durationMs} ms)`);
    if (Object.keys(x.responseHeaders).length > 0) lines.push(headersText(x.responseHeaders).replace(/^/gm, '< '));
    if (x.responseBody !== '') lines.push('<', x.responseBody.replace(/^/gm, '< '));
  }
  lines.push('', `replay: ${x.curl}`);
  return lines.join('\n');
}

export function evidenceText(e: EvidenceItem): string {
  const parts = [`[${e.status}] ${e.test} (${e.location})${e.fromTestError ? ' — the test ended with this error' : ''}`];
  if (e.message) parts.push(e.message);
  if (e.observed !== undefined) parts.push(`observed: ${JSON.stringify(e.observed, null, 2)}`);
  if (e.exchange) parts.push(exchangeText(e.exchange));
  return parts.join('\n');
}

function requirementDetails(r: RequirementResult): string {
  const parts = [`${r.id} (${r.level}, §${r.section}, ${r.kind}, ${r.check}): ${r.statement}`];
  if (r.reason) parts.push(`reason: ${r.reason}`);
  parts.push(`cases: ${r.cases.judged} judged, ${r.cases.unjudged} not judged`);
  // The cases' statuses are the kit's (judged, unfinished, skipped, not-run); a judged case that failed says so.
  if (r.tests.length > 0) parts.push(`tests:\n${r.tests.map((t) => `  - ${t.title} (${location(t)}) ${t.status === 'judged' && t.error ? 'judged, failed' : t.status}${t.error ? `: ${t.error}` : ''}`).join('\n')}${r.testsOmitted > 0 ? `\n  … and ${r.testsOmitted} more` : ''}`);
  for (const e of r.evidence) parts.push(`---\n${evidenceText(e)}`);
  if (r.evidenceOmitted > 0) parts.push(`--- ${r.evidenceOmitted} more record(s) omitted; see conformance.json`);
  return parts.join('\n');
}

function testcase(r: RequirementResult): string {
  // A requirement has no duration of its own (several tests may judge it): time is 0.
  const open = `    <testcase classname="${attr(r.section)}" name="${attr(`${r.id}: ${r.statement}`)}" time="0"`;
  const props = `      <properties>\n${[
    ['level', r.level],
    ['kind', r.kind],
    ['check', r.check],
    ['status', r.status],
    ...columnProperties(r),
  ]
    .map(([n, v]) => `        <property name="${n}" value="${attr(v!)}"/>`)
    .join('\n')}\n      </properties>\n`;
  switch (r.status) {
    case 'fail':
      return `${open}>\n${props}      <failure message="${attr(oneLine(r.reason ?? 'failed'))}" type="${attr(r.level)}">${xmlEscape(requirementDetails(r))}</failure>\n    </testcase>`;
    case 'error':
      return `${open}>\n${props}      <error message="${attr(oneLine(r.reason ?? 'the kit could not judge'))}" type="kit">${xmlEscape(`The kit could not judge this requirement; nothing is charged to the target.\n${requirementDetails(r)}`)}</error>\n    </testcase>`;
    case 'skip':
    case 'untested':
      return `${open}>\n${props}      <skipped message="${attr(`${r.status}: ${r.reason ?? ''}`)}"/>\n    </testcase>`;
    case 'expected-fail':
      // Known and listed in the baseline: not a failure of this run, but never shown as a pass either.
      return `${open}>\n${props}      <skipped message="${attr(oneLine(`expected failure (baseline: ${r.baselineReason ?? ''}): ${r.reason ?? 'failed'}`))}"/>\n      <system-out>${xmlEscape(`EXPECTED FAILURE, listed in the baseline: ${r.baselineReason ?? ''}\n${requirementDetails(r)}`)}</system-out>\n    </testcase>`;
    case 'warn':
    case 'observed':
      return `${open}>\n${props}      <system-out>${xmlEscape(`${r.status === 'warn' ? `WARNING (${r.level} not met)` : 'OBSERVED (a gap of the spec: recorded, never judged)'}\n${requirementDetails(r)}`)}</system-out>\n    </testcase>`;
    default:
      return `${open}>\n${props}    </testcase>`;
  }
}

export function renderJunit(report: ConformanceReport): string {
  const groups = new Map<string, RequirementResult[]>();
  for (const r of report.requirements) {
    const top = r.section.split('.')[0]!;
    groups.set(top, [...(groups.get(top) ?? []), r]);
  }
  const seconds = (report.run.durationMs / 1000).toFixed(3);
  const props = [
    ['verdict', `${report.verdict.result}: ${report.verdict.summary}`],
    ['coverage', `${report.coverage.mustJudged}/${report.coverage.mustDeclared} MUST judged (${report.coverage.percent} %)`],
    ['rootCauses', report.rootCauses.map((c) => `${c.rank}. ${c.id} ${c.status}: ${c.message}`).slice(0, 20).join('\n') || '(none)'],
    ['target', report.target.url ?? '(none)'],
    ['embeddedMock', String(report.target.embeddedMock)],
    ['kit', `${report.kit.name} ${report.kit.version}`],
    ['spec.sha256', report.spec.sha256 ?? '(unreadable)'],
    ['seed', report.run.seed === undefined ? '(none)' : String(report.run.seed)],
    ['requests', String(report.run.requests ?? 0)],
    ['cost', String(report.run.cost ?? 0)],
    ...(report.run.reference ? [['reference', referenceRunText(report.run.reference)]] : []),
    ...(report.run.trials ? [['trials', `${report.run.trials.k} per model-dependent test, minimum pass rate ${report.run.trials.minPassRate}`]] : []),
  ];
  const properties = `    <properties>\n${props.map(([n, v]) => `      <property name="${attr(n!)}" value="${attr(v!)}"/>`).join('\n')}\n    </properties>`;
  const suites = [...groups].map(([top, list]) => {
    const title = report.sections.find((s) => s.section === top)?.title;
    const failures = list.filter((r) => r.status === 'fail').length;
    const errors = list.filter((r) => r.status === 'error').length;
    const skipped = list.filter((r) => r.status === 'skip' || r.status === 'untested' || r.status === 'expected-fail').length;
    const name = `§${top}${title ? ` ${title}` : ''}`;
    return `  <testsuite name="${attr(name)}" tests="${list.length}" failures="${failures}" errors="${errors}" skipped="${skipped}" time="0" timestamp="${attr(report.run.startedAt.replace(/Z$/, ''))}">\n${properties}\n${list.map(testcase).join('\n')}\n  </testsuite>`;
  });
  const c = report.counts;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${attr(`${report.kit.name} conformance`)}" tests="${c.total}" failures="${c.fail}" errors="${c.error}" skipped="${c.skip + c.untested}" time="${seconds}">`,
    ...suites,
    '</testsuites>',
    '',
  ].join('\n');
}

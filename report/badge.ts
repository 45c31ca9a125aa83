// badge.svg: the verdict and the pass count, in the flat style READMEs use; grey "incomplete" with the share of
// MUSTs judged when too little was judged for a pass; blue "partial" for a run of some of the tests.
import type { ConformanceReport } from './json.ts';
import { xmlEscape } from './junit.ts';
import { gateResult } from './gate.ts';

const COLORS = { pass: '#2e7d32', fail: '#c62828', incomplete: '#757575', partial: '#0969da' } as const;
/** A pass with expected failures of a baseline. */
const PASS_WITH_EXPECTED = '#9a6700';

/** Approximate advance widths of Verdana 11px, enough to size the badge's two halves. */
function textWidth(text: string): number {
  let w = 0;
  for (const ch of text) {
    if ('iIl1|.,:;!\' '.includes(ch)) w += 3.6;
    else if ('fjrt()[]/'.includes(ch)) w += 4.6;
    else if ('mwMW%'.includes(ch)) w += 10.4;
    else if (/[A-Z0-9]/.test(ch)) w += 7.6;
    else w += 6.6;
  }
  return Math.ceil(w);
}

export function badgeMessage(report: ConformanceReport): string {
  const v = report.verdict;
  const gate = gateResult(report);
  // A gate that passes a failing verdict says so: green it is not, and red would contradict the build.
  if (gate.tone === 'gated-pass') return `pass (gate), ${v.notGated?.length ?? v.mustFailed.length} not gated`;
  if (gate.word === 'FAIL' && v.result !== 'fail') return `fail (gate): ${gate.why ?? 'gate failed'}`;
  if (v.result === 'fail') return `${v.mustFailed.length} MUST failed`;
  if (v.result === 'incomplete') return `incomplete: ${Math.floor(report.coverage.percent)}% judged`;
  // A partial run never shows the full-pass message: it says partial and how much of the run passed.
  if (v.result === 'partial') return `partial: ${v.requirementsPassed} pass, ${report.counts.untested} not run`;
  const expected = v.baseline?.expected.length ?? 0;
  // A pass with excused failures never looks like a clean pass.
  return expected > 0 ? `${v.requirementsPassed}/${v.requirementsTotal} pass, ${expected} expected fail` : `${v.requirementsPassed}/${v.requirementsTotal} pass`;
}

export function renderBadge(report: ConformanceReport, label = 'conformance'): string {
  const message = badgeMessage(report);
  const gate = gateResult(report);
  const excused = gate.tone === 'gated-pass' || (gate.word === 'PASS' && (report.verdict.baseline?.expected.length ?? 0) > 0);
  const color = excused ? PASS_WITH_EXPECTED : gate.word === 'FAIL' ? COLORS.fail : COLORS[report.verdict.result];
  const lw = textWidth(label) + 12;
  const mw = textWidth(message) + 12;
  const w = lw + mw;
  const title = xmlEscape(`${label}: ${message}`);
  const text = (x: number, s: string) =>
    `<text x="${x}" y="15" fill="#010101" fill-opacity=".3">${xmlEscape(s)}</text><text x="${x}" y="14">${xmlEscape(s)}</text>`;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="20" role="img" aria-label="${title}">
<title>${title}</title>
<linearGradient id="s" x2="0" y2="100%"><stop offset="0" stop-color="#bbb" stop-opacity=".1"/><stop offset="1" stop-opacity=".1"/></linearGradient>
<clipPath id="r"><rect width="${w}" height="20" rx="3" fill="#fff"/></clipPath>
<g clip-path="url(#r)"><rect width="${lw}" height="20" fill="#555"/><rect x="${lw}" width="${mw}" height="20" fill="${color}"/><rect width="${w}" height="20" fill="url(#s)"/></g>
<g fill="#fff" text-anchor="middle" font-family="Verdana,Geneva,DejaVu Sans,sans-serif" font-size="11">${text(lw / 2, label)}${text(lw + mw / 2, message)}</g>
</svg>
`;
}

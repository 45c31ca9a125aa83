// Writes spec/REQUIREMENTS.md from the requirements catalog (spec/requirements/requirements.json).
//   npm run requirements:md            regenerate the file
//   npm run requirements:md -- --check exit 1 when the file is stale
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  CHECKS,
  LEVELS,
  requirements,
  requirementsBySection,
  topSection,
  type Requirement,
} from '../spec/requirements/index.ts';
import { requirementLinks } from './requirement-links.ts';

export const REQUIREMENTS_MD_PATH = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../spec/REQUIREMENTS.md');

const SECTION_TITLES: Readonly<Record<string, string>> = {
  '1': 'What the service does',
  '2': 'Resources and their fields',
  '2.1': 'Chat completion request',
  '2.2': 'Message (request)',
  '2.3': 'Tool (request)',
  '2.4': 'Tool call (in a message)',
  '2.5': 'Content part',
  '2.6': 'Reasoning and stream options',
  '2.7': 'Web search options',
  '2.8': 'Routing preferences (provider)',
  '2.9': 'Chat completion response',
  '2.10': 'Model catalog entry',
  '2.11': 'Model list',
  '3': 'States and transitions',
  '4': 'Endpoints',
  '4.1': 'GET /v1/models',
  '4.2': 'GET /v1/models/{model_id}',
  '4.3': 'POST /v1/chat/completions',
  '5': 'Authentication',
  '6': 'Events',
  '7': 'Errors',
  '8': 'Limits',
  '9': 'Versioning',
};

/** Escapes text for a Markdown table cell. */
function cell(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
}

function countBy<T extends string>(items: readonly Requirement[], key: (r: Requirement) => T, order: readonly T[]): string {
  const counts = new Map<T, number>();
  for (const r of items) counts.set(key(r), (counts.get(key(r)) ?? 0) + 1);
  return order.filter((k) => counts.has(k)).map((k) => `${k} ${counts.get(k)}`).join(', ');
}

function table(rows: readonly Requirement[], withLevel: boolean): string[] {
  const head = withLevel ? ['| ID | Level | Check | Statement |', '|---|---|---|---|'] : ['| ID | Section | Check | Statement |', '|---|---|---|---|'];
  const statement = (r: Requirement) => cell(r.sameAs ? `${r.statement} (The same rule as ${r.sameAs}, where it is judged and counted.)` : r.statement);
  return [
    ...head,
    ...rows.map((r) => `| ${r.id} | ${withLevel ? r.level : r.section} | ${r.check} | ${statement(r)} |`),
  ];
}

/** Where each requirement is judged, honoured and broken, read from the sources (scripts/requirement-links.ts). */
function linksTable(): string[] {
  const links = requirementLinks();
  const list = (items: readonly string[]) => (items.length === 0 ? '-' : cell(items.join('; ')));
  const rows = requirements
    .filter((r) => r.kind === 'requirement')
    .map((r) => {
      const l = links.get(r.id)!;
      if (r.sameAs) return `| ${r.id} | see ${r.sameAs} | | | |`;
      const typeOnly = l.checks.length > 0 && l.tests.length === 0 && l.checks.every((c) => c.startsWith('schema'));
      return `| ${r.id} | ${typeOnly ? '**type only**: ' : ''}${list(l.checks)} | ${list(l.tests)} | ${list(l.mock)} | ${list(l.defects)} |`;
    });
  const unbroken = requirements.filter((r) => r.kind === 'requirement' && r.level === 'MUST' && !r.sameAs && r.check !== 'mock-only' && links.get(r.id)!.defects.length === 0);
  return [
    '## Where each requirement is judged',
    '',
    'Generated from the sources: the check functions that judge it (`suites/checks/`), the conformance tests that declare it',
    '(`req(...)`), the mock code that names it, and the defect modes (`mock/defects.ts`) that break it. **type only** marks a',
    'rule that only the schema checks judge (its JSON type and presence), with no check of what the value means.',
    '',
    '| ID | Checks | Tests | Mock | Defect modes |',
    '|---|---|---|---|---|',
    ...rows,
    '',
    `MUST requirements no defect mode breaks (${unbroken.length}): ${unbroken.map((r) => r.id).join(', ') || 'none'}.`,
  ];
}

/** The whole Markdown view of the catalog. Deterministic: same catalog, same bytes. */
export function renderRequirementsMarkdown(): string {
  const reqs = requirements.filter((r) => r.kind === 'requirement');
  const obs = requirements.filter((r) => r.kind === 'observation');
  const lines: string[] = [
    '# Requirements catalog',
    '',
    '<!-- Generated from spec/requirements/requirements.json by scripts/generate-requirements-md.ts. -->',
    'This file is generated from `spec/requirements/requirements.json`: do not edit it; `npm run requirements:md` regenerates it.',
    '',
    'Each record is one normative statement of the contract (`chat-completion-service.md`), with a stable ID that tests and reports',
    'cite. `Check` says what running it needs: `black-box` (any deployment and a key), `cooperation` (the target profile: restricted',
    'or low-tier keys, deactivated or unavailable model ids, scenario headers), `mock-only` (only against the reference mock, mostly',
    'rules for consumers, the kit included). Observations record what a target does where the contract is silent; they never fail.',
    '',
    '## Counts',
    '',
    `- Records: ${requirements.length} (${reqs.length} requirements, ${obs.length} observations)`,
    `- Requirements by level: ${countBy(reqs, (r) => r.level, LEVELS)}`,
    `- Requirements by check: ${countBy(reqs, (r) => r.check, CHECKS)}`,
    `- Observations by check: ${countBy(obs, (r) => r.check, CHECKS)}`,
    '',
    '## Requirements by section',
  ];

  let currentTop = '';
  for (const [section, rows] of requirementsBySection()) {
    const own = rows.filter((r) => r.kind === 'requirement');
    if (own.length === 0) continue;
    const top = topSection(own[0]!);
    if (top !== currentTop && section !== top) {
      currentTop = top;
      lines.push('', `### ${top}. ${SECTION_TITLES[top] ?? ''}`.trimEnd());
    }
    currentTop = top;
    const heading = section === top ? `### ${section}. ${SECTION_TITLES[section] ?? ''}` : `#### ${section} ${SECTION_TITLES[section] ?? ''}`;
    lines.push('', heading.trimEnd(), '', ...table(own, true));
  }

  lines.push('', '## Observations', '', 'Gaps of the contract (\"not shown\"): the suite records what the target does there.', '', ...table(obs, false), '', ...linksTable(), '');
  return lines.join('\n');
}

function main(argv: readonly string[]): number {
  const expected = renderRequirementsMarkdown();
  if (argv.includes('--check')) {
    let current = '';
    try {
      current = readFileSync(REQUIREMENTS_MD_PATH, 'utf8');
    } catch {
      current = '';
    }
    if (current !== expected) {
      console.error(`${path.relative(process.cwd(), REQUIREMENTS_MD_PATH)} is stale: run npm run requirements:md`);
      return 1;
    }
    console.log(`${path.relative(process.cwd(), REQUIREMENTS_MD_PATH)} is up to date`);
    return 0;
  }
  writeFileSync(REQUIREMENTS_MD_PATH, expected, 'utf8');
  console.log(`wrote ${path.relative(process.cwd(), REQUIREMENTS_MD_PATH)} (${requirements.length} records)`);
  return 0;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = main(process.argv.slice(2));
}

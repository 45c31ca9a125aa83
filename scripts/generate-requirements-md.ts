// Writes spec/REQUIREMENTS.md from the requirements catalog (spec/requirements/requirements.json).
//   npm run requirements:md            regenerate the file
//   npm run requirements:md -- --check exit 1 when the file is stale
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  CHECKS,
  CONTRACT,
  LEVELS,
  requirements,
  requirementsBySection,
  topSection,
  type ContractRecord,
  type Requirement,
} from '../spec/requirements/index.ts';
import { requirementLinks } from './requirement-links.ts';

const ROOT_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const REQUIREMENTS_MD_PATH = path.resolve(ROOT_DIR, 'spec/REQUIREMENTS.md');

/** Where the contract lives: beside the repository (shared/spec/), present in a checkout and in CI. */
export const SPEC_FILE = path.resolve(ROOT_DIR, '../shared/spec/chat-completion-service.md');
export const CONTRACT_JSON_PATH = path.resolve(ROOT_DIR, 'spec/requirements/contract.json');

/** "## 2. Resources and their fields" → ("2", "Resources and their fields"); "### 2.10 Model catalog entry" likewise. */
export function sectionTitlesOf(markdown: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of markdown.matchAll(/^#{2,4}\s+(\d+(?:\.\d+)?)\.?\s+(.+?)\s*$/gm)) out[m[1]!] = m[2]!;
  return out;
}

/** What the catalog records of the contract text it was made from: file name, digest, section titles. */
export function contractRecordOf(text: string, file = path.basename(SPEC_FILE)): ContractRecord {
  return { file, sha256: createHash('sha256').update(text).digest('hex'), sections: sectionTitlesOf(text) };
}

export function renderContractJson(record: ContractRecord): string {
  return `${JSON.stringify(record, null, 2)}\n`;
}

const SECTION_TITLES: Readonly<Record<string, string>> = CONTRACT.sections;

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
  const reading = (r: Requirement) => (r.gap ? ` (On the kit's reading of a gap: "${r.gap}" A failure gates only with --fail-on strict.)` : '');
  const statement = (r: Requirement) => cell(r.sameAs ? `${r.statement} (The same rule as ${r.sameAs}, where it is judged and counted.)` : `${r.statement}${reading(r)}`);
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
      const through = l.throughJudges.length > 0 ? [`through judge functions: ${l.throughJudges.join(', ')}`] : [];
      return `| ${r.id} | ${typeOnly ? '**type only**: ' : ''}${list(l.checks)} | ${list([...l.tests, ...through])} | ${list(l.mock)} | ${list(l.defects)} |`;
    });
  const unbroken = requirements.filter((r) => r.kind === 'requirement' && r.level === 'MUST' && !r.sameAs && r.check !== 'mock-only' && links.get(r.id)!.defects.length === 0);
  return [
    '## Where each requirement is judged',
    '',
    'Generated from the sources and the suite\'s index (`run/test-index/`): the check functions that judge it (`judge/checks/`)',
    'and the judge entry points that record it themselves (`judge/`), the conformance tests that declare it (`req(...)`) and,',
    'counted by spec file, those that can record it through a judge entry point they declare (`judges(...)`): a partial run',
    'of the requirement runs exactly these tests. Then the mock code that honours it (its `// honours: ID` markers), and the',
    'defect modes (`mock/defects.ts`) that break it; the defect matrix runs the spec files of those tests for each defect.',
    '**type only** marks a rule that only the schema checks judge (its JSON type and presence), with no check of what the',
    'value means.',
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

/** The generated files and what they should hold; contract.json only when the contract is there to read. */
function expectedFiles(): { file: string; text: string }[] {
  const out = [{ file: REQUIREMENTS_MD_PATH, text: renderRequirementsMarkdown() }];
  if (existsSync(SPEC_FILE)) out.push({ file: CONTRACT_JSON_PATH, text: renderContractJson(contractRecordOf(readFileSync(SPEC_FILE, 'utf8'))) });
  else console.error(`${SPEC_FILE} is not there: ${path.relative(process.cwd(), CONTRACT_JSON_PATH)} is left as it is`);
  return out;
}

function main(argv: readonly string[]): number {
  const files = expectedFiles();
  if (argv.includes('--check')) {
    let stale = 0;
    for (const { file, text } of files) {
      const current = existsSync(file) ? readFileSync(file, 'utf8') : '';
      if (current === text) continue;
      console.error(`${path.relative(process.cwd(), file)} is stale: run npm run requirements:md`);
      stale++;
    }
    if (stale === 0) console.log('generated catalog files are up to date');
    return stale === 0 ? 0 : 1;
  }
  for (const { file, text } of files) writeFileSync(file, text, 'utf8');
  console.log(`wrote ${files.map((f) => path.relative(process.cwd(), f.file)).join(', ')} (${requirements.length} records)`);
  return 0;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = main(process.argv.slice(2));
}

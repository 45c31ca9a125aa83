// The requirements catalog: shape, coverage of the spec, and the generated Markdown view.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from '@playwright/test';
import {
  ID_PATTERN,
  SPEC_SECTIONS,
  getRequirement,
  isKnownRequirement,
  requirements,
  requirementsBySection,
  topSection,
  validateRequirements,
  type Requirement,
} from '../../spec/requirements/index.ts';
import { primaryOf } from '../../spec/requirements/index.ts';
import { CONTRACT } from '../../spec/requirements/index.ts';
import { CONTRACT_JSON_PATH, REQUIREMENTS_MD_PATH, contractRecordOf, renderContractJson, renderRequirementsMarkdown } from '../../scripts/generate-requirements-md.ts';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const specPath = path.resolve(repoRoot, '../shared/spec/chat-completion-service.md');
const specText = readFileSync(specPath, 'utf8');

/** Spec body split by heading: "1" … "9" for `## N.` and "2.7" etc. for `### N.M`. */
function specSections(md: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  let current = '0';
  out.set(current, []);
  for (const line of md.split(/\r?\n/)) {
    const h = /^#{2,3} (\d+(?:\.\d+)?)\.? /.exec(line);
    if (h) {
      current = h[1]!;
      out.set(current, []);
      continue;
    }
    out.get(current)!.push(line);
  }
  return out;
}
const sections = specSections(specText);
function sectionLines(id: string): string[] {
  const lines = sections.get(id);
  if (!lines) throw new Error(`spec section ${id} not found`);
  return lines;
}

/** Numbered list items ("1. text") of a section, optionally only after a line equal to `after`. */
function numberedItems(id: string, after?: string): string[] {
  let lines = sectionLines(id);
  if (after !== undefined) {
    const start = lines.indexOf(after);
    if (start < 0) throw new Error(`"${after}" not found in section ${id}`);
    lines = lines.slice(start + 1);
  }
  const items: string[] = [];
  for (const line of lines) {
    const m = /^(\d+)\. (.+)$/.exec(line);
    if (m) items.push(m[2]!);
    else if (items.length > 0 && line.trim() !== '') break; // the list ended
  }
  return items;
}

/** Body rows of every Markdown table in a section (header and separator rows dropped). */
function tableRows(id: string): string[] {
  const rows: string[] = [];
  let inTable = false;
  for (const line of sectionLines(id)) {
    if (!line.startsWith('|')) {
      inTable = false;
      continue;
    }
    if (!inTable) {
      inTable = true; // header row
      continue;
    }
    if (/^\|[-| ]+\|$/.test(line)) continue; // separator
    rows.push(line);
  }
  return rows;
}

/** Bullet texts ("- text") of a section. */
function bullets(id: string): string[] {
  return sectionLines(id).filter((l) => l.startsWith('- ')).map((l) => l.slice(2));
}

/** Every "…: not shown." statement of the spec: the gap bullets and the inline ones (section 3). */
function gapStatements(md: string): string[] {
  const gaps: string[] = [];
  for (const line of md.split(/\r?\n/)) {
    if (!line.includes('not shown')) continue;
    if (line.startsWith('- ')) gaps.push(line.slice(2));
    else for (const m of line.matchAll(/(?:^|\. )([^.]*?: not shown\.)/g)) gaps.push(m[1]!);
  }
  return gaps;
}

const reqs = requirements.filter((r) => r.kind === 'requirement');
const observations = requirements.filter((r) => r.kind === 'observation');
const norm = (s: string) => s.replace(/\s+/g, ' ').trim();

/** Requirements (kind requirement) whose quote is part of `text` (or contains it), optionally within `section`. */
function covering(text: string, section?: string): Requirement[] {
  const t = norm(text);
  return reqs.filter((r) => (section === undefined || r.section === section) && (t.includes(norm(r.quote)) || norm(r.quote).includes(t)));
}

test.describe('requirements catalog', () => {
  test('loads, with well over 100 requirements and typed records', () => {
    expect(requirements.length).toBeGreaterThan(100);
    expect(reqs.length).toBeGreaterThanOrEqual(100);
    expect(observations.length).toBeGreaterThan(0);
    for (const r of requirements) {
      const keys = Object.keys(r).filter((k) => !['sameAs', 'reading', 'gap'].includes(k)).sort();
      expect(keys).toEqual(['check', 'id', 'kind', 'level', 'quote', 'section', 'statement']);
    }
  });

  test('IDs are unique and well-formed', () => {
    const ids = requirements.map((r) => r.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id, id).toMatch(ID_PATTERN);
    for (const r of observations) {
      expect(r.id, r.id).toMatch(/^OBS-\d{3}$/);
      expect(r.level, r.id).toBe('none');
    }
    for (const r of reqs) expect(['MUST', 'SHOULD', 'MAY'], r.id).toContain(r.level);
  });

  test('lookup helpers', () => {
    const first = requirements[0]!;
    expect(getRequirement(first.id)).toBe(first);
    expect(isKnownRequirement(first.id)).toBe(true);
    expect(isKnownRequirement('NOPE-999')).toBe(false);
    expect(() => getRequirement('NOPE-999')).toThrow(/Unknown requirement id "NOPE-999"/);
    const bySection = requirementsBySection();
    expect([...bySection.values()].flat().length).toBe(requirements.length);
    expect([...bySection.keys()]).toContain('2.10');
    expect([...bySection.keys()].indexOf('2.9')).toBeLessThan([...bySection.keys()].indexOf('2.10'));
  });

  test('validation rejects malformed data with a clear error', () => {
    const good = requirements[0]!;
    expect(() => validateRequirements({})).toThrow(/expected an array/);
    expect(() => validateRequirements([good, { ...good }])).toThrow(/duplicate id/);
    expect(() => validateRequirements([{ ...good, id: 'cat-1' }])).toThrow(/id does not match/);
    expect(() => validateRequirements([{ ...good, level: 'MUSTN' }])).toThrow(/bad level/);
    expect(() => validateRequirements([{ ...good, check: 'manual' }])).toThrow(/bad check/);
    expect(() => validateRequirements([{ ...good, quote: '' }])).toThrow(/"quote" must be a non-empty string/);
    expect(() => validateRequirements([{ ...good, extra: 1 }])).toThrow(/unknown field "extra"/);
    expect(validateRequirements([good])).toHaveLength(1);
  });

  test('every quote is verbatim spec text', () => {
    const spec = norm(specText);
    const missing = requirements.filter((r) => !spec.includes(norm(r.quote))).map((r) => `${r.id}: ${r.quote}`);
    expect(missing).toEqual([]);
  });

  test('every record cites a section of the spec', () => {
    for (const r of requirements) {
      expect(sections.has(r.section), `${r.id} section ${r.section}`).toBe(true);
      expect(SPEC_SECTIONS, r.id).toContain(topSection(r));
    }
  });

  test('sections 2 to 9 are all represented', () => {
    for (const s of ['2', '3', '4', '5', '6', '7', '8', '9']) {
      expect(SPEC_SECTIONS).toContain(s);
      expect(requirements.some((r) => topSection(r) === s), `section ${s}`).toBe(true);
      if (s !== '3') expect(reqs.some((r) => topSection(r) === s), `requirements of section ${s}`).toBe(true);
    }
  });

  test('each rule of 4.3 (1-7) has a record', () => {
    const rules = numberedItems('4.3', 'Rules:');
    expect(rules).toHaveLength(7);
    for (const rule of rules) expect(covering(rule, '4.3').length, rule).toBeGreaterThan(0);
  });

  test('each numbered rule of section 6 (1-10) has a record', () => {
    const rules = numberedItems('6');
    expect(rules).toHaveLength(10);
    for (const rule of rules) expect(covering(rule, '6').length, rule).toBeGreaterThan(0);
  });

  test('each "Other rules" item of section 7 (1-5) has a record', () => {
    const rules = numberedItems('7', 'Other rules:');
    expect(rules).toHaveLength(5);
    for (const rule of rules) expect(covering(rule, '7').length, rule).toBeGreaterThan(0);
  });

  test('each row of the section 7 error table has exactly one record quoting the whole row', () => {
    const rows = tableRows('7');
    expect(rows).toHaveLength(9);
    for (const row of rows) {
      const hits = reqs.filter((r) => r.section === '7' && norm(r.quote) === norm(row));
      expect(hits.map((r) => r.id), row).toHaveLength(1);
    }
    // the fixed messages are named in the statements
    for (const message of [
      'hosted web search is unavailable for this request',
      'search_context_size must be one of: low, medium, high',
      'user_location.type must be "approximate"',
      'user_location must not mix nested approximate and flat fields',
      'user_location has unknown or malformed fields',
      'hosted web search on this model requires an output budget of at least N tokens; M was requested',
    ]) {
      expect(reqs.some((r) => r.section === '7' && r.statement.includes(message)), message).toBe(true);
    }
  });

  test('the section 7 general error shape has records for error, type, code and message', () => {
    for (const field of ['error.type', 'error.code', 'error.message']) {
      expect(reqs.some((r) => r.id.startsWith('ERR-') && r.statement.startsWith(field)), field).toBe(true);
    }
  });

  test('every field row of the section 2 tables has a record', () => {
    const ids = [...sections.keys()].filter((s) => s.startsWith('2.'));
    expect(ids.length).toBe(11);
    let rowCount = 0;
    for (const s of ids) {
      for (const row of tableRows(s)) {
        rowCount++;
        expect(covering(row, s).length, `${s}: ${row}`).toBeGreaterThan(0);
      }
    }
    expect(rowCount).toBeGreaterThan(70);
  });

  test('every row of the endpoint table (4) and of the limits table (8) has a record', () => {
    const endpoints = tableRows('4');
    expect(endpoints).toHaveLength(3);
    for (const row of endpoints) expect(covering(row, '4').length, row).toBeGreaterThan(0);
    const limits = tableRows('8');
    expect(limits).toHaveLength(4);
    for (const row of limits) expect(covering(row, '8').length, row).toBeGreaterThan(0);
  });

  test('every bullet of 4.1, 4.2, 4.3 and the normative bullets of 5 and 9 have a record', () => {
    for (const s of ['4.1', '4.2', '4.3', '5', '9']) {
      for (const b of bullets(s)) {
        if (b.includes('not shown')) continue; // gaps: observations, checked below
        expect(covering(b, s).length, `${s}: ${b}`).toBeGreaterThan(0);
      }
    }
  });

  test('the normative prose sentences of section 2 have records', () => {
    const sentences: Array<[string, string]> = [
      ['2', 'Optional fields that have no value are omitted, never sent as null, unless stated otherwise.'],
      ['2.1', 'Only the fields listed for a request object are read; any other field is not read.'],
      ['2.4', '`function.arguments` is a JSON-encoded STRING, not an object; a consumer decodes it itself.'],
      ['2.5', 'An image part is accepted only for a model whose catalog entry has supports_images true.'],
      ['2.7', 'Hosted search is requested by sending web_search_options, or by putting a bare entry of type `web_search` into tools.'],
      ['2.7', 'Both count as a request for search.'],
      ['2.7', 'Admission of search is capability-gated: a catalog entry or route that does not support it never receives the search signal.'],
      ['2.8', 'Every field is a preference forwarded to the serving route and honoured only where that route implements it.'],
      ['2.8', 'None is a guarantee, and none changes which model was requested.'],
      ['2.9', 'annotations and service_web_search are response-only: they are never sent in a request message.'],
      ['2.9', 'url_citation annotation: `type` (always `url_citation`) and `url_citation` (object):'],
      ['2.10', 'Every field the catalog returns is listed.'],
      ['2.10', 'A catalog entry never carries a field that names the backend serving the model; that field is deliberately removed.'],
      ['2.11', 'Object with `object` (the string `list`) and `data` (array of catalog entry, one per available model).'],
      ['6', 'The only events are the server-sent events of a streamed completion (stream true).'],
      ['7', 'A non-200 response carries a JSON object with an `error` object holding `type` (string), `code` (string) and `message` (string).'],
    ];
    for (const [s, sentence] of sentences) {
      expect(specText, sentence).toContain(sentence);
      expect(covering(sentence, s).length, `${s}: ${sentence}`).toBeGreaterThan(0);
    }
  });

  test('the statements called out by the brief are present', () => {
    const wanted: Array<[RegExp, string]> = [
      [/GET \/v1\/models\/\{id\} returns the same entry/, '4.2'],
      [/`created`, an integer/, '2.9'],
      [/total_tokens.*prompt_tokens \+ completion_tokens/, '2.9'],
      [/widely used chat-completions shape/, '1'],
      [/\[DONE\].*once/, '6'],
      [/max_completion_tokens. wins over/, '2.1'],
    ];
    for (const [re, s] of wanted) expect(reqs.some((r) => r.section === s && re.test(r.statement)), String(re)).toBe(true);
    expect(reqs.find((r) => /widely used chat-completions shape/.test(r.statement))?.level).toBe('SHOULD');
  });

  test('every gap ("not shown") of the spec is quoted by an observation', () => {
    const gaps = gapStatements(specText);
    expect(gaps.length).toBeGreaterThanOrEqual(18);
    expect(gaps).toContain('Transitions: not shown.');
    expect(gaps).toContain('How keys are issued, and the response to a missing or invalid credential: not shown.');
    for (const gap of gaps) {
      const hits = observations.filter((o) => norm(o.quote).includes(norm(gap)));
      expect(hits.length, gap).toBeGreaterThan(0);
    }
    // every observation traces back to one of those gaps
    for (const o of observations) expect(gaps.some((g) => norm(o.quote).includes(norm(g))), o.id).toBe(true);
  });

  test('grouped gaps are split into one observation per item', () => {
    const expected: Array<[string, number]> = [
      ['Allowed values of `finish_reason` and the value of `object`: not shown.', 2],
      ['Allowed values of `min_tier`, `credit_tier` and `api_format` in the catalog entry: not shown.', 3],
      ['Inner structure of the catalog fields `thinking_config` and `tiers`: not shown.', 2],
      ['Allowed values of provider `sort` and the element type of provider `order`: not shown.', 2],
      ['Numeric ranges of temperature, top_p and token caps: not shown.', 3],
      ['How keys are issued, and the response to a missing or invalid credential: not shown.', 3],
      ['Statuses of web_search_not_supported, web_search_output_budget_too_small and the tools-without-declaration rejection: not shown.', 3],
      ['Error code and status for allow_fallbacks refusal, oversized body and unknown model_id: not shown.', 3],
      ['Rate limits and quotas: not shown.', 2],
      ['Maximum lengths of user_location city and region: not shown.', 2],
      ['Deprecation policy and a version-selection mechanism other than the path prefix: not shown.', 2],
    ];
    for (const [gap, n] of expected) {
      expect(observations.filter((o) => o.quote === gap).length, gap).toBe(n);
    }
  });

  test('spec/REQUIREMENTS.md is up to date (npm run requirements:md)', () => {
    const onDisk = readFileSync(REQUIREMENTS_MD_PATH, 'utf8');
    expect(onDisk === renderRequirementsMarkdown(), 'spec/REQUIREMENTS.md is stale: run npm run requirements:md').toBe(true);
  });

  test('the catalog records the digest and section titles of the contract it was made from (npm run requirements:md)', () => {
    // The installed kit reads these from the catalog, never from shared/spec/: a stale record would put the wrong
    // digest and titles into every report.
    const expected = contractRecordOf(specText);
    expect(CONTRACT, 'spec/requirements/contract.json is stale: run npm run requirements:md').toEqual(expected);
    expect(readFileSync(CONTRACT_JSON_PATH, 'utf8')).toBe(renderContractJson(expected));
    expect(CONTRACT.sections['2.10']).toBe('Model catalog entry');
    expect(Object.keys(CONTRACT.sections)).toEqual(expect.arrayContaining([...SPEC_SECTIONS]));
  });

  test('the Markdown view lists every record and is deterministic', () => {
    const md = renderRequirementsMarkdown();
    expect(md).toBe(renderRequirementsMarkdown());
    expect(md).toContain('do not edit');
    expect(md).toContain('npm run requirements:md');
    for (const r of requirements) expect(md).toContain(`| ${r.id} |`);
  });

  test('a rule the contract states twice has one primary record; the other points to it (sameAs)', () => {
    const twice = requirements.filter((r) => r.sameAs);
    expect(twice.map((r) => `${r.id}->${r.sameAs}`)).toEqual(expect.arrayContaining(['CHAT-008->REQ-011', 'TOOL-014->TOOL-012', 'AUTH-009->CAT-006', 'SEARCH-007->SEARCH-046', 'CHAT-006->LIMIT-001', 'CAT-041->CAT-027']));
    for (const r of twice) expect(primaryOf(r.id)).toBe(r.sameAs);
    expect(() => validateRequirements([{ ...requirements.find((r) => r.id === 'CHAT-008')!, sameAs: 'NOPE-001' }])).toThrow(/unknown id/);
  });
});

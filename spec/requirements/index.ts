// The requirements catalog: every normative statement of the contract
// (/work/shared/spec/chat-completion-service.md) as one record with a stable ID.
// The JSON file is the single source; docs (spec/REQUIREMENTS.md) and coverage derive from it.
import data from './requirements.json' with { type: 'json' };

export type Level = 'MUST' | 'SHOULD' | 'MAY' | 'none';
export type Kind = 'requirement' | 'observation';
export type Check = 'black-box' | 'cooperation' | 'mock-only';

export interface Requirement {
  /** `<AREA>-<NNN>`, stable once published. */
  id: string;
  /** Spec section the statement comes from, e.g. "2.7", "4.3", "6". */
  section: string;
  /** MUST / SHOULD / MAY for requirements; "none" for observations. */
  level: Level;
  kind: Kind;
  /** One line, in our words, precise and testable. */
  statement: string;
  check: Check;
  /** Verbatim spec text the record derives from. */
  quote: string;
  /**
   * Set when the contract states this rule twice (e.g. in 4.3 and again in section 8): the ID of the primary
   * record. Checks record under the primary, so a failure is counted once; this record points to it.
   */
  sameAs?: string;
}

export const AREAS = [
  'CAT', 'REQ', 'RESP', 'CHAT', 'TOOL', 'SEARCH', 'ROUTE', 'IMG', 'RSN', 'AUTH', 'STREAM', 'ERR', 'LIMIT', 'VER', 'OBS',
] as const;
export type Area = (typeof AREAS)[number];

export const LEVELS: readonly Level[] = ['MUST', 'SHOULD', 'MAY', 'none'];
export const KINDS: readonly Kind[] = ['requirement', 'observation'];
export const CHECKS: readonly Check[] = ['black-box', 'cooperation', 'mock-only'];

/** Top-level spec sections the catalog covers (section 1 included for its compatibility claim). */
export const SPEC_SECTIONS: readonly string[] = ['1', '2', '3', '4', '5', '6', '7', '8', '9'];

export const ID_PATTERN = new RegExp(`^(${AREAS.join('|')})-\\d{3}$`);
const SECTION_PATTERN = /^[1-9](\.\d+)?$/;

/** Validates raw catalog data and returns it typed; throws one error listing every problem found. */
export function validateRequirements(raw: unknown): Requirement[] {
  if (!Array.isArray(raw)) throw new Error('requirements.json: expected an array of records');
  const problems: string[] = [];
  const seen = new Set<string>();
  const out: Requirement[] = [];
  const allowed = new Set(['id', 'section', 'level', 'kind', 'statement', 'check', 'quote', 'sameAs']);
  const optional = new Set(['sameAs']);
  raw.forEach((rec: unknown, i: number) => {
    const where = `record #${i}`;
    if (typeof rec !== 'object' || rec === null || Array.isArray(rec)) {
      problems.push(`${where}: not an object`);
      return;
    }
    const r = rec as Record<string, unknown>;
    const label = typeof r.id === 'string' ? `${where} (${r.id})` : where;
    for (const key of Object.keys(r)) if (!allowed.has(key)) problems.push(`${label}: unknown field "${key}"`);
    for (const key of allowed) {
      if (optional.has(key) && !(key in r)) continue;
      if (typeof r[key] !== 'string' || (r[key] as string).trim() === '') problems.push(`${label}: "${key}" must be a non-empty string`);
    }
    const { id, section, level, kind, check, statement } = r;
    if (typeof id === 'string') {
      if (!ID_PATTERN.test(id)) problems.push(`${label}: id does not match <AREA>-<NNN> with a known area`);
      if (seen.has(id)) problems.push(`${label}: duplicate id`);
      seen.add(id);
    }
    if (typeof section === 'string' && !SECTION_PATTERN.test(section)) problems.push(`${label}: bad section "${section}"`);
    if (!LEVELS.includes(level as Level)) problems.push(`${label}: bad level ${JSON.stringify(level)}`);
    if (!KINDS.includes(kind as Kind)) problems.push(`${label}: bad kind ${JSON.stringify(kind)}`);
    if (!CHECKS.includes(check as Check)) problems.push(`${label}: bad check ${JSON.stringify(check)}`);
    if (kind === 'observation' && level !== 'none') problems.push(`${label}: an observation has level "none"`);
    if (kind === 'requirement' && level === 'none') problems.push(`${label}: a requirement needs MUST, SHOULD or MAY`);
    if (kind === 'observation' && typeof id === 'string' && !id.startsWith('OBS-')) problems.push(`${label}: observations use the OBS area`);
    if (kind === 'requirement' && typeof id === 'string' && id.startsWith('OBS-')) problems.push(`${label}: the OBS area is for observations`);
    if (typeof statement === 'string' && /[\r\n]/.test(statement)) problems.push(`${label}: statement must be one line`);
    out.push(r as unknown as Requirement);
  });
  const ids = new Map(out.map((r) => [r.id, r]));
  for (const r of out) {
    if (r.sameAs === undefined) continue;
    const primary = ids.get(r.sameAs);
    if (!primary) problems.push(`${r.id}: sameAs names an unknown id ${r.sameAs}`);
    else if (primary.sameAs !== undefined) problems.push(`${r.id}: sameAs must name a primary record, and ${r.sameAs} points to ${primary.sameAs}`);
    else if (primary.level !== r.level || primary.kind !== r.kind) problems.push(`${r.id}: sameAs ${r.sameAs} must have the same level and kind`);
  }
  if (problems.length > 0) {
    throw new Error(`requirements.json is invalid (${problems.length} problem(s)):\n  - ${problems.join('\n  - ')}`);
  }
  return out;
}

export const requirements: readonly Requirement[] = Object.freeze(
  validateRequirements(data).map((r) => Object.freeze({ ...r })),
);

const byId: ReadonlyMap<string, Requirement> = new Map(requirements.map((r) => [r.id, r]));

export function isKnownRequirement(id: string): boolean {
  return byId.has(id);
}

/** The record for `id`; throws on an unknown id so a typo in a test annotation fails loudly. */
export function getRequirement(id: string): Requirement {
  const r = byId.get(id);
  if (!r) throw new Error(`Unknown requirement id "${id}" (not in spec/requirements/requirements.json)`);
  return r;
}

/** The record a check of `id` is charged to: itself, or the primary record of a rule the contract states twice. */
export function primaryOf(id: string): string {
  return getRequirement(id).sameAs ?? id;
}

/** Compares spec section numbers ("2.10" after "2.9"). */
export function compareSections(a: string, b: string): number {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? -1) - (pb[i] ?? -1);
    if (d !== 0) return d;
  }
  return 0;
}

/** Records grouped by their `section`, sections in spec order, records in catalog order. */
export function requirementsBySection(): Map<string, Requirement[]> {
  const sections = [...new Set(requirements.map((r) => r.section))].sort(compareSections);
  const map = new Map<string, Requirement[]>(sections.map((s) => [s, []]));
  for (const r of requirements) map.get(r.section)!.push(r);
  return map;
}

/** The top-level section of a record ("2" for "2.7"). */
export function topSection(r: Requirement): string {
  return r.section.split('.')[0]!;
}

/**
 * The requirements a `pass` verdict can never do without: reading the model list (4.1, 2.11), a non-streamed
 * completion (CHAT-004) and a streamed one (CHAT-005). A run that judged none of these proved nothing about the
 * service, however many other records passed; the reporter calls it incomplete.
 */
export const CORE_REQUIREMENTS: readonly string[] = Object.freeze(['CAT-031', 'CAT-032', 'CHAT-004', 'CHAT-005'].map((id) => getRequirement(id).id));

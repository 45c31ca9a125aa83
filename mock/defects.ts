// Defect modes: deliberate contract violations the reference mock can be switched into, each one a mistake
// real servers make. They measure the conformance suite's power: run against the mock in a defect mode, the
// suite must fail, and its failed MUST requirement IDs must include the one the defect `breaks`
// (tests/integration/defect-matrix.spec.ts). A defect whose requirement is a SHOULD is marked `expect: 'warn'`:
// the suite must warn on that ID and still pass.
//
//   npm run mock -- --defect stream-no-done          startMockServer({ defect: 'stream-no-done' })
//   npm run mock -- --list-defects                   createHandlers({ defect: ['a', 'b'] })
//
// Each defect is one object in mock/modes/defects/<section>.ts: its spec and the stages it wraps. This file is the
// registry (the order is the order of the lists, by section).

import { DEFECT_SECTIONS, type DefectMode, type DefectSection } from './modes/mode.ts';
import { CATALOG_DEFECTS } from './modes/defects/catalog.ts';
import { AUTH_DEFECTS } from './modes/defects/auth.ts';
import { REQUEST_RULE_DEFECTS } from './modes/defects/request-rules.ts';
import { RESPONSE_SHAPE_DEFECTS } from './modes/defects/response-shape.ts';
import { TOOL_DEFECTS } from './modes/defects/tools.ts';
import { WEB_SEARCH_DEFECTS } from './modes/defects/web-search.ts';
import { ROUTING_DEFECTS } from './modes/defects/routing.ts';
import { STREAMING_DEFECTS } from './modes/defects/streaming.ts';
import { ERROR_DEFECTS } from './modes/defects/errors.ts';
import { LIMIT_DEFECTS } from './modes/defects/limits.ts';
import { ONE_CAUSE_DEFECTS } from './modes/defects/one-cause.ts';

export { DEFECT_SECTIONS, type DefectSection };

/** A defect as the registry lists it: name, the requirement it breaks, section, tier, description (and its layer). */
export type DefectSpec = DefectMode;

export const DEFECTS = [
  ...CATALOG_DEFECTS,
  ...AUTH_DEFECTS,
  ...REQUEST_RULE_DEFECTS,
  ...RESPONSE_SHAPE_DEFECTS,
  ...TOOL_DEFECTS,
  ...WEB_SEARCH_DEFECTS,
  ...ROUTING_DEFECTS,
  ...STREAMING_DEFECTS,
  ...ERROR_DEFECTS,
  ...LIMIT_DEFECTS,
  ...ONE_CAUSE_DEFECTS,
] as const satisfies readonly DefectSpec[];

export type DefectName = (typeof DEFECTS)[number]['name'];

/** The defects of the matrix `npm test` runs (the others are tier 'extended'). */
export const CORE_DEFECTS: readonly DefectSpec[] = DEFECTS.filter((d: DefectSpec) => d.tier !== 'extended');

const BY_NAME = new Map<string, DefectSpec>(DEFECTS.map((d) => [d.name, d]));

export function isDefectName(name: string): name is DefectName {
  return BY_NAME.has(name);
}

export function defectSpec(name: string): DefectSpec | undefined {
  return BY_NAME.get(name);
}

/** One line per defect: name, the requirement it breaks, its section, what it does. */
export function formatDefects(): string {
  const width = Math.max(...DEFECTS.map((d) => d.name.length));
  return DEFECTS.map(
    (d: DefectSpec) =>
      `${d.name.padEnd(width)}  breaks ${d.breaks.padEnd(10)} ${`[${d.section}]`.padEnd(17)} ${d.tier === 'extended' ? '(extended) ' : ''}${d.expect === 'warn' ? '(SHOULD: the suite warns) ' : ''}${d.description}`,
  ).join('\n');
}

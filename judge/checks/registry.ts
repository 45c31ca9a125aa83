// Every check the suite runs on what comes back, by the kind of subject it judges, and the requirement IDs they
// cover. A requirement judged here needs no test to declare it: every response of the kind is judged by it.
import { MODEL_LIST_CHECKS } from './catalog.ts';
import { COMPLETION_CHECKS } from './completion.ts';
import { ERROR_CHECKS } from './errors.ts';
import { CATALOG_ENTRY_RULES, CHAT_CHUNK_RULES, CHAT_RESPONSE_RULES, ERROR_BODY_RULES, MODEL_LIST_RULES, schemaChecks } from './schema.ts';
import { STREAM_CHECKS } from './stream.ts';
import { check, holds, isObject, type Check } from './check.ts';
import type { TargetResponse } from '../exchange.ts';

export const COMPLETION_SCHEMA_CHECKS = schemaChecks('chat-response', CHAT_RESPONSE_RULES, { fallbackId: 'CHAT-004', nullId: 'RESP-001' });
export const CHUNK_SCHEMA_CHECKS = schemaChecks('chat-chunk', CHAT_CHUNK_RULES, { fallbackId: 'STREAM-003', nullId: 'RESP-001' });
export const ERROR_SCHEMA_CHECKS = schemaChecks('error', ERROR_BODY_RULES, { fallbackId: 'ERR-001' });
export const MODEL_LIST_SCHEMA_CHECKS = schemaChecks('model-list', MODEL_LIST_RULES, { fallbackId: 'CAT-032', nullId: 'CAT-027' });
export const MODEL_ENTRY_SCHEMA_CHECKS = schemaChecks('model', CATALOG_ENTRY_RULES, { fallbackId: 'CAT-036', nullId: 'CAT-027' });

/** A 200 non-streamed answer is a JSON chat completion object (4.3). */
export const completionIsJson = check('CHAT-004', function completionIsJson(r: { res: TargetResponse; body: unknown }) {
  return holds(isObject(r.body) && /json/i.test(r.res.headers['content-type'] ?? ''), () => `a non-streamed completion is a JSON chat completion object; received content-type ${r.res.headers['content-type'] ?? '(none)'} and ${r.res.describe()}`);
});

const idsOf = (...groups: readonly (readonly Check<never>[])[]) => [...new Set(groups.flat().map((c) => c.id))];
const asAny = <S>(checks: readonly Check<S>[]) => checks as unknown as readonly Check<never>[];

/** Every requirement the checks of a completion's meaning judge (also on an assembled stream). */
export const MEANING_IDS = idsOf(asAny(COMPLETION_CHECKS));
/** Every requirement the checks of a non-streamed completion judge. */
export const COMPLETION_IDS = idsOf(asAny([completionIsJson]), asAny(COMPLETION_SCHEMA_CHECKS), asAny(COMPLETION_CHECKS));
/** Every requirement the checks of a stream (and of what it assembles into) judge. */
export const STREAM_IDS = idsOf(asAny(STREAM_CHECKS), asAny(CHUNK_SCHEMA_CHECKS), asAny(COMPLETION_CHECKS));
/** Every requirement the checks of a refusal's body judge. */
export const REFUSAL_IDS = idsOf(asAny(ERROR_CHECKS), asAny(ERROR_SCHEMA_CHECKS));

/** Every requirement the checks of a model list (and of single entries) judge. */
export const CATALOG_IDS = idsOf(asAny(MODEL_LIST_CHECKS), asAny(MODEL_LIST_SCHEMA_CHECKS), asAny(MODEL_ENTRY_SCHEMA_CHECKS));

/** Every requirement some registered check judges. */
export const CHECKED_IDS: ReadonlySet<string> = new Set([...COMPLETION_IDS, ...STREAM_IDS, ...REFUSAL_IDS, ...CATALOG_IDS]);

/** Every registered check, for the catalog (spec/REQUIREMENTS.md links each requirement to its checks). */
export const ALL_CHECKS: readonly Check<never>[] = [
  ...asAny([completionIsJson]),
  ...asAny(COMPLETION_SCHEMA_CHECKS),
  ...asAny(COMPLETION_CHECKS),
  ...asAny(STREAM_CHECKS),
  ...asAny(CHUNK_SCHEMA_CHECKS),
  ...asAny(ERROR_CHECKS),
  ...asAny(ERROR_SCHEMA_CHECKS),
  ...asAny(MODEL_LIST_CHECKS),
  ...asAny(MODEL_LIST_SCHEMA_CHECKS),
  ...asAny(MODEL_ENTRY_SCHEMA_CHECKS),
];

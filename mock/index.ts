// Public API of the reference mock.
export { createHandlers, fromRequest, handlers, handlersFor, toResponse } from './handlers.ts';
export { startMockServer, type RunningMockServer, type StartOptions } from './server.ts';
export { createMockService, type MockService } from './service.ts';
export type { MockOptions } from './options.ts';
export { Harness, checkPrefix, type HarnessOptions } from './harness/harness.ts';
export { FaultSpecError, parseFault, type FaultSpec } from './harness/faults.ts';
export { DEFAULT_JOURNAL_BODY_BYTES, DEFAULT_JOURNAL_SIZE, type JournalEntry, type Outcome } from './harness/journal.ts';
export { compileScript, loadScriptFile, ScriptError, type ScriptDocument } from './harness/script.ts';
export { CONTROL_ROOT, TEST_ID_HEADER } from './harness/names.ts';
export { defaultCatalog, defaultKeys } from './core/fixture-data.ts';
export { toPublicEntry } from './core/catalog.ts';
export { DEFAULT_BODY_LIMIT_BYTES } from './core/limits.ts';
export { countTokens, tokenize } from './engine/tokens.ts';
export { encodeEvent, encodeStream, FRAMINGS, type Framing } from './core/sse-encoder.ts';
export type { BodySource, CoreRequest, CoreResult, CoreResult as MockResult } from './core/http.ts';
export { CORE_DEFECTS, DEFECTS, DEFECT_SECTIONS, defectSpec, isDefectName, type DefectName, type DefectSection, type DefectSpec } from './defects.ts';
export { ALL_VARIANTS, PENDING_VARIANTS, VARIANTS, isVariantName, variantSpec, type VariantName, type VariantSpec } from './variants.ts';
export type {
  ApiKey,
  CatalogFixture,
  CoreOptions,
  FixtureEntry,
  HiddenAttributes,
  KeysFixture,
  MockRoute,
  ModelState,
  PublicCatalogEntry,
} from './core/types.ts';
export * from './keys-and-models.ts';

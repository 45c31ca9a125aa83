// Public API of the reference mock.
export { createHandlers, handlers, handlersFor, toResponse } from './handlers.ts';
export { startMockServer, type RunningMockServer, type StartOptions } from './server.ts';
export { createMockService, type MockService } from './core/service.ts';
export { defaultCatalog, defaultKeys } from './core/fixture-data.ts';
export { toPublicEntry } from './core/catalog.ts';
export { DEFAULT_BODY_LIMIT_BYTES } from './core/limits.ts';
export { countTokens, tokenize } from './core/tokens.ts';
export { encodeEvent, encodeStream } from './core/sse-encoder.ts';
export { FRAMINGS, type Framing } from './core/scenario.ts';
export { CORE_DEFECTS, DEFECTS, DEFECT_SECTIONS, defectSpec, isDefectName, type DefectName, type DefectSection, type DefectSpec } from './defects.ts';
export { ALL_VARIANTS, PENDING_VARIANTS, VARIANTS, isVariantName, variantSpec, type VariantName, type VariantSpec } from './variants.ts';
export type {
  ApiKey,
  CatalogFixture,
  FixtureEntry,
  HiddenAttributes,
  KeysFixture,
  MockOptions,
  MockResult,
  MockRoute,
  ModelState,
  PublicCatalogEntry,
} from './core/types.ts';
export * from './keys-and-models.ts';

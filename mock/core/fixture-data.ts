// Loads the catalog and key fixtures once per process. Options may replace either.
import { readFileSync } from 'node:fs';
import type { CatalogFixture, KeysFixture, CoreOptions } from './types.ts';

const fixtureUrl = (name: string): URL => new URL(`../../fixtures/mock/${name}`, import.meta.url);

let catalogCache: CatalogFixture | undefined;
let keysCache: KeysFixture | undefined;

/** The default catalog fixture (fixtures/mock/catalog.json), parsed once. */
export function defaultCatalog(): CatalogFixture {
  catalogCache ??= JSON.parse(readFileSync(fixtureUrl('catalog.json'), 'utf8')) as CatalogFixture;
  return catalogCache;
}

/** The default key fixture (fixtures/mock/keys.json), parsed once. */
export function defaultKeys(): KeysFixture {
  keysCache ??= JSON.parse(readFileSync(fixtureUrl('keys.json'), 'utf8')) as KeysFixture;
  return keysCache;
}

export function catalogOf(options: CoreOptions): CatalogFixture {
  return options.catalog ?? defaultCatalog();
}

export function keysOf(options: CoreOptions): KeysFixture {
  return options.keys ?? defaultKeys();
}

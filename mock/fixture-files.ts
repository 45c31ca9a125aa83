// Another catalog and other keys, from files (`chatconform mock --catalog FILE --keys FILE`): read, checked
// against their schemas (spec/schemas/mock-catalog, mock-keys; each entry's public part against model.schema.json,
// as GET /v1/models will show it) and against each other, so a bad file is refused with every problem named,
// before the mock listens.
import { FileReadError, readJsonFile } from '../spec/file-reader.ts';
import { formatIssues, validate } from '../spec/validator.ts';
import { defaultCatalog } from './core/fixture-data.ts';
import type { CatalogFixture, KeysFixture } from './core/types.ts';

/** A fixture file that cannot be used; the message names the file and each problem. */
export class FixtureFileError extends Error {}

/** Through the kit's one reader (a regular file, bounded; a keys file's text never echoed). */
function readJson(file: string, what: string): unknown {
  try {
    return readJsonFile(file, what, { maxBytes: 64 * 1024 * 1024, timeoutMs: 30_000 });
  } catch (err) {
    throw new FixtureFileError(err instanceof FileReadError ? err.message : `${what} ${file}: cannot be read`);
  }
}

export function loadCatalogFile(file: string): CatalogFixture {
  const data = readJson(file, '--catalog');
  const shape = validate('mock-catalog', data);
  if (!shape.valid) throw new FixtureFileError(`--catalog ${file} does not match spec/schemas/mock-catalog.schema.json: ${oneLine(formatIssues(shape.errors))}`);
  const catalog = data as CatalogFixture;
  const problems: string[] = [];
  const seen = new Set<string>();
  catalog.entries.forEach((entry, i) => {
    const { mock: _hidden, ...shown } = entry;
    // honours: CAT-004, CAT-005, CAT-006, CAT-009, CAT-010, CAT-011
    // honours: CAT-016, CAT-019, CAT-022, CAT-023, CAT-024, AUTH-009 (a file's entries are 2.10 entries: types, required
    // fields, description never empty, featured fields only when featured)
    const r = validate('model', shown);
    if (!r.valid) problems.push(`entries[${i}] (${entry.id}) is not a catalog entry: ${oneLine(formatIssues(r.errors))}`);
    // honours: CAT-030
    if (seen.has(entry.id)) problems.push(`entries[${i}]: the id ${entry.id} is listed twice`);
    seen.add(entry.id);
    if (!catalog.tiers_order.includes(entry.min_tier)) problems.push(`entries[${i}] (${entry.id}): min_tier ${JSON.stringify(entry.min_tier)} is not one of tiers_order (${catalog.tiers_order.join(', ')})`);
  });
  if (problems.length > 0) throw new FixtureFileError(`--catalog ${file}: ${problems.join('; ')}`);
  return catalog;
}

/** Keys, checked against the catalog they will be used with (tiers, restricted model lists). */
export function loadKeysFile(file: string, catalog: CatalogFixture = defaultCatalog()): KeysFixture {
  const data = readJson(file, '--keys');
  const shape = validate('mock-keys', data);
  if (!shape.valid) throw new FixtureFileError(`--keys ${file} does not match spec/schemas/mock-keys.schema.json: ${oneLine(formatIssues(shape.errors))}`);
  const keys = data as KeysFixture;
  const ids = new Set(catalog.entries.map((e) => e.id));
  const problems: string[] = [];
  const seen = new Set<string>();
  keys.keys.forEach((k, i) => {
    if (seen.has(k.key)) problems.push(`keys[${i}] (${k.name}): the key is listed twice`);
    seen.add(k.key);
    if (!catalog.tiers_order.includes(k.tier)) problems.push(`keys[${i}] (${k.name}): tier ${JSON.stringify(k.tier)} is not one of the catalog's tiers (${catalog.tiers_order.join(', ')})`);
    for (const m of k.models ?? []) if (!ids.has(m)) problems.push(`keys[${i}] (${k.name}): model ${m} is not in the catalog`);
  });
  if (problems.length > 0) throw new FixtureFileError(`--keys ${file}: ${problems.join('; ')}`);
  return keys;
}

const oneLine = (s: string) => s.replace(/\s*\n\s*/g, '; ');

// The golden-exchange file format (mock/golden/golden.schema.json): loading, validation, and the key placeholders.
// One file under mock/golden/<area>/<name>.json is one request to the reference mock and the answer it must give.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Ajv2020 from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv';
import { MOCK_KEYS } from '../../mock/keys-and-models.ts';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A server-sent event's data payload: parsed JSON, or the text as is ("[DONE]", or anything that is no JSON). */
export type EventPayload = Json;

export interface GoldenOptions {
  variant?: string[];
  slow?: { headersMs: number; eventMs: number };
}

export interface GoldenRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  mountPrefix?: string;
  headers?: Record<string, string>;
  body?: Json;
  rawBody?: string;
  padTo?: number;
}

export interface GoldenExpect {
  status: number;
  headers: Record<string, string | null>;
  body?: Json;
  events?: EventPayload[];
  raw?: string;
  keyOrder?: boolean;
}

export interface GoldenExchange {
  $schema?: string;
  narrative: string;
  /** position of the curl example in mock/README.md */
  readme?: number;
  options?: GoldenOptions;
  request: GoldenRequest;
  expect: GoldenExpect;
}

/** A golden exchange and where it lives: `name` is `<area>/<file name without .json>`. */
export interface GoldenFile {
  name: string;
  file: string;
  exchange: GoldenExchange;
}

const here = path.dirname(fileURLToPath(import.meta.url));
export const REPO_ROOT = path.resolve(here, '../..');
export const GOLDEN_DIR = path.join(REPO_ROOT, 'mock/golden');
export const GOLDEN_SCHEMA_PATH = path.join(GOLDEN_DIR, 'golden.schema.json');

/** The areas, in the order the runner and the README list them. */
export const AREAS = ['catalog', 'chat', 'stream', 'errors', 'scenarios', 'variants'] as const;

let validator: ValidateFunction | undefined;

/** Problems of one parsed file against golden.schema.json (empty when valid). */
export function schemaProblems(data: unknown): string[] {
  if (!validator) {
    // strictRequired off: the exclusive-field rules (not/oneOf over required) name properties declared a level up.
    const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true, strictRequired: false });
    validator = ajv.compile(JSON.parse(readFileSync(GOLDEN_SCHEMA_PATH, 'utf8')) as object);
  }
  if (validator(data)) return [];
  return (validator.errors ?? []).map((e) => `${e.instancePath || '/'}: ${e.message ?? 'invalid'}`);
}

function areaRank(name: string): number {
  const i = (AREAS as readonly string[]).indexOf(name.split('/')[0]!);
  return i < 0 ? AREAS.length : i;
}

/** Every golden file, validated (a file that breaks the schema throws, naming the file and the problems). */
export function loadGoldenFiles(dir: string = GOLDEN_DIR): GoldenFile[] {
  const files: GoldenFile[] = [];
  for (const area of readdirSync(dir, { withFileTypes: true })) {
    if (!area.isDirectory()) continue;
    for (const entry of readdirSync(path.join(dir, area.name)).filter((f) => f.endsWith('.json'))) {
      const file = path.join(dir, area.name, entry);
      const name = `${area.name}/${entry.slice(0, -'.json'.length)}`;
      let data: unknown;
      try {
        data = JSON.parse(readFileSync(file, 'utf8'));
      } catch (err) {
        throw new Error(`${name}: not JSON: ${(err as Error).message}`);
      }
      const problems = schemaProblems(data);
      if (problems.length > 0) throw new Error(`${name}: breaks mock/golden/golden.schema.json:\n  ${problems.join('\n  ')}`);
      files.push({ name, file, exchange: data as GoldenExchange });
    }
  }
  return files.sort((a, b) => areaRank(a.name) - areaRank(b.name) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** The key placeholders of request headers and the fixture keys they stand for. */
export const KEY_PLACEHOLDERS: Readonly<Record<string, string>> = {
  KEY_FULL: MOCK_KEYS.full,
  KEY_STANDARD: MOCK_KEYS.standard,
  KEY_FREE: MOCK_KEYS.free,
  KEY_RESTRICTED: MOCK_KEYS.restricted,
};

/** A header value with its $KEY_... placeholders replaced by the fixture keys (an unknown one throws). */
export function resolveKeys(value: string): string {
  return value.replace(/\$([A-Z_]+)/g, (whole, name: string) => {
    const key = KEY_PLACEHOLDERS[name];
    if (key === undefined) throw new Error(`unknown placeholder ${whole} (known: ${Object.keys(KEY_PLACEHOLDERS).map((k) => `$${k}`).join(', ')})`);
    return key;
  });
}

/** The canonical text of an options set: files with equal options share one mock instance per adapter. */
export function optionsKey(options: GoldenOptions | undefined): string {
  if (!options) return '{}';
  const sorted: Record<string, unknown> = {};
  for (const k of Object.keys(options).sort()) sorted[k] = (options as Record<string, unknown>)[k];
  return JSON.stringify(sorted);
}

/** Whether the request asks for a stream (the curl gets -N). */
export function isStreamRequest(request: GoldenRequest): boolean {
  return typeof request.body === 'object' && request.body !== null && !Array.isArray(request.body) && request.body['stream'] === true;
}

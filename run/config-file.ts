// chatconform.config.json (or .yaml / .yml): a run's settings kept beside the project that uses the kit, named by
// --config (CONFORMANCE_CONFIG_FILE) or found in the working directory or its parents (schema
// spec/schemas/config-file.schema.json). It fills in only what neither the command line nor the environment set:
// flags, then CONFORMANCE_* variables, then the file, then the defaults. Relative paths are read from the file's
// folder. The key itself never lives there (apiKeyEnv).
import { existsSync } from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { readBoundedText } from '../spec/file-reader.ts';
import { formatIssues, validate } from '../spec/validator.ts';
import { headersText } from './extra-headers.ts';
import { REFERENCE_ENV } from './reference.ts';
import { ENV, SETTINGS, setting, type SettingValues } from './settings.ts';

export const CONFIG_FILE_NAMES = ['chatconform.config.json', 'chatconform.config.yaml', 'chatconform.config.yml'] as const;

/** A config file's settings: the table's settings that have a key (run/settings.ts), and the variables naming the keys. */
export type ConfigFile = { [K in FileSettingName]?: NonNullable<SettingValues[K]> } & { apiKeyEnv?: string; referenceApiKeyEnv?: string };

type FileSettingName = Extract<(typeof SETTINGS)[number], { file: true }>['name'];

/** The variable each key fills, and whether its value is a path (read from the file's folder). */
export const CONFIG_FILE_VARIABLES = Object.fromEntries(
  SETTINGS.filter((s) => s.file).map((s) => [s.name, { env: s.env, ...(s.kind === 'path' || s.kind === 'profile' ? { path: true as const } : {}) }]),
) as Record<FileSettingName, { env: string; path?: true }>;

/** The nearest config file from `dir` up to the file system's root, or undefined. */
export function findConfigFile(dir: string): string | undefined {
  for (let d = path.resolve(dir); ; d = path.dirname(d)) {
    for (const name of CONFIG_FILE_NAMES) if (existsSync(path.join(d, name))) return path.join(d, name);
    if (path.dirname(d) === d) return undefined;
  }
}

/** Most bytes of a config file: a few KB are meant; a larger one is refused before YAML sees it. */
export const CONFIG_FILE_MAX_BYTES = 1024 * 1024;

/**
 * Reads and checks a config file (through the kit's one reader: a regular file, bounded, found or named alike); a
 * bad one is a clear error naming the file and the fields, never echoing a value (a key pasted into `seed`).
 */
export function readConfigFile(file: string): ConfigFile {
  const text = readBoundedText(file, 'config file', { maxBytes: CONFIG_FILE_MAX_BYTES, timeoutMs: 10_000 });
  let data: unknown;
  try {
    data = YAML.parse(text);
  } catch (err) {
    const e = err as { linePos?: { line: number; col: number }[] };
    const at = e.linePos?.[0] ? ` at line ${e.linePos[0].line}, column ${e.linePos[0].col}` : '';
    throw new Error(`config file ${file}: not readable as JSON or YAML${at}`);
  }
  const result = validate('config-file', data ?? {});
  if (!result.valid) throw new Error(`config file ${file} does not match spec/schemas/config-file.schema.json:\n${formatIssues(result.errors, { values: false })}`);
  return (data ?? {}) as ConfigFile;
}

/**
 * The variables a config file adds to `env`: only those `env` does not set already. Returns the additions (the
 * caller applies them), so nothing is read twice and the precedence stays in one place.
 */
export function configFileEnv(file: string, config: ConfigFile, env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  const base = path.dirname(file);
  for (const [key, spec] of Object.entries(CONFIG_FILE_VARIABLES) as [keyof typeof CONFIG_FILE_VARIABLES, { env: string; path?: true }][]) {
    const value = config[key];
    if (value === undefined || (env[spec.env] !== undefined && env[spec.env] !== '')) continue;
    out[spec.env] = Array.isArray(value)
      ? value.join(',')
      : typeof value === 'object'
        ? headersText(value)
        : spec.path
          ? path.resolve(base, String(value))
          : String(value);
  }
  if (config.apiKeyEnv && !env[ENV.apiKey] && env[config.apiKeyEnv]) out[ENV.apiKey] = env[config.apiKeyEnv]!;
  if (config.referenceApiKeyEnv && !env[REFERENCE_ENV.apiKey] && env[config.referenceApiKeyEnv]) out[REFERENCE_ENV.apiKey] = env[config.referenceApiKeyEnv]!;
  return out;
}

/** The config file of a run: the one CONFORMANCE_CONFIG_FILE (`--config`) names, which must exist, else the nearest. */
export function configFileOf(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): string | undefined {
  const named = env[setting('configFile').env];
  if (!named) return findConfigFile(cwd);
  // Whether it is a regular file, and readable within bounds, is the reader's to say (readConfigFile).
  return path.resolve(cwd, named);
}

/** Finds the config file (named, or from `cwd` up) and fills `env` from it; returns the file used, if any. */
export function applyConfigFile(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): string | undefined {
  const file = configFileOf(env, cwd);
  if (!file) return undefined;
  Object.assign(env, configFileEnv(file, readConfigFile(file), env));
  return file;
}

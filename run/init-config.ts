// `chatconform init`: a first chatconform.config.yaml written from what a target shows for free. It reads the
// catalog (GET /v1/models: no completion is asked, nothing is spent) and writes the base URL, where the key comes
// from, and each listed model with the capabilities its entry shows, as comments to pin from.
import YAML from 'yaml';
import { normaliseBaseUrl, ENV } from './config.ts';
import { sendRequest } from './http.ts';
import { redact } from '../spec/redact.ts';

export interface InitResult {
  /** The file's text (YAML). */
  text: string;
  models: { id: string; capabilities: string[] }[];
}

const CAPABILITIES = [
  ['supports_images', 'images'],
  ['supports_reasoning', 'reasoning'],
  ['supports_caching', 'caching'],
  ['supports_global_endpoint', 'global endpoint'],
] as const;

/** Reads the target's catalog and renders the config file; a target that gives no model list is a clear error. */
export async function initConfig(baseUrl: string, apiKey: string | undefined, timeoutMs = 15_000): Promise<InitResult> {
  const base = normaliseBaseUrl(baseUrl);
  const headers: Record<string, string> = { accept: 'application/json', 'user-agent': 'chatconform' };
  if (apiKey) headers.authorization = `Bearer ${apiKey}`;
  const res = await sendRequest({ method: 'GET', url: `${base}/v1/models`, headers, timeoutMs, maxBodyBytes: 16 * 1024 * 1024 });
  const secrets = apiKey ? [apiKey] : [];
  const text = res.body.toString('utf8');
  let list: { data?: unknown } | undefined;
  try {
    list = JSON.parse(text) as { data?: unknown };
  } catch {
    list = undefined;
  }
  if (res.status !== 200 || !Array.isArray(list?.data)) {
    const what = res.status === 0 ? `no response (${res.error ?? 'transport'})` : `HTTP ${res.status}: ${text.slice(0, 200).replace(/\s+/g, ' ')}`;
    throw new Error(redact(`GET ${base}/v1/models gave no model list: ${what}`, secrets));
  }
  const models = (list.data as unknown[])
    .filter((m): m is Record<string, unknown> => typeof m === 'object' && m !== null && typeof (m as { id?: unknown }).id === 'string')
    .map((m) => ({ id: m.id as string, capabilities: CAPABILITIES.filter(([field]) => m[field] === true).map(([, name]) => name) }));
  const doc = YAML.stringify({ $schema: 'https://chatconform.dev/schemas/config-file.schema.json', baseUrl: base, apiKeyEnv: ENV.apiKey }, { lineWidth: 0 });
  const width = Math.max(0, ...models.map((m) => m.id.length));
  const lines = [
    '# chatconform.config.yaml: written by `chatconform init` from the catalog of this target.',
    '# Flags and CONFORMANCE_* variables win over this file. Keep the key out of it: it is read from apiKeyEnv.',
    doc.trimEnd(),
    '',
    `# The catalog lists ${models.length} model(s). To certify some of them only, uncomment and edit:`,
    `# models: [${models.slice(0, 1).map((m) => JSON.stringify(m.id)).join(', ')}]`,
    ...models.map((m) => `#   ${m.id.padEnd(width)}  ${m.capabilities.length > 0 ? m.capabilities.join(', ') : '(no capability flag set)'}`),
    '',
  ];
  return { text: redact(lines.join('\n'), secrets), models };
}

// What the suite learns about a target at runtime (the catalog is live; ids are never hard-coded).
// The global setup reads the catalog and probes hosted search once per run and stores the result in the
// run folder; tests pick models from it by capability.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Profile } from './profile.ts';
import { redact } from './redact.ts';
import type { Target } from './target.ts';

export interface ModelEntry {
  id: string;
  name?: string;
  min_tier?: string;
  max_tokens?: number;
  context_window?: number;
  supports_images?: boolean;
  supports_caching?: boolean;
  supports_reasoning?: boolean;
  input_price?: number;
  output_price?: number;
  thinking_config?: Record<string, unknown>;
  [field: string]: unknown;
}

export interface SearchProbe {
  model: string;
  /** capable: answered 200; unsupported: refused with web_search_not_supported; budget: needs a larger output budget. */
  result: 'capable' | 'unsupported' | 'budget' | 'other';
  status: number;
  code?: string;
  /** The minimum output budget N the refusal message reported. */
  minOutputTokens?: number;
}

export interface Discovery {
  /** Set when the catalog could not be read; tests that need models skip with it as the reason. */
  catalogError?: string;
  models: ModelEntry[];
  searchProbes: SearchProbe[];
}

const FILE = 'discovery.json';

/** Written redacted: a target may echo a credential into its catalog, and the scratch folder is on disk. */
export function saveDiscovery(runDir: string, d: Discovery, secrets: readonly string[]): void {
  writeFileSync(path.join(runDir, FILE), redact(JSON.stringify(d, null, 2), secrets));
}

export function loadDiscovery(runDir: string): Discovery {
  const file = path.join(runDir, FILE);
  if (!existsSync(file)) return { catalogError: 'discovery did not run (no global setup?)', models: [], searchProbes: [] };
  return JSON.parse(readFileSync(file, 'utf8')) as Discovery;
}

const BUDGET_MESSAGE = /requires an output budget of at least (\d+) tokens; (\d+) was requested/;

/** Reads the catalog and probes hosted search on a few models, through the target client. */
export async function discover(target: Target, profile: Profile, maxSearchProbes: number): Promise<Discovery> {
  const res = await target.get('/v1/models');
  const body = res.json() as { data?: unknown } | undefined;
  if (res.status !== 200 || !body || !Array.isArray(body.data)) {
    return { catalogError: `GET /v1/models did not return a model list: ${res.describe()}`, models: [], searchProbes: [] };
  }
  const models = body.data.filter((m): m is ModelEntry => typeof m === 'object' && m !== null && typeof (m as ModelEntry).id === 'string');
  const d: Discovery = { models, searchProbes: [] };
  const known = new Set(profile.webSearch?.models ?? []);
  const candidates = [...profile.webSearch?.models ?? [], ...usableModels(d, profile).map((m) => m.id).filter((id) => !known.has(id))];
  for (const id of candidates.slice(0, maxSearchProbes)) {
    if (profile.webSearch?.unsupportedModels?.includes(id)) continue;
    d.searchProbes.push(await probeSearch(target, id));
  }
  for (const id of profile.webSearch?.unsupportedModels ?? []) d.searchProbes.push({ model: id, result: 'unsupported', status: 0 });
  return d;
}

async function probeSearch(target: Target, model: string): Promise<SearchProbe> {
  const res = await target.chat({ model, messages: [{ role: 'user', content: 'Which city hosts the Louvre?' }], web_search_options: {} });
  const err = (res.json() as { error?: { code?: unknown; message?: unknown } } | undefined)?.error;
  const code = typeof err?.code === 'string' ? err.code : undefined;
  const probe: SearchProbe = { model, status: res.status, result: 'other' };
  if (code) probe.code = code;
  if (res.status === 200) probe.result = 'capable';
  else if (code === 'web_search_not_supported') probe.result = 'unsupported';
  else if (code === 'web_search_output_budget_too_small') {
    probe.result = 'budget';
    const m = typeof err?.message === 'string' ? BUDGET_MESSAGE.exec(err.message) : null;
    if (m) probe.minOutputTokens = Number(m[1]);
  }
  return probe;
}

/** Refusal codes that are about the model, not the request: no feature can be judged on such a model. */
const MODEL_REFUSALS = new Set(['model_unavailable', 'model_not_found', 'model_not_allowed']);

/**
 * Models the run's own probes found unservable: a listed model may be known but not servable right now
 * (section 7, model_unavailable), which is no fault of the feature a test would send to it.
 */
function probedUnservable(d: Discovery): string[] {
  return d.searchProbes
    .filter((p) => (p.code !== undefined && MODEL_REFUSALS.has(p.code)) || (p.status === 503 && !p.code?.startsWith('web_search')))
    .map((p) => p.model);
}

/** Listed models the run's key can be expected to use, cheapest first (care with paid deployments). */
export function usableModels(d: Discovery, profile: Profile): ModelEntry[] {
  const excluded = new Set([profile.unavailableModel, profile.deactivatedModel, ...probedUnservable(d)].filter(Boolean));
  return d.models
    .filter((m) => !excluded.has(m.id))
    .sort((a, b) => price(a) - price(b) || a.id.localeCompare(b.id));
}

function price(m: ModelEntry): number {
  const p = (m.output_price ?? Number.POSITIVE_INFINITY) + (m.input_price ?? 0);
  return Number.isFinite(p) ? p : Number.MAX_SAFE_INTEGER;
}

export interface ModelNeeds {
  images?: boolean;
  reasoning?: boolean;
  caching?: boolean;
  /** Pick one whose catalog max_tokens is published. */
  publishedMaxTokens?: boolean;
}

/** The cheapest usable model with the wanted catalog capabilities, or undefined. */
export function pickModel(d: Discovery, profile: Profile, needs: ModelNeeds = {}): ModelEntry | undefined {
  return usableModels(d, profile).find(
    (m) =>
      (needs.images === undefined || m.supports_images === needs.images) &&
      (needs.reasoning === undefined || m.supports_reasoning === needs.reasoning) &&
      (needs.caching === undefined || m.supports_caching === needs.caching) &&
      (!needs.publishedMaxTokens || typeof m.max_tokens === 'number'),
  );
}

export function searchModels(d: Discovery, result: SearchProbe['result']): SearchProbe[] {
  return d.searchProbes.filter((p) => p.result === result);
}

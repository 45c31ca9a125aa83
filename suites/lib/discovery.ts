// What the suite learns about a target at runtime (the catalog is live; ids are never hard-coded).
// The global setup reads the catalog and probes hosted search once per run and stores the result in the
// run folder; tests pick models from it by capability.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Profile } from '../../run/profile.ts';
import { searched, searchReport } from '../../judge/search.ts';
import { redact } from '../../spec/redact.ts';
import { SEARCH_MESSAGES } from './requests/search.ts';
import type { Target } from '../../run/target.ts';

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
  /**
   * capable: answered 200 and reported a search (provenance or usage.service_web_search_calls); ignored: answered
   * 200 without any sign of a search; unsupported: refused with web_search_not_supported; budget: needs a larger
   * output budget (either read by its code, else by its fixed message); other: none of these (a refusal that names
   * neither search refusal is SEARCH-045's finding, judged by that test: see requests/search.ts `unclassified`).
   */
  result: 'capable' | 'ignored' | 'unsupported' | 'budget' | 'other';
  status: number;
  code?: string;
  /** The minimum output budget N the refusal message reported. */
  minOutputTokens?: number;
}

/** How one listed model answered the smallest possible completion with the run's key. */
export interface AccessProbe {
  model: string;
  status: number;
  code?: string;
}

export interface Discovery {
  /** Set when the catalog could not be read and no model is pinned; tests that need models skip with it as the reason. */
  catalogError?: string;
  /**
   * Set when GET /v1/models gave no list but the run is pinned to models: `models` are then the pinned ones, each as
   * GET /v1/models/{model_id} answered it (or its id alone), and the chat tests run on them. The list's failure is
   * the catalog tests' finding, one cause, never a reason to skip the rest.
   */
  listError?: string;
  models: ModelEntry[];
  searchProbes: SearchProbe[];
  /** One-token completions to the cheapest listed models: which of them the run's key may use now. */
  accessProbes?: AccessProbe[];
  /** The models the run is pinned to (CONFORMANCE_MODELS, the profile's `models`): no other is ever asked a completion. */
  pinned?: string[];
}

/** Most listed models asked a one-token completion to learn whether the run's key may use them. */
const MAX_ACCESS_PROBES = 8;

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
export async function discover(target: Target, profile: Profile, maxSearchProbes: number, pinned?: readonly string[], matrix: readonly string[] = []): Promise<Discovery> {
  // GET is idempotent: a catalog read that got no response at all is tried again (a slow or busy target must not
  // leave the whole run without models to judge), at most twice more.
  let res = await target.get('/v1/models');
  for (let i = 0; i < 2 && res.exchange.status === 0 && !/budget/.test(res.exchange.error ?? ''); i++) res = await target.get('/v1/models');
  const body = res.json() as { data?: unknown } | undefined;
  let models: ModelEntry[];
  let listError: string | undefined;
  if (res.status !== 200 || !body || !Array.isArray(body.data)) {
    listError = `GET /v1/models did not return a model list: ${res.describe()}`;
    if (!pinned || pinned.length === 0) return { catalogError: listError, models: [], searchProbes: [] };
    models = await pinnedEntries(target, pinned);
  } else {
    models = body.data.filter((m): m is ModelEntry => typeof m === 'object' && m !== null && typeof (m as ModelEntry).id === 'string');
  }
  const d: Discovery = { models, searchProbes: [], accessProbes: [], ...(pinned ? { pinned: [...pinned] } : {}), ...(listError ? { listError } : {}) };
  // The key's tier and model list are invisible to a black box: ask the cheapest models for one token, and for
  // each capability the tests pick by, the cheapest models that have it, until one is found the key may use.
  const probedIds = new Set<string>();
  const probe = async (m: ModelEntry) => {
    if (probedIds.has(m.id) || probedIds.size >= MAX_ACCESS_PROBES * 2) return;
    probedIds.add(m.id);
    d.accessProbes!.push(await probeAccess(target, m.id));
  };
  for (const m of usableModels(d, profile).slice(0, MAX_ACCESS_PROBES)) await probe(m);
  for (const needs of [{ images: true }, { images: false }, { reasoning: true }, { reasoning: false }, { caching: true }] as ModelNeeds[]) {
    for (let i = 0; i < 3; i++) {
      const m = pickModel(d, profile, needs);
      if (!m || probedIds.has(m.id)) break; // none, or one already found usable
      await probe(m);
    }
  }
  const known = new Set(profile.webSearch?.models ?? []);
  const candidates = [...profile.webSearch?.models ?? [], ...usableModels(d, profile).map((m) => m.id).filter((id) => !known.has(id))].filter((id) => isPinned(d, id));
  for (const id of candidates.slice(0, maxSearchProbes)) {
    if (profile.webSearch?.unsupportedModels?.includes(id)) continue;
    d.searchProbes.push(await probeSearch(target, id));
  }
  for (const id of profile.webSearch?.unsupportedModels ?? []) d.searchProbes.push({ model: id, result: 'unsupported', status: 0 });
  // The per-model matrix: every chosen model is asked once whether the key may use it (a refused one is skipped with
  // the reason), and once for search (its own web-search tests pick by it), outside the probe limits above.
  for (const id of matrix) {
    if (!d.accessProbes!.some((p) => p.model === id)) d.accessProbes!.push(await probeAccess(target, id));
    const usable = d.accessProbes!.find((p) => p.model === id)?.status === 200;
    if (usable && !d.searchProbes.some((p) => p.model === id)) d.searchProbes.push(await probeSearch(target, id));
  }
  return d;
}

/**
 * The pinned models when there is no list to find them in: each as GET /v1/models/{model_id} answers it (an entry
 * whose id is the model's: its capabilities guide the picks), else its id alone (a chat test needs no more).
 */
async function pinnedEntries(target: Target, pinned: readonly string[]): Promise<ModelEntry[]> {
  const entries: ModelEntry[] = [];
  for (const id of pinned) {
    const res = await target.get(`/v1/models/${encodeURIComponent(id)}`);
    const entry = res.status === 200 ? (res.json() as ModelEntry | undefined) : undefined;
    entries.push(entry && typeof entry === 'object' && entry.id === id ? entry : { id });
  }
  return entries;
}

async function probeSearch(target: Target, model: string): Promise<SearchProbe> {
  const res = await target.chat({ model, messages: [{ role: 'user', content: 'Which city hosts the Louvre?' }], web_search_options: {} });
  const err = (res.json() as { error?: { code?: unknown; message?: unknown } } | undefined)?.error;
  const code = typeof err?.code === 'string' ? err.code : undefined;
  const message = typeof err?.message === 'string' ? err.message : undefined;
  const probe: SearchProbe = { model, status: res.status, result: 'other' };
  if (code) probe.code = code;
  // A refusal whose code does not say which (missing, wrong) is read by section 7's fixed message, so the test of
  // that refusal judges it (and its code): a wrong code never leaves the model unclassified when the text names it.
  const byText = code !== 'web_search_not_supported' && code !== 'web_search_output_budget_too_small';
  if (res.status === 200) probe.result = searched(searchReport(res.json() as Record<string, unknown> | undefined)) ? 'capable' : 'ignored';
  else if (code === 'web_search_not_supported' || (byText && message === SEARCH_MESSAGES.notSupported)) probe.result = 'unsupported';
  else if (code === 'web_search_output_budget_too_small' || (byText && message !== undefined && BUDGET_MESSAGE.test(message))) {
    probe.result = 'budget';
    const m = typeof err?.message === 'string' ? BUDGET_MESSAGE.exec(err.message) : null;
    if (m) probe.minOutputTokens = Number(m[1]);
  }
  return probe;
}

async function probeAccess(target: Target, model: string): Promise<AccessProbe> {
  const res = await target.chat({ model, messages: [{ role: 'user', content: 'Say hello.' }], max_completion_tokens: 1 });
  const code = (res.json() as { error?: { code?: unknown } } | undefined)?.error?.code;
  return { model, status: res.status, ...(typeof code === 'string' ? { code } : {}) };
}

/**
 * Models the run's key may not use now, by its access probe: refused for the key (401, 403: tier, model list,
 * deactivated), unknown (404), or unavailable (503). No feature can be judged on them.
 */
function probedInaccessible(d: Pick<Discovery, 'accessProbes'>): AccessProbe[] {
  return (d.accessProbes ?? []).filter((p) => p.status === 401 || p.status === 403 || p.status === 404 || p.status === 503 || p.code === 'model_unavailable');
}

/** Whether the run may ask `id` for a completion (every model, unless the run is pinned). */
export function isPinned(d: Pick<Discovery, 'pinned'>, id: string): boolean {
  return d.pinned === undefined || d.pinned.includes(id);
}

/** Why no model is usable: the catalog error, an empty catalog, the pinned models, or what the access probes were told. */
export function noUsableReason(d: Discovery, what = 'a usable model'): string {
  if (d.catalogError) return d.catalogError;
  if (d.models.length === 0) return 'the catalog lists no model';
  if (d.pinned) {
    const listed = d.pinned.filter((id) => d.models.some((m) => m.id === id));
    if (listed.length === 0) return `none of the pinned models (${d.pinned.join(', ')}) is in the catalog`;
    // The skip names what the pinned models lack: the capability the test needs.
    if (usableModels(d, {}).length > 0) {
      const need = /with (.+)$/.exec(what)?.[1];
      return `the run is pinned to ${listed.join(', ')}: ${need ? `none has ${need}` : `none is ${what}`}`;
    }
  }
  const refused = probedInaccessible(d);
  if (refused.length > 0 && usableModels(d, {}).length === 0) {
    return `the catalog lists ${d.models.length} model(s) but the run's key may use none of them now: ${refused.slice(0, 5).map((p) => `${p.model} HTTP ${p.status}${p.code ? ` ${p.code}` : ''}`).join(', ')}`;
  }
  return `the catalog lists no ${what}`;
}

/** Listed models the run's key can be expected to use, cheapest first (care with paid deployments). */
export function usableModels(d: Pick<Discovery, 'models' | 'accessProbes' | 'pinned'>, profile: Profile): ModelEntry[] {
  const excluded = new Set([profile.unavailableModel, profile.deactivatedModel, ...probedInaccessible(d).map((p) => p.model)].filter(Boolean));
  return d.models
    .filter((m) => !excluded.has(m.id) && isPinned(d, m.id))
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

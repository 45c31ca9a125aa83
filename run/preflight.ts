// What `chatconform run` checks before any test, in its own process, with the GET /v1/models the suite would make
// first and one empty completion (refused before anything is generated): a target that cannot be reached or is not this API,
// a base URL ending in /v1, 404 everywhere, a key that is missing or refused, a --models selection of no model, a
// --model the catalog does not list. Each is one line of run/setup-messages.ts, thrown as a SetupError (exit 2 for
// the command line, 3 for the rest): a setup mistake costs a second, not a whole run to a FAIL charged to the server.
import { sendRequest, type TransportResult } from './http.ts';
import { chooseModels, needsCatalog } from './model-matrix.ts';
import type { RunPlan } from './plan.ts';
import { reachTarget, REACH_TIMEOUT_MS, type ReachAnswer } from './reachability.ts';
import { setupError, type SetupError } from './setup-messages.ts';

/**
 * The run's key as the run header and the messages name it: its source and last 4 characters, never more. Its value
 * is the environment's (a credential never travels in the plan), else the profile's.
 */
export interface RunKey {
  /** `$CONFORMANCE_API_KEY`, `--api-key`, `$MY_KEY (config file)`, `the profile's apiKey (...)`, or `none`. */
  source: string;
  value?: string;
}

/** The key a plan's run uses: the one given (`secrets`, the environment's), else its profile's. */
export function runKeyOf(plan: Pick<RunPlan, 'keySource'>, given: string | undefined, profileKey: string | undefined): RunKey {
  const value = given ?? profileKey;
  return { source: plan.keySource, ...(value ? { value } : {}) };
}

/** `$CONFORMANCE_API_KEY (...cdef)`, or `none`. A key of fewer than 8 characters shows none of them. */
export function describeKey(key: RunKey): string {
  if (!key.value) return 'none';
  return `${key.source} (${key.value.length >= 8 ? `...${key.value.slice(-4)}` : `${key.value.length} characters`})`;
}

export interface PreflightInput {
  baseUrl: string;
  /** The run's headers, the credential included (never printed). */
  headers: Record<string, string>;
  /** The run's key, for the messages (its value only to tell a missing key from a refused one). */
  key?: RunKey;
  waitSeconds: number;
  /** --models, when the run has a per-model matrix. */
  modelSelection?: readonly string[];
  /** --model, when the run was given models to pin. */
  models?: readonly string[];
  /** One line to the person running it (stderr). */
  say: (line: string) => void;
  /** A GET, or a POST of `body` (JSON). */
  send?: (url: string, headers: Record<string, string>, body?: string) => Promise<TransportResult>;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
}

export interface PreflightResult {
  /** Whether it waited for the target: then the suite need not wait again. */
  waited: boolean;
}

function send(url: string, headers: Record<string, string>, body?: string): Promise<TransportResult> {
  return sendRequest({
    method: body === undefined ? 'GET' : 'POST',
    url,
    headers: { accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    ...(body === undefined ? { noLengthHeaders: true } : { body: Buffer.from(body) }),
    idleTimeoutMs: REACH_TIMEOUT_MS,
    timeoutMs: REACH_TIMEOUT_MS,
  });
}

const asAnswer = (r: TransportResult): ReachAnswer & { result: TransportResult } => ({
  result: r,
  exchange: { status: r.status, responseHeaders: r.headers, responseBody: r.body.toString('utf8'), ...(r.error !== undefined ? { error: r.error } : {}), ...(r.errorKind !== undefined ? { errorKind: r.errorKind } : {}) },
});

/** The ids a catalog answer lists, or undefined when it is not a catalog. */
function listedIds(body: string): string[] | undefined {
  try {
    const data = (JSON.parse(body) as { data?: unknown }).data;
    if (!Array.isArray(data)) return undefined;
    return data.map((m) => (m as { id?: unknown })?.id).filter((id): id is string => typeof id === 'string');
  } catch {
    return undefined;
  }
}

/** The error code of an error answer (`error.code`, else `error.type`), if it has one. */
export function errorCodeOf(body: string): string | undefined {
  try {
    const error = (JSON.parse(body) as { error?: { code?: unknown; type?: unknown } }).error;
    const code = error?.code ?? error?.type;
    return typeof code === 'string' && code.length <= 64 ? code : undefined;
  } catch {
    return undefined;
  }
}

/** The refusal of the run's key (or of none), when every request `what` names was refused with 401 or 403. */
export function keyRefusal(p: { key: RunKey | undefined; what: string; status: number; code?: string }): SetupError {
  const code = p.code !== undefined ? { code: p.code } : {};
  return p.key?.value ? setupError('keyRefused', { key: describeKey(p.key), what: p.what, status: p.status, ...code }) : setupError('keyMissing', { what: p.what, status: p.status, ...code });
}

const refused = (status: number) => status === 401 || status === 403;

/**
 * The global setup's check after discovery (a run started without `chatconform run`'s preflight, or a catalog open
 * to anyone): the catalog refused for the key (401/403), or every model probed refused it (401). Else undefined.
 */
export function discoveryKeyRefusal(baseUrl: string, key: RunKey, catalog: { status: number; exchange: { responseBody: string } }, probes: readonly { model: string; status: number; code?: string }[]): SetupError | undefined {
  if (refused(catalog.status)) return keyRefusal({ key, what: `GET ${baseUrl}/v1/models`, status: catalog.status, ...codeOf(catalog.exchange.responseBody) });
  if (probes.length === 0 || !probes.every((p) => p.status === 401)) return undefined;
  const what = `every completion discovery asked (${probes.map((p) => p.model).join(', ')})`;
  return keyRefusal({ key, what, status: 401, ...(probes[0]!.code !== undefined ? { code: probes[0]!.code } : {}) });
}

/** The checks before any test; a setup mistake throws its SetupError. */
export async function preflight(p: PreflightInput): Promise<PreflightResult> {
  const ask = p.send ?? send;
  let last: TransportResult | undefined;
  const problem = await reachTarget(
    async () => asAnswer(await ask(`${p.baseUrl}/v1/models`, p.headers)),
    p.baseUrl,
    {
      waitSeconds: p.waitSeconds,
      onWait: (why) => p.say(`chatconform: waiting up to ${p.waitSeconds} s for the target (${why})`),
      onStillWaiting: (s) => p.say(`chatconform: still waiting for the target at ${p.baseUrl}: ${s} of ${p.waitSeconds} s`),
      ...(p.sleep ? { sleep: p.sleep } : {}),
      ...(p.now ? { now: p.now } : {}),
    },
    (a) => (last = a.result),
  );
  if (problem !== undefined) throw problem;
  const waited = p.waitSeconds > 0;
  const answer = last!;
  // The openai SDK's habit: a base URL with /v1 in it. The kit adds /v1 to every path, so every request would 404.
  if (answer.status === 404 && /\/v1$/.test(p.baseUrl)) {
    const without = p.baseUrl.replace(/\/v1$/, '');
    const plain = await ask(`${without}/v1/models`, p.headers);
    if (plain.status >= 200 && plain.status < 300) throw setupError('baseUrlEndsInV1', { baseUrl: p.baseUrl, without, status: plain.status });
  }
  // The catalog is open to anyone (AUTH-005): the key shows on a completion. An empty one is refused before anything
  // is generated (it costs nothing), after the key is checked; and a missing API answers it 404 like its catalog.
  const chat = await ask(`${p.baseUrl}/v1/chat/completions`, p.headers, '{}');
  if (answer.status === 404 && chat.status === 404) throw setupError('notFound', { baseUrl: p.baseUrl });
  const body = answer.body.toString('utf8');
  if (refused(answer.status)) throw keyRefusal({ key: p.key, what: `GET ${p.baseUrl}/v1/models`, status: answer.status, ...codeOf(body) });
  // The command line's mistakes first (exit 2): a catalog the kit cannot read is the suite's to judge; only a
  // readable one can show a selection empty or a pinned model missing.
  const listed = answer.status >= 200 && answer.status < 300 ? listedIds(body) : undefined;
  if (listed !== undefined) {
    const selection = p.modelSelection;
    if (selection && selection.length > 0 && needsCatalog(selection) && chooseModels(selection, listed).length === 0) throw setupError('modelsMatchNone', { selection: [...selection], listed: listed.length });
    const missing = (p.models ?? []).filter((id) => !listed.includes(id));
    if (missing.length > 0) throw setupError('modelNotListed', { missing, listed });
  }
  if (refused(chat.status)) throw keyRefusal({ key: p.key, what: `POST ${p.baseUrl}/v1/chat/completions`, status: chat.status, ...codeOf(chat.body.toString('utf8')) });
  return { waited };
}

const codeOf = (body: string): { code?: string } => {
  const code = errorCodeOf(body);
  return code !== undefined ? { code } : {};
};

/**
 * The preflight of a run's plan: its target, headers, key, wait and models. A run of many targets (a targets file)
 * and the embedded mock have none: the global setup reaches each. A target it waited for is not waited for again.
 */
export async function preflightPlan(plan: RunPlan, key: RunKey, say: (line: string) => void): Promise<void> {
  const baseUrl = plan.settings.baseUrl;
  if (plan.embeddedMock || baseUrl === undefined || plan.targets) return;
  const headers = { ...(plan.settings.headers ?? {}), ...(key.value ? { authorization: `Bearer ${key.value}` } : {}) };
  const found = await preflight({
    baseUrl,
    headers,
    key,
    waitSeconds: plan.settings.waitForTarget ?? 0,
    ...(plan.settings.modelMatrix ? { modelSelection: plan.settings.modelMatrix } : {}),
    // The models given (a flag, a variable, the config file); a profile's pinned models are the profile's to keep.
    ...(plan.given.includes('models') && plan.settings.models ? { models: plan.settings.models } : {}),
    say,
  });
  if (found.waited) plan.settings.waitForTarget = 0;
}

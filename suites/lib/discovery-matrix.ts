// The per-model matrix on Playwright: one project per chosen model runs the model-dependent spec files, and every
// test tagged model-dependent wherever it is (run/trials.ts MODEL_DEPENDENT_TAG), with its model (project metadata
// `model`); one project runs the rest of the model-independent files once. Projects are fixed when the
// config loads, before the global setup: the runner's process resolves the selection against the catalog then
// (the embedded mock's own catalog, or GET /v1/models through the target client) and hands the result to its
// workers in CONFORMANCE_MODEL_MATRIX_RESOLVED, so every process runs the same projects.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Catalog } from '../../mock/core/catalog.ts';
import { defaultCatalog } from '../../mock/core/fixture-data.ts';
import { ENV, freshRunConfig, profilePathOf } from '../../run/config.ts';
import { chooseModels, matrixProblem, modelSelectionOf, needsCatalog } from '../../run/model-matrix.ts';
import { loadProfile, type Profile } from '../../run/profile.ts';
import { Target } from '../../run/target.ts';
import { both, either, MODEL_DEPENDENT_GREP } from '../../run/trials.ts';
import type { Discovery } from './discovery.ts';
import { MODEL_SKIP_PREFIX } from '../../report/models.ts';

/** The file of the matrix's chosen model ids (JSON), set by the runner's process for its workers; not meant to be set by people. */
export const MATRIX_RESOLVED_ENV = 'CONFORMANCE_MODEL_MATRIX_RESOLVED';

/** Spec files judged once per run, whatever the model: the catalog, authentication, errors, limits, routing. */
export const MODEL_INDEPENDENT_SPECS = ['catalog', 'auth', 'errors', 'limits', 'routing'] as const;

/** The project of the model-independent files. */
export const SHARED_PROJECT = 'model-independent';

// Every skip reason of a model the run cannot judge starts so (the report's fold tells a skipped model by it).
export { MODEL_SKIP_PREFIX };

/**
 * The chosen models, or undefined when the run has no matrix. The runner's process resolves them once and hands
 * them to its workers in a file (CONFORMANCE_MODEL_MATRIX_RESOLVED names it): a catalog's ids never travel in a
 * variable or on a command line. Too many models, or an id too long, ends the run with one line.
 */
export async function resolveModelMatrix(env: NodeJS.ProcessEnv = process.env): Promise<string[] | undefined> {
  const resolved = env[MATRIX_RESOLVED_ENV];
  if (resolved) return JSON.parse(readFileSync(resolved, 'utf8')) as string[];
  const profilePath = env[ENV.profile] ? profilePathOf(env[ENV.profile]!) : undefined;
  const patterns = modelSelectionOf(env[ENV.modelMatrix], (profilePath ? loadProfile(profilePath) : {}).modelMatrix);
  if (!patterns) return undefined;
  if (needsCatalog(patterns)) process.stderr.write(`chatconform: reading the catalog to choose the models of --models ${patterns.join(',')}\n`);
  const listed = needsCatalog(patterns) ? await listedIds(env) : [];
  const chosen = chooseModels(patterns, listed);
  const problem = matrixProblem(chosen, patterns);
  if (problem !== undefined) throw new MatrixRefused(problem);
  const dir = env[ENV.runDir] && existsSync(env[ENV.runDir]!) ? env[ENV.runDir]! : mkdtempSync(path.join(os.tmpdir(), 'chatconform-matrix-'));
  const file = path.join(dir, 'matrix-models.json');
  writeFileSync(file, JSON.stringify(chosen));
  env[MATRIX_RESOLVED_ENV] = file;
  return chosen;
}

/** A matrix the run will not make (too many models, an id too long): said in one line, without a stack. */
export class MatrixRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MatrixRefused';
    this.stack = message;
  }
}

/** The ids the target lists; [] (with a note) when the catalog cannot be read: the global setup then says why. */
async function listedIds(env: NodeJS.ProcessEnv): Promise<string[]> {
  if (!env[ENV.baseUrl]) return new Catalog(defaultCatalog()).listedEntries.map((e) => e.id);
  // The run's scratch folder does not exist yet: this one request is budgeted in a folder of its own.
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'chatconform-matrix-'));
  try {
    const res = await new Target({ ...freshRunConfig(), runDir: scratch }).get('/v1/models');
    const data = (res.json() as { data?: unknown } | undefined)?.data;
    if (res.status === 200 && Array.isArray(data)) return data.map((m) => (m as { id?: unknown })?.id).filter((id): id is string => typeof id === 'string');
    process.stderr.write(`chatconform: the model matrix could not read the catalog: ${res.describe()}\n`);
    return [];
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** Matches a test of a model-independent file (Playwright greps "project file titles tags": the file is one word). */
function inFiles(stems: readonly string[]): RegExp {
  return new RegExp(`\\s(?:${stems.join('|')})\\.spec\\.[jt]s(?=\\s)`);
}

/**
 * The projects of a matrix run: the model-independent files once, then the others once per model. A test tagged
 * model-dependent runs per model wherever it is declared. A project's grep replaces the config's, so the run's
 * selection (`filter`, run/selection.ts) is kept inside each project.
 */
export function matrixProjects(
  models: readonly string[],
  ext: string,
  filter: { grep?: RegExp; grepInvert?: RegExp } = {},
): { name: string; testMatch?: string[]; testIgnore?: string[]; grep?: RegExp; grepInvert?: RegExp; metadata?: { model: string } }[] {
  const shared = MODEL_INDEPENDENT_SPECS.map((name) => `**/${name}.spec${ext}`);
  const sharedFile = inFiles(MODEL_INDEPENDENT_SPECS);
  // Not in a shared file, or tagged: a lookahead that fails on a shared file's tests unless they carry the tag.
  const perModel = new RegExp(`^(?![\\s\\S]*${sharedFile.source})|${MODEL_DEPENDENT_GREP.source}`);
  return [
    { name: SHARED_PROJECT, testMatch: shared, ...(filter.grep ? { grep: filter.grep } : {}), grepInvert: either(filter.grepInvert, MODEL_DEPENDENT_GREP) },
    ...models.map((model) => ({ name: model, testIgnore: ['kit/**'], grep: both(filter.grep, perModel), ...(filter.grepInvert ? { grepInvert: filter.grepInvert } : {}), metadata: { model } })),
  ];
}

/** The model a project judges (its metadata), or undefined for the shared project and a run without a matrix. */
export function projectModel(project: { metadata?: unknown } | undefined): string | undefined {
  const model = (project?.metadata as { model?: unknown } | undefined)?.model;
  return typeof model === 'string' ? model : undefined;
}

/** Why the run cannot judge `model` (not listed, the key may not use it, the profile says it cannot serve), or undefined. */
export function modelSkipReason(d: Discovery, profile: Profile, model: string): string | undefined {
  if (d.catalogError) return undefined; // the tests skip with the catalog's error themselves
  const why = (text: string) => `${MODEL_SKIP_PREFIX}${model}: ${text}`;
  const probe = d.accessProbes?.find((p) => p.model === model);
  const answer = probe ? `a one-token completion naming it: HTTP ${probe.status}${probe.code ? ` ${probe.code}` : ''}` : '';
  if (probe && (probe.status === 401 || probe.status === 403)) return why(`the run's key may not use it (${answer})`);
  if (!d.models.some((m) => m.id === model)) return why(`the catalog does not list it${probe && probe.status !== 200 ? ` (${answer})` : ''}`);
  if (model === profile.deactivatedModel || model === profile.unavailableModel) return why(`the profile names it ${model === profile.deactivatedModel ? 'deactivated' : 'unavailable'}`);
  if (probe && (probe.status === 404 || probe.status === 503 || probe.code === 'model_unavailable')) return why(`it cannot be served now (${answer})`);
  return undefined;
}

/** The discovery a model's project sees: pinned to its model, with only its own search probe. */
export function discoveryFor(d: Discovery, model: string): Discovery {
  return { ...d, pinned: [model], searchProbes: d.searchProbes.filter((p) => p.model === model) };
}

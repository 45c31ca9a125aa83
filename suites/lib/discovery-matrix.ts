// The per-model matrix on Playwright: a chosen model is part of a slot of the run (run/slots.ts), not a project.
// Every test that runs per model (any test of a model-dependent file, and any test tagged model-dependent wherever
// it is: run/trials.ts MODEL_DEPENDENT_TAG) is declared once per model, inside its slot's describe block, with the
// model in an annotation (MODEL_ANNOTATION); the model-independent tests are declared once. All of them share one
// project and one set of worker fixtures, so the same workers serve every model: Playwright starts a worker per
// project and per repetition index (repeatEach), never per test option. The runner's process resolves the selection
// against the catalog when the config loads (the embedded mock's own catalog, or GET /v1/models through the target
// client) and writes the chosen ids beside the run's plan (run/plan.ts): every process of the run reads them there.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Catalog } from '../../mock/core/catalog.ts';
import { defaultCatalog } from '../../mock/core/fixture-data.ts';
import { freshRunConfig } from '../../run/config.ts';
import { chooseModels, matrixProblem, needsCatalog } from '../../run/model-matrix.ts';
import type { Profile } from '../../run/profile.ts';
import { currentPlan, PLAN_ENV, type RunPlan } from '../../run/plan.ts';
import { Target } from '../../run/target.ts';
import { SLOT_ANNOTATION } from '../../run/slots.ts';
import type { Discovery } from './discovery.ts';
import { MODEL_SKIP_PREFIX } from '../../report/models.ts';

/** The file of the matrix's chosen model ids (JSON), in the run's scratch folder beside plan.json. */
export const MATRIX_MODELS_FILE = 'matrix-models.json';

/** Spec files judged once per run, whatever the model: the catalog, authentication, errors, limits, routing. */
export const MODEL_INDEPENDENT_SPECS = ['catalog', 'auth', 'errors', 'limits', 'routing'] as const;

/** The annotation naming the model a test of the matrix judges (its slot's). */
export const MODEL_ANNOTATION = SLOT_ANNOTATION.model;

// Every skip reason of a model the run cannot judge starts so (the report's fold tells a skipped model by it).
export { MODEL_SKIP_PREFIX };

/**
 * The chosen models, or undefined when the run has no matrix (or no plan: a merge replays a finished run). The
 * runner's process resolves them once and writes them to the run's folder; the workers (and the global setup, the
 * reporter) read that file: a catalog's ids never travel in a variable or on a command line. Too many models, or an
 * id too long, ends the run with one line.
 */
export async function resolveModelMatrix(plan: RunPlan | undefined): Promise<string[] | undefined> {
  const written = plan ? matrixModelsOf(plan) : undefined;
  if (written || !plan) return written;
  const patterns = plan.settings.modelMatrix;
  if (!patterns || patterns.length === 0) return undefined;
  if (needsCatalog(patterns)) process.stderr.write(`chatconform: reading the catalog to choose the models of --models ${patterns.join(',')}\n`);
  const listed = needsCatalog(patterns) ? await listedIds(plan) : [];
  const chosen = chooseModels(patterns, listed);
  const problem = matrixProblem(chosen, patterns);
  if (problem !== undefined) throw new MatrixRefused(problem);
  writeFileSync(path.join(plan.runDir, MATRIX_MODELS_FILE), JSON.stringify(chosen));
  return chosen;
}

/** The models the run's plan chose (written by the runner's process when its config loaded), or undefined. */
export function matrixModelsOf(plan: RunPlan | undefined): string[] | undefined {
  const file = plan?.runDir ? path.join(plan.runDir, MATRIX_MODELS_FILE) : undefined;
  return file && existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as string[]) : undefined;
}

let chosenInThisProcess: { plan: string | undefined; models: string[] | undefined } | undefined;
/** The chosen models as this process sees them, read once (every test declaration asks). */
export function matrixModels(env: NodeJS.ProcessEnv = process.env): string[] | undefined {
  const planFile = env[PLAN_ENV];
  if (!chosenInThisProcess || chosenInThisProcess.plan !== planFile) chosenInThisProcess = { plan: planFile, models: matrixModelsOf(currentPlan(env)) };
  return chosenInThisProcess.models;
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
async function listedIds(plan: RunPlan): Promise<string[]> {
  if (plan.embeddedMock) return new Catalog(defaultCatalog()).listedEntries.map((e) => e.id);
  // This one request is budgeted in a folder of its own: the run's requests are its tests' and its discovery's.
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

/**
 * Whether `file` (a spec file's path, TypeScript or compiled) is one of MODEL_INDEPENDENT_SPECS: judged once per
 * target, only its tests tagged model-dependent once per model.
 */
export function isModelIndependentSpec(file: string): boolean {
  const own = path.relative(SUITES_DIR, file).split(path.sep).join('/').replace(/\.spec\.[cm]?[jt]s$/, '');
  return (MODEL_INDEPENDENT_SPECS as readonly string[]).includes(own);
}

/** The suite's folder (the spec files of MODEL_INDEPENDENT_SPECS are at its top). */
const SUITES_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The model a test judges (its MODEL_ANNOTATION), or undefined for a model-independent test and a run without a matrix. */
export function modelOfAnnotations(annotations: readonly { type: string; description?: string }[]): string | undefined {
  return annotations.find((a) => a.type === MODEL_ANNOTATION)?.description;
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

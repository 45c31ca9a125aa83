// The per-model matrix (`--models`, CONFORMANCE_MODEL_MATRIX, the config file's and the profile's `modelMatrix`):
// which listed models the run judges one by one with the model-dependent tests. A selection is `all`, or ids and
// globs (`acme/*`: `*` any run of characters but `/`, `**` any run; `?` one character). Pure functions of plain data.

/** A selection's patterns: CONFORMANCE_MODEL_MATRIX (comma-separated) first, else the profile's; undefined: no matrix. */
export function modelSelectionOf(raw: string | undefined, profileMatrix: readonly string[] | undefined): string[] | undefined {
  const fromEnv = (raw ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  const patterns = fromEnv.length > 0 ? fromEnv : (profileMatrix ?? []).map((s) => s.trim()).filter(Boolean);
  return patterns.length > 0 ? [...new Set(patterns)] : undefined;
}

const isGlob = (pattern: string) => pattern === 'all' || /[*?]/.test(pattern);

/** `*` any run of characters but `/` (as in a path: `acme/*` is not `acme/x/y`), `**` any run, `?` one character. */
function globRegExp(pattern: string): RegExp {
  if (pattern === 'all') return /^/;
  const body = pattern
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .split('**')
    .map((part) => part.replace(/\*/g, '[^/]*').replace(/\?/g, '[^/]'))
    .join('.*');
  return new RegExp(`^${body}$`);
}

/**
 * The models a selection chooses from the listed ids: a glob's matches in catalog order, an id as given. An id the
 * catalog does not list is still chosen (its row of the report says why it was skipped); a glob that matches nothing
 * chooses nothing.
 */
export function chooseModels(patterns: readonly string[], listed: readonly string[]): string[] {
  const chosen = new Set<string>();
  for (const p of patterns) {
    if (!isGlob(p)) chosen.add(p);
    else {
      const re = globRegExp(p);
      for (const id of listed) if (re.test(id)) chosen.add(id);
    }
  }
  return [...chosen];
}

/** Whether a selection needs the catalog to be resolved (it has `all` or a glob). */
export function needsCatalog(patterns: readonly string[]): boolean {
  return patterns.some(isGlob);
}

/** Most models one run judges one by one: past it, the run asks for a narrower selection (ids or globs). */
export const MAX_MATRIX_MODELS = 1000;
/** Longest model id the matrix takes from a catalog or a selection. */
export const MAX_MODEL_ID_CHARS = 256;

/**
 * Why the chosen models cannot make a matrix (too many, an id too long), in one line; undefined when they can. A
 * hostile or huge catalog must not turn into thousands of projects, a listing past any buffer, or a variable past
 * what a process may be handed.
 */
export function matrixProblem(chosen: readonly string[], patterns: readonly string[] = []): string | undefined {
  if (chosen.length === 0) return `--models ${patterns.join(',')}: no model of the catalog matches it, so there is no model to judge`;
  if (chosen.length > MAX_MATRIX_MODELS) return `--models chose ${chosen.length} models; a run judges at most ${MAX_MATRIX_MODELS} one by one: name fewer (ids, or globs such as acme/*)`;
  const long = chosen.find((id) => id.length > MAX_MODEL_ID_CHARS);
  if (long !== undefined) return `--models: a chosen model id is ${long.length} characters long (${JSON.stringify(long.slice(0, 40))}…); the matrix takes ids of at most ${MAX_MODEL_ID_CHARS}`;
  return undefined;
}

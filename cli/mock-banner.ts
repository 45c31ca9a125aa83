// What `chatconform mock` says once it listens, after its first line (`mock listening on URL`, which scripts read):
// the keys it accepts, a few of the models it lists, and the commands that point the kit or a client at it. The
// built-in keys are public fixtures, so they are printed whole; keys from a --keys file are the user's, named only.
import type { CatalogFixture, KeysFixture } from '../mock/core/types.ts';

export interface BannerInput {
  /** The mock's origin (`http://127.0.0.1:N`). */
  url: string;
  /** The mount prefix of the /v1 routes, when there is one. */
  prefix?: string;
  catalog: CatalogFixture;
  keys: KeysFixture;
  /** The keys are the built-in fixtures (public): printed whole. */
  builtinKeys: boolean;
  /** The catalog is the built-in one: the kit's `--profile mock` describes it. */
  builtinCatalog: boolean;
}

/** Models named in the banner (the catalog's listed ones, in its order). */
const MODELS_SHOWN = 2;

/** The lines after the first: keys, models, and what to run next. */
export function bannerLines(b: BannerInput): string[] {
  const base = `${b.url}${b.prefix ?? ''}`;
  const listed = b.catalog.entries.filter((e) => e.mock.state !== 'deactivated').map((e) => e.id);
  const keyText = (k: KeysFixture['keys'][number]): string => {
    const what = `tier ${k.tier}${k.models ? `; only ${k.models.join(', ')}` : ''}`;
    return b.builtinKeys ? `${k.key} (${what})` : `"${k.name}" (${what})`;
  };
  // The built-in set names its three kinds of caller: everything, the lowest tier, a model list.
  const shown = b.builtinKeys ? b.keys.keys.filter((k) => k.models !== undefined || k.tier === 'free' || k.tier === 'pro').slice(0, 3) : b.keys.keys;
  const first = b.keys.keys.find((k) => k.models === undefined) ?? b.keys.keys[0];
  const keyVar = b.builtinKeys && first ? first.key : '<a key of your --keys file>';
  // The mock's own profile carries a built-in key and describes the built-in catalog.
  const run = b.builtinCatalog && b.builtinKeys ? `chatconform run --base-url ${base} --profile mock` : `CONFORMANCE_API_KEY=${keyVar} chatconform run --base-url ${base}`;
  return [
    `  keys: ${shown.map(keyText).join('; ')}${b.builtinKeys ? '' : ' (from --keys)'}`,
    `  models: ${listed.slice(0, MODELS_SHOWN).join(', ')}${listed.length > MODELS_SHOWN ? ` and ${listed.length - MODELS_SHOWN} more (GET ${base}/v1/models)` : ''}`,
    `  judge it: ${run}`,
    `  a client: base URL ${base}/v1, key ${keyVar}`,
  ];
}

/** For `chatconform mock --help`: the built-in keys and what each may do. */
export function keysHelp(keys: KeysFixture): string {
  return `\nBuilt-in keys (public fixtures; --keys FILE replaces them):\n${keys.keys.map((k) => `  ${k.key}  ${k.name}${k.models ? `: ${k.models.join(', ')}` : ''} (tier ${k.tier})`).join('\n')}\n`;
}
